/* Hand-written TypeScript declarations for chat-autoparser/parser, the parse-only module: parseOutput and
 * StreamParser over a compiled parser spec (the full package's compileParser), with no template engine. */

import type {
  Delta, Diagnostic, ErrorKind, FinishReason, Message, ParseResult, ParserSpec, RequestOptions,
} from '../../web/chat_autoparser.js';

export type {
  ChatMessage, Delta, Diagnostic, ErrorKind, FinishReason, Message, ParseResult, ParserSpec, ParserSpecVersion, RequestOptions, Tool,
  ToolCall, ToolCallDelta,
} from '../../web/chat_autoparser.js';

/** Every error thrown by this module is a `ChatAutoparserError` (an `Error`) with a `kind`. */
export class ChatAutoparserError extends Error {
  constructor(kind: ErrorKind, message: string);
  name: 'ChatAutoparserError';
  kind: ErrorKind;
  offset?: number;
  deltas?: Delta[];
}

/**
 * Load the wasm module (browser/bundler entry; `input` as the full package's `init`, default
 * `chat_autoparser_parser_bg.wasm` next to the module). In Node it is loaded on import: a no-op.
 * @throws {ChatAutoparserError} `Load`.
 */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module | Promise<Response>): Promise<void>;
/** Instantiate the wasm synchronously from a `WebAssembly.Module` or its bytes. @throws {ChatAutoparserError} `Load`. */
export function initSync(module: BufferSource | WebAssembly.Module): void;

/** A compiled parser spec: the object `compileParser` returned, or its JSON text. */
export type SpecOrJson = ParserSpec | string;

/** What the parse starts from for these options: `generationPrompt` if given, else the spec's tail for `enableThinking`. */
export function generationPrompt(spec: SpecOrJson, options?: RequestOptions): string;

/**
 * Parse a whole model output, as the full package's `parseOutput` does with the template.
 * @throws {ChatAutoparserError} `SpecVersion` for a spec of another spec format version; `InvalidInput` for a
 * malformed spec or options; `Parse` with `strict: true` (as the full package).
 */
export function parseOutput(spec: SpecOrJson, text: string, options?: RequestOptions & { diagnostics?: false }): Message;
/** With `diagnostics: true`: the message and the problems a StreamParser would report for the same text. */
export function parseOutput(spec: SpecOrJson, text: string, options: RequestOptions & { diagnostics: true }): ParseResult;

/** Streaming parser over a compiled parser spec: the full package's `StreamParser` without region events. */
export class StreamParser {
  /** @throws {ChatAutoparserError} `SpecVersion`, `InvalidInput` (as `parseOutput`). */
  constructor(spec: SpecOrJson, options?: RequestOptions);
  push(chunk: string): Delta[];
  finish(): Delta[];
  readonly finishReason: FinishReason | null;
  readonly message: Message;
  readonly diagnostics: Diagnostic[];
  readonly stopped: boolean;
  free(): void;
}

/** The package version. */
export function version(): string;
