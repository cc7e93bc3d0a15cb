// Grammar panel: GBNF (with copy), lazy triggers, preserved tokens, and whether the sample output is
// accepted, with the first character the grammar cannot continue with highlighted.
import { h, ws, fill, note, errorText, byteToIndex, copyText } from '../show.js';

/** The acceptance verdict for `output` under `check` ({accepted, errorAt} with errorAt a UTF-8 byte offset). */
export function acceptance(check, checkError, output) {
  if (checkError) return h('div', { class: 'error', id: 'accept' }, `checkGrammar failed: ${errorText(checkError)}`);
  if (!check) return note('checkGrammar is not in this build: acceptance of the sample output cannot be shown.', 'note missing');
  if (!output) return h('div', { class: 'note', id: 'accept' }, 'Paste or generate a model output to check it against the grammar.');
  if (check.accepted) return h('div', { class: 'ok', id: 'accept' }, '✓ the sample output is accepted by the grammar');
  const at = byteToIndex(output, check.errorAt ?? output.length);
  const line = output.slice(0, at).split('\n').length;
  const atEnd = at >= output.length;
  return h('div', { class: 'error', id: 'accept' },
    atEnd ? `✗ rejected: the output ends before the grammar is satisfied (byte ${check.errorAt})`
      : `✗ rejected at byte ${check.errorAt} (line ${line}): the first character no rule allows is highlighted`,
    h('pre', { class: 'vis-block' }, ws(output.slice(0, at), 'g-ok'),
      atEnd ? h('span', { class: 'g-bad' }, '▮ (end)') : ws(Array.from(output.slice(at))[0], 'g-bad'),
      ws(output.slice(at + (Array.from(output.slice(at))[0] || '').length), 'g-rest')));
}

/** Render {grammar, check, checkError} or a missing-API note. */
export function renderGrammar(el, res, output, { version } = {}) {
  if (!res) {
    fill(el, note(`buildGrammar is not in this build (v${version}): the GBNF appears once it lands.`, 'note missing'));
    return;
  }
  const g = res.grammar || {};
  const copy = h('button', { class: 'small', id: 'copy-gbnf' }, 'Copy GBNF');
  copy.addEventListener('click', async () => {
    copy.textContent = (await copyText(g.gbnf || '')) ? 'Copied ✓' : 'Copy failed';
    setTimeout(() => { copy.textContent = 'Copy GBNF'; }, 1500);
  });
  const triggers = Array.isArray(g.triggers) && g.triggers.length
    ? h('table', { class: 'grid', id: 'triggers' }, h('thead', {}, h('tr', {}, h('th', {}, 'type'), h('th', {}, 'value'))),
      h('tbody', {}, g.triggers.map((t) => h('tr', {}, h('td', {}, t.type), h('td', {}, ws(t.value))))))
    : note(g.lazy ? 'Lazy grammar without triggers.' : 'No triggers: the grammar applies from the first token.');
  const preserved = Array.isArray(g.preservedTokens) && g.preservedTokens.length
    ? h('div', { class: 'chips' }, g.preservedTokens.map((t) => h('span', { class: 'chip tok' }, ws(t))))
    : note('none');
  fill(el,
    acceptance(res.check, res.checkError, output),
    h('div', { class: 'kv' }, h('span', { class: 'k' }, 'lazy'), h('span', { class: 'badge' }, String(!!g.lazy)),
      h('span', { class: 'muted' }, `${(g.gbnf || '').split('\n').length} lines`)),
    h('h3', {}, 'Triggers'), triggers,
    h('h3', {}, 'Preserved tokens'), preserved,
    h('div', { class: 'row between' }, h('h3', {}, 'GBNF'), copy),
    h('pre', { id: 'gbnf', class: 'gbnf' }, g.gbnf || ''));
}
