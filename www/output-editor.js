// The model-output editor: a textarea over a backdrop that paints what the parser recognised (reasoning,
// content, tool calls and their arguments, the analysis' markers), where diagnostics happened, and the
// source span of the delta under the mouse. Both layers share font, padding, wrapping and an always-on
// scrollbar, so the backdrop's text lies exactly under the textarea's.
import { h } from './show.js';
import { lineColumn } from './offsets.js';

export class OutputEditor {
  constructor(textarea, caretInfo) {
    this.ta = textarea;
    this.caretInfo = caretInfo;
    this.back = h('div', { class: 'hl-back', 'aria-hidden': 'true' });
    const wrap = h('div', { class: 'hl-wrap' });
    textarea.replaceWith(wrap);
    wrap.append(this.back, textarea);
    textarea.classList.add('hl-front');
    this.regions = [];
    this.diags = [];
    this.hover = [];
    textarea.addEventListener('scroll', () => this.sync());
    textarea.addEventListener('input', () => { this.regions = []; this.diags = []; this.hover = []; this.paint(); });
    for (const ev of ['click', 'keyup', 'select']) textarea.addEventListener(ev, () => this.caret());
  }

  /** regions: [{start, end, cls, label}] (UTF-16), diags: [{index, message}]. */
  set(regions, diags) {
    this.regions = regions || [];
    this.diags = diags || [];
    this.paint();
    this.caret();
  }

  setHover(ranges) {
    this.hover = ranges || [];
    this.paint();
    const first = this.hover[0];
    if (first) this.reveal(first[0]);
  }

  sync() {
    this.back.scrollTop = this.ta.scrollTop;
    this.back.scrollLeft = this.ta.scrollLeft;
  }

  /** Scroll the textarea so the line holding `index` is visible. */
  reveal(index) {
    const { line } = lineColumn(this.ta.value, index);
    const lh = parseFloat(getComputedStyle(this.ta).lineHeight) || 17;
    const y = (line - 1) * lh;
    if (y < this.ta.scrollTop || y > this.ta.scrollTop + this.ta.clientHeight - 2 * lh) {
      this.ta.scrollTop = Math.max(0, y - lh * 2);
      this.sync();
    }
  }

  /** Every span of the backdrop: segments between region boundaries, each with the classes covering it. */
  paint() {
    const text = this.ta.value;
    const marks = [
      ...this.regions,
      ...this.diags.map((d) => ({ start: d.index, end: Math.min(text.length, d.index + 1) || d.index, cls: 'r-diag', label: d.message })),
      ...this.hover.map(([s, e]) => ({ start: s, end: e, cls: 'r-hover', label: 'source of the hovered delta' })),
    ].filter((m) => m.start <= text.length);
    const cuts = new Set([0, text.length]);
    for (const m of marks) { cuts.add(Math.min(m.start, text.length)); cuts.add(Math.min(m.end, text.length)); }
    const points = [...cuts].sort((a, b) => a - b);
    const out = [];
    for (let i = 0; i + 1 < points.length; i++) {
      const [a, b] = [points[i], points[i + 1]];
      const cls = marks.filter((m) => m.start <= a && m.end >= b && m.end > m.start).map((m) => m.cls);
      out.push(cls.length ? h('span', { class: cls.join(' ') }, text.slice(a, b)) : text.slice(a, b));
    }
    // A diagnostic at the very end (e.g. "output ends inside a tool call") gets a visible end mark.
    if (this.diags.some((d) => d.index >= text.length)) out.push(h('span', { class: 'r-diag r-end' }, ' '));
    out.push('\n ');
    this.back.replaceChildren(...out);
    this.sync();
  }

  /** What the caret is in: "line 3, column 7: tool call 0 arguments". */
  caret() {
    if (!this.caretInfo) return;
    const at = this.ta.selectionStart;
    const text = this.ta.value;
    if (!text || document.activeElement !== this.ta) {
      this.caretInfo.textContent = text ? 'click in the output (or hover a delta) to see what the parser made of that place' : '';
      return;
    }
    const here = this.regions.filter((r) => r.start <= at && at < r.end).map((r) => r.label);
    const diag = this.diags.filter((d) => d.index === at).map((d) => `diagnostic: ${d.message}`);
    const { line, column } = lineColumn(text, at);
    this.caretInfo.textContent = `line ${line}, column ${column}: ${[...here, ...diag].join(' · ') || 'not inside a recognised region'}`;
  }

  /** Select [start, end) in the textarea and bring it into view. */
  select(start, end = start + 1) {
    this.ta.focus();
    this.ta.setSelectionRange(start, Math.min(this.ta.value.length, end));
    this.reveal(start);
    this.caret();
  }
}
