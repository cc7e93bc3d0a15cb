import type { ChatTemplate, Delta, Message, RequestOptions, StreamParser } from 'chat-autoparser';

/** A streamed piece: model text, UTF-8 bytes, or a completions chunk (`choices[0].text` / `.delta.content`). */
export type Piece = string | Uint8Array | { choices?: Array<{ text?: string; delta?: { content?: string | null } }> };

export interface TextSink {
  readonly parser: StreamParser;
  /** True after `end()` when the output stopped inside a tool call. */
  cutInsideCall: boolean;
  /** Bound: pass it to an engine as its token callback. */
  write(piece: Piece): void;
  /** Flush; never throws for model output. */
  end(): Message;
}

export function createTextSink(template: StreamParser | ChatTemplate | string, options?: RequestOptions, onDelta?: (delta: Delta) => void): TextSink;
/** Deltas from an async iterable of pieces; the generator returns the message. */
export function parseTextStream(pieces: AsyncIterable<Piece> | Iterable<Piece>, template: StreamParser | ChatTemplate | string, options?: RequestOptions): AsyncGenerator<Delta, Message, undefined>;
