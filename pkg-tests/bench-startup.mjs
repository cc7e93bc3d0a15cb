// Start-up and per-call cost through the built Node package (issue #15 item 7), printed, not asserted:
// - cold: a new Node process imports the package and parses once with a template source it has never
//   seen (compile + analysis + generation prompt + parse, all in freshly compiled wasm); median of runs;
// - per call: with a ChatTemplate and the same request options, what `parseOutput` / `new StreamParser`
//   cost beyond parsing (set-up: options crossing, generation prompt, parser construction);
// - end to end: a 30 KB whole-text parse and the 8K stream in 4-byte chunks, set-up included.
// `node pkg-tests/bench-startup.mjs` prints JSON; pkg-tests/bench.mjs imports `measureStartup` for BENCHMARKS.md.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { repoRoot, fixturesDir } from './helpers.mjs';

const tdir = join(fixturesDir, 'conformance/templates');
/** The playground's default template, and the bench inputs' templates. */
export const COLD_TEMPLATES = ['MiniMax-M2.jinja', 'Qwen3.5-4B.jinja', 'Qwen3-Coder.jinja', 'openai-gpt-oss-120b.jinja'];

// Runs in the child: the import and the first parse, wall time and the main thread's CPU time, plus how long
// the main thread sat runnable but unscheduled (/proc schedstat: on a loaded machine wall ≫ CPU), in ms.
const CHILD = `
const sched = () => { try { return require('node:fs').readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map((x) => Number(x) / 1e6); } catch { return [NaN, NaN]; } };
const cpu = () => sched()[0], queued = () => sched()[1];
const [entry, src, text] = JSON.parse(process.argv[1]);
const t0 = performance.now(), c0 = cpu(), q0 = queued();
const { parseOutput } = require(entry);
const t1 = performance.now(), c1 = cpu();
parseOutput(require('node:fs').readFileSync(src, 'utf8'), text);
const t2 = performance.now(), c2 = cpu(), q2 = queued();
console.log(JSON.stringify({ start: t0, import: t1 - t0, firstParse: t2 - t1, importCpu: c1 - c0, firstParseCpu: c2 - c1, queued: q2 - q0, running: t2 - t0 - (q2 - q0) }));
`;

const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

export function medianTime(fn, budgetMs = 200) {
  fn();
  const t0 = performance.now(); fn(); const once = Math.max(performance.now() - t0, 0.0005);
  const reps = Math.min(20000, Math.max(5, Math.floor(budgetMs / once)));
  const v = [];
  for (let i = 0; i < reps; i++) { const t = performance.now(); fn(); v.push(performance.now() - t); }
  return median(v);
}

export function measureStartup({ runs = 5 } = {}) {
  // BENCH_PKG_ROOT: measure another build (e.g. a copy of main's pkg/) for a before/after.
  const entry = join(process.env.BENCH_PKG_ROOT ?? repoRoot, 'pkg/node/chat_autoparser.js');
  const cold = [];
  for (const name of COLD_TEMPLATES) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(process.execPath, ['-e', CHILD, JSON.stringify([entry, join(tdir, name), 'Hello! How can I help?'])], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`cold run failed: ${r.stderr}`);
      samples.push(JSON.parse(r.stdout));
    }
    const m = (k) => median(samples.map((s) => s[k]));
    cold.push({ template: name, import: m('import'), firstParse: m('firstParse'), importCpu: m('importCpu'), firstParseCpu: m('firstParseCpu'), queued: m('queued'), running: m('running') });
  }

  const pkg = createRequire(import.meta.url)(entry);
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } } } }];
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: 'What is the weather in Paris?' }];
  const opts = { tools, messages };
  const tool = (n) => ({ type: 'function', function: { name: n, parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } } } });
  const opts3 = { tools: ['get_weather', 'get_time', 'search'].map(tool), messages };
  const opts32 = { tools: Array.from({ length: 32 }, (_, i) => tool(`tool_${i}`)), messages };
  const perCall = [];
  const inputs = { 'Qwen3.5-4B.jinja': 'qwen3.5-4b', 'Qwen3-Coder.jinja': 'qwen3-coder', 'openai-gpt-oss-120b.jinja': 'gpt-oss', 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja': 'hermes-2-pro' };
  for (const [name, family] of Object.entries(inputs)) {
    const t = new pkg.ChatTemplate(readFileSync(join(tdir, name), 'utf8'));
    const text = readFileSync(join(fixturesDir, `bench/inputs/${family}-8k.txt`), 'utf8');
    const chunks = text.match(/[\s\S]{1,4}/gu) ?? [];
    pkg.parseOutput(t, 'x', opts); // analysis and first prompt out of the way
    const parseTiny = medianTime(() => pkg.parseOutput(t, 'Hi', opts));
    const construct = medianTime(() => new pkg.StreamParser(t, opts).free());
    const whole = medianTime(() => pkg.parseOutput(t, text, opts));
    const stream = medianTime(() => { const p = new pkg.StreamParser(t, opts); for (const c of chunks) p.push(c); p.finish(); p.free(); }, 400);
    // Set-up against the number of declared tools: 3 and 32, the same (unfrozen) options object each call.
    const tiny3 = medianTime(() => pkg.parseOutput(t, 'Hi', opts3));
    const tiny32 = medianTime(() => pkg.parseOutput(t, 'Hi', opts32));
    // A chat frontend parses each reply once, with the conversation so far: a new `messages` each call, so
    // the generation prompt is rendered again (two template renders) while the parser is copied from the
    // one built for the same tools (session/parser_cache.rs).
    let turn = 0;
    const conversation = () => [messages[0], { role: 'user', content: `What is the weather in city ${turn++}?` }];
    const newConversation = medianTime(() => pkg.parseOutput(t, 'Hi', { tools, messages: conversation() }));
    const newConversationPrompt = medianTime(() => pkg.generationPrompt(t, { tools, messages: conversation() }));
    const bytes = Buffer.byteLength(text);
    perCall.push({ template: name, input: `${family}-8k`, bytes, parseTiny, construct, whole, wholeMBs: bytes / 1e6 / (whole / 1e3), stream, tiny3, tiny32, newConversation, newConversationPrompt });
    t.free();
  }
  return { cold, perCall };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(measureStartup(), null, 1));
