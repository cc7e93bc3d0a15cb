// Parsed panel: the message the parser makes of the current output, shown as soon as anything changes;
// next to it the deltas (merged per field, each with the output span it came from: hover to see it in the
// output editor) and the parser's diagnostics (click to jump to the place).
import { h, ws, fill, note, pretty, errorText } from '../show.js';
import { lineColumn } from '../offsets.js';

const KIND_LABEL = { reasoning: 'reasoning_content', content: 'content', name: 'function.name', id: 'id', arguments: 'function.arguments' };

function messageView(m) {
  const calls = m.tool_calls || [];
  const argsText = (a) => { try { return pretty(JSON.parse(a)); } catch { return String(a); } };
  return h('div', { id: 'parsed-message' },
    h('div', { class: 'fills' },
      h('div', {}, h('h3', {}, 'Reasoning'), m.reasoning_content == null ? note('none') : h('pre', { class: 'vis-block', id: 'parsed-reasoning' }, ws(m.reasoning_content))),
      h('div', {}, h('h3', {}, 'Content'), m.content == null ? note('none') : h('pre', { class: 'vis-block', id: 'parsed-content' }, ws(m.content)))),
    h('h3', {}, `Tool calls (${calls.length})`),
    calls.length ? h('table', { class: 'grid', id: 'parsed-tools' },
      h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'name'), h('th', {}, 'id'), h('th', {}, 'arguments'))),
      h('tbody', {}, calls.map((c, i) => h('tr', {}, h('td', {}, i), h('td', { class: 'name' }, c.function?.name ?? ''),
        h('td', {}, c.id ?? ''), h('td', { class: 'args' }, argsText(c.function?.arguments)))))) : null,
    h('details', {}, h('summary', {}, 'Message JSON'), h('pre', { id: 'parsed-json' }, pretty(m))));
}

function deltaList(spans, text, editor) {
  if (!spans.length) return note('No deltas: the output is empty.');
  return h('ol', { class: 'log spans', id: 'parsed-deltas' }, spans.map((s) => {
    const where = s.ranges.length ? s.ranges.map(([a, b]) => `${a}–${b}`).join(', ') : 'nowhere (generated)';
    const field = s.index === undefined ? KIND_LABEL[s.kind] : `tool_calls[${s.index}].${KIND_LABEL[s.kind]}`;
    const li = h('li', {
      class: `span-item k-${s.kind}`, tabindex: '0',
      title: `from output characters ${where}${s.exact ? '' : ' (approximate: the parser rewrote this text)'}; ${s.count} delta${s.count > 1 ? 's' : ''} merged`,
      'data-ranges': JSON.stringify(s.ranges),
    },
    h('span', { class: 'field' }, field), ' ', ws(s.text, '', true),
    h('span', { class: 'muted where' }, ` @${where}${s.exact ? '' : ' ≈'}`));
    const on = () => editor?.setHover(s.ranges);
    const off = () => editor?.setHover([]);
    li.addEventListener('mouseenter', on);
    li.addEventListener('focus', on);
    li.addEventListener('mouseleave', off);
    li.addEventListener('blur', off);
    li.addEventListener('click', () => { if (s.ranges.length) editor?.select(s.ranges[0][0], s.ranges.at(-1)[1]); });
    return li;
  }));
}

/** Diagnostics as a list; each jumps to its place in the output editor. */
export function diagnosticList(diags, text, editor, id) {
  if (!diags?.length) return h('div', { class: 'ok', id }, '✓ no diagnostics: the output is in the template\'s canonical form');
  return h('ul', { class: 'diag', id }, diags.map((d) => {
    const { line, column } = lineColumn(text, d.index);
    return h('li', {}, h('button', {
      class: 'small secondary', title: 'select this place in the Model output box',
      onclick: () => editor?.select(d.index),
    }, `line ${line}:${column}`), ` ${d.message}`);
  }));
}

/** res: the worker's parseStreamed answer plus `spans`. */
export function renderParsed(el, res, text, editor) {
  if (!text) {
    fill(el, note('Paste what the model generated into the Model output box (or pick a fixture): the parsed message appears here.'));
    return;
  }
  const problems = [];
  if (res.error) {
    const at = res.error.index;
    // The place is given as line:column of the converted offset, not as the API's raw offset.
    problems.push(h('div', { class: 'error' }, `finish(): ${errorText({ ...res.error, offset: undefined })} `,
      at === undefined ? null : h('button', { class: 'small secondary', onclick: () => editor?.select(at) },
        `line ${lineColumn(text, at).line}:${lineColumn(text, at).column}`)));
  }
  if (res.whole) {
    problems.push(h('div', { class: 'error' }, '✗ the whole-text parseOutput gives a different message:', h('pre', {}, pretty(res.whole))));
  }
  if (res.finishReason === 'length') {
    problems.push(note('finishReason: length — the output ends inside a tool call: the last call is incomplete (see the diagnostics).'));
  }
  if (res.stopped) problems.push(note('The parser stopped at an end-of-message marker: later text is ignored.'));
  fill(el, problems, messageView(res.message),
    h('div', { class: 'fills deltas-diags' },
      h('div', {}, h('h3', {}, 'Deltas ', h('span', { class: 'muted' }, `(${res.events.length}, merged per field: hover one to see its source)`)),
        deltaList(res.spans, text, editor)),
      h('div', {}, h('h3', {}, 'Diagnostics ', h('span', { class: 'muted' }, `(${res.diagnostics.length})`)),
        diagnosticList(res.diagnostics, text, editor, 'parsed-diags'))));
}
