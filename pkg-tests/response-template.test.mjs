// responseTemplate: the analysis as a Hugging Face response_template (cross-checked against
// transformers itself by scripts/response_template_crosscheck.py; here: the JS contract).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatTemplate, responseTemplate } from 'chat-autoparser';
import { templateSource } from './helpers.mjs';

test('responseTemplate derives thinking, tool calls and content for a Qwen-style template', () => {
  const d = responseTemplate(templateSource('Qwen3.5-4B.jinja'));
  const f = d.responseTemplate.fields;
  assert.equal(d.responseTemplate.start_anchor, '<|im_start|>assistant');
  assert.deepEqual(f.thinking, { open: '<think>', close: '</think>', repeats: true, join: '' });
  assert.equal(f.tool_calls.content, 'xml-inline');
  assert.match(f.tool_calls.open_pattern, /\(\?P<name>/);
  assert.deepEqual(f.content, { repeats: true, join: '' });
  assert.ok(d.losses.some((l) => l.feature === 'tools.argument_types' && l.severity === 'partial'));
});

test('responseTemplate accepts a ChatTemplate and names the reasoning field', () => {
  const t = new ChatTemplate(templateSource('Qwen3.5-4B.jinja'));
  const d = responseTemplate(t, { reasoningField: 'reasoning_content' });
  assert.ok('reasoning_content' in d.responseTemplate.fields);
  assert.ok(!('thinking' in d.responseTemplate.fields));
  t.free();
});

test('responseTemplate reports what the spec cannot express', () => {
  const d = responseTemplate(templateSource('LFM2-8B-A1B.jinja'));
  assert.ok(d.losses.some((l) => l.feature === 'tools.literal_arguments' && l.severity === 'unsupported'));
});

test('responseTemplate rejects bad options with InvalidInput', () => {
  assert.throws(() => responseTemplate(templateSource('Qwen3.5-4B.jinja'), { reasoningField: 'thoughts' }), (e) => e.kind === 'InvalidInput');
  assert.throws(() => responseTemplate(templateSource('Qwen3.5-4B.jinja'), { bogus: 1 }), (e) => e.kind === 'InvalidInput');
});

test('reasoningField names the reasoning key of messages and deltas', async () => {
  const { parseOutput, StreamParser } = await import('chat-autoparser');
  const src = templateSource('Qwen3.5-4B.jinja');
  const out = 'hmm\n</think>\n\nHi';
  assert.equal(parseOutput(src, out).reasoning_content, 'hmm');
  for (const field of ['reasoning', 'thinking']) {
    const m = parseOutput(src, out, { reasoningField: field });
    assert.equal(m[field], 'hmm');
    assert.ok(!('reasoning_content' in m));
    const p = new StreamParser(src, { reasoningField: field });
    const deltas = [...p.push(out.slice(0, 9)), ...p.push(out.slice(9)), ...p.finish()];
    assert.ok(deltas.some((d) => field in d) && !deltas.some((d) => 'reasoning_content' in d));
    assert.equal(p.message[field], 'hmm');
  }
  assert.throws(() => parseOutput(src, out, { reasoningField: 'thoughts' }), (e) => e.kind === 'InvalidInput');
});

const QWEN3_RT = {
  defaults: { role: 'assistant' },
  start_anchor: '<|im_start|>assistant\n',
  fields: {
    thinking: { open: '<think>', close: '</think>', content: 'text' },
    tool_calls: {
      open_pattern: '<tool_call>\\s*<function=(?P<name>\\w+)>', close: '</tool_call>', repeats: true, content: 'xml-inline',
      content_args: { tag_pattern: '<parameter=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</parameter>', value_parser: { name: 'json', args: { allow_non_json: true } } },
      transform: { type: 'function', function: { name: '{name}', arguments: '{content}' } },
    },
  },
};
const CALL = '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';

test('parseResponse gives transformers\' dict for a declared template', async () => {
  const { parseResponse } = await import('chat-autoparser');
  const out = parseResponse(`<think>hmm</think>\n${CALL}`, QWEN3_RT, { prefix: '' });
  assert.deepEqual(out, { role: 'assistant', thinking: 'hmm', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] });
  assert.throws(() => parseResponse('x', { fields: { c: {} } }), (e) => e.kind === 'InvalidInput' && /start_anchor/.test(e.message));
  assert.throws(() => parseResponse('x', { start_anchor: 'a', fields: { c: { open_pattern: '(?=x)' } } }), (e) => e.kind === 'InvalidInput' && /look-ahead/.test(e.message));
});

test('reasoningFormat places reasoning alike for parseOutput, a declared template and parseResponse', async () => {
  const { parseOutput, parseResponse, generationPrompt } = await import('chat-autoparser');
  const src = templateSource('Qwen3.5-4B.jinja');
  const declared = new ChatTemplate(src, { responseTemplate: QWEN3_RT });
  const out = 'hmm</think>\n\nHi';  // the prompt opened <think>
  const prefix = generationPrompt(src);
  for (const reasoningFormat of ['auto', 'deepseek', 'none', 'deepseek-legacy']) {
    const ours = parseOutput(src, out, { reasoningFormat });
    const byDeclared = parseOutput(declared, out, { reasoningFormat });
    const dict = parseResponse(out, QWEN3_RT, { prefix, reasoningFormat });
    const reasoning = ours.reasoning_content ?? '';
    const inline = reasoningFormat === 'none' || reasoningFormat === 'deepseek-legacy';
    assert.equal(reasoning, reasoningFormat === 'none' ? '' : 'hmm', reasoningFormat);
    assert.equal(byDeclared.reasoning_content ?? '', reasoning, reasoningFormat);
    assert.equal(dict.thinking ?? '', reasoning, reasoningFormat);
    assert.equal((ours.content ?? '').includes('hmm'), inline, reasoningFormat);
    assert.equal((byDeclared.content ?? '').includes('hmm'), inline, reasoningFormat);
    assert.equal((dict.content ?? '').includes('hmm'), inline, reasoningFormat);
  }
  // Not given: transformers' dict.
  assert.deepEqual(parseResponse(out, QWEN3_RT, { prefix }), parseResponse(out, QWEN3_RT, { prefix, reasoningFormat: 'auto' }));
  assert.throws(() => parseResponse(out, QWEN3_RT, { reasoningFormat: 'hidden' }), (e) => e.kind === 'InvalidInput' && /reasoningFormat/.test(e.message));
  declared.free();
});

test('a ChatTemplate with a declared responseTemplate parses by it, whole and streamed', async () => {
  const { parseOutput, StreamParser } = await import('chat-autoparser');
  const src = templateSource('Qwen3.5-4B.jinja');
  for (const t of [new ChatTemplate(src, { responseTemplate: QWEN3_RT }), new ChatTemplate({ chat_template: src, response_template: QWEN3_RT })]) {
    assert.deepEqual(t.responseTemplate.start_anchor, QWEN3_RT.start_anchor);
    const out = `hmm</think>\n\n${CALL}`;  // the prompt opened <think>
    const m = parseOutput(t, out);
    assert.equal(m.reasoning_content, 'hmm');
    assert.equal(m.tool_calls[0].function.name, 'get_weather');
    assert.deepEqual(JSON.parse(m.tool_calls[0].function.arguments), { city: 'Paris' });
    for (const step of [1, 3, 7]) {
      const p = new StreamParser(t, {});
      for (let i = 0; i < out.length; i += step) p.push(out.slice(i, i + step));
      p.finish();
      assert.deepEqual(p.message, m);
    }
    t.free();
  }
});

test('pushEvents / finishEvents give transformers-style region events alongside deltas', async () => {
  const { StreamParser } = await import('chat-autoparser');
  const src = templateSource('Qwen3.5-4B.jinja');
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const p = new StreamParser(src, { tools });
  const out = `hmm</think>\n\nChecking.\n${CALL}`;
  const events = [];
  const deltas = [];
  for (let i = 0; i < out.length; i += 4) {
    const r = p.pushEvents(out.slice(i, i + 4));
    events.push(...r.events); deltas.push(...r.deltas);
  }
  const r = p.finishEvents();
  events.push(...r.events); deltas.push(...r.deltas);
  assert.ok(deltas.length > 0);
  assert.deepEqual(events.filter((e) => e.type === 'region_open').map((e) => e.field), ['thinking', 'content', 'tool_calls']);
  const closes = events.filter((e) => e.type === 'region_close');
  assert.equal(closes[0].value, 'hmm');
  assert.equal(closes[1].value, 'Checking.');
  const { id, ...call } = closes[2].value;
  assert.ok(typeof id === 'string' && id.length > 0);   // every call has an id
  assert.deepEqual(call, { type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } });
  assert.ok(events.filter((e) => e.type === 'region_chunk').every((e) => e.dirty === (e.field === 'tool_calls')));
});

test('verifyTemplate reports where a declared response template and the analysis disagree', async () => {
  const { verifyTemplate } = await import('chat-autoparser');
  const src = templateSource('Qwen3.5-4B.jinja');
  assert.equal(verifyTemplate(src).responseTemplate, undefined);
  const derived = responseTemplate(src).responseTemplate;
  const same = new ChatTemplate(src, { responseTemplate: derived });
  const agree = verifyTemplate(same).responseTemplate;
  assert.equal(agree.agree, true, JSON.stringify(agree.disagreements));
  assert.ok(agree.checked >= 3);
  const wrong = new ChatTemplate(src, { responseTemplate: { ...derived, fields: { ...derived.fields, thinking: { open: '<reason>', close: '</reason>' } } } });
  const r = verifyTemplate(wrong);
  assert.equal(r.ok, true, 'the round trips themselves use our analysis');
  const row = r.responseTemplate.disagreements.find((d) => d.name === 'reasoning');
  assert.ok(row && row.ours.reasoning_content && /<\/think>/.test(row.declared.content), JSON.stringify(row));
  same.free();
  wrong.free();
});
