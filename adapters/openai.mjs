// OpenAI wire format for chat-autoparser: deltas as complete `chat.completion.chunk` objects, and a
// TransformStream that turns a raw-completions stream (text chunks, or the SSE bytes of a
// `/v1/completions` response) into chat chunks, so a client built for OpenAI's chat API works
// unchanged against a server that only returns raw text.
//
// Uses only the package's public API (imported by its own name), so it works with every entry.
import { StreamParser } from 'chat-autoparser';
import { finishParser } from './finish.mjs';

/**
 * Wrap one parser delta into a complete `chat.completion.chunk`.
 * `meta`: `{ id, model, created }` (`created` in seconds; default now), optional `finishReason`.
 * The first chunk of a stream should also carry `role: 'assistant'`: pass `{ role: 'assistant', ...delta }`
 * or use {@link ChatCompletionChunker}, which does.
 */
export function toChatCompletionChunk(delta, meta = {}) {
  return {
    id: meta.id ?? 'chatcmpl-autoparser',
    object: 'chat.completion.chunk',
    created: meta.created ?? Math.floor(Date.now() / 1000),
    model: meta.model ?? '',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: meta.finishReason ?? null }],
  };
}

/** The last chunk of a stream: an empty delta with `finish_reason` (`stop`, `tool_calls` or `length`). */
export function finalChatCompletionChunk(finishReason, meta = {}) {
  return toChatCompletionChunk({}, { ...meta, finishReason });
}

/**
 * The chat `finish_reason` of a parsed stream: `length` when the output ended inside a tool call
 * (`cutInsideCall`) or the server said `length`, `tool_calls` when the message has calls, else `stop`.
 */
export function finishReasonOf(message, { cutInsideCall = false, upstream } = {}) {
  if (cutInsideCall || upstream === 'length') return 'length';
  if (message.tool_calls?.length) return 'tool_calls';
  return 'stop';
}

/**
 * A StreamParser that speaks `chat.completion.chunk`: `push(text)` and `finish()` return chunks; the
 * first carries `role: 'assistant'`, the last (from `finish`) has `finish_reason`. `finish()` never
 * throws for model output: a stream cut inside a tool call ends with `finish_reason: 'length'`.
 * `parserOrTemplate`: a `StreamParser`, or a template (source or ChatTemplate) plus `options`.
 */
export class ChatCompletionChunker {
  constructor(parserOrTemplate, options = {}, meta = {}) {
    this.parser = parserOrTemplate instanceof StreamParser ? parserOrTemplate : new StreamParser(parserOrTemplate, options);
    this.meta = { created: Math.floor(Date.now() / 1000), ...meta };
    this.started = false;
    this.finishReason = null;
  }

  #chunks(deltas) {
    const out = [];
    if (!this.started) {
      this.started = true;
      const [first = {}, ...rest] = deltas;
      out.push(toChatCompletionChunk({ role: 'assistant', ...first }, this.meta));
      deltas = rest;
    }
    for (const d of deltas) out.push(toChatCompletionChunk(d, this.meta));
    return out;
  }

  /** Chunks for one piece of model text (maybe none while a marker is held back). */
  push(text) {
    const deltas = this.parser.push(text);
    return deltas.length || !this.started ? this.#chunks(deltas) : [];
  }

  /** The remaining chunks and the final one. `upstream`: the server's own finish_reason, if any. */
  finish(upstream) {
    const { deltas, cut } = finishParser(this.parser);
    const out = this.#chunks(deltas);
    this.finishReason = finishReasonOf(this.parser.message, { cutInsideCall: cut, upstream });
    out.push(finalChatCompletionChunk(this.finishReason, this.meta));
    return out;
  }
}

/** Text of one `/v1/completions` stream event (`choices[0].text`) and its finish_reason. */
function completionEvent(data) {
  const choice = JSON.parse(data).choices?.[0] ?? {};
  return { text: choice.text ?? '', finishReason: choice.finish_reason ?? undefined };
}

/**
 * A TransformStream from a raw-completions stream to `chat.completion.chunk` objects.
 * Input chunks may be strings (model text) or bytes: the SSE body of a streamed `/v1/completions`
 * response (`data: {"choices":[{"text":…}]}` events, `data: [DONE]`), decoded incrementally.
 * `options` are the parser's request options; `meta` = `{ id, model, created }`.
 */
export function completionsToChatChunks(template, options = {}, meta = {}) {
  const chunker = new ChatCompletionChunker(template, options, meta);
  const decoder = new TextDecoder();
  let sse = '';
  let upstream;
  const emit = (controller, chunks) => { for (const c of chunks) controller.enqueue(c); };
  const events = (controller, final) => {
    const parts = sse.split(/\r?\n\r?\n/);
    sse = final ? '' : parts.pop();
    for (const event of parts) {
      const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (!data || data === '[DONE]') continue;
      const { text, finishReason } = completionEvent(data);
      upstream = finishReason ?? upstream;
      if (text) emit(controller, chunker.push(text));
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (typeof chunk === 'string') {
        emit(controller, chunker.push(chunk));
      } else {
        sse += decoder.decode(chunk, { stream: true });
        events(controller, false);
      }
    },
    flush(controller) {
      sse += decoder.decode();
      events(controller, true);
      emit(controller, chunker.finish(upstream));
    },
  });
}

/** A TransformStream from chunk objects to SSE bytes (`data: {…}\n\n`, then `data: [DONE]`), to serve them. */
export function chatChunksToSSE() {
  const encoder = new TextEncoder();
  return new TransformStream({
    transform(chunk, controller) { controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)); },
    flush(controller) { controller.enqueue(encoder.encode('data: [DONE]\n\n')); },
  });
}

const REASONING_FIELDS = ['reasoning_content', 'reasoning', 'thinking'];

/**
 * openai-node's `ChatCompletionStream` keeps only the last delta of a message field it does not know, and
 * reasoning (`reasoning_content`, or `reasoning` / `thinking` per the `reasoningField` option) is one: this
 * makes its snapshots (`'chunk'` events, `currentChatCompletionSnapshot`) and its final completion
 * (`finalChatCompletion()`, `finalMessage()`) carry the whole reasoning. Call it before reading the stream;
 * returns the stream. Works with anything that emits `'chunk'` with `(chunk, snapshot)` as openai-node does.
 */
export function accumulateReasoning(stream) {
  const texts = new Map();   // `${choice index} ${field}` → the reasoning so far
  stream.on('chunk', (chunk, snapshot) => {
    for (const choice of chunk?.choices ?? []) {
      const message = snapshot?.choices?.find((c) => c.index === choice.index)?.message;
      for (const field of REASONING_FIELDS) {
        const piece = choice.delta?.[field];
        if (typeof piece !== 'string') continue;
        const key = `${choice.index} ${field}`;
        const text = (texts.get(key) ?? '') + piece;
        texts.set(key, text);
        if (message) message[field] = text;
      }
    }
  });
  return stream;
}
