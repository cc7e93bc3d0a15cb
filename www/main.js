// The playground: inputs on the left (template, request, model output), results on the right in tabs.
// All wasm work goes through the worker (client.js); every result is tagged so a stale answer never
// overwrites a newer one.
import { $, h, fill, note, errorText, debounce } from './show.js';
import { WasmClient } from './client.js';
import { renderAnalysis } from './panels/analysis.js';
import { renderDiffs } from './panels/diffs.js';
import { renderGrammar, acceptance } from './panels/grammar.js';
import { renderVerify } from './panels/verify.js';
import { LivePlayer } from './panels/live.js';

const SAMPLES = [
  'Qwen3-Coder.jinja', 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja', 'openai-gpt-oss-120b.jinja',
  'Qwen3.5-4B.jinja', 'deepseek-ai-DeepSeek-V3.1.jinja', 'meta-llama-Llama-3.1-8B-Instruct.jinja',
  'mistralai-Mistral-Nemo-Instruct-2407.jinja', 'GLM-4.6.jinja', 'MiniMax-M2.jinja', 'ibm-granite-granite-3.3-2B-Instruct.jinja',
];
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
const USER_MESSAGE = { role: 'user', content: "What's the weather in Paris?" };
const SLOW_MS = 800; // a call running longer than this shows the Stop button

const client = new WasmClient('worker.js');
const state = {
  version: '?', features: null, analysis: null, grammar: null, showEmpty: false, outputTouched: false,
  seq: { analyze: 0, request: 0, check: 0 }, loadedAt: performance.now(), firstAnalysisMs: null,
};
window.playground = state; // read by the browser test

const status = (text, cls = '') => { $('status').textContent = text; $('status').className = cls; };

// ---- inputs ----------------------------------------------------------------------------------------

/** The request options, or null (with the error shown inline) when the tools JSON is invalid. */
function request() {
  const text = $('tools').value.trim();
  let tools;
  $('tools-error').hidden = true;
  if (text) {
    try {
      tools = JSON.parse(text);
      if (!Array.isArray(tools)) throw new SyntaxError('tools must be a JSON array');
    } catch (e) {
      const m = /position (\d+)/.exec(e.message);
      const loc = m ? (() => { const before = text.slice(0, Number(m[1])).split('\n'); return ` (line ${before.length}, column ${before.at(-1).length + 1})`; })() : '';
      $('tools-error').textContent = `Tools JSON: ${e.message}${/line \d/.test(e.message) ? '' : loc}`;
      $('tools-error').hidden = false;
      return null;
    }
  }
  return {
    tools: tools && tools.length ? tools : undefined,
    enableThinking: $('enable-thinking').checked,
    reasoningFormat: $('reasoning-format').value,
    parallelToolCalls: $('parallel').checked,
    toolChoice: $('tool-choice').value,
  };
}
const source = () => $('template').value;
const output = () => $('output').value;

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

// ---- pipeline ---------------------------------------------------------------------------------------

async function analyze() {
  const my = ++state.seq.analyze;
  if (client.busyFor() > 300) client.restart('superseded by an edit');
  status('analysing…', 'busy');
  const t0 = performance.now();
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
  await requestDependent();
}

function showAnalysis() {
  const res = state.analysis;
  if (!res) return;
  renderAnalysis($('analysis'), res, {
    version: state.version, showEmpty: state.showEmpty,
    onToggleEmpty: (v) => { state.showEmpty = v; showAnalysis(); },
  });
  renderDiffs($('diffs'), res.analysis, { onlyChanged: $('diffs-changed').checked, version: state.version });
}

/** Everything that depends on the request options: prompt preview, grammar, fixtures, verify. */
async function requestDependent() {
  const my = ++state.seq.request;
  const req = request();
  const stale = () => my !== state.seq.request;
  if (!req) {
    const msg = note('Fix the tools JSON in the Request panel first.', 'error');
    for (const id of ['grammar', 'verify']) fill($(id), msg.cloneNode(true));
    return;
  }
  const src = source();
  const f = state.features || {};
  live.reset();
  try {
    const prompt = await client.call('render', {
      source: src,
      context: { messages: [USER_MESSAGE], tools: req.tools, add_generation_prompt: true, enable_thinking: req.enableThinking },
    });
    if (stale()) return;
    fill($('prompt'), prompt);
  } catch (e) {
    if (stale()) return;
    fill($('prompt'), h('span', { class: 'bad' }, errorText(e)));
  }
  await fixtures(src, req, stale);
  if (stale()) return;
  if (!f.buildGrammar) {
    state.grammar = null;
    renderGrammar($('grammar'), null, output(), { version: state.version });
  } else {
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
  }
  await verify(src, req, stale);
}

async function verify(src = source(), req = request(), stale = () => false) {
  if (!req) return;
  if (!state.features?.verifyTemplate) {
    $('verify-summary').textContent = renderVerify($('verify'), null, { version: state.version });
    return;
  }
  fill($('verify'), note('running…'));
  try {
    const res = await client.call('verify', { source: src, request: req });
    if (stale()) return;
    $('verify-summary').textContent = renderVerify($('verify'), res, { onUse: useOutput, version: state.version });
  } catch (e) {
    if (stale()) return;
    $('verify-summary').textContent = '';
    fill($('verify'), h('div', { class: 'error' }, `verifyTemplate: ${errorText(e)}`));
  }
}

/** Round-trip fixtures for the "Generate from" menu; the first tool-call one fills an untouched output. */
async function fixtures(src, req, stale) {
  const sel = $('fixture');
  let list = [];
  try { list = await client.call('fixtures', { source: src, request: req }); } catch { list = []; }
  if (stale()) return;
  state.fixtures = list;
  sel.replaceChildren(new Option(list.length ? "template's round-trip fixtures…" : 'no fixtures for this template', ''));
  list.forEach((fx, i) => sel.append(new Option(`${fx.ok === false ? '✗ ' : ''}${fx.name}`, String(i))));
  if (!state.outputTouched && list.length) {
    const pick = list.find((fx) => fx.hasToolCalls) || list[0];
    $('output').value = pick.output;
  }
}

function useOutput(text) {
  $('output').value = text;
  state.outputTouched = true;
  outputChanged();
  selectTab('live');
}

/** The output changed: re-check it against the grammar we have, and rewind the stream. */
async function outputChanged() {
  live.reset();
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
}

// ---- tabs, wiring, start ---------------------------------------------------------------------------

function selectTab(name) {
  for (const b of document.querySelectorAll('[role=tab]')) b.setAttribute('aria-selected', String(b.dataset.tab === name));
  for (const p of document.querySelectorAll('.tab')) p.hidden = p.id !== `tab-${name}`;
}
for (const b of document.querySelectorAll('[role=tab]')) b.addEventListener('click', () => selectTab(b.dataset.tab));

const live = new LivePlayer({
  client, source, output, request: () => request() || {},
  features: () => state.features, version: () => state.version,
});

async function loadSample(name, dir = 'samples') {
  try {
    const res = await fetch(`${dir}/${name}`);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    $('template').value = await res.text();
  } catch (e) {
    showTemplateError({ kind: 'Load', message: `could not load ${dir}/${name}: ${e.message}` });
    return;
  }
  state.outputTouched = false;
  await analyze();
}

for (const s of SAMPLES) $('sample').append(new Option(s.replace(/\.jinja$/, ''), s));
$('tools').value = JSON.stringify(SAMPLE_TOOLS, null, 2);
$('sample').addEventListener('change', () => loadSample($('sample').value));
// The template zoo (tests/fixtures/zoo, copied by scripts/build.sh), grouped by family.
fetch('zoo/index.json').then((r) => (r.ok ? r.json() : [])).then((rows) => {
  const groups = new Map();
  for (const r of rows) {
    if (!groups.has(r.family)) groups.set(r.family, Object.assign(document.createElement('optgroup'), { label: r.family }));
    const o = new Option(r.file.replace(/\.jinja$/, ''), r.file);
    o.title = `${r.repo} ${r.path}`;
    groups.get(r.family).append(o);
  }
  for (const [, g] of [...groups].sort(([a], [b]) => a.localeCompare(b))) $('zoo').append(g);
}).catch(() => {});
$('zoo').addEventListener('change', () => { if ($('zoo').value) loadSample($('zoo').value, 'zoo'); });
$('file').addEventListener('change', async () => {
  const f = $('file').files[0];
  if (!f) return;
  $('template').value = await f.text();
  state.outputTouched = false;
  analyze();
});
$('template').addEventListener('input', debounce(() => { state.outputTouched = false; analyze(); }, 300));
const onRequest = debounce(requestDependent, 250);
$('tools').addEventListener('input', onRequest);
for (const id of ['enable-thinking', 'parallel', 'reasoning-format', 'tool-choice']) $(id).addEventListener('change', onRequest);
$('tools-sample').addEventListener('click', () => { $('tools').value = JSON.stringify(SAMPLE_TOOLS, null, 2); requestDependent(); });
$('tools-none').addEventListener('click', () => { $('tools').value = ''; requestDependent(); });
// Mark the output as the user's at once (not debounced): a fixture arriving meanwhile must not replace it.
const outputChangedSoon = debounce(outputChanged, 200);
$('output').addEventListener('input', () => { state.outputTouched = true; outputChangedSoon(); });
$('fixture').addEventListener('change', () => {
  const fx = state.fixtures?.[Number($('fixture').value)];
  if ($('fixture').value !== '' && fx) useOutput(fx.output);
});
$('diffs-changed').addEventListener('change', showAnalysis);
$('verify-run').addEventListener('click', () => verify());
$('chunk').addEventListener('change', () => live.reset());

// A call that runs long offers a Stop, which abandons the worker (the UI never waits on it).
setInterval(() => { $('stop').hidden = client.busyFor() < SLOW_MS; }, 250);
$('stop').addEventListener('click', () => client.restart('stopped'));
client.onrestart = (reason) => {
  status(`v${state.version} · ${reason}`, 'bad');
  live.reset();
  client.call('hello').catch(() => {});
};
client.onfatal = (e) => status(`the wasm worker failed: ${e.message} (run bash scripts/build.sh?)`, 'bad');

try {
  const hello = await client.call('hello');
  state.version = hello.version;
  state.features = hello.features;
  live.reset();
  status(`v${state.version} ready`);
  await loadSample(SAMPLES[0]);
} catch (e) {
  status(`could not start the wasm worker: ${errorText(e)}`, 'bad');
}
