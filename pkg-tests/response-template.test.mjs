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
  assert.deepEqual(f.thinking, { open: '<think>', close: '</think>' });
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
