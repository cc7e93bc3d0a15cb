// Response template panel: the analysis as a Hugging Face response_template (copyable), what the spec
// cannot express, and whether parsing the current output by the spec agrees with our parser. A declared
// response_template (from a dropped tokenizer_config.json) is checked the same way.
import { h, fill, note, pretty, errorText, copyText } from '../show.js';

const show = (v) => (typeof v === 'string' ? v : pretty(v));

/** "agrees" or the differing fields, for one parse_response result {dict, diffs} | {error}. */
function agreement(check, messageError, id, who) {
  if (messageError) return h('div', { class: 'error', id }, `our parser failed on this output: ${errorText(messageError)}`);
  if (check.error) return h('div', { class: 'error', id }, `${who}: parse_response fails on this output: ${errorText(check.error)}`);
  if (!check.diffs.length) return h('div', { class: 'ok', id }, `✓ agrees: ${who} gives our parser's message for the current output`);
  return h('div', { class: 'error', id },
    h('div', {}, `✗ differs from our parser in ${check.diffs.map((d) => d.field).join(', ')}`),
    h('table', { class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', {}, 'field'), h('th', {}, 'our parser'), h('th', {}, 'parse_response'))),
      h('tbody', {}, check.diffs.map((d) => h('tr', {}, h('td', { class: 'path' }, d.field), h('td', {}, show(d.ours)), h('td', {}, show(d.theirs)))))));
}

function copyButton(json) {
  const btn = h('button', { class: 'small secondary', id: 'rt-copy', title: 'copy the response_template JSON' }, 'Copy JSON');
  btn.addEventListener('click', async () => {
    const ok = await copyText(json);
    btn.textContent = ok ? 'Copied ✓' : 'Copy failed';
    setTimeout(() => { btn.textContent = 'Copy JSON'; }, 1500);
  });
  return btn;
}

function lossTable(losses) {
  if (!Array.isArray(losses) || !losses.length) return note('Nothing lost: the spec expresses everything our parser does for this template.', 'ok');
  return h('table', { class: 'grid', id: 'rt-losses' },
    h('thead', {}, h('tr', {}, h('th', {}, 'feature'), h('th', {}, 'severity'), h('th', {}, 'what is lost'))),
    h('tbody', {}, losses.map((l) => h('tr', {}, h('td', { class: 'path' }, l.feature),
      h('td', { class: 'nowrap' }, h('span', { class: `badge ${l.severity === 'unsupported' ? 'warnb' : ''}` }, l.severity)), h('td', {}, l.detail)))));
}

/** Render the worker's `responseTemplate` answer (null when the build lacks the API). */
export function renderResponseTemplate(el, res, { version } = {}) {
  if (!res) {
    fill(el, note(`responseTemplate is not in this build (v${version}).`, 'note missing'));
    return;
  }
  const json = pretty(res.responseTemplate);
  const declared = res.declaredTemplate === undefined || res.declaredTemplate === null ? null : [
    h('div', { class: 'row between' }, h('h3', {}, 'Declared response_template (tokenizer_config.json)')),
    res.declared ? agreement(res.declared, res.messageError, 'rt-declared-agree', 'the declared template') : null,
    h('details', {}, h('summary', {}, 'Declared JSON'), h('pre', { id: 'rt-declared-json' }, pretty(res.declaredTemplate))),
  ];
  fill(el,
    agreement(res.derived, res.messageError, 'rt-agree', 'the derived template (transformers\' parse_response semantics)'),
    declared,
    h('div', { class: 'row between' }, h('h3', {}, 'Derived response_template'), copyButton(json)),
    h('pre', { id: 'rt-json' }, json),
    h('h3', {}, 'What the spec cannot express'), lossTable(res.losses));
}
