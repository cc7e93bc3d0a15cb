// Issue #28: the parse-only module (`chat-autoparser/parser`) given the full package's compileParser spec
// parses exactly as the full package does with the template — the same messages, deltas, diagnostics,
// finish reasons and errors, whole and chunked — over every corpus. `cargo test --test parser_spec` (run by
// `npm test` before this) writes the cases (conformance, real outputs, zoo round trips) and the native specs.
// Also: the spec wasm ≡ native, a spec of another version is refused naming both, the module's size and its
// first parse after import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import * as full from '../pkg/node/index.mjs';
import * as parser from '../pkg/parser/node/index.mjs';
import { repoRoot } from './helpers.mjs';

const casesPath = join(repoRoot, 'target/tmp/parser-identity-cases.json');
const parserWasm = join(repoRoot, 'pkg/parser/web/chat_autoparser_parser_bg.wasm');

function templateSource(name) {
  for (const dir of ['tests/fixtures/real-outputs/templates', 'tests/fixtures/conformance/templates', 'tests/fixtures/zoo']) {
    const p = join(repoRoot, dir, name);
    if (existsSync(p)) return readFileSync(p, 'utf8');
  }
  throw new Error(`template ${name} not found`);
}

/** The case's options as a JS caller passes them (the native serialization writes absent ones as null). */
const jsOptions = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

/** Everything one parse gives, as text: byte-identical means equal text. */
function run(P, target, output, options, size) {
  let p;
  try {
    p = new P(target, options);
  } catch (e) {
    return JSON.stringify({ buildError: e.kind, message: e.message });
  }
  const deltas = [];
  for (let i = 0; i < output.length; i += size) deltas.push(p.push(output.slice(i, i + size)));
  let error;
  try {
    deltas.push(p.finish());
  } catch (e) {
    error = { kind: e.kind, message: e.message, offset: e.offset, deltas: e.deltas };
  }
  const out = JSON.stringify({ deltas, message: p.message, diagnostics: p.diagnostics, finishReason: p.finishReason, stopped: p.stopped, error });
  p.free();
  return out;
}

function whole(parse, target, output, options) {
  try {
    return JSON.stringify(parse(target, output, { ...options, diagnostics: true }));
  } catch (e) {
    return JSON.stringify({ kind: e.kind, message: e.message, offset: e.offset });
  }
}

test('chat-autoparser/parser ≡ the full package over every corpus, whole and chunked', () => {
  assert.ok(existsSync(casesPath), `${casesPath} is missing: run \`cargo test --test parser_spec\` first`);
  const { now, cases, specs } = JSON.parse(readFileSync(casesPath, 'utf8'));
  const templates = new Map();
  const compiled = new Map();
  const differ = [];
  const counts = {};
  for (const c of cases) {
    if (!templates.has(c.template)) {
      const t = new full.ChatTemplate(templateSource(c.template), { now });
      const spec = full.compileParser(t);
      // The wasm writes the spec the native build writes.
      if (JSON.stringify(spec) !== specs[c.template]) differ.push(`spec of ${c.template}: wasm ≠ native`);
      templates.set(c.template, t);
      // As a page gets it: JSON text over the wire, parsed.
      compiled.set(c.template, JSON.parse(JSON.stringify(spec)));
    }
    const t = templates.get(c.template);
    const spec = compiled.get(c.template);
    const options = jsOptions(c.options);
    const got = [whole(full.parseOutput, t, c.output, options), whole(parser.parseOutput, spec, c.output, options)];
    if (got[0] !== got[1]) differ.push(`${c.corpus} ${c.template} whole:\n  full:   ${got[0].slice(0, 400)}\n  parser: ${got[1].slice(0, 400)}`);
    if (full.generationPrompt(t, options) !== parser.generationPrompt(spec, options)) differ.push(`${c.corpus} ${c.template}: generation prompts differ`);
    for (const size of [1, 7]) {
      const [a, b] = [run(full.StreamParser, t, c.output, options, size), run(parser.StreamParser, spec, c.output, options, size)];
      if (a !== b) differ.push(`${c.corpus} ${c.template} chunks of ${size}:\n  full:   ${a.slice(0, 400)}\n  parser: ${b.slice(0, 400)}`);
    }
    counts[c.corpus] = (counts[c.corpus] ?? 0) + 1;
  }
  console.log(`parser ≡ full: ${JSON.stringify(counts)} cases over ${templates.size} templates (whole with diagnostics, chunks of 1 and 7 UTF-16 units)`);
  for (const t of templates.values()) t.free();
  assert.ok(Object.values(counts).every((n) => n > 50) && Object.keys(counts).length === 3, JSON.stringify(counts));
  assert.deepEqual(differ.slice(0, 10), []);
});

test('a spec of another version is refused with a SpecVersion error naming both versions', () => {
  const spec = full.compileParser(templateSource('Qwen-Qwen3-0.6B.jinja'));
  assert.equal(spec.specVersion, 4);
  const old = { ...spec, specVersion: 0, writtenBy: '0.0.9' };
  for (const attempt of [() => parser.parseOutput(old, 'hi'), () => new parser.StreamParser(JSON.stringify(old))]) {
    assert.throws(attempt, (e) => e instanceof Error && e.kind === 'SpecVersion' && /version 0/.test(e.message) && /0\.0\.9/.test(e.message) && /version 4/.test(e.message));
  }
  assert.throws(() => parser.parseOutput({ hello: 1 }, 'hi'), (e) => e.kind === 'InvalidInput');
  assert.throws(() => parser.parseOutput(42, 'hi'), (e) => e.kind === 'InvalidInput' && /spec: expected a parser spec/.test(e.message));
  assert.throws(() => parser.parseOutput(spec, 'hi', { nope: 1 }), (e) => e.kind === 'InvalidInput' && /options\.nope/.test(e.message));
  // The parse-only module has no template API.
  assert.equal(parser.ChatTemplate, undefined);
  assert.equal(parser.buildGrammar, undefined);
  assert.equal(typeof parser.StreamParser.prototype.pushEvents, 'undefined');
});

test('the parse-only wasm is at most 200 KB gzip -9 and 170 KB brotli', () => {
  const bytes = readFileSync(parserWasm);
  const gz = gzipSync(bytes, { level: 9 }).length;
  const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`chat-autoparser/parser wasm: ${bytes.length} bytes, ${gz} gzip -9, ${br} brotli`);
  assert.ok(gz <= 200 * 1024, `${gz} bytes gzipped`);
  assert.ok(br <= 170 * 1024, `${br} bytes brotli`);
});

test('the full wasm did not grow: at most 640 KB gzip -9', () => {
  // Issue #28: the parse-only module must not come at the full module's cost. The strictest reading: Node's zlib,
  // which compresses this module ≈ 1.2 % worse than the `gzip -9` CLI the issue names, and decimal KB, the unit of
  // README's figure line the issue quoted.
  const bytes = readFileSync(join(repoRoot, 'pkg/web/chat_autoparser_bg.wasm'));
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(`chat-autoparser wasm: ${bytes.length} bytes, ${gz} gzip -9`);
  assert.ok(gz <= 640_000, `${gz} bytes gzipped`);
});

test('the warm-up spec the parse-only entry compiles its parse path with on load is what compileParser makes today', () => {
  // src/wasm/js/warm-up-spec.json is pasted into the parse-only entries (facade-parser.js `afterLoad`). A spec of
  // another version would be refused there silently (the warm-up never fails a load) and the first parse would pay
  // V8's lazy compilation again: regenerate it with compileParser when this fails.
  const committed = JSON.parse(readFileSync(join(repoRoot, 'src/wasm/js/warm-up-spec.json'), 'utf8'));
  assert.deepEqual(committed, full.compileParser(templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja')));
  assert.ok(readFileSync(join(repoRoot, 'pkg/parser/node/chat_autoparser_parser.js'), 'utf8').includes(JSON.stringify(JSON.stringify(committed)).slice(1, 60)));
});

test('the first parse after importing chat-autoparser/parser: ≤ 20 ms of main-thread CPU (idle machine), a fraction of the full package\'s', () => {
  // A fresh process each time: import (instantiates the wasm), then one parse of a reply with a tool call. Timed as
  // pkg-tests/bench-startup.mjs times the full package: the main thread's CPU time (/proc schedstat), since on this
  // shared machine the wall time is mostly waiting to be scheduled. Where /proc has no schedstat: wall time.
  const spec = JSON.stringify(full.compileParser(templateSource('Qwen-Qwen3-0.6B.jinja')));
  const script = (entry, target) => `
    import { readFileSync } from 'node:fs';
    const cpu = () => { try { return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6; } catch { return performance.now(); } };
    const spec = ${JSON.stringify(target)};
    const ci = cpu();
    const { parseOutput } = await import(${JSON.stringify(join(repoRoot, entry))});
    const t0 = performance.now(), c0 = cpu();
    const m = parseOutput(spec, '<think>ok</think>Sure.<tool_call>\\n{"name": "f", "arguments": {"a": 1}}\\n</tool_call>', { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' } } } } }] });
    const wall = performance.now() - t0, ms = cpu() - c0;
    if (JSON.parse(m.tool_calls?.[0]?.function.arguments ?? 'null')?.a !== 1) throw new Error(JSON.stringify(m));
    console.log(JSON.stringify([ms, wall, c0 - ci]));`;
  const time = (entry, target) => [0, 1, 2, 3, 4].map(() => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script(entry, target)], { encoding: 'utf8' }).trim()));
  const runs = time('pkg/parser/node/index.mjs', spec);
  // The full package's first parse of the same reply, from the template (its analysis included).
  const fullRuns = time('pkg/node/index.mjs', templateSource('Qwen-Qwen3-0.6B.jinja'));
  const best = (r) => Math.min(...r.map(([c]) => c));
  const load = loadavg()[0];
  console.log(`first parse after import (load ${load.toFixed(1)} on ${cpus().length} cores): parser ${runs.map(([c, w]) => `${c.toFixed(1)} ms CPU (${w.toFixed(1)} wall)`).join(', ')}; `
    + `full package ${fullRuns.map(([c]) => c.toFixed(1)).join(', ')} ms CPU; import (its warm-up included): parser ${runs.map(([, , i]) => i.toFixed(1)).join(', ')} ms CPU`);
  assert.ok(best(runs) * 2 <= best(fullRuns), `parser ${best(runs)} ms vs full ${best(fullRuns)} ms`);
  // The absolute bound only where the CPU is not shared (timings here grow with the load, CPU time included).
  if (load < cpus().length) assert.ok(best(runs) <= 20, JSON.stringify(runs));
});
