// A seeded fuzz of the JS boundary: random argument types and values, random `this` bindings and random
// call orders across every export. After every call the instance must still render `{{ 1 }}`, and every
// thrown value must be an Error (a ChatAutoparserError) with a string `kind`.
// FUZZ_RUNS / FUZZ_SEED override the bounded default that `npm test` runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cap from '../pkg/node/index.mjs';

const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SOURCES = [
  "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}",
  "{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}<think>{% endif %}",
  "{% for m in messages %}{{ m.content }}{% if m.tool_calls %}<tool_call>{{ m.tool_calls[0].function | tojson }}</tool_call>{% endif %}{% endfor %}",
  '{% generation %}{{ "ééé" }}{% endgeneration %}',
  '{% if %}',
  '{{ 1 }}',
  '',
  "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns.l) %}{{ ns.l|string }}",
];
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

test(`boundary fuzz: ${RUNS} random calls (seed ${SEED})`, () => {
  const rand = rng(SEED);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const objects = [];   // live and freed facade objects, reused as arguments and as `this`
  const text = () => pick(['', 'hello', 'a\ud83d', '\ude00b', '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
    '</think>x', '\u0000', 'é'.repeat(20), '<|assistant|>', String(rand())]);
  const VALID_OPTIONS = [undefined, null, {}, { tools: TOOLS }, { isPartial: true }, { reasoningFormat: 'none' },
    { toolChoice: 'required', tools: TOOLS }, { jsonSchema: { type: 'object' } }, { extraContext: { x: 1 } }];
  const options = () => (rand() < 0.6 ? pick(VALID_OPTIONS) : pick([
    { isPartial: 'yes' }, { tols: [] }, { now: 1e9 }, { now: NaN }, { fuel: -1 }, { continueFinalMessage: 'maybe' }, [], 'opts', 3,
    new Proxy({}, { ownKeys() { throw new Error('hostile proxy'); } }),
    { get tools() { throw new Error('hostile getter'); } },
  ]));
  const value = () => {
    const r = rand();
    if (r < 0.3) return pick(SOURCES);
    if (r < 0.45) return text();
    if (r < 0.6 && objects.length) return pick(objects);
    return pick([undefined, null, 0, 42, -1, NaN, true, [], {}, [1, 2], { __handle: 1 }, { __handle: 2, __wbg_ptr: 16 },
      { messages: [] }, { messages: [{ role: 'user', content: 'hi' }], add_generation_prompt: true }, { messages: 'x' },
      Symbol('s'), 10n, () => 1, new Date(0), options()]);
  };
  const calls = [
    ['renderTemplate', (a) => cap.renderTemplate(a[0], a[1], a[2])],
    ['analyzeTemplate', (a) => cap.analyzeTemplate(a[0], a[1])],
    ['generationPrompt', (a) => cap.generationPrompt(a[0], a[1])],
    ['parseOutput', (a) => cap.parseOutput(a[0], a[1], a[2])],
    ['buildGrammar', (a) => cap.buildGrammar(a[0], a[1])],
    ['checkGrammar', (a) => cap.checkGrammar(a[0], a[1])],
    ['verifyTemplate', (a) => cap.verifyTemplate(a[0])],
    ['version', () => cap.version()],
    ['new ChatTemplate', (a) => objects.push(new cap.ChatTemplate(a[0], a[1]))],
    ['new StreamParser', (a) => objects.push(new cap.StreamParser(a[0], a[1]))],
  ];
  for (const cls of [cap.ChatTemplate, cap.StreamParser]) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(cls.prototype))) {
      if (name === 'constructor') continue;
      const fn = d.get ?? d.value;
      calls.push([`${cls.name}.${name}`, (a, self) => fn.call(self, a[0], a[1])]);
    }
  }
  const seen = new Map();
  let threw = 0;
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i++) {
    const [name, call] = pick(calls);
    // Methods get a matching object most of the time, anything else otherwise.
    const self = rand() < 0.7 && objects.length ? pick(objects) : value();
    const args = [rand() < 0.5 ? pick(SOURCES) : value(), rand() < 0.5 ? text() : value(), options()];
    if (name.startsWith('new ') && rand() < 0.7) args[0] = rand() < 0.5 ? pick(SOURCES) : (objects.find((o) => o instanceof cap.ChatTemplate) ?? args[0]);
    if (name === 'renderTemplate' || name.endsWith('.render')) args[1] = rand() < 0.6 ? { messages: [{ role: 'user', content: text() }] } : args[1];
    if (name === 'StreamParser.push' && rand() < 0.8) args[0] = text();
    if (name === 'checkGrammar') args[0] = rand() < 0.5 ? 'root ::= "hello"' : args[0];
    let error;
    try { call(name.includes('.') ? [args[0], args[1]] : args, self); } catch (e) { error = e; }
    if (error !== undefined) {
      threw++;
      assert.ok(error instanceof Error, `${name}: threw a non-Error ${String(error)}`);
      assert.equal(typeof error.kind, 'string', `${name}: error without kind: ${error}`);
      const key = `${name}: ${error.kind}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    assert.equal(cap.renderTemplate('{{ 1 }}', { messages: [] }), '1', `after ${name} (run ${i})`);
    if (objects.length > 40) objects.splice(0, 20).forEach((o) => { try { o.free(); } catch { /* may be retired */ } });
  }
  const ms = performance.now() - t0;
  console.log(`boundary fuzz: ${RUNS} runs (seed ${SEED}) in ${ms.toFixed(0)} ms, ${threw} threw; kinds: ${[...new Set([...seen.keys()].map((k) => k.split(': ')[1]))].sort().join(', ')}`);
  assert.ok(threw > 0 && threw < RUNS, 'the generator reaches both success and failure paths');
});
