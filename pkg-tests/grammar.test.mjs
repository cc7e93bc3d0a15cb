// Grammars through the built package: build, accept the template's own tool-call text, reject corruptions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGrammar, checkGrammar, ChatTemplate } from 'chat-autoparser';
import { templateSource } from './helpers.mjs';

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object',
  properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['location'] } } }];

test('Hermes 2 Pro grammar: lazy trigger, accepts a call, rejects corruptions with a position', () => {
  const g = buildGrammar(new ChatTemplate(templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja')), { tools: TOOLS });
  assert.equal(g.lazy, true);
  assert.ok(g.triggers.some((t) => t.type === 'word' && t.value.includes('<tool_call>')));
  assert.ok(g.preservedTokens.includes('<tool_call>'));
  assert.match(g.gbnf, /^root ::=/m);
  const ok = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}\n</tool_call>';
  assert.deepEqual(checkGrammar(g.gbnf, ok), { accepted: true });
  for (const bad of [ok.replace('get_weather', 'get_wether'), ok.replace('"celsius"', '"kelvin"'), ok.replace('"location": "Paris", ', '')]) {
    const r = checkGrammar(g.gbnf, bad);
    assert.equal(r.accepted, false, bad);
    assert.equal(typeof r.errorAt, 'number');
  }
});

test('invalid GBNF is a Grammar error with a location', () => {
  assert.throws(() => checkGrammar('root ::= ("a"', 'a'), (e) => e.kind === 'Grammar');
});

test('no tools: nothing to constrain', () => {
  const g = buildGrammar(templateSource('Qwen3-Coder.jinja'), {});
  assert.equal(g.gbnf, '');
});
