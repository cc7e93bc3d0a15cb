// Analysis panel: handler, capabilities, modes and a table of every marker the diffing extracted.
import { h, ws, fill, note, pretty } from '../show.js';

// Marker fields (strings the parser matches in model output), in reading order.
const MARKERS = [
  ['userStart'], ['assistantStart'],
  ['reasoning', 'start'], ['reasoning', 'end'],
  ['content', 'start'], ['content', 'end'],
  ['tools', 'format', 'sectionStart'], ['tools', 'format', 'sectionEnd'],
  ['tools', 'format', 'perCallStart'], ['tools', 'format', 'perCallEnd'],
  ['tools', 'function', 'namePrefix'], ['tools', 'function', 'nameSuffix'], ['tools', 'function', 'close'],
  ['tools', 'arguments', 'start'], ['tools', 'arguments', 'end'],
  ['tools', 'arguments', 'namePrefix'], ['tools', 'arguments', 'nameSuffix'],
  ['tools', 'arguments', 'valuePrefix'], ['tools', 'arguments', 'valueSuffix'], ['tools', 'arguments', 'separator'],
  ['tools', 'callId', 'prefix'], ['tools', 'callId', 'suffix'],
  // Addressed messages (handler 'addressed messages'): the header that routes each message.
  ['messages', 'messageStart'], ['messages', 'recipientPrefix'], ['messages', 'headerEnd'],
  ['messages', 'contentRecipient'], ['messages', 'reasoningRecipient'],
  // Headed segments (handler 'headed segments'): the header's tokens and the word naming each part.
  ['segments', 'headerStart'], ['segments', 'headerEnd'], ['segments', 'reasoningWord'], ['segments', 'contentWord'],
  ['segments', 'callsWord'], ['segments', 'endOpen'], ['segments', 'endClose'], ['segments', 'turnEnd'],
];
const MODES = [['reasoning', 'mode'], ['content', 'mode'], ['tools', 'format', 'mode'], ['tools', 'callId', 'pos']];

const get = (obj, path) => path.reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), obj);

/** Every non-empty marker string of an analysis, with its field path: [{value, field}]. */
export function markerStrings(a) {
  if (!a) return [];
  return MARKERS.map((p) => ({ value: get(a, p), field: p.join('.') })).filter((m) => typeof m.value === 'string' && m.value);
}

// A probe variant the template refused to render (e.g. an empty conversation): expected for templates
// that validate their input, and the analysis carries on without it. Shown apart from real problems.
const PROBE_REJECTED = /: render failed \(/;

function diagnosticsView(diags) {
  if (!Array.isArray(diags) || !diags.length) return null;
  const rejected = diags.filter((d) => typeof d === 'string' && PROBE_REJECTED.test(d));
  const other = diags.filter((d) => !rejected.includes(d));
  return [
    list('Diagnostics', other, 'diag'),
    rejected.length ? h('details', { class: 'probe-notes' },
      h('summary', {}, `${rejected.length} probe render${rejected.length > 1 ? 's' : ''} the template refused (the analysis did without them)`),
      h('ul', { class: 'diag muted' }, rejected.map((d) => h('li', {}, d)))) : null,
  ];
}

function capsChips(caps) {
  if (!caps || typeof caps !== 'object') return note('no capabilities reported');
  return h('div', { class: 'chips', id: 'caps' }, Object.entries(caps).map(([k, v]) =>
    h('span', { class: `chip ${v ? 'yes' : 'no'}`, title: k }, `${v ? '✓' : '✗'} ${k.replace(/^supports/, '')}`)));
}

/** The markers table: every marker field, empty ones only when asked. */
function markerTable(a, showEmpty) {
  const rows = [];
  for (const path of MARKERS) {
    const v = get(a, path);
    if (typeof v !== 'string' || (!v && !showEmpty)) continue;
    rows.push(h('tr', { class: v ? '' : 'dim' }, h('td', { class: 'path' }, path.join('.')), h('td', {}, ws(v)),
      h('td', { class: 'num' }, v.length)));
  }
  // Field names of JSON tool calls are extracted the same way; show them with the markers.
  const fmt = get(a, ['tools', 'format']) || {};
  for (const [k, v] of Object.entries(fmt)) {
    if (!/Field$/.test(k) || typeof v !== 'string' || (!v && !showEmpty)) continue;
    rows.push(h('tr', { class: v ? '' : 'dim' }, h('td', { class: 'path' }, `tools.format.${k}`), h('td', {}, ws(v)),
      h('td', { class: 'num' }, v.length)));
  }
  if (!rows.length) return note('No markers: this template wraps nothing (plain content, no tools).');
  return h('table', { class: 'grid markers', id: 'markers' },
    h('thead', {}, h('tr', {}, h('th', {}, 'field'), h('th', {}, 'marker (whitespace visible)'), h('th', {}, 'len'))),
    h('tbody', {}, rows));
}

function flags(a) {
  const fmt = get(a, ['tools', 'format']) || {};
  const items = [];
  for (const [k, v] of Object.entries(fmt)) {
    if (typeof v === 'boolean') items.push(h('span', { class: `chip ${v ? 'yes' : 'no'}` }, `${k}: ${v}`));
    else if (Array.isArray(v) && v.length) items.push(h('span', { class: 'chip' }, `${k}: ${v.join(', ')}`));
  }
  const rn = get(a, ['content', 'requiresNonnullContent']);
  if (typeof rn === 'boolean') items.push(h('span', { class: `chip ${rn ? 'yes' : 'no'}` }, `content.requiresNonnullContent: ${rn}`));
  const ends = get(a, ['messages', 'messageEnds']);
  if (Array.isArray(ends) && ends.length) items.push(h('span', { class: 'chip' }, `messages.messageEnds: ${ends.join(', ')}`));
  if (get(a, ['tools', 'requiresWireShape'])) items.push(h('span', { class: 'chip yes' }, 'tools.requiresWireShape: true'));
  return items.length ? h('div', { class: 'chips' }, items) : null;
}

function list(title, items, cls) {
  if (!Array.isArray(items) || !items.length) return null;
  return h('div', {}, h('h3', {}, title), h('ul', { class: cls }, items.map((x) =>
    h('li', {}, typeof x === 'string' ? x : pretty(x)))));
}

/** Render {caps, analysis, ms} (analysis null when the build has no analyzeTemplate). */
export function renderAnalysis(el, res, { version, showEmpty = false, onToggleEmpty } = {}) {
  const a = res.analysis;
  if (!a) {
    fill(el,
      note(`analyzeTemplate is not in this build (v${version}): handler, modes and markers appear once it lands. `
        + 'Capabilities below come from the template probe.', 'note missing'),
      h('h3', {}, 'Capabilities'), capsChips(res.caps));
    return;
  }
  const handler = h('div', { class: 'kv' },
    h('span', { class: 'k' }, 'handler'), h('span', { class: 'badge strong', id: 'handler' }, String(a.handler)),
    h('span', { class: `badge ${a.analysisComplete ? '' : 'warnb'}`, title: 'every analysis step ran; whether its result round-trips is the badge at the top' },
      a.analysisComplete ? 'analysis complete' : 'analysis incomplete'),
    h('span', { class: 'muted' }, `${res.ms.toFixed(0)} ms`));
  const modes = h('div', { class: 'kv', id: 'modes' }, MODES.map((p) =>
    [h('span', { class: 'k' }, p.join('.')), h('span', { class: 'badge' }, String(get(a, p) ?? '—'))]));
  const empty = h('label', { class: 'small' }, h('input', { type: 'checkbox', checked: showEmpty || undefined,
    onchange: (e) => onToggleEmpty?.(e.target.checked) }), ' show empty fields');
  const preserved = Array.isArray(a.preservedTokens) && a.preservedTokens.length
    ? h('div', {}, h('h3', {}, 'Preserved tokens'), h('div', { class: 'chips' }, a.preservedTokens.map((t) => h('span', { class: 'chip tok' }, ws(t)))))
    : null;
  fill(el, handler, modes,
    h('h3', {}, 'Capabilities'), capsChips(a.caps || res.caps),
    h('div', { class: 'row between' }, h('h3', {}, 'Markers'), empty), markerTable(a, showEmpty),
    flags(a), preserved,
    list('Workarounds applied', a.workarounds), diagnosticsView(a.diagnostics),
    h('details', {}, h('summary', {}, 'Raw analysis JSON'), h('pre', {}, pretty({ ...a, diffs: `[${(a.diffs || []).length} diffs]` }))));
}
