// Vercel AI SDK middleware (`chat-autoparser/ai-sdk`) against the real `ai` 7 package: a mock raw-text
// LanguageModelV4 wrapped with wrapLanguageModel, driven by streamText and generateText; and the
// think-tag cases users report, run through both our middleware and the SDK's extractReasoningMiddleware.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wrapLanguageModel, streamText, generateText, extractReasoningMiddleware, jsonSchema, tool } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { parseOutput } from 'chat-autoparser';
import { chatAutoparserMiddleware } from 'chat-autoparser/ai-sdk';
import { templateSource } from './helpers.mjs';

const USAGE = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 20, text: 20, reasoning: 0 } };
const STOP = { unified: 'stop', raw: 'stop' };

/** A raw-text model: streams `pieces` as one text block, or returns their concatenation. */
function rawModel(pieces, finishReason = STOP) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream([
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't0' },
        ...pieces.map((delta) => ({ type: 'text-delta', id: 't0', delta })),
        { type: 'text-end', id: 't0' },
        { type: 'finish', finishReason, usage: USAGE },
      ]),
    }),
    doGenerate: async () => ({ content: [{ type: 'text', text: pieces.join('') }], finishReason, usage: USAGE, warnings: [] }),
  });
}

const WEATHER = { get_weather: tool({ description: 'Weather', inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) }) };
const OPENAI_WEATHER = [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: WEATHER.get_weather.inputSchema.jsonSchema } }];
const QWEN3 = templateSource('Qwen-Qwen3-0.6B.jinja');

async function runStream(model, middleware, extra = {}) {
  const result = streamText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Weather in Paris?', ...extra });
  const parts = [];
  for await (const p of result.fullStream) parts.push(p);
  return { parts, text: await result.text, reasoning: (await result.reasoningText) ?? '', toolCalls: await result.toolCalls, finishReason: await result.finishReason };
}

async function runGenerate(model, middleware, extra = {}) {
  const r = await generateText({ model: wrapLanguageModel({ model, middleware }), prompt: 'Weather in Paris?', ...extra });
  return { text: r.text, reasoning: r.reasoningText ?? '', toolCalls: r.toolCalls, finishReason: r.finishReason };
}

const OUTPUT = '<think>\nThe user wants the weather.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>';
const split = (s, n) => Array.from({ length: Math.ceil(s.length / n) }, (_, i) => s.slice(i * n, i * n + n));

test('ai-sdk streamText: reasoning, text, tool-input and tool-call parts with finish tool-calls', async () => {
  const middleware = chatAutoparserMiddleware({ template: QWEN3, options: { parallelToolCalls: true } });
  const r = await runStream(rawModel(split(OUTPUT, 5)), middleware, { tools: WEATHER });
  const want = parseOutput(QWEN3, OUTPUT, { tools: OPENAI_WEATHER, parallelToolCalls: true, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
  assert.equal(r.reasoning, want.reasoning_content);
  assert.equal(r.text, want.content);
  assert.deepEqual(r.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input]), want.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]));
  assert.equal(r.finishReason, 'tool-calls');
  const types = r.parts.map((p) => p.type).filter((t) => !['start', 'start-step', 'finish-step', 'finish'].includes(t));
  assert.deepEqual([...new Set(types)], ['reasoning-start', 'reasoning-delta', 'reasoning-end', 'text-start', 'text-delta', 'text-end', 'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call']);
  const starts = r.parts.filter((p) => p.type === 'tool-input-start').map((p) => p.id);
  assert.deepEqual(starts, r.toolCalls.map((c) => c.toolCallId));
  assert.notEqual(starts[0], starts[1]);
});

test('ai-sdk generateText: the same message from wrapGenerate', async () => {
  const middleware = chatAutoparserMiddleware({ template: QWEN3, options: { parallelToolCalls: true } });
  const s = await runStream(rawModel(split(OUTPUT, 3)), middleware, { tools: WEATHER });
  const g = await runGenerate(rawModel([OUTPUT]), middleware, { tools: WEATHER });
  assert.deepEqual({ ...g, toolCalls: g.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input]) },
    { text: s.text, reasoning: s.reasoning, finishReason: 'tool-calls', toolCalls: s.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input]) });
});

test('ai-sdk: a stream cut inside a tool call finishes with length and no tool-call', async () => {
  const middleware = chatAutoparserMiddleware({ template: QWEN3 });
  const r = await runStream(rawModel(['Checking.\n<tool_call>\n{"name": "get_weather", "argu'], { unified: 'length', raw: 'length' }), middleware, { tools: WEATHER });
  assert.equal(r.finishReason, 'length');
  assert.equal(r.toolCalls.length, 0);
  assert.equal(r.text.trim(), 'Checking.');
});

// ---- Think-tag cases users report: ours and the SDK's extractReasoningMiddleware on the same raw stream.

async function reasoningOf(pieces, middleware) {
  const r = await runStream(rawModel(pieces), middleware);
  const content = r.parts.filter((p) => p.type === 'reasoning-delta' || p.type === 'text-delta');
  return { reasoning: r.reasoning, text: r.text, reasoningParts: r.parts.filter((p) => p.type === 'reasoning-start').length, content };
}
const ours = (template, options = {}) => chatAutoparserMiddleware({ template: templateSource(template), options });
const sdk = (startWithReasoning = false) => extractReasoningMiddleware({ tagName: 'think', startWithReasoning });

test('think tags: the opening tag is already in the prompt (QwQ, DeepSeek-R1 distills)', async () => {
  const output = [...'I should greet.\n</think>\n\nHello!'];
  for (const template of ['Qwen-QwQ-32B.jinja', 'deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja']) {
    const got = await reasoningOf(output, ours(template));
    assert.equal(got.reasoning.trim(), 'I should greet.', template);
    assert.equal(got.text.trim(), 'Hello!', template);
    const theirs = await reasoningOf(output, sdk());
    assert.ok(theirs.text.includes('</think>') && !theirs.reasoning, `${template}: the SDK leaves the block in the text: ${JSON.stringify(theirs.text)}`);
  }
});

test('think tags: one template, thinking on and off — ours follows the template, the SDK\'s fixed startWithReasoning is wrong in one mode', async () => {
  const on = [...'Let me think.\n</think>\n\nHello!'];        // DeepSeek-R1 distill: the prompt opened <think>
  const off = [...'Hello!'];                                   // Qwen3 with enable_thinking: false: the prompt wrote an empty block
  const r1 = await reasoningOf(on, ours('deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja'));
  const q3 = await reasoningOf(off, ours('Qwen-Qwen3-0.6B.jinja', { enableThinking: false }));
  assert.deepEqual([r1.reasoning.trim(), r1.text.trim()], ['Let me think.', 'Hello!']);
  assert.deepEqual([q3.reasoning, q3.text, q3.reasoningParts], ['', 'Hello!', 0]);
  // The SDK needs startWithReasoning: true for the first and false for the second.
  assert.equal((await reasoningOf(off, sdk(true))).reasoning, 'Hello!', 'SDK startWithReasoning: the answer becomes reasoning');
  assert.ok((await reasoningOf(on, sdk(false))).text.includes('</think>'));
});

test('think tags: stray closing tags', async () => {
  // Thinking off (the prompt already closed the block) and the model closes it again.
  const got = await reasoningOf([...'</think>\n\nHello!'], ours('Qwen-Qwen3-0.6B.jinja', { enableThinking: false }));
  assert.deepEqual([got.reasoning, got.text.trim()], ['', 'Hello!']);
  assert.ok((await reasoningOf([...'</think>\n\nHello!'], sdk())).text.includes('</think>'), 'the SDK shows the stray tag');
  // A second closing tag after the block.
  const twice = [...'<think>\nHmm.\n</think>\n\nHello!</think>'];
  const ours2 = await reasoningOf(twice, ours('Qwen-Qwen3-0.6B.jinja'));
  assert.deepEqual([ours2.reasoning.trim(), ours2.text], ['Hmm.', 'Hello!']);
  assert.ok((await reasoningOf(twice, sdk())).text.endsWith('</think>'), 'the SDK shows the stray tag');
});

test('think tags: an empty block is no reasoning at all', async () => {
  const empty = [...'<think>\n\n</think>\n\nHello!'];
  const got = await reasoningOf(empty, ours('Qwen-Qwen3-0.6B.jinja'));
  assert.deepEqual([got.reasoningParts, got.reasoning, got.text], [0, '', 'Hello!']);
  const theirs = await reasoningOf(empty, sdk());
  assert.ok(theirs.reasoningParts === 1 && theirs.reasoning.trim() === '' && theirs.text !== 'Hello!', `the SDK emits an empty reasoning block: ${JSON.stringify(theirs)}`);
});
