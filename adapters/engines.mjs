// In-browser engines that stream raw model text (WebLLM, wllama, transformers.js): feed their
// token texts to a StreamParser through the callback or iterator each engine offers.
//
// Engines must keep special tokens in the text they stream: tool-call and reasoning markers
// (`<tool_call>`, `<think>`, `<|channel|>` …) are special tokens in many vocabularies.
//
// Uses only the package's public API (imported by its own name), so it works with every entry.
import { StreamParser } from 'chat-autoparser';
import { finishParser } from './finish.mjs';

/** Text of one streamed piece: a string, UTF-8 bytes (decoded across pieces), or a completions chunk. */
function pieceText(piece, decoder) {
  if (typeof piece === 'string') return piece;
  if (piece instanceof Uint8Array) return decoder.decode(piece, { stream: true });
  const choice = piece?.choices?.[0];
  return choice?.text ?? choice?.delta?.content ?? '';
}

/**
 * A sink for an engine's token texts: `write(piece)` (a string, UTF-8 bytes or a completions
 * chunk) calls `onDelta(delta)` for every parser delta; `end()` flushes and returns the message.
 * `end()` never throws for model output: a stream cut inside a tool call ends with
 * `sink.cutInsideCall = true` (the call's text so far is in the message).
 * `write` is bound, so it can be handed to an engine as its callback directly.
 */
export function createTextSink(template, options = {}, onDelta = () => {}) {
  const parser = template instanceof StreamParser ? template : new StreamParser(template, options);
  const decoder = new TextDecoder();
  const sink = {
    parser,
    cutInsideCall: false,
    write(piece) {
      const text = pieceText(piece, decoder);
      if (text) for (const d of parser.push(text)) onDelta(d);
    },
    end() {
      const tail = decoder.decode();
      if (tail) for (const d of parser.push(tail)) onDelta(d);
      const { deltas, cut } = finishParser(parser);
      sink.cutInsideCall = cut;
      for (const d of deltas) onDelta(d);
      return parser.message;
    },
  };
  sink.write = sink.write.bind(sink);
  return sink;
}

/**
 * Deltas from an engine's async iterable of pieces (strings, UTF-8 bytes, or completions chunks
 * such as WebLLM's `engine.completions.create({ prompt, stream: true })` yields). Returns the
 * message when done (`for await` gives the deltas; the generator's return value is the message).
 */
export async function* parseTextStream(pieces, template, options = {}) {
  const queue = [];
  const sink = createTextSink(template, options, (d) => queue.push(d));
  for await (const piece of pieces) {
    sink.write(piece);
    yield* queue.splice(0);
  }
  const message = sink.end();
  yield* queue.splice(0);
  return message;
}
