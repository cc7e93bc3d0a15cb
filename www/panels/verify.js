// Verify panel: the template's round-trip self-test. Each fixture is an assistant message rendered by the
// template; parsing that text back must give the message again.
import { h, ws, fill, note, pretty, errorText } from '../show.js';

function row(r, onUse) {
  const use = h('button', { class: 'small secondary', title: 'use this output in the Model output box' }, 'use output');
  use.addEventListener('click', () => onUse?.(r.output));
  return h('details', { class: `verify-item ${r.ok ? '' : 'bad'}`, id: `verify-${r.name}` },
    h('summary', {}, h('span', { class: `badge ${r.ok ? 'okb' : 'warnb'}` }, r.ok ? '✓ ok' : '✗ fail'), ' ',
      h('strong', {}, r.name), r.error ? h('span', { class: 'muted' }, ` — ${errorText(r.error)}`) : null),
    h('div', { class: 'row between' }, h('h3', {}, 'Rendered output'), typeof r.output === 'string' ? use : null),
    h('pre', { class: 'vis-block' }, ws(r.output ?? '')),
    h('div', { class: 'fills' },
      h('div', {}, h('h3', {}, 'Expected'), h('pre', {}, pretty(r.expected))),
      h('div', {}, h('h3', {}, 'Parsed back'), h('pre', {}, pretty(r.actual)))));
}

/** Render a verifyTemplate result; returns the summary text. */
export function renderVerify(el, res, { onUse, version } = {}) {
  if (!res) {
    fill(el, note(`verifyTemplate is not in this build (v${version}): the round-trip self-test appears once it lands.`, 'note missing'));
    return '';
  }
  const results = Array.isArray(res.results) ? res.results : [];
  const ok = results.filter((r) => r.ok).length;
  fill(el, results.length ? h('div', { id: 'verify-list' }, results.map((r) => row(r, onUse))) : note('No fixtures apply to this template.'));
  return `${res.ok ? '✓' : '✗'} ${ok}/${results.length} round-trips ok`;
}
