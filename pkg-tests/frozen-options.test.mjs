// Option values kept per object (src/wasm/js/facade.js `frozenText`, `snapshotText`): a deep-frozen `tools`
// list of plain data gives exactly what the same list unfrozen gives, and anything that could change between
// calls (not frozen, frozen only at the top, an accessor, a toJSON) is read anew; an unfrozen list is walked
// against a snapshot, and every change to it is seen.
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

test('an unfrozen tools list changed in any way between calls parses as a fresh copy of it does', () => {
  const typed = (type) => ({ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type } } } } });
  const five = '<tool_call>\n<function=get_weather>\n<parameter=city>\n5\n</parameter>\n</function>\n</tool_call>';
  const tools = [typed('string'), typed('string')];
  tools[1].function.name = 'get_time';
  const city = () => tools[0].function.parameters.properties.city;
  const changes = [
    () => {},
    () => { city().type = 'integer'; },
    () => { city().type = 'string'; },
    () => { city().description = 'a city'; },
    () => { delete city().description; },
    () => { tools[0].function.parameters.properties = { city: { type: 'number' } }; },
    () => { tools.push(typed('boolean')); },
    () => { tools.length = 1; },
    () => { tools[0].function.parameters.properties.city = Object.assign(Object.create(null), { type: 'string' }); },
    () => { tools[0].function.parameters.properties.city = { type: 'integer' }; },
    () => { city().toJSON = () => ({ type: 'string' }); },
    () => { delete city().toJSON; },
    () => { Object.defineProperty(city(), 'type', { get: () => 'string', enumerable: true, configurable: true }); },
    () => { Object.defineProperty(city(), 'type', { value: 'integer', enumerable: true, writable: true, configurable: true }); },
    () => { Object.defineProperty(city(), 'type', { value: 'string', enumerable: false, writable: true, configurable: true }); },
    () => { tools[0].function.parameters.properties.city = new (class Schema { constructor() { this.type = 'integer'; } })(); },
    () => { tools[0].function.parameters.properties.city = { type: 'integer', constructor: 'x' }; },
  ];
  for (const [i, change] of changes.entries()) {
    change();
    for (let k = 0; k < 3; k++) {
      const fresh = parseOutput(t, five, { tools: JSON.parse(JSON.stringify(tools)), messages });
      assert.deepEqual(parseOutput(t, five, { tools, messages }), fresh, `change ${i}, call ${k}`);
    }
  }
});

test('a snapshot never stands in for text JSON.stringify would write otherwise', () => {
  // Prototype pollution and a toJSON on a shared prototype change what JSON.stringify writes.
  const typed = (type) => ({ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type } } } } });
  const five = '<tool_call>\n<function=get_weather>\n<parameter=city>\n5\n</parameter>\n</function>\n</tool_call>';
  const tools = [typed('string')];
  const args = () => parseOutput(t, five, { tools, messages }).tool_calls[0].function.arguments;
  assert.equal(args(), '{"city":"5"}');
  assert.equal(args(), '{"city":"5"}');
  Object.prototype.toJSON = function () { return this.type === 'string' ? { type: 'integer' } : this; };
  try {
    assert.equal(JSON.stringify(tools).includes('integer'), true);
    assert.equal(args(), '{"city":5}');
  } finally {
    delete Object.prototype.toJSON;
  }
  assert.equal(args(), '{"city":"5"}');
});

test('large options cross into wasm once and are then named by id: any mix of them parses as sent in full', () => {
  // Each options text here is over the facade's by-id threshold; more distinct ones than either side keeps.
  const reply = '<tool_call>\n<function=tool_3>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
  const manyTools = (n, tag) => Array.from({ length: n }, (_, i) => tool(`tool_${i}`)).map((x) => ({ ...x, function: { ...x.function, description: `${tag} ${x.function.description}` } }));
  const requests = Array.from({ length: 24 }, (_, k) => ({ tools: manyTools(6 + (k % 5), `r${k}`), messages }));
  const want = requests.map((r) => parseOutput(t, reply, JSON.parse(JSON.stringify(r))));
  for (let round = 0; round < 3; round++) {
    for (const k of [0, 1, 2, 3, 0, 5, 1, 23, 7, 0, 19, 2, 4, 3, 0, 11]) {
      assert.deepEqual(parseOutput(t, reply, requests[k]), want[k], `request ${k}, round ${round}`);
      assert.equal(generationPrompt(t, requests[k]), generationPrompt(t, JSON.parse(JSON.stringify(requests[k]))));
    }
  }
  // Options the module refuses are refused every time with their own error, never with the id's.
  const bad = { tools: [...manyTools(8, 'bad'), { type: 'function', function: { name: '' } }], messages };
  for (let i = 0; i < 3; i++) {
    assert.throws(() => parseOutput(t, reply, bad), (e) => e.kind === 'InvalidInput' && /tools\[8\]\.function\.name/.test(e.message) && !/options id/.test(e.message));
  }
});
