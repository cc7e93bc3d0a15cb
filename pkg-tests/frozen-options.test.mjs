// Option values that cannot change are serialised once per object (src/wasm/js/facade.js `frozenText`):
// a deep-frozen `tools` list of plain data gives exactly what the same list unfrozen gives, and anything
// that could change between calls (not frozen, frozen only at the top, an accessor, a toJSON) is read anew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatTemplate, generationPrompt, parseOutput } from 'chat-autoparser';
import { templateSource } from './helpers.mjs';

const deepFreeze = (v) => { if (v && typeof v === 'object') { Object.values(v).forEach(deepFreeze); Object.freeze(v); } return v; };
const tool = (name) => ({ type: 'function', function: { name, description: `Look up ${name}.`, parameters: { type: 'object', properties: { city: { type: 'string' } } } } });
const messages = [{ role: 'user', content: 'Weather?' }];
const t = new ChatTemplate(templateSource('Qwen3-Coder.jinja'));
const reply = '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';

test('a deep-frozen tools list gives what the same list unfrozen gives, call after call', () => {
  const plain = [tool('get_weather'), tool('get_time')];
  const frozen = deepFreeze([tool('get_weather'), tool('get_time')]);
  const want = parseOutput(t, reply, { tools: plain, messages });
  assert.equal(want.tool_calls.length, 1);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(parseOutput(t, reply, { tools: frozen, messages }), want);
    assert.equal(generationPrompt(t, { tools: frozen, messages }), generationPrompt(t, { tools: plain, messages }));
  }
});

test('tools that may change between calls are read on every call', () => {
  // The parameter's type decides how a tagged value is read: `5` as a string or as a number.
  const typed = (type) => ({ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type } } } } });
  const five = '<tool_call>\n<function=get_weather>\n<parameter=city>\n5\n</parameter>\n</function>\n</tool_call>';
  const args = (tools) => parseOutput(t, five, { tools, messages }).tool_calls[0].function.arguments;
  assert.equal(args([typed('string')]), '{"city":"5"}');
  assert.equal(args([typed('integer')]), '{"city":5}');
  // Not frozen: changed in place.
  const tools = [typed('string')];
  assert.equal(args(tools), '{"city":"5"}');
  tools[0] = typed('integer');
  assert.equal(args(tools), '{"city":5}');
  // Frozen at the top only: a nested object changed in place.
  const shallow = Object.freeze([typed('string')]);
  assert.equal(args(shallow), '{"city":"5"}');
  shallow[0].function.parameters.properties.city.type = 'integer';
  assert.equal(args(shallow), '{"city":5}');
  // Frozen all the way down, but the type behind a getter.
  let type = 'string';
  const city = Object.defineProperty({}, 'type', { get: () => type, enumerable: true });
  const withGetter = deepFreeze([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city } } } }]);
  assert.equal(args(withGetter), '{"city":"5"}');
  type = 'integer';
  assert.equal(args(withGetter), '{"city":5}');
  // Frozen, with a toJSON.
  let json = typed('string');
  const custom = deepFreeze([{ toJSON: () => json }]);
  assert.equal(args(custom), '{"city":"5"}');
  json = typed('integer');
  assert.equal(args(custom), '{"city":5}');
  // Deep-frozen plain data: read once, and right.
  const frozen = deepFreeze([typed('integer')]);
  assert.equal(args(frozen), '{"city":5}');
  assert.equal(args(frozen), '{"city":5}');
});
