// Issue #11 item 11 through the JS API: every tool call's `arguments` is valid JSON. A JSON call whose
// arguments are broken (`{"city": }`) is content with a diagnostic, never a call with invalid arguments,
// in every chunking and at every point of the stream; a valid one goes out whole. `streamArguments: true`
// streams JSON arguments as written instead, and a call that breaks then ends with a diagnostic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamParser, parseOutput } from 'chat-autoparser';
import { templateSource } from './helpers.mjs';

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const HERMES = templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja');
const BROKEN = 'Let me check. <tool_call>\n{"name": "get_weather", "arguments": {"city": }}\n</tool_call>';
const VALID = 'Let me check. <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

/** Every split in two, one code point at a time, and a few seeded chunkings. */
function chunkings(text) {
  const cps = [...text];
  const out = [cps];
  for (let i = 1; i < cps.length; i++) out.push([cps.slice(0, i).join(''), cps.slice(i).join('')]);
  for (let seed = 1; seed <= 5; seed++) {
    const pieces = [];
    for (let i = 0, n = seed; i < cps.length; n = (n * 1103515245 + 12345) >>> 0) {
      const len = 1 + (n % 6);
      pieces.push(cps.slice(i, i + len).join(''));
      i += len;
    }
    out.push(pieces);
  }
  return out;
}

/** Stream `chunks`; check every tool call of the message after every push parses as JSON. */
function streamChecked(src, chunks, options) {
  const p = new StreamParser(src, { tools: TOOLS, ...options });
  const deltas = [];
  for (const c of chunks) {
    deltas.push(...p.push(c));
    for (const call of p.message.tool_calls ?? []) JSON.parse(call.function.arguments);
  }
  deltas.push(...p.finish());
  const result = { message: p.message, diagnostics: p.diagnostics, deltas };
  p.free();
  return result;
}

test('the issue #11 reproduction: a broken JSON call is content with a diagnostic, in every chunking', () => {
  const whole = parseOutput(HERMES, BROKEN, { tools: TOOLS, diagnostics: true });
  assert.equal(whole.message.tool_calls, undefined);
  assert.equal(whole.message.content, BROKEN);
  assert.ok(whole.diagnostics.some((d) => /not valid JSON \(expected value/.test(d.message) && /kept as content/.test(d.message)), JSON.stringify(whole.diagnostics));
  for (const chunks of chunkings(BROKEN)) {
    const r = streamChecked(HERMES, chunks, {});
    assert.deepEqual(r.message, whole.message, JSON.stringify(chunks));
  }
});

test('a valid JSON call goes out whole: arguments valid JSON in every message, in one delta', () => {
  const whole = parseOutput(HERMES, VALID, { tools: TOOLS });
  assert.equal(whole.tool_calls[0].function.arguments, '{"city": "Paris"}');
  for (const chunks of chunkings(VALID)) {
    const r = streamChecked(HERMES, chunks, {});
    assert.deepEqual(r.message, whole, JSON.stringify(chunks));
    const argDeltas = r.deltas.filter((d) => d.tool_calls?.some((t) => t.function?.arguments));
    assert.equal(argDeltas.length, 1, JSON.stringify(r.deltas));
  }
});

test('streamArguments: true streams JSON arguments as written; a broken call ends with a diagnostic', () => {
  const chunks = [...VALID];
  const p = new StreamParser(HERMES, { tools: TOOLS, streamArguments: true });
  const pieces = chunks.flatMap((c) => p.push(c)).concat(p.finish())
    .flatMap((d) => d.tool_calls ?? []).map((t) => t.function?.arguments).filter((a) => a);
  assert.ok(pieces.length > 5, JSON.stringify(pieces));
  assert.equal(pieces.join(''), '{"city": "Paris"}');
  assert.equal(p.message.tool_calls[0].function.arguments, '{"city": "Paris"}');
  p.free();
  const broken = parseOutput(HERMES, BROKEN, { tools: TOOLS, streamArguments: true, diagnostics: true });
  assert.equal(broken.message.tool_calls[0].function.arguments, '{"city": }');
  assert.equal(broken.message.content, 'Let me check. }\n</tool_call>');
  assert.ok(broken.diagnostics.some((d) => /streamArguments/.test(d.message)), JSON.stringify(broken.diagnostics));
  assert.throws(() => parseOutput(HERMES, VALID, { streamArguments: 'yes' }), (e) => e.kind === 'InvalidInput' && /streamArguments/.test(e.message));
});

test('the dedicated formats hold JSON calls too (Ministral [ARGS], harmony)', () => {
  const ministral = templateSource('mistralai-Ministral-3-14B-Reasoning-2512.jinja');
  const text = 'Hi[TOOL_CALLS]get_weather[ARGS]{"city": }[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}';
  for (const chunks of chunkings(text)) {
    const r = streamChecked(ministral, chunks, {});
    assert.deepEqual(r.message.tool_calls.map((c) => c.function.arguments), ['{"city": "Oslo"}'], JSON.stringify(chunks));
    assert.equal(r.message.content, 'Hi[TOOL_CALLS]get_weather[ARGS]{"city": }');
  }
  const gptOss = templateSource('openai-gpt-oss-120b.jinja');
  const body = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city" "Oslo"}<|call|>';
  const m = parseOutput(gptOss, body, { tools: TOOLS, diagnostics: true });
  assert.equal(m.message.tool_calls, undefined);
  assert.ok(m.message.content.includes('{"city" "Oslo"}'), m.message.content);
  assert.ok(m.diagnostics.some((d) => /not valid JSON/.test(d.message)));
});
