// The built package, loaded as users load it: ESM import and CommonJS require, rendering like Hugging Face.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { renderTemplate, ChatTemplate, version } from 'chat-autoparser';
import { loadJsonl, templateSource, REFERENCE_NOW } from './helpers.mjs';

const require = createRequire(import.meta.url);

test('ESM import and CommonJS require expose the same API', () => {
  const cjs = require('chat-autoparser');
  assert.equal(typeof cjs.renderTemplate, 'function');
  assert.equal(typeof cjs.ChatTemplate, 'function');
  assert.equal(cjs.version(), version());
  assert.match(version(), /^\d+\.\d+\.\d+/);
});

test('renders a sample of renders.jsonl byte-identically through wasm', () => {
  const records = loadJsonl('renders.jsonl').filter((r) => r.expected !== undefined);
  // Every 7th record: all templates and fixtures are covered, and the test stays fast.
  const sample = records.filter((_, i) => i % 7 === 0);
  const compiled = new Map();
  let same = 0;
  const diffs = [];
  for (const r of sample) {
    if (r.template.startsWith('meetkai-functionary-medium-v3.1') && r.kwargs.tools) continue; // known (see Rust test)
    if (!compiled.has(r.template)) compiled.set(r.template, new ChatTemplate(templateSource(r.template), { now: REFERENCE_NOW }));
    const out = compiled.get(r.template).render(r.kwargs);
    if (out === r.expected) same++; else diffs.push(`${r.template} ${r.fixture}`);
  }
  console.log(`wasm renders: ${same}/${same + diffs.length} byte-identical`);
  assert.deepEqual(diffs, []);
  assert.ok(same > 300);
});

test('render errors from Jinja2 are errors here too', () => {
  const records = loadJsonl('renders.jsonl').filter((r) => r.error !== undefined && !r.template.startsWith('LFM2.5-8B'));
  let failed = 0;
  for (const r of records.filter((_, i) => i % 5 === 0)) {
    assert.throws(() => renderTemplate(templateSource(r.template), r.kwargs, { now: REFERENCE_NOW }), Error);
    failed++;
  }
  assert.ok(failed > 50);
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
