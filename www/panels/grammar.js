// Grammar panel: GBNF (with copy), lazy triggers, preserved tokens, and whether the sample output is
// accepted (from the first trigger on, for a lazy grammar), with the first rejected character highlighted.
import { h, ws, fill, note, errorText, copyText } from '../show.js';

/** Free text before the trigger (faint), then the constrained part. */
function freePart(output, check) {
  if (!check.start) return null;
  const at = check.start;
  return h('span', { class: 'g-free', title: 'before the trigger: not constrained by the grammar' }, ws(output.slice(0, at)));
}

/**
 * The acceptance verdict for `output` under `check` ({accepted, errorAt, start, trigger, untriggered,
 * errors}; positions are JS string indices into the whole output).
 */
export function acceptance(check, checkError, output) {
  if (checkError) return h('div', { class: 'error', id: 'accept' }, `checkGrammar failed: ${errorText(checkError)}`);
  if (!check) return note('checkGrammar is not in this build: acceptance of the sample output cannot be shown.', 'note missing');
  if (!output) return h('div', { class: 'note', id: 'accept' }, 'Paste or generate a model output to check it against the grammar.');
  const warn = (check.errors || []).map((e) => h('div', { class: 'muted' }, e));
  const from = check.trigger
    ? h('div', { class: 'muted' }, 'lazy grammar: applied from trigger ', ws(check.trigger.value), ` (position ${check.start}); the faint text before it is free`)
    : null;
  if (check.untriggered) {
    return h('div', { class: 'ok', id: 'accept' }, '✓ no trigger occurs in the output: the lazy grammar never activates (plain text)', warn);
  }
  if (check.accepted) {
    return h('div', { class: 'ok', id: 'accept' }, '✓ the sample output is accepted by the grammar', from, warn,
      check.start ? h('pre', { class: 'vis-block' }, freePart(output, check), ws(output.slice(check.start), 'g-ok')) : null);
  }
  const begin = check.start || 0;
  const at = check.errorAt ?? output.length;
  const bad = Array.from(output.slice(at))[0] || '';
  const line = output.slice(0, at).split('\n').length;
  return h('div', { class: 'error', id: 'accept' },
    bad ? `✗ rejected at position ${check.errorAt} (line ${line}): the first character no rule allows is highlighted`
      : `✗ rejected: the output ends before the grammar is satisfied (position ${check.errorAt})`,
    from, warn,
    h('pre', { class: 'vis-block' }, freePart(output, check), at > begin ? ws(output.slice(begin, at), 'g-ok') : null,
      bad ? ws(bad, 'g-bad', true) : h('span', { class: 'g-bad' }, '▮ end'),
      bad && at + bad.length < output.length ? ws(output.slice(at + bad.length), 'g-rest') : null));
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
