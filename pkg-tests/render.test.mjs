// The built package, loaded as users load it: ESM import and CommonJS require, rendering like Hugging Face.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { renderTemplate, ChatTemplate, version } from 'chat-autoparser';
import { expectations, loadJsonl, templateSource, REFERENCE_NOW } from './helpers.mjs';

const require = createRequire(import.meta.url);

test('ESM import and CommonJS require expose the same API', () => {
  const cjs = require('chat-autoparser');
  assert.equal(typeof cjs.renderTemplate, 'function');
  assert.equal(typeof cjs.ChatTemplate, 'function');
  assert.equal(cjs.version(), version());
  assert.match(version(), /^\d+\.\d+\.\d+/);
});

/** renders.jsonl with the case ids of the Rust test (`TEMPLATE fixture #k`), for its expectations. */
function renderRecords() {
  const seen = new Map();
  return loadJsonl('renders.jsonl').map((r) => {
    const key = `${r.template} ${r.fixture}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    return { ...r, id: `${key} #${seen.get(key)}` };
  });
}

// Both tests hold the wasm build to the native expectations (tests/expectations/renders.jsonl): a case
// expected to pass must pass here, a known difference must still differ.
const renderExpect = expectations('renders');

test('renders a sample of renders.jsonl byte-identically through wasm', () => {
  const records = renderRecords().filter((r) => r.expected !== undefined);
  // Every 7th record: all templates and fixtures are covered, and the test stays fast.
  const sample = records.filter((_, i) => i % 7 === 0);
  const compiled = new Map();
  let same = 0;
  const diffs = [];
  for (const r of sample) {
    if (!compiled.has(r.template)) compiled.set(r.template, new ChatTemplate(templateSource(r.template), { now: REFERENCE_NOW }));
    const ok = compiled.get(r.template).render(r.kwargs) === r.expected;
    if (ok) same++;
    const known = renderExpect.expectation(r.id);
    assert.notEqual(known, undefined, `${r.id}: no expectation in tests/expectations/renders.jsonl`);
    if (ok === (known !== null)) diffs.push(known === null ? `FAILS ${r.id}` : `NOW PASSES ${r.id} (was known: ${known})`);
  }
  console.log(`wasm renders: ${same}/${sample.length} byte-identical`);
  assert.deepEqual(diffs, []);
});

test('render errors from Jinja2 are errors here too', () => {
  const records = renderRecords().filter((r) => r.error !== undefined);
  const diffs = [];
  for (const r of records.filter((_, i) => i % 5 === 0)) {
    let threw = false;
    try { renderTemplate(templateSource(r.template), r.kwargs, { now: REFERENCE_NOW }); } catch (e) { assert.ok(e instanceof Error); threw = true; }
    const known = renderExpect.expectation(r.id);
    assert.notEqual(known, undefined, `${r.id}: no expectation in tests/expectations/renders.jsonl`);
    if (threw === (known !== null)) diffs.push(known === null ? `FAILS ${r.id}: rendered, Jinja2 raised` : `NOW PASSES ${r.id} (was known: ${known})`);
  }
  assert.deepEqual(diffs, []);
});

test('syntax errors are real Errors with kind, line and column', () => {
  const err = (() => { try { renderTemplate('hello\n{% if %}', { messages: [] }); } catch (e) { return e; } })();
  assert.ok(err instanceof Error);
  assert.equal(err.kind, 'TemplateSyntax');
  assert.equal(err.line, 2);
  assert.ok(err.column >= 1);
  assert.match(err.message, /syntax/);
});

test('bad arguments throw InvalidInput naming the field', () => {
  assert.throws(() => renderTemplate('x', { messages: [] }, { fuell: 3 }), (e) => e.kind === 'InvalidInput' && /options/.test(e.message));
  assert.throws(() => renderTemplate('x', 42), (e) => e.kind === 'InvalidInput' && /context/.test(e.message));
});

test('hostile templates fail fast with a Limit error', () => {
  const cases = {
    'endless loop': '{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}',
    'runaway recursion': '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}',
    'huge output': '{% for i in range(10000) %}{{ "x" * 100000 }}{% endfor %}',
  };
  for (const [name, src] of Object.entries(cases)) {
    const t0 = performance.now();
    assert.throws(() => renderTemplate(src, { messages: [] }), (e) => e instanceof Error && ['Limit', 'Render'].includes(e.kind), name);
    const ms = performance.now() - t0;
    assert.ok(ms < 1000, `${name} took ${ms} ms`);
  }
});

test('caps are probed', () => {
  const t = new ChatTemplate(templateSource('Qwen3-Coder.jinja'));
  assert.equal(t.caps.supportsToolCalls, true);
  assert.equal(t.caps.supportsParallelToolCalls, true);
  assert.equal(t.caps.supportsSystemRole, true);
  const g = new ChatTemplate(templateSource('google-gemma-2-2b-it.jinja'));
  assert.equal(g.caps.supportsToolCalls, false);
});
