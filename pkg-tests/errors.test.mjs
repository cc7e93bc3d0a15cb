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

// Known gap (todo): a string context is accepted by renderTemplate instead of being refused.
test('wrong argument types', { todo: 'renderTemplate accepts a string as context' }, () => {
  invalid(() => cap.renderTemplate(SRC, 'not an object'), 'context');
  invalid(() => cap.renderTemplate(SRC, { messages: 'nope' }), 'messages');
  invalid(() => cap.renderTemplate(SRC, CTX, { fuel: 'lots' }), 'fuel');
  invalid(() => new cap.ChatTemplate(SRC, { recursionLimit: -1 }), 'recursionLimit');
});

test('unknown options are refused, naming the option', () => {
  invalid(() => cap.renderTemplate(SRC, CTX, { feul: 10 }), 'feul');
  invalid(() => cap.buildGrammar(SRC, { toolz: [] }), 'toolz');
});

// Known gap (todo): the serde message says `options: invalid type …` without naming `tools`.
test('invalid tools', { todo: 'error names options, not the tools field' }, () => {
  invalid(() => cap.buildGrammar(SRC, { tools: 'get_weather' }), 'tools');
  invalid(() => cap.buildGrammar(SRC, { tools: [{ type: 'function', function: { name: 5 } }] }), 'name|tools');
});

test('a freed ChatTemplate passed as templateOrSource', () => {
  const t = new cap.ChatTemplate(SRC);
  t.free();
  invalid(() => cap.buildGrammar(t, {}), 'template');
  invalid(() => cap.buildGrammar(42, {}), 'template');
});

test('the instance survives all of the above', () => {
  assert.equal(cap.renderTemplate(SRC, CTX), '<|user|>hi<|assistant|>');
});
