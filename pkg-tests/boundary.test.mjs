// The JS/wasm boundary (issue #11 items 1, 4, 10, 13, 15): arguments and `this` are checked before
// anything crosses, every error is a ChatAutoparserError with a kind, a trap retires only the object that
// trapped, surrogate pairs split across chunks survive, and finished or freed objects say so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as cap from '../pkg/node/index.mjs';
import { templateSource } from './helpers.mjs';

const SRC = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";
const CTX = { messages: [{ role: 'user', content: 'hi' }], add_generation_prompt: true };
// Unbounded recursion in the renderer exhausts the stack (a trap, unless the core bounds it first).
const STACK_BOMB = "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns.l) %}{{ ns.l|string }}";

function throwsKind(fn, kind, pattern) {
  let err;
  try { fn(); } catch (e) { err = e; }
  assert.ok(err instanceof Error, `expected an Error, got ${err}`);
  assert.ok(err instanceof cap.ChatAutoparserError, `not a ChatAutoparserError: ${err}`);
  assert.equal(err.kind, kind, `${err.kind}: ${err.message}`);
  if (pattern) assert.match(err.message, pattern);
  return err;
}

const alive = () => assert.equal(cap.renderTemplate('{{ 1 }}', { messages: [] }), '1');

test('wrong argument types are InvalidInput naming the argument (item 4)', () => {
  const p = new cap.StreamParser(SRC);
  for (const bad of [42, {}, [], undefined, null, true, Symbol('s'), 10n]) {
    throwsKind(() => p.push(bad), 'InvalidInput', /chunk/);
  }
  throwsKind(() => cap.renderTemplate(42, CTX), 'InvalidInput', /source/);
  throwsKind(() => cap.renderTemplate(undefined, CTX), 'InvalidInput', /source/);
  throwsKind(() => cap.renderTemplate(SRC, null), 'InvalidInput', /context/);
  throwsKind(() => cap.renderTemplate(SRC, []), 'InvalidInput', /context/);
  throwsKind(() => new cap.ChatTemplate({}), 'InvalidInput', /source/);
  throwsKind(() => new cap.ChatTemplate(null), 'InvalidInput', /source/);
  throwsKind(() => cap.parseOutput(SRC, true), 'InvalidInput', /text/);
  throwsKind(() => cap.parseOutput(SRC, undefined), 'InvalidInput', /text/);
  throwsKind(() => cap.checkGrammar(1, 'x'), 'InvalidInput', /gbnf/);
  throwsKind(() => cap.checkGrammar('root ::= "x"', null), 'InvalidInput', /text/);
  throwsKind(() => cap.verifyTemplate(7), 'InvalidInput', /templateOrSource/);
  throwsKind(() => cap.generationPrompt(SRC, 'options'), 'InvalidInput', /options/);
  const cyclic = { messages: [] };
  cyclic.self = cyclic;
  throwsKind(() => cap.renderTemplate(SRC, cyclic), 'InvalidInput', /context.*JSON/);
  throwsKind(() => cap.renderTemplate(SRC, { messages: [], big: 1n }), 'InvalidInput', /context/);
  assert.deepEqual(p.push('ok'), [{ content: 'ok' }], 'the parser still works after the refused pushes');
  alive();
});

test('wrong option types and unknown options are InvalidInput naming the option (item 15)', () => {
  throwsKind(() => cap.parseOutput(SRC, 'x', { continueFinalMessage: 'maybe' }), 'InvalidInput', /continueFinalMessage/);
  throwsKind(() => cap.parseOutput(SRC, 'x', { jsonSchema: 'x' }), 'InvalidInput', /jsonSchema/);
  throwsKind(() => cap.parseOutput(SRC, 'x', { isPartial: 'yes' }), 'InvalidInput', /isPartial/);
  throwsKind(() => cap.parseOutput(SRC, 'x', { isPartial: null }), 'InvalidInput', /isPartial/);
  throwsKind(() => cap.parseOutput(SRC, 'x', { tools: {} }), 'InvalidInput', /tools/);
  throwsKind(() => cap.parseOutput(SRC, 'x', { reasoningFormat: 'deepseek2' }), 'InvalidInput', /reasoningFormat/);
  throwsKind(() => cap.parseOutput(SRC, 'x', { extraContext: [] }), 'InvalidInput', /extraContext/);
  throwsKind(() => cap.parseOutput(SRC, 'x', { isPartal: true }), 'InvalidInput', /isPartal/);
  throwsKind(() => cap.renderTemplate(SRC, CTX, { now: NaN }), 'InvalidInput', /now/);
  throwsKind(() => cap.renderTemplate(SRC, CTX, { fuel: 1.5 }), 'InvalidInput', /fuel/);
  throwsKind(() => new cap.ChatTemplate(SRC, { bosToken: 1 }), 'InvalidInput', /bosToken/);
  // Accepted: undefined fields, null render options (= default), a null jsonSchema.
  assert.equal(cap.renderTemplate(SRC, CTX, { now: undefined, fuel: null }), '<|user|>hi<|assistant|>');
  assert.equal(cap.parseOutput(SRC, 'x', { jsonSchema: null, isPartial: undefined }).content, 'x');
});

test('`this` is checked on every method and getter; forged handles are refused', () => {
  const t = new cap.ChatTemplate(SRC);
  const p = new cap.StreamParser(t);
  const forged = { __handle: 1, __wbg_ptr: 8 };
  for (const [cls, obj] of [['ChatTemplate', cap.ChatTemplate.prototype], ['StreamParser', cap.StreamParser.prototype]]) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(obj))) {
      if (name === 'constructor') continue;
      const fn = d.get ?? d.value;
      for (const self of [forged, cls === 'ChatTemplate' ? p : t, {}, null, undefined, 42]) {
        throwsKind(() => fn.call(self, 'x'), 'InvalidInput', new RegExp(`${cls}\\.${name}`));
      }
    }
  }
  throwsKind(() => cap.parseOutput(forged, 'x'), 'InvalidInput', /templateOrSource/);
  throwsKind(() => new cap.StreamParser({ __handle: 1 }), 'InvalidInput', /templateOrSource/);
  throwsKind(() => cap.buildGrammar(p, {}), 'InvalidInput', /templateOrSource/);
  assert.equal(t.render(CTX), '<|user|>hi<|assistant|>');
  alive();
});

test('a trap (stack exhaustion) is an Internal error; the instance and other objects keep working (item 1)', () => {
  const t = new cap.ChatTemplate(SRC);
  const p = new cap.StreamParser(t);
  p.push('before ');
  for (let i = 0; i < 3; i++) {
    let err;
    try { cap.renderTemplate(STACK_BOMB, { messages: [] }); } catch (e) { err = e; }
    // The core may bound this itself (a Limit/Render error); either way a kind, and nothing breaks.
    if (err) {
      assert.ok(err instanceof cap.ChatAutoparserError && typeof err.kind === 'string', String(err));
    }
    alive();
  }
  const bomb = new cap.ChatTemplate(STACK_BOMB);
  let err;
  try { bomb.render({ messages: [] }); } catch (e) { err = e; }
  if (err && err.kind === 'Internal') {
    // The object whose call trapped is retired with a clear error instead of staying locked.
    throwsKind(() => bomb.render({ messages: [] }), 'InvalidState', /unusable/);
    throwsKind(() => bomb.source, 'InvalidState', /unusable/);
    bomb.free(); // harmless
  }
  p.push('after');
  p.finish();
  assert.equal(p.message.content, 'before after');
  assert.equal(t.render(CTX), '<|user|>hi<|assistant|>');
  alive();
});

test('deep data and long filter chains never leave the instance broken', () => {
  const hostile = [
    ['{{ "x"' + '|upper'.repeat(20000) + ' }}', { messages: [] }],
    ['{{ ' + Array.from({ length: 100000 }, () => '1').join(' + ') + ' }}', { messages: [] }],
  ];
  let deep = 'leaf';
  for (let i = 0; i < 5000; i++) deep = [deep];
  hostile.push(['{{ messages | tojson }}', { messages: deep }]);
  for (const [src, ctx] of hostile) {
    try { cap.renderTemplate(src, ctx); } catch (e) {
      assert.ok(e instanceof cap.ChatAutoparserError && typeof e.kind === 'string', String(e));
    }
    alive();
  }
});

test('a chunk ending inside a surrogate pair keeps the pair whole (item 10)', () => {
  const p = new cap.StreamParser(SRC);
  const deltas = [...p.push('a\ud83d'), ...p.push('\ude00b'), ...p.finish()];
  assert.equal(deltas.map((d) => d.content).join(''), 'a😀b');
  assert.equal(p.message.content, 'a😀b');
  // Every split of a text full of astral characters, one UTF-16 unit at a time.
  const text = '😀 héllo 𝄞 wörld 🎉🎉';
  const q = new cap.StreamParser(SRC);
  let out = '';
  for (let i = 0; i < text.length; i++) for (const d of q.push(text[i])) out += d.content ?? '';
  for (const d of q.finish()) out += d.content ?? '';
  assert.equal(out, text);
  assert.equal(q.message.content, text);
  // A high surrogate still pending at finish() is unpaired: it is flushed as U+FFFD (UTF-8 cannot carry it).
  const r = new cap.StreamParser(SRC);
  r.push('x\ud83d');
  r.finish();
  assert.equal(r.message.content, 'x\ufffd');
});

test('a chunk with an unpaired low surrogate: its delta is what the parser read (U+FFFD), not the chunk as given', () => {
  // push() builds a whole-chunk delta from the JS string itself (pushCode 1/2), which is right only when the
  // string is its own UTF-8 round trip.
  for (const [src, options, key] of [[SRC, undefined, 'content'], [templateSource('Qwen-QwQ-32B.jinja'), { enableThinking: true }, 'reasoning_content']]) {
    const p = new cap.StreamParser(src, options);
    const deltas = [...p.push('ab'), ...p.push('c\udc00d'), ...p.push('ef'), ...p.finish()];
    const streamed = deltas.map((d) => d[key] ?? '').join('');
    assert.equal(streamed, 'abc\ufffddef');
    assert.equal(p.message[key], streamed);
    assert.ok(deltas.every((d) => d[key] === undefined || d[key].isWellFormed()));
  }
});

test('short chunks cross through the parser input buffer as UTF-8 exactly as TextEncoder writes them', () => {
  // Chunks of up to 64 UTF-16 units are written into wasm memory by the facade's own encoder (1-, 2-, 3- and
  // 4-byte characters, unpaired surrogates as U+FFFD); longer ones take wasm-bindgen's. Every chunk size on
  // either side of 64 gives the whole parse's message, and a memory growth between pushes changes nothing.
  const unit = 'a é € 😀 𝄞 \ud800x \udc00 ';
  const text = unit.repeat(12);
  const want = new TextDecoder().decode(new TextEncoder().encode(text));
  for (const size of [1, 2, 3, 5, 7, 63, 64, 65, 200]) {
    const p = new cap.StreamParser(SRC);
    let out = '';
    for (let i = 0; i < text.length; i += size) {
      for (const d of p.push(text.slice(i, i + size))) out += d.content ?? '';
      // Grow the memory while this parser holds its buffer's address: a large parse in between.
      if (i === size * 3) cap.parseOutput(SRC, 'x'.repeat(4 << 20));
    }
    for (const d of p.finish()) out += d.content ?? '';
    assert.equal(out, want, `chunks of ${size}`);
    assert.equal(p.message.content, want, `chunks of ${size}`);
    p.free();
  }
});

test('the reasoning stream keeps split pairs too', () => {
  const src = templateSource('Qwen-QwQ-32B.jinja');
  // This QwQ template opens (and keeps open) the block only with enable_thinking set.
  const whole = cap.parseOutput(src, 'I think 🤔 so</think>done 👍', { enableThinking: true });
  assert.equal(whole.reasoning_content.trim(), 'I think 🤔 so');
  const p = new cap.StreamParser(src, { enableThinking: true });
  for (const unit of 'I think 🤔 so</think>done 👍'.split('')) p.push(unit);   // UTF-16 units: pairs split
  p.finish();
  assert.deepEqual(p.message, whole);
});

test('push after finish and finish twice are InvalidState; free twice is a no-op (item 13)', () => {
  const p = new cap.StreamParser(SRC);
  p.push('hello');
  p.finish();
  throwsKind(() => p.push(' world'), 'InvalidState', /finish/);
  throwsKind(() => p.finish(), 'InvalidState', /finish/);
  assert.equal(p.message.content, 'hello', 'the message is still readable');
  p.free();
  p.free();
  throwsKind(() => p.message, 'InvalidState', /freed/);
  throwsKind(() => p.push('x'), 'InvalidState', /freed/);
  const t = new cap.ChatTemplate(SRC);
  t.free();
  t.free();
  throwsKind(() => t.render(CTX), 'InvalidState', /freed/);
  throwsKind(() => cap.parseOutput(t, 'x'), 'InvalidInput', /freed/);
});

test('errors from the core keep their kind, location and deltas, as ChatAutoparserError', () => {
  const syntax = throwsKind(() => new cap.ChatTemplate('{% if %}'), 'TemplateSyntax');
  assert.equal(typeof syntax.line, 'number');
  assert.equal(syntax.name, 'ChatAutoparserError');
});

test('the CommonJS entry is the same instance as the ESM entry', () => {
  const require = createRequire(import.meta.url);
  const cjs = require('../pkg/node/chat_autoparser.js');
  assert.equal(cjs.ChatTemplate, cap.ChatTemplate);
  assert.equal(typeof cap.default, 'function', 'init() exists in Node too (a no-op)');
  return cap.default();
});

test('the browser entry: calls before init() are InvalidState; init(bytes) loads it', async () => {
  const web = await import('../pkg/web/chat_autoparser.js');
  const { readFileSync } = await import('node:fs');
  const wasmUrl = new URL('../pkg/web/chat_autoparser_bg.wasm', import.meta.url);
  let err;
  try { web.version(); } catch (e) { err = e; }
  assert.equal(err?.kind, 'InvalidState');
  await web.default(readFileSync(wasmUrl));
  assert.equal(web.renderTemplate('{{ 1 }}', { messages: [] }), '1');
  assert.ok(web.ChatAutoparserError !== cap.ChatAutoparserError, 'a separate instance from the Node entry');
});
