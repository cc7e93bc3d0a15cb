// Bad API input from JS: every mistake is a typed Error (`kind === 'InvalidInput'`) naming the field,
// never a panic (which would kill the wasm instance) and never a silent default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cap from '../pkg/node/index.mjs';

const SRC = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";
const CTX = { messages: [{ role: 'user', content: 'hi' }], add_generation_prompt: true };

function invalid(fn, field) {
  let err;
  try { fn(); } catch (e) { err = e; }
  assert.ok(err instanceof Error, `expected an Error, got ${err}`);
  assert.equal(err.kind, 'InvalidInput', `${err.kind}: ${err.message}`);
  if (field) assert.match(err.message, new RegExp(field), err.message);
  return err;
}

test('wrong argument types', () => {
  invalid(() => cap.renderTemplate(SRC, 'not an object'), 'context');
  invalid(() => cap.renderTemplate(SRC, { messages: 'nope' }), 'messages');
  invalid(() => cap.renderTemplate(SRC, CTX, { fuel: 'lots' }), 'fuel');
  invalid(() => new cap.ChatTemplate(SRC, { recursionLimit: -1 }), 'recursionLimit');
});

test('unknown options are refused, naming the option', () => {
  invalid(() => cap.renderTemplate(SRC, CTX, { feul: 10 }), 'feul');
  invalid(() => cap.buildGrammar(SRC, { toolz: [] }), 'toolz');
});

test('invalid tools', () => {
  invalid(() => cap.buildGrammar(SRC, { tools: 'get_weather' }), 'tools');
  invalid(() => cap.buildGrammar(SRC, { tools: [{ type: 'function', function: { name: 5 } }] }), 'name|tools');
});

test('a freed ChatTemplate passed as templateOrSource', () => {
  const t = new cap.ChatTemplate(SRC);
  t.free();
  invalid(() => cap.buildGrammar(t, {}), 'template');
  invalid(() => cap.buildGrammar(42, {}), 'template');
});

test('StreamParser.push on anything but a live parser', () => {
  const push = cap.StreamParser.prototype.push;
  for (const self of [undefined, null, 5, 'text', {}, Object.create(cap.StreamParser.prototype)]) invalid(() => push.call(self, 'x'), 'StreamParser');
  const p = new cap.StreamParser(SRC, {});
  assert.deepEqual(p.push('Hi'), [{ content: 'Hi' }]);
  p.free();
  let err;
  try { p.push('x'); } catch (e) { err = e; }
  assert.equal(err && err.kind, 'InvalidState', String(err));
  assert.match(err.message, /freed/);
});

test('the instance survives all of the above', () => {
  assert.equal(cap.renderTemplate(SRC, CTX), '<|user|>hi<|assistant|>');
});
