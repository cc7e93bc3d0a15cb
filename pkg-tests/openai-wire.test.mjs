// OpenAI wire format (#15 item 1): chunks from `chat-autoparser/openai` accumulated by openai-node's
// own ChatCompletionStream (no network: a ReadableStream of the chunks) give parseOutput's message,
// for every case of cases.jsonl; deltas have the exact chat.completion.chunk shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { ChatTemplate, parseOutput } from 'chat-autoparser';
import { ChatCompletionChunker, completionsToChatChunks, toChatCompletionChunk, finalChatCompletionChunk, accumulateReasoning } from 'chat-autoparser/openai';
import { expectations, loadJsonl, optionsOf, templateSource } from './helpers.mjs';

const META = { id: 'chatcmpl-test', model: 'raw-model', created: 1_700_000_000 };

/** openai-node's accumulator over our chunks, exactly as it reads a server's stream (JSON lines); with
 * `reasoning`, through `accumulateReasoning` (without it openai-node keeps only the last reasoning delta). */
export async function accumulate(chunks, { reasoning = true } = {}) {
  const bytes = new TextEncoder().encode(chunks.map((c) => JSON.stringify(c) + '\n').join(''));
  const body = new ReadableStream({ start(c) { c.enqueue(bytes); c.close(); } });
  const stream = ChatCompletionStream.fromReadableStream(body);
  return (reasoning ? accumulateReasoning(stream) : stream).finalChatCompletion();
}

/** Split `text` into pieces of 1..7 code points, deterministically. */
function pieces(text, seed) {
  const cps = [...text];
  const out = [];
  for (let i = 0, n = seed; i < cps.length; n = (n * 1103515245 + 12345) >>> 0) {
    const len = 1 + (n % 7);
    out.push(cps.slice(i, i + len).join(''));
    i += len;
  }
  return out;
}

/** Every tool-call delta has the wire shape: first `{index, id, type, function: {name, arguments}}`, later `{index, function: {arguments}}`. */
function checkToolCallShapes(chunks) {
  const seen = new Set();
  for (const chunk of chunks) {
    for (const tc of chunk.choices[0].delta.tool_calls ?? []) {
      if (!seen.has(tc.index)) {
        seen.add(tc.index);
        assert.deepEqual(Object.keys(tc), ['index', 'id', 'type', 'function']);
        assert.ok(tc.id && tc.type === 'function' && typeof tc.function.name === 'string' && typeof tc.function.arguments === 'string', JSON.stringify(tc));
      } else {
        // `id` again only for a model id written after the name (it replaces the generated one).
        assert.ok(Object.keys(tc).every((k) => ['index', 'function', 'id'].includes(k)) && !('name' in tc.function), JSON.stringify(tc));
      }
    }
  }
}

/** One case through the chunker and openai-node's accumulator; throws saying what differs. */
async function checkCase(c, src, options, stats) {
  let want;
  try {
    want = parseOutput(src, c.input, options);
  } catch (err) {
    if (err.kind !== 'Parse') throw err;   // e.g. the request does not render: a known case
    want = null;   // the output ends inside a call: the stream must end with `length`
  }
  const chunker = new ChatCompletionChunker(src, options, META);
  const chunks = [];
  for (const p of pieces(c.input, c.id)) chunks.push(...chunker.push(p));
  chunks.push(...chunker.finish());
  checkToolCallShapes(chunks);
  const completion = await accumulate(chunks);
  const [choice] = completion.choices;
  assert.equal(completion.id, META.id);
  if (want === null) {
    assert.equal(choice.finish_reason, 'length');
    stats.cut++;
    return;
  }
  assert.equal(choice.finish_reason, want.tool_calls?.length ? 'tool_calls' : 'stop');
  assert.equal(choice.message.role, 'assistant');
  assert.equal(choice.message.content, want.content, 'content');
  assert.deepEqual(choice.message.tool_calls, want.tool_calls, 'tool_calls');
  // openai-node keeps only the last delta of `reasoning_content`, a field it does not know; accumulateReasoning the whole.
  assert.equal(choice.message.reasoning_content ?? null, want.reasoning_content, 'reasoning');
  if (want.reasoning_content && chunks.filter((k) => k.choices[0].delta.reasoning_content).length > 1) {
    const bare = (await accumulate(chunks, { reasoning: false })).choices[0].message.reasoning_content;
    assert.notEqual(bare, want.reasoning_content, 'without accumulateReasoning openai-node keeps only the last delta');
    stats.reasoningFixed++;
  }
  stats.calls += want.tool_calls?.length ?? 0;
  stats.withReasoning += want.reasoning_content ? 1 : 0;
}

// Per case: tests/expectations/openai_wire.jsonl (`#id TEMPLATE`; UPDATE_EXPECTATIONS=1 rewrites it).
test('openai-node accumulates our chunks into parseOutput\'s message, every case of cases.jsonl', async () => {
  const expect = expectations('openai_wire');
  const stats = { calls: 0, withReasoning: 0, cut: 0, reasoningFixed: 0 };
  const compiled = new Map();
  const cases = loadJsonl('cases.jsonl');
  for (const c of cases) {
    if (!compiled.has(c.template)) compiled.set(c.template, new ChatTemplate(templateSource(c.template), { now: 1795305600 }));
    try {
      await checkCase(c, compiled.get(c.template), optionsOf(c), stats);
      expect.record(`#${c.id} ${c.template}`, null);
    } catch (err) {
      expect.record(`#${c.id} ${c.template}`, err.message.split('\n')[0]);
    }
  }
  const [pass] = expect.counts();
  console.log(`openai-node accumulator: ${pass}/${cases.length} cases equal to parseOutput (${stats.calls} tool calls, ${stats.withReasoning} with reasoning (${stats.reasoningFixed} of them whole only through accumulateReasoning), ${stats.cut} cut inside a call → finish_reason length)`);
  expect.finish();
});

test('toChatCompletionChunk and finalChatCompletionChunk build complete chunks', () => {
  assert.deepEqual(toChatCompletionChunk({ content: 'Hi' }, META), {
    id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'raw-model',
    choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }],
  });
  assert.equal(finalChatCompletionChunk('tool_calls', META).choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(finalChatCompletionChunk('stop', META).choices[0].delta, {});
});

const QWEN = 'Qwen3-Coder.jinja';
const WEATHER = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

/** A `/v1/completions` SSE body streaming `texts`, split at awkward byte boundaries. */
export function completionsSSE(texts, finishReason = 'stop') {
  const events = texts.map((t, i) => `data: ${JSON.stringify({ id: 'cmpl-1', object: 'text_completion', choices: [{ index: 0, text: t, finish_reason: i === texts.length - 1 ? finishReason : null }] })}\n\n`);
  const bytes = new TextEncoder().encode(events.join('') + 'data: [DONE]\n\n');
  return new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.slice(i, i + 5));
      c.close();
    },
  });
}

test('completionsToChatChunks: a raw /v1/completions SSE body becomes chat chunks openai-node accumulates', async () => {
  const src = templateSource(QWEN);
  const text = 'Let me check. é\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
  const sse = completionsSSE(['Let me ch', 'eck. é\n<tool_', 'call>\n<function=get_weather>\n<parameter=city>\nPar', 'is\n</parameter>\n</function>\n</tool_call>']);
  const chunks = [];
  for await (const c of sse.pipeThrough(completionsToChatChunks(src, { tools: WEATHER }, META))) chunks.push(c);
  const completion = await accumulate(chunks);
  const want = parseOutput(src, text, { tools: WEATHER });
  assert.equal(completion.choices[0].finish_reason, 'tool_calls');
  assert.equal(completion.choices[0].message.content, want.content);
  assert.deepEqual(completion.choices[0].message.tool_calls, want.tool_calls);
  assert.equal(want.tool_calls[0].id.length, 9);
  // Strings work too, and a stream cut inside the call ends with `length`.
  const cut = [];
  const strings = new ReadableStream({ start(c) { c.enqueue('<tool_call>\n<function=get_weather>\n<parameter=city>\nPar'); c.close(); } });
  for await (const c of strings.pipeThrough(completionsToChatChunks(src, { tools: WEATHER }, META))) cut.push(c);
  assert.equal(cut.at(-1).choices[0].finish_reason, 'length');
  assert.equal((await accumulate(cut)).choices[0].finish_reason, 'length');
});
