// Type test of the adapter subpaths against the shipped declarations (strict), compiled in the fresh ai 7 project
// (pkg-tests/fresh-projects.test.mjs: the packed package, ai 7, @ai-sdk/provider 4, openai).
import { ChatTemplate, type Delta } from 'chat-autoparser';
import { ChatCompletionChunker, completionsToChatChunks, chatChunksToSSE, toChatCompletionChunk, finalChatCompletionChunk, finishReasonOf, accumulateReasoning, type ChatCompletionChunk, type FinishReason } from 'chat-autoparser/openai';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { chatAutoparserMiddleware, toOpenAITools } from 'chat-autoparser/ai-sdk';
import { createTextSink, parseTextStream } from 'chat-autoparser/engines';
import { wrapLanguageModel } from 'ai';
import type { LanguageModelV4 } from '@ai-sdk/provider';

declare const source: string;
declare const rawModel: LanguageModelV4;
declare const delta: Delta;
declare const openaiStream: ChatCompletionStream;

const tmpl = new ChatTemplate(source);
const chunker = new ChatCompletionChunker(tmpl, { tools: [] }, { id: 'x', model: 'm' });
const chunks: ChatCompletionChunk[] = [...chunker.push('hi'), ...chunker.finish()];
const reason: FinishReason | null = chunks[0].choices[0].finish_reason;
const one: ChatCompletionChunk = toChatCompletionChunk(delta, { id: 'x', model: 'm', created: 1 });
const last: ChatCompletionChunk = finalChatCompletionChunk(finishReasonOf({ role: 'assistant', content: null, reasoning_content: null }, { upstream: 'stop' }), {});
const sse: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>().pipeThrough(completionsToChatChunks(source)).pipeThrough(chatChunksToSSE());

const model = wrapLanguageModel({ model: rawModel, middleware: chatAutoparserMiddleware({ template: source, options: (p) => ({ enableThinking: p.maxOutputTokens !== 1 }) }) });
const tools = toOpenAITools([{ type: 'function', name: 'f', inputSchema: { type: 'object' } }]);

const sink = createTextSink(tmpl, {}, (d: Delta) => void d);
sink.write('x');
sink.write(new Uint8Array([104]));
const cut: boolean = sink.cutInsideCall;
async function iterate() {
  for await (const d of parseTextStream(['a', 'b'], source)) void d;
}
const whole: Promise<string | null | undefined> = accumulateReasoning(openaiStream).finalMessage().then((m) => m.content);
void [reason, one, last, sse, model, tools, sink.end(), cut, iterate, whole];
