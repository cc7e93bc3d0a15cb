// Diff-splits panel: every comparison the analysis made, as prefix / left / right / suffix.
// Prefix and suffix are long (the whole shared prompt), so only their ends show until the row is expanded.
import { h, ws, fill, note } from '../show.js';

const CONTEXT = 100; // characters of prefix/suffix shown around the change

function tail(s, n) { const a = Array.from(s || ''); return a.length > n ? ['…', a.slice(-n).join('')] : ['', s || '']; }
function head(s, n) { const a = Array.from(s || ''); return a.length > n ? [a.slice(0, n).join(''), '…'] : [s || '', '']; }

function body(d, full) {
  const [pre, preText] = full ? ['', d.prefix] : tail(d.prefix, CONTEXT);
  const [sufText, suf] = full ? [d.suffix, ''] : head(d.suffix, CONTEXT);
  return h('pre', { class: 'diff' },
    pre && h('span', { class: 'more' }, pre), preText && ws(preText, 'd-prefix'),
    ws(d.left, 'd-left'), ws(d.right, 'd-right'),
    sufText && ws(sufText, 'd-suffix'), suf && h('span', { class: 'more' }, suf));
}

function item(d, i) {
  let full = false;
  const b = body(d, full);
  const toggle = h('button', { class: 'small secondary', title: 'show the whole prefix and suffix' }, 'expand');
  const row = h('div', { class: `diff-item ${d.ok === false ? 'bad' : ''}` },
    h('div', { class: 'diff-head' },
      h('span', { class: 'muted' }, `#${i + 1}`), h('strong', {}, String(d.step ?? '')),
      h('span', { class: `badge ${d.ok === false ? 'warnb' : 'okb'}` }, d.ok === false ? 'split failed' : 'ok'),
      !d.left && !d.right ? h('span', { class: 'badge' }, 'no change') : null,
      d.changed ? h('span', { class: 'muted changed' }, String(d.changed)) : null,
      toggle),
    b);
  toggle.addEventListener('click', () => {
    full = !full;
    toggle.textContent = full ? 'collapse' : 'expand';
    row.replaceChild(body(d, full), row.lastChild);
  });
  return row;
}

/** Render the analysis' diffs; `onlyChanged` hides comparisons whose left and right are both empty. */
export function renderDiffs(el, analysis, { onlyChanged = false, version } = {}) {
  if (!analysis) {
    fill(el, note(`analyzeTemplate is not in this build (v${version}): the comparisons appear once it lands.`, 'note missing'));
    return;
  }
  const diffs = Array.isArray(analysis.diffs) ? analysis.diffs : [];
  const shown = diffs.map((d, i) => [d, i]).filter(([d]) => !onlyChanged || d.left || d.right);
  if (!shown.length) {
    fill(el, note(diffs.length ? 'No comparison changed the output.' : 'The analysis recorded no comparisons.'));
    return;
  }
  const failed = diffs.filter((d) => d.ok === false).length;
  fill(el, h('div', { class: 'muted' }, `${diffs.length} comparisons${failed ? `, ${failed} failed to split` : ''}`),
    h('div', { id: 'diff-list' }, shown.map(([d, i]) => item(d, i))));
}
