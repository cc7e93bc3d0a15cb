import type { ChatTemplate, Delta, Message, RequestOptions, StreamParser } from 'chat-autoparser';

export type FinishReason = 'stop' | 'tool_calls' | 'length';

export interface ChunkMeta {
  /** The completion id every chunk carries (default `chatcmpl-autoparser`). */
  id?: string;
  model?: string;
  /** Seconds since the epoch (default: now). */
  created?: number;
}

export type ChunkDelta = Delta | { role: 'assistant' } | (Delta & { role: 'assistant' }) | Record<string, never>;

/** An OpenAI `chat.completion.chunk`. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: [{ index: 0; delta: ChunkDelta; logprobs: null; finish_reason: FinishReason | null }];
}

/** Wrap one parser delta into a complete chunk (the first of a stream should add `role: 'assistant'`). */
export function toChatCompletionChunk(delta: ChunkDelta, meta?: ChunkMeta & { finishReason?: FinishReason }): ChatCompletionChunk;
/** The last chunk: an empty delta with `finish_reason`. */
export function finalChatCompletionChunk(finishReason: FinishReason, meta?: ChunkMeta): ChatCompletionChunk;
/** `length` when cut inside a call (or the server said so), `tool_calls` with calls, else `stop`. */
export function finishReasonOf(message: Message, how?: { cutInsideCall?: boolean; upstream?: string }): FinishReason;

/** A StreamParser that returns chunks: the first has `role`, the last (from `finish`) `finish_reason`. */
export class ChatCompletionChunker {
  constructor(parserOrTemplate: StreamParser | ChatTemplate | string, options?: RequestOptions, meta?: ChunkMeta);
  readonly parser: StreamParser;
  /** Set by `finish()`. */
  finishReason: FinishReason | null;
  push(text: string): ChatCompletionChunk[];
  /** Never throws for model output; `upstream` is the server's own finish_reason, if any. */
  finish(upstream?: string): ChatCompletionChunk[];
}

/** Raw completion text (strings) or the SSE bytes of a streamed `/v1/completions` response → chat chunks. */
export function completionsToChatChunks(
  template: ChatTemplate | string, options?: RequestOptions, meta?: ChunkMeta,
): TransformStream<string | Uint8Array, ChatCompletionChunk>;
/** Chunks → SSE bytes (`data: {…}\n\n` … `data: [DONE]\n\n`). */
export function chatChunksToSSE(): TransformStream<ChatCompletionChunk, Uint8Array>;

/** An openai-node `ChatCompletionStream` (or anything that emits `'chunk'` with the chunk and the accumulated snapshot). */
export interface ChunkEmitter {
  on(event: 'chunk', listener: (chunk: any, snapshot: any) => void): unknown;
}
/**
 * Make openai-node's accumulator keep the whole reasoning (`reasoning_content` / `reasoning` / `thinking`), not
 * only the last delta: its snapshots and `finalChatCompletion()` / `finalMessage()` then carry all of it.
 * Call before reading the stream; returns the stream.
 */
export function accumulateReasoning<S extends ChunkEmitter>(stream: S): S;
