// The playground's pure helpers (no browser): offsets, delta spans, the status verdict, tokenizer_config
// reading and template-variable discovery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiOffsetToIndex } from '../www/offsets.js';
import { deltaSpans, outputRegions } from '../www/spans.js';
import { verdict } from '../www/verdict.js';
import { templateFromFile } from '../www/picker.js';
import { templateVariables } from '../www/request-editor.js';
import { compareMessages, carriesIds } from '../www/rt-compare.js';

test('API offsets are UTF-16 indices (the facade converts); byte offsets still convert on request', () => {
  const text = 'é👋x';
  const bytes = (s) => Buffer.byteLength(s);
  assert.equal(apiOffsetToIndex(text, bytes('é'), 'utf8'), 1);
  assert.equal(apiOffsetToIndex(text, bytes('é👋'), 'utf8'), 3); // the emoji is two UTF-16 units
  assert.equal(apiOffsetToIndex(text, 999), text.length);
  assert.equal(apiOffsetToIndex(text, 2), 2);
});

test('delta spans: verbatim text is found where it was emitted; rewritten text gets the input read since', () => {
  const text = '<think>a b</think>Hi <call>{"x": 1}</call>';
  const at = (s) => text.indexOf(s) + s.length;
  const events = [
    { delta: { reasoning_content: 'a' }, at: at('<think>a') },
    { delta: { reasoning_content: ' b' }, at: at('a b</') },
    { delta: { content: 'Hi ' }, at: at('Hi <') },
    { delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '' } }] }, at: at('<call>') },
    { delta: { tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }, at: text.length },
  ];
  const spans = deltaSpans(text, events);
  assert.deepEqual(spans.map((s) => [s.key, s.text, s.ranges, s.exact]), [
    ['reasoning', 'a b', [[7, 10]], true],
    ['content', 'Hi ', [[18, 21]], true],
    ['tool0.name', 'f', [[at('Hi <'), at('<call>')]], false],
    ['tool0.arguments', '{"x":1}', [[at('<call>'), text.length]], false],
  ]);
  // An id the parser generated (not in the output) has no source span.
  const withId = deltaSpans(text, [{ delta: { tool_calls: [{ index: 0, id: 'call_x1', function: { name: 'f' } }] }, at: at('<call>') }]);
  assert.deepEqual(withId.map((s) => [s.key, s.ranges]), [['tool0.id', []], ['tool0.name', [[0, at('<call>')]]]]);
  const regions = outputRegions(text, spans, [{ value: '<think>', field: 'reasoning.start' }, { value: '</think>', field: 'reasoning.end' }]);
  const markers = regions.filter((r) => r.cls === 'r-marker').map((r) => text.slice(r.start, r.end));
  assert.deepEqual(markers, ['<think>', '</think>']);
  assert.ok(regions.some((r) => r.cls === 'r-call' && r.label === 'tool call 0'));
});

const row = (name, expected, actual, ok) => ({ name, ok, expected, actual });
const M = (content, reasoning, calls) => ({ role: 'assistant', content, reasoning_content: reasoning, tool_calls: calls });
const call = (name, args) => [{ id: '', type: 'function', function: { name, arguments: JSON.stringify(args) } }];

test('verdict: verified / partly (which parts) / not verified, from verify rows', () => {
  const good = [row('text', M('Paris.', null), M('Paris.', null), true), row('tool_call', M('', null, call('f', { a: 1 })), M(null, null, call('f', { a: 1 })), true)];
  assert.equal(verdict({}, { ok: true, results: good }).level, 'verified');
  const partly = verdict({}, { ok: false, results: [...good, row('reasoning', M('4', 'think'), M('<think>think</think>4', null), false)] });
  assert.equal(partly.level, 'partly');
  assert.deepEqual(partly.parts, { content: false, toolCalls: true, reasoning: false });
  assert.deepEqual(partly.failing, ['reasoning']);
  assert.match(partly.text, /partly verified: tool calls ✓ · reasoning, content ✗/);
  const not = verdict({}, { ok: false, results: [row('text', M('x', null), M('y', null), false)] });
  assert.equal(not.level, 'not');
  assert.equal(verdict({}, null).level, 'unknown');
});

test('verdict prefers analysis.verified (#14) when the build reports it', () => {
  const report = { ok: true, results: [row('text', M('a', null), M('a', null), true)] };
  const v = verdict({ verified: { reasoning: false, content: true, toolCalls: { ok: true } } }, report);
  assert.equal(v.source, 'analysis');
  assert.equal(v.level, 'partly');
  assert.equal(verdict({ verified: false }, report).level, 'not');
  // The shape this build's analysis.verified has: 'ok' / 'failed' / 'untested' per part.
  const w = verdict({ verified: { ok: false, content: 'ok', reasoning: 'untested', toolCalls: 'failed' } }, report);
  assert.equal(w.source, 'analysis');
  assert.equal(w.level, 'partly');
  assert.equal(w.text, 'partly verified: content ✓ · tool calls ✗');
});

test('tokenizer_config.json: chat_template as a string or a {name, template} list; response_template kept for the Response template tab', () => {
  assert.equal(templateFromFile('t.jinja', '{{ x }}').source, '{{ x }}');
  const list = JSON.stringify({ chat_template: [{ name: 'tool_use', template: 'T' }, { name: 'default', template: 'D' }], response_template: { x: 1 } });
  const t = templateFromFile('tokenizer_config.json', list);
  assert.equal(t.source, 'D');
  assert.equal(t.label, 'tokenizer_config.json [default]');
  assert.deepEqual(t.responseTemplate, { x: 1 });
  assert.equal(templateFromFile('c.json', JSON.stringify({ chat_template: [{ name: 'a', template: 'A' }] })).source, 'A');
  assert.throws(() => templateFromFile('c.json', '{"eos_token": "x"}'), /no chat_template/);
});

test('template variables: the switches a template reads beyond the standard context', () => {
  const src = `{%- set sys = messages[0] %}{% for m in messages %}{{ m.content | trim }}{% endfor %}
{%- if thinking is defined and thinking %}<think>{% endif %}{{ reasoning_effort | default('low') }}
{%- macro f(a, b=1) %}{{ a }}{% endmacro %}{{ f(x=documents) }}{{ raise_exception('no') if bad }}`;
  assert.deepEqual(templateVariables(src), ['bad', 'documents', 'reasoning_effort', 'thinking']);
});

test('response-template agreement: content and reasoning trimmed, calls by name and decoded arguments, ids when carried', () => {
  const ours = { role: 'assistant', content: 'Hi ', reasoning_content: 'hmm', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1,"b":[2]}' } }] };
  const dict = { role: 'assistant', content: 'Hi', thinking: ' hmm\n', tool_calls: [{ type: 'function', function: { name: 'f', arguments: { b: [2], a: 1 } } }] };
  assert.deepEqual(compareMessages(ours, dict), []);
  assert.deepEqual(compareMessages(ours, dict, { withIds: true }).map((d) => d.field), ['tool_calls']);
  const wrong = { ...dict, content: 'Hello', tool_calls: [{ function: { name: 'f', arguments: { a: 2, b: [2] } } }] };
  assert.deepEqual(compareMessages(ours, wrong), [
    { field: 'content', ours: 'Hi', theirs: 'Hello' },
    { field: 'tool_calls', ours: [{ name: 'f', arguments: { a: 1, b: [2] } }], theirs: [{ name: 'f', arguments: { a: 2, b: [2] } }] },
  ]);
  // A message without reasoning against a dict with some: a difference, whatever the key is called.
  assert.deepEqual(compareMessages({ content: 'x' }, { content: 'x', reasoning: 'r' }).map((d) => d.field), ['reasoning']);
  assert.equal(carriesIds({ fields: { tool_calls: { transform: { id: '{id}', function: { name: '{name}' } } } } }), true);
  assert.equal(carriesIds({ fields: { content: {} } }), false);
});
