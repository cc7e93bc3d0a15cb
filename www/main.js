// The playground: inputs on the left (template, request, model output), results on the right in tabs.
// All wasm work goes through the worker (client.js); every result is tagged so a stale answer never
// overwrites a newer one. The parsed message follows every edit; the stream replay is an extra.
import { $, h, fill, note, errorText, debounce, copyText } from './show.js';
import { WasmClient } from './client.js';
import { renderAnalysis, markerStrings } from './panels/analysis.js';
import { renderDiffs } from './panels/diffs.js';
import { renderGrammar, acceptance } from './panels/grammar.js';
import { renderVerify } from './panels/verify.js';
import { renderParsed } from './panels/parsed.js';
import { renderResponseTemplate } from './panels/response-template.js';
import { LivePlayer } from './panels/live.js';
import { RequestEditor } from './request-editor.js';
import { OutputEditor } from './output-editor.js';
import { TemplatePicker, templateFromFile } from './picker.js';
import { deltaSpans, outputRegions } from './spans.js';
import { verdict } from './verdict.js';
import { fragmentPayload, decodeState, saveState, storedState } from './share.js';
import { Tabs } from './tabs.js';

// A template whose analysis is clean and that shows reasoning, content and tool calls.
const DEFAULT_TEMPLATE = 'MiniMax-M2';
const SAMPLE_TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather', description: 'Get the current weather for a location',
      parameters: {
        type: 'object',
        properties: {
          location: { type: 'string', description: 'City name, e.g. Paris' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        },
        required: ['location'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'calculate', description: 'Evaluate a mathematical expression',
      parameters: { type: 'object', properties: { expr: { type: 'string' } }, required: ['expr'] },
    },
  },
];
const SLOW_MS = 800; // a call running longer than this shows the Stop button

const client = new WasmClient('worker.js');
const state = {
  version: '?', features: null, analysis: null, grammar: null, verify: null, parsed: null, verdict: null,
  rt: null, prompt: null, showEmpty: false, outputTouched: false, restored: false, link: null, responseTemplate: undefined,
  templateEntry: null, templateLabel: '', restoredFrom: null,
  seq: { analyze: 0, request: 0, check: 0, parse: 0, rt: 0 }, loadedAt: performance.now(), firstAnalysisMs: null, lastParseMs: null,
};
window.playground = state; // read by the browser tests

// Work in flight (for the tests' "settled" check): top-level pipeline runs and debounced edits.
let inflight = 0;
const debounced = [];
const track = (fn) => async (...a) => { inflight += 1; try { return await fn(...a); } finally { inflight -= 1; } };
const later = (fn, ms) => { const d = debounce(fn, ms); debounced.push(d); return d; };
state.idle = () => inflight === 0 && !debounced.some((d) => d.pending());

const status = (text, cls = '') => { $('status').textContent = text; $('status').className = cls; };
const source = () => $('template').value;
const output = () => $('output').value;

const editor = new OutputEditor($('output'), $('output-caret'));
const request = new RequestEditor({ onChange: () => { onRequest(); persistSoon(); } });
const picker = new TemplatePicker({ onPick: (entry) => loadEntry(entry) });
const tabs = new Tabs(document.querySelector('[role=tablist]'), { onSelect: () => persistSoon() });

// ---- template -----------------------------------------------------------------------------------------

/** Inline template error with its location, a caret under the column, and a jump to the line. */
function showTemplateError(e) {
  const box = $('template-error');
  const parts = [h('div', {}, errorText(e))];
  if (e.line) {
    const lineText = source().split('\n')[e.line - 1] ?? '';
    parts.push(h('pre', { class: 'snippet' }, `${String(e.line).padStart(4)} | ${lineText}\n`,
      e.column ? `${' '.repeat(7 + e.column - 1)}^` : ''));
    parts.push(h('button', { class: 'small secondary', onclick: () => goToLine(e.line) }, `go to line ${e.line}`));
  }
  fill(box, parts);
  box.hidden = false;
}

function goToLine(line) {
  const ta = $('template');
  const lines = ta.value.split('\n');
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  ta.focus();
  ta.setSelectionRange(start, start + (lines[line - 1] ?? '').length);
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 17;
  ta.scrollTop = Math.max(0, (line - 4) * lh);
}

/** Where the template text came from: a listed entry, or a label ("pasted", "file: x.jinja", …). */
function setTemplateOrigin(entry, label = 'pasted', notes = []) {
  state.templateEntry = entry;
  state.templateLabel = entry ? entry.name : label;
  picker.show(entry, label);
  $('template-label').textContent = entry ? `— ${entry.name} (${entry.sets.join(', ')})` : `— ${label}`;
  $('template-notes').textContent = notes.join('; ');
  $('template-notes').hidden = !notes.length;
}

async function loadEntry(entry) {
  try {
    const res = await fetch(entry.path);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    $('template').value = await res.text();
  } catch (e) {
    showTemplateError({ kind: 'Load', message: `could not load ${entry.path}: ${e.message}` });
    return;
  }
  setTemplateOrigin(entry);
  state.responseTemplate = undefined;
  state.outputTouched = false;
  persistSoon();
  await analyze();
}

async function loadFile(file) {
  try {
    const t = templateFromFile(file.name, await file.text());
    $('template').value = t.source;
    state.responseTemplate = t.responseTemplate;
    setTemplateOrigin(null, t.label, t.notes);
  } catch (e) {
    showTemplateError({ kind: 'Load', message: e.message });
    return;
  }
  state.outputTouched = false;
  persistSoon();
  await analyze();
}

// ---- pipeline ---------------------------------------------------------------------------------------

const analyze = track(async () => {
  const my = ++state.seq.analyze;
  if (client.busyFor() > 300) client.restart('superseded by an edit');
  status('analysing…', 'busy');
  const t0 = performance.now();
  state.verify = null;
  try {
    const res = await client.call('analyze', { source: source() });
    if (my !== state.seq.analyze) return;
    $('template-error').hidden = true;
    state.analysis = res;
    showAnalysis();
    if (state.firstAnalysisMs === null) state.firstAnalysisMs = performance.now() - state.loadedAt;
    status(`v${state.version} · analysed in ${(performance.now() - t0).toFixed(0)} ms`);
  } catch (e) {
    if (my !== state.seq.analyze || e.kind === 'Cancelled') return;
    state.analysis = null;
    showTemplateError(e);
    const msg = h('div', { class: 'error' }, `The template could not be analysed: ${errorText(e)}`);
    fill($('analysis'), msg);
    fill($('diffs'), msg.cloneNode(true));
    status(`v${state.version} · template error`, 'bad');
  }
  showVerdict();
  request.showTemplateVariables(source());
  await verify(my);
  if (my !== state.seq.analyze) return;
  await requestDependent();
});

function showAnalysis() {
  const res = state.analysis;
  if (!res) return;
  renderAnalysis($('analysis'), res, {
    version: state.version, showEmpty: state.showEmpty,
    onToggleEmpty: (v) => { state.showEmpty = v; showAnalysis(); },
  });
  renderDiffs($('diffs'), res.analysis, { onlyChanged: $('diffs-changed').checked, version: state.version });
}

/** The round-trip self-test (depends on the template only); its rows are also the output fixtures. */
async function verify(my = state.seq.analyze) {
  const src = source();
  if (!state.analysis) {
    state.verify = null;
    fill($('verify'), note('Fix the template first.'));
    $('verify-summary').textContent = '';
    fillFixtures([]);
    return;
  }
  if (!state.features?.verifyTemplate) {
    $('verify-summary').textContent = renderVerify($('verify'), null, { version: state.version });
    let list = [];
    try { list = await client.call('fixtures', { source: src, request: request.options() || {} }); } catch { list = []; }
    if (my === state.seq.analyze) fillFixtures(list);
    return;
  }
  fill($('verify'), note('running…'));
  try {
    const res = await client.call('verify', { source: src });
    if (my !== state.seq.analyze) return;
    state.verify = res;
    $('verify-summary').textContent = renderVerify($('verify'), res, { onUse: useOutput, version: state.version });
    fillFixtures((res.results || []).filter((r) => typeof r.output === 'string')
      .map((r) => ({ name: r.name, ok: r.ok, output: r.output, hasToolCalls: !!r.expected?.tool_calls?.length })));
  } catch (e) {
    if (my !== state.seq.analyze) return;
    state.verify = null;
    $('verify-summary').textContent = '';
    fill($('verify'), h('div', { class: 'error' }, `verifyTemplate: ${errorText(e)}`));
    fillFixtures([]);
  }
  showVerdict();
}

/** The header badge: verified / partly verified / not verified, linking to the failing verify rows. */
function showVerdict() {
  const v = state.analysis ? verdict(state.analysis.analysis, state.verify) : { level: 'unknown', text: 'no analysis', failing: [] };
  state.verdict = v;
  const el = $('verdict');
  el.className = `verdict ${v.level}`;
  el.textContent = v.text;
  el.title = v.failing?.length ? `failing round trips: ${v.failing.join(', ')} (click to see them)`
    : `${v.source ? `from ${v.source}` : 'no self-check yet'} (click for the verify rows)`;
}

function openVerifyRows() {
  tabs.select('verify');
  const failing = state.verdict?.failing || [];
  let first = null;
  for (const name of failing) {
    const row = document.getElementById(`verify-${name}`);
    if (row) { row.open = true; first ||= row; }
  }
  (first || $('tab-verify')).scrollIntoView({ block: 'nearest' });
}

/** Round-trip fixtures for the "Generate from" menu; the first tool-call one fills an untouched output. */
function fillFixtures(list) {
  state.fixtures = list;
  const sel = $('fixture');
  sel.replaceChildren(new Option(list.length ? "template's round-trip fixtures…" : 'no fixtures for this template', ''));
  list.forEach((fx, i) => sel.append(new Option(`${fx.ok === false ? '✗ ' : ''}${fx.name}`, String(i))));
  if (!state.outputTouched && list.length) {
    const pick = list.find((fx) => fx.hasToolCalls && /reasoning/.test(fx.name)) || list.find((fx) => fx.hasToolCalls) || list[0];
    $('output').value = pick.output;
    editor.paint();
  }
}

/** Show a request-level error from the API (e.g. an InvalidInput for an option) in the Request panel. */
function requestError(e) {
  $('request-error').textContent = e ? `The API rejected the request: ${errorText(e)}` : '';
  $('request-error').hidden = !e;
}

/** Everything that depends on the request: parse, prompt preview, grammar. */
const requestDependent = track(async () => {
  const my = ++state.seq.request;
  const stale = () => my !== state.seq.request;
  const req = request.options();
  live.reset();
  if (!req) {
    const msg = note('Fix the request (see the errors in the Request panel) first.', 'error');
    for (const id of ['grammar', 'parsed', 'rt']) fill($(id), msg.cloneNode(true));
    editor.set([], []);
    return;
  }
  if (!state.analysis) {
    fill($('parsed'), note('Fix the template first.', 'error'));
    fill($('rt'), note('Fix the template first.', 'error'));
    editor.set([], []); // the last template's highlights no longer apply
    return;
  }
  requestError(null);
  await parseNow();
  if (stale()) return;
  const src = source();
  try {
    const prompt = await client.call('render', {
      source: src,
      context: {
        ...(req.extraContext || {}), messages: req.messages, tools: req.tools,
        add_generation_prompt: !request.continuing, enable_thinking: req.enableThinking,
      },
      continueFinal: request.continuing,
    });
    if (stale()) return;
    state.prompt = prompt;
    fill($('prompt'), prompt);
  } catch (e) {
    if (stale()) return;
    state.prompt = null;
    fill($('prompt'), h('span', { class: 'bad' }, errorText(e)));
  }
  await showResponseTemplate();
  if (stale()) return;
  if (!state.features?.buildGrammar) {
    state.grammar = null;
    renderGrammar($('grammar'), null, output(), { version: state.version });
    return;
  }
  try {
    const res = await client.call('grammar', { source: src, request: req, output: output() });
    if (stale()) return;
    state.grammar = res;
    renderGrammar($('grammar'), res, output(), { version: state.version });
  } catch (e) {
    if (stale()) return;
    state.grammar = null;
    fill($('grammar'), h('div', { class: 'error' }, `buildGrammar: ${errorText(e)}`));
  }
});

/** Parse the current output (in the worker) and show message, deltas with spans, diagnostics, highlights. */
async function parseNow() {
  const my = ++state.seq.parse;
  const req = request.options();
  const text = output();
  if (!req || !state.analysis) return;
  if (!state.features?.StreamParser) {
    fill($('parsed'), note(`StreamParser is not in this build (v${state.version}).`, 'note missing'));
    return;
  }
  const t0 = performance.now();
  try {
    const res = await client.call('parseStreamed', { source: source(), request: req, text });
    if (my !== state.seq.parse) return;
    res.spans = deltaSpans(text, res.events);
    state.parsed = res;
    state.lastParseMs = performance.now() - t0;
    renderParsed($('parsed'), res, text, editor);
    const markers = markerStrings(state.analysis.analysis);
    editor.set(outputRegions(text, res.spans, markers), res.diagnostics.map((d) => ({ index: d.index, message: d.message })));
  } catch (e) {
    if (my !== state.seq.parse || e.kind === 'Cancelled') return;
    state.parsed = null;
    if (e.kind === 'InvalidInput') requestError(e);
    fill($('parsed'), h('div', { class: 'error' }, `parse: ${errorText(e)}`));
    editor.set([], []);
  }
}

/**
 * The derived response_template, its losses, and whether parsing the current output by the spec (prefix =
 * the generation prompt) agrees with our parser; the same for a declared one from a tokenizer_config.json.
 */
async function showResponseTemplate() {
  const my = ++state.seq.rt;
  const req = request.options();
  if (!req || !state.analysis) { fill($('rt'), note('Fix the template and the request first.', 'error')); return; }
  if (!state.features?.responseTemplate) { state.rt = null; renderResponseTemplate($('rt'), null, { version: state.version }); return; }
  try {
    const res = await client.call('responseTemplate', {
      source: source(), request: req, text: output(), prompt: state.prompt ?? '', declared: state.responseTemplate ?? null,
    });
    if (my !== state.seq.rt) return;
    state.rt = res;
    renderResponseTemplate($('rt'), res, { version: state.version });
  } catch (e) {
    if (my !== state.seq.rt || e.kind === 'Cancelled') return;
    state.rt = null;
    fill($('rt'), h('div', { class: 'error' }, `responseTemplate: ${errorText(e)}`));
  }
}

function useOutput(text) {
  $('output').value = text;
  state.outputTouched = true;
  editor.paint();
  outputChanged();
  persistSoon();
  tabs.select('parsed');
}

/** The output changed: parse it again, re-check it against the grammar we have, rewind the stream. */
const outputChanged = track(async () => {
  live.reset();
  await parseNow();
  await showResponseTemplate();
  const g = state.grammar;
  if (!g || !state.features?.checkGrammar) return;
  const my = ++state.seq.check;
  const text = output();
  let check = null;
  let checkError = null;
  try { check = await client.call('check', { grammar: g.grammar, output: text }); } catch (e) { checkError = e; }
  if (my !== state.seq.check) return;
  g.check = check;
  g.checkError = checkError;
  const old = document.getElementById('accept');
  if (old) old.replaceWith(acceptance(check, checkError, text));
});

// ---- state: URL fragment and localStorage ----------------------------------------------------------------

function snapshot() {
  return {
    template: source(), entry: state.templateEntry?.path ?? null, label: state.templateLabel,
    request: request.state, output: output(), tab: tabs.current, responseTemplate: state.responseTemplate,
    replay: { chunk: $('chunk').value, delay: $('delay').value },
  };
}

const persist = track(async () => {
  if (!state.restored) return;
  try { state.link = await saveState(snapshot()); } catch { /* CompressionStream missing: nothing to save */ }
});
const persistSoon = later(persist, 300);

/** Restore a saved state (from a link or the last visit). */
function applyState(s) {
  $('template').value = typeof s.template === 'string' ? s.template : '';
  const entry = s.entry ? picker.entries.find((e) => e.path === s.entry) || null : null;
  // A listed template whose text was edited afterwards is not that template any more.
  setTemplateOrigin(entry, s.label || 'pasted');
  state.responseTemplate = s.responseTemplate;
  if (s.request && typeof s.request === 'object') request.state = s.request;
  $('output').value = typeof s.output === 'string' ? s.output : '';
  state.outputTouched = typeof s.output === 'string' && s.output !== '';
  editor.paint();
  if (s.tab) tabs.select(s.tab);
  if (s.replay) { $('chunk').value = s.replay.chunk ?? $('chunk').value; $('delay').value = s.replay.delay ?? $('delay').value; }
}

$('copy-link').addEventListener('click', async () => {
  const btn = $('copy-link');
  try {
    await persist();
    const ok = state.link && (await copyText(state.link));
    btn.textContent = ok ? 'Link copied ✓' : 'Copy failed: the link is in the address bar';
  } catch (e) {
    btn.textContent = `Copy failed: ${e.message}`;
  }
  setTimeout(() => { btn.textContent = 'Copy link'; }, 2000);
});

// ---- wiring -------------------------------------------------------------------------------------------------

const live = new LivePlayer({
  client, source, output, request: () => request.options() || {},
  features: () => state.features, version: () => state.version, editor: () => editor,
});

$('verdict').addEventListener('click', (e) => { e.preventDefault(); openVerifyRows(); });
$('file').addEventListener('change', () => { const f = $('file').files[0]; if (f) loadFile(f); });
// Drop a .jinja or a tokenizer_config.json anywhere on the page.
document.addEventListener('dragover', (e) => {
  if ([...(e.dataTransfer?.types || [])].includes('Files')) { e.preventDefault(); document.body.classList.add('dropping'); }
});
document.addEventListener('dragleave', (e) => { if (!e.relatedTarget) document.body.classList.remove('dropping'); });
document.addEventListener('drop', (e) => {
  const f = e.dataTransfer?.files?.[0];
  document.body.classList.remove('dropping');
  if (!f) return;
  e.preventDefault();
  loadFile(f);
});
const analyzeSoon = later(analyze, 300);
$('template').addEventListener('input', () => {
  if (state.templateEntry || state.templateLabel !== 'pasted') setTemplateOrigin(null, 'pasted');
  state.outputTouched = false;
  analyzeSoon();
  persistSoon();
});
const onRequest = later(requestDependent, 250);
$('tools-sample').addEventListener('click', (e) => { e.preventDefault(); $('tools').value = JSON.stringify(SAMPLE_TOOLS, null, 2); onRequest(); persistSoon(); });
$('tools-none').addEventListener('click', (e) => { e.preventDefault(); $('tools').value = ''; onRequest(); persistSoon(); });
// Mark the output as the user's at once (not debounced): a fixture arriving meanwhile must not replace it.
const outputChangedSoon = later(outputChanged, 200);
$('output').addEventListener('input', () => { state.outputTouched = true; outputChangedSoon(); persistSoon(); });
$('fixture').addEventListener('change', () => {
  const fx = state.fixtures?.[Number($('fixture').value)];
  if ($('fixture').value !== '' && fx) useOutput(fx.output);
});
$('diffs-changed').addEventListener('change', showAnalysis);
$('verify-run').addEventListener('click', () => verify());
$('chunk').addEventListener('change', () => { live.reset(); persistSoon(); });
$('delay').addEventListener('change', () => persistSoon());

// A call that runs long offers a Stop, which abandons the worker (the UI never waits on it).
setInterval(() => { $('stop').hidden = client.busyFor() < SLOW_MS; }, 250);
$('stop').addEventListener('click', () => client.restart('stopped'));
client.onrestart = (reason) => {
  status(`v${state.version} · ${reason}`, 'bad');
  live.reset();
  client.call('hello').catch(() => {});
};
client.onfatal = (e) => status(`the wasm worker failed: ${e.message} (run bash scripts/build.sh?)`, 'bad');

// ---- start: a shared link, else the last visit, else the default template ---------------------------------

$('tools').value = JSON.stringify(SAMPLE_TOOLS, null, 2);
try {
  const [hello] = await Promise.all([client.call('hello'), picker.load()]);
  state.version = hello.version;
  state.features = hello.features;
  live.reset();
  status(`v${state.version} ready`);
  let saved = null;
  const payload = fragmentPayload();
  if (payload) {
    try { saved = await decodeState(payload); state.restoredFrom = 'link'; } catch (e) { status(`v${state.version} · the link could not be read (${e.message})`, 'bad'); }
  }
  if (!saved) { saved = storedState(); if (saved) state.restoredFrom = 'storage'; }
  if (saved) {
    applyState(saved);
    state.restored = true;
    await analyze();
  } else {
    state.restored = true;
    const entry = picker.byName(DEFAULT_TEMPLATE) || picker.entries[0];
    if (entry) await loadEntry(entry);
    else status(`v${state.version} ready · no template list (run bash scripts/build.sh): paste a template`, 'bad');
  }
} catch (e) {
  status(`could not start the wasm worker: ${errorText(e)}`, 'bad');
}
