// Hostile templates and data through wasm: a clear error (or a correct result) within a second each,
// and the instance keeps working afterwards (a panic or a stack overflow would kill it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cap from '../pkg/node/index.mjs';

const CTX = { messages: [{ role: 'user', content: 'hi' }], add_generation_prompt: true };

function quick(name, fn, limitMs = 1000) {
  const t0 = performance.now();
  let result, error;
  try { result = fn(); } catch (e) { error = e; }
  const ms = performance.now() - t0;
  assert.ok(ms < limitMs, `${name}: ${ms.toFixed(0)} ms`);
  if (error) {
    assert.ok(error instanceof Error, `${name}: ${error}`);
    assert.ok(['Limit', 'Render', 'TemplateSyntax', 'InvalidInput'].includes(error.kind), `${name}: ${error.kind} ${error.message}`);
  }
  return { result, error, ms };
}

const HOSTILE = {
  'nested loops': '{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}',
  'macro recursion': '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}',
  'string bomb': "{% set s = namespace(v='x') %}{% for i in range(64) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v }}",
  'huge output': "{% for i in range(10000) %}{{ 'x' * 100000 }}{% endfor %}",
  'messages times a million': '{% for m in messages * 1000000 %}{{ m.content }}{% endfor %}',
  'deep parentheses': `{{ ${'('.repeat(5000)}1${')'.repeat(5000)} }}`,
};

for (const [name, src] of Object.entries(HOSTILE)) {
  test(`hostile template: ${name}`, () => {
    const { result, error } = quick(name, () => cap.renderTemplate(src, CTX));
    assert.ok(error || result.length <= 8 << 20, name);
  });
}

test('analysis of hostile templates stays bounded', () => {
  // Analysis renders dozens of times; each render has its own fuel. Report, with a generous bound.
  for (const [name, src] of Object.entries(HOSTILE)) {
    const { ms } = quick(name, () => cap.analyzeTemplate(src), 5000);
    console.log(`analysis of ${name}: ${ms.toFixed(0)} ms`);
  }
});

test('5,000 tools', () => {
  const tools = Array.from({ length: 5000 }, (_, i) => ({ type: 'function', function: { name: `tool_${i}`, parameters: { type: 'object', properties: { a: { type: 'string' } } } } }));
  const src = '{% for t in tools %}{{ t.function.name }}\n{% endfor %}{% for m in messages %}{{ m.content }}{% endfor %}';
  const { result, error } = quick('5000 tools', () => cap.renderTemplate(src, { ...CTX, tools }));
  if (!error) assert.equal(result.split('\n').length, 5001);
});

test('huge template source', () => {
  const src = Array.from({ length: 50000 }, (_, i) => `line ${i} {{ messages[0].content }} padding padding`).join('\n');
  quick('2.6 MB source', () => cap.renderTemplate(src, CTX), 2000);
});

test('deeply nested data', () => {
  let v = 'leaf';
  for (let i = 0; i < 100000; i++) v = [v];
  quick('100,000-deep messages', () => cap.renderTemplate('{{ messages | tojson }}', { messages: v }));
});

// Issue #11 item 5: list and string growth are charged by size inside minijinja (vendor/README.md).
// Each doubling chain is a Limit error, fast, and the same call works normally afterwards.
const GROWTH = {
  'namespace doubling': '{% set ns = namespace(l=[1]) %}{% for i in range(33) %}{% set ns.l = ns.l + ns.l %}{% endfor %}x',
  'namespace doubling, length': '{% set ns = namespace(l=[1]) %}{% for i in range(32) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}',
  'macro recursion f(l + l)': '{% macro f(l, n) %}{% if n > 0 %}{{ f(l + l, n - 1) }}{% else %}{{ l|length }}{% endif %}{% endmacro %}{{ f([1], 40) }}',
  'list-literal chain': `{% set a0 = [1, 2] %}${Array.from({ length: 30 }, (_, i) => `{% set a${i + 1} = a${i} + a${i} %}`).join('')}{{ a30|length }}`,
  'list repetition': '{% set ns = namespace(l=[1, 2, 3]) %}{% for i in range(30) %}{% set ns.l = ns.l * 2 %}{% endfor %}{{ ns.l|length }}',
  'tilde of shared sublists': "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ('' ~ ns.l)|length }}",
};

for (const [name, src] of Object.entries(GROWTH)) {
  test(`list growth is charged: ${name}`, () => {
    const { error } = quick(name, () => cap.renderTemplate(src, CTX), 2000);
    assert.ok(error, `${name}: rendered`);
    assert.equal(error.kind, 'Limit', `${name}: ${error.message}`);
    assert.equal(cap.renderTemplate('{{ messages[0].content }}', CTX), 'hi', `${name}: usable after`);
  });
}

test('the instance still works', () => {
  assert.equal(cap.renderTemplate('{{ messages[0].content }}', CTX), 'hi');
});
