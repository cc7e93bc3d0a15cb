/* Hand-written TypeScript declarations for chat-autoparser. They mirror src/api.rs and src/wasm/. */

/** What went wrong, machine-readable. `Internal`: the wasm call trapped (the objects it used are retired);
 * `InvalidState`: the object was freed, finished, or retired by an earlier `Internal` error; `Load`: `init()`
 * could not load the wasm module (the message says what to pass instead); `SpecVersion`: a parser spec
 * (`compileParser`) written by a version whose spec format this one does not read (the message names both). */
export type ErrorKind =
  | 'TemplateSyntax' | 'Render' | 'Limit' | 'InvalidInput' | 'InvalidState' | 'Internal'
  | 'Analysis' | 'Parse' | 'Grammar' | 'Schema' | 'Load' | 'SpecVersion';

/** Every error thrown by this package is a `ChatAutoparserError` (an `Error`) with a `kind`. */
export class ChatAutoparserError extends Error {
  constructor(kind: ErrorKind, message: string);
  name: 'ChatAutoparserError';
  kind: ErrorKind;
  /** 1-based line and column (counted in UTF-16 units) in the template, for syntax and render errors. */
  line?: number;
  column?: number;
  /** For parse errors: a UTF-16 index into the text passed (for a stream, into all chunks pushed so far). */
  offset?: number;
  /** `StreamParser.finish()` Parse errors: the deltas flushed before the error. */
  deltas?: Delta[];
}

/**
 * Load the wasm module. Browser/bundler entry: call (and await) once before anything else; `input` is
 * a URL, Response, BufferSource or WebAssembly.Module (default: `chat_autoparser_bg.wasm` next to the
 * module). Node, Bun, Deno and Cloudflare Workers (wrangler) load the wasm when the package is imported:
 * there it is a no-op, for isomorphic code.
 * @throws {ChatAutoparserError} `Load` when the module cannot be loaded; the message says what to pass.
 */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module | Promise<Response>): Promise<void>;
/** Instantiate the wasm synchronously from a `WebAssembly.Module` or its bytes (browser entry; a no-op where the
 * package loads the wasm itself). @throws {ChatAutoparserError} `Load`. */
export function initSync(module: BufferSource | WebAssembly.Module): void;

/** Options for compiling and rendering a template. */
export interface RenderOptions {
  /** Unix time in seconds used by `strftime_now` (default: now). */
  /** Years 1–9999 only; NaN or ±Infinity is an InvalidInput error. */
  now?: number;
  /** Fuel per render (≈ template instructions); default 1,000,000. */
  fuel?: number;
  /** Fuel for a whole analysis (all probe renders together); default 1,000,000. */
  analysisFuel?: number;
  /** Maximum nesting of loops and macro calls; default 200. */
  recursionLimit?: number;
  /** Maximum rendered size in bytes; default 8 MiB. */
  maxOutputBytes?: number;
  /** `bos_token` when the context has none. */
  bosToken?: string;
  /** `eos_token` when the context has none. */
  eosToken?: string;
}

/** Render context: what Hugging Face passes to a chat template. Extra keys (e.g. `enable_thinking`) pass through. */
export interface RenderContext {
  messages: ChatMessage[];
  tools?: Tool[];
  add_generation_prompt?: boolean;
  bos_token?: string;
  eos_token?: string;
  [extra: string]: unknown;
}

/** An OpenAI-style chat message as input to a template. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string;
  content?: string | null | Array<{ type: string; text?: string; [k: string]: unknown }>;
  reasoning_content?: string;
  tool_calls?: Array<{ id?: string; type?: 'function'; function: { name: string; arguments: string | Record<string, unknown> } }>;
  tool_call_id?: string;
  name?: string;
  [extra: string]: unknown;
}

/** An OpenAI-style tool definition. */
export interface Tool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** What a template supports, found by rendering probe conversations. */
export interface Caps {
  supportsTools: boolean;
  supportsToolCalls: boolean;
  supportsSystemRole: boolean;
  supportsParallelToolCalls: boolean;
  supportsPreserveReasoning: boolean;
  supportsStringContent: boolean;
  supportsTypedContent: boolean;
  supportsObjectArguments: boolean;
}

/** Request options for parsing and grammar building (camelCase). Unknown keys are an `InvalidInput` error. */
export interface RequestOptions {
  /** OpenAI-style tools offered to the model. */
  tools?: Tool[];
  /** The conversation the output answers (default: one user message). */
  messages?: ChatMessage[];
  addGenerationPrompt?: boolean;
  /** `none` | `content` | `reasoning` | `auto`: the last message is an assistant prefill being continued. */
  continueFinalMessage?: 'none' | 'content' | 'reasoning' | 'auto' | boolean;
  /** Not given: whatever the template does without it — the same context `render()` gets — for the prompt and the parser alike. */
  enableThinking?: boolean;
  /** The text the real prompt ended with (e.g. rendered by transformers or a server): overrides the rendered generation prompt, so parsing starts where that prompt left off. */
  generationPrompt?: string;
  /** Output that ends inside a tool call throws a `Parse` error (with `offset`) instead of ending with the incomplete call and `finishReason: 'length'`. Default false. */
  strict?: boolean;
  /** `none` keeps reasoning (with its markers) in content. Default `auto`. */
  reasoningFormat?: 'none' | 'auto' | 'deepseek' | 'deepseek-legacy';
  /** The key messages and deltas give reasoning text (default `reasoning_content`). */
  reasoningField?: 'reasoning_content' | 'reasoning' | 'thinking';
  parallelToolCalls?: boolean;
  toolChoice?: 'auto' | 'required' | 'none' | { type: 'function'; function: { name: string } };
  /** Response-format JSON schema: the answer is JSON. */
  jsonSchema?: Record<string, unknown> | null;
  /** The text may be cut short: a truncated tool call is kept instead of being an error. */
  isPartial?: boolean;
  /**
   * Stream the arguments of JSON-format tool calls piece by piece as the model writes them. Default
   * false: such a call goes out once its arguments are whole and valid JSON (arguments in one delta),
   * and a call whose JSON is broken stays content with a diagnostic. With it, a call that breaks after
   * its arguments began to stream ends there with a diagnostic naming `streamArguments`: only then may
   * its `arguments` be invalid JSON. Tagged-parameter formats stream value by value either way.
   */
  streamArguments?: boolean;
  /** Extra template variables. */
  extraContext?: Record<string, unknown>;
}

/** An OpenAI-style tool call in a parsed message. */
export interface ToolCall {
  /** The model's own id, or a generated one (9 alphanumerics, deterministic); never empty. */
  id: string;
  type: 'function';
  function: { name: string; /** JSON text */ arguments: string };
}

/** How a finished parse ended, as OpenAI's `finish_reason`. */
export type FinishReason = 'stop' | 'tool_calls' | 'length';

/** A parsed assistant message (OpenAI wire format). */
export interface Message {
  role: 'assistant';
  content: string | null;
  /** Reasoning text; under `reasoning` or `thinking` instead when `reasoningField` says so. */
  reasoning_content: string | null;
  reasoning?: string | null;
  thinking?: string | null;
  tool_calls?: ToolCall[];
  /** How the output ended, on `parseOutput`'s message and on `StreamParser.message` after `finish()`: `'length'`
   * inside a tool call (the last call is incomplete), else `'tool_calls'` when there are calls, else `'stop'`.
   * Absent while streaming and for a partial parse (`isPartial: true`). */
  finishReason?: FinishReason;
}

/** One tool call's part of a delta: the first for a call has `id`, `type` and `function.name`; later ones
 * only `function.arguments`. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments?: string };
}

/**
 * One OpenAI `chat.completion.chunk` delta: exactly one of `content`, `reasoning_content`, `tool_calls`.
 * The others are declared `?: never`, so `delta.content ?? delta.reasoning_content` type-checks.
 */
export type Delta =
  | { content: string; reasoning_content?: never; tool_calls?: never }
  | { reasoning_content: string; content?: never; tool_calls?: never }
  | { tool_calls: ToolCallDelta[]; content?: never; reasoning_content?: never }
  /** With `reasoningField: 'reasoning'` or `'thinking'`, reasoning deltas use that key instead. */
  | { reasoning: string; content?: never; reasoning_content?: never; tool_calls?: never }
  | { thinking: string; content?: never; reasoning_content?: never; tool_calls?: never };

/** A problem seen in malformed model output (streaming never throws for these). */
export interface Diagnostic {
  /** A UTF-16 index into the output (for a stream, into all chunks pushed so far); the first occurrence. */
  offset: number;
  message: string;
  /** The same problem seen this many times in a row (present only when more than 1): a repeated stray
   * marker is one diagnostic with a count, not one per occurrence. */
  count?: number;
  /** UTF-16 index of the last occurrence (present only with `count`). */
  lastOffset?: number;
  /** The leniency rule of an accepted departure from the template's canonical form (`'R16'`: the
   * README's Leniency table); absent when the diagnostic reports no accepted departure. */
  rule?: string;
}

export type ReasoningMode = 'NONE' | 'TAG_BASED' | 'DELIMITER' | 'FORCED_OPEN' | 'FORCED_CLOSED' | 'TOOLS_ONLY';
export type ContentMode = 'PLAIN' | 'ALWAYS_WRAPPED' | 'WRAPPED_WITH_REASONING';
export type ToolFormat = 'NONE' | 'JSON_NATIVE' | 'TAG_WITH_JSON' | 'TAG_WITH_TAGGED';
export type CallIdPosition = 'NONE' | 'PRE_FUNC_NAME' | 'BETWEEN_FUNC_AND_ARGS' | 'POST_ARGS' | 'IN_NAME_PLACE';
export type Handler = 'autoparser' | 'GPT-OSS' | 'Functionary v3.2' | 'Ministral/Magistral Large 3' | 'addressed messages' | 'headed segments';

/** One comparison the analyzer made: what variant B changed, and the split of the two renders. */
export interface DiffRecord { step: string; changed: string; ok: boolean; prefix: string; left: string; right: string; suffix: string }

/** How a template's model writes reasoning, content and tool calls. */
export interface Analysis {
  handler: Handler;
  caps: Caps;
  userStart: string;
  assistantStart: string;
  /**
   * Present when the template writes a label in its own words in front of past replies that its generation
   * prompt leaves out (`'Asistente:'`): the model writes it, and the parser drops it where the content begins
   * (a diagnostic with rule `'R47'`).
   */
  contentLabel?: string;
  /** `phrases`: `[start, end]` plain phrases the thinking-on instructions teach (rule R43), when there are. */
  reasoning: { mode: ReasoningMode; start: string; end: string; phrases?: [string, string] };
  content: { mode: ContentMode; start: string; end: string; requiresNonnullContent: boolean };
  /**
   * Present (handler `'addressed messages'`) when the reply is a run of messages headed by their recipient,
   * `<|start|>assistant to=user<|message|>…<|eot|>`: the header routes each body to content, reasoning or a tool call.
   */
  messages?: {
    messageStart: string; recipientPrefix: string; headerEnd: string; contentRecipient: string;
    reasoningRecipient?: string; messageEnds: string[];
  };
  /**
   * Present (handler `'headed segments'`) when the reply is several segments headed by the same tokens and a
   * word naming what follows (`<|im_start|>assistant/think\n…<|im_end|>`, `<|open|>response<|sep|>…<|close|>response<|sep|>`):
   * a header is `headerStart` + word + `headerEnd`; a segment ends with `endOpen` (+ its word when `endNamesWord`) + `endClose`.
   */
  segments?: {
    headerStart: string; headerEnd: string; reasoningWord: string; contentWord: string; callsWord?: string;
    endOpen: string; endClose?: string; endNamesWord: boolean; between?: string; turnEnd?: string;
  };
  tools: {
    format: {
      mode: ToolFormat; sectionStart: string; sectionEnd: string; perCallStart: string; perCallEnd: string;
      funNameIsKey: boolean; toolsArrayWrapped: boolean; openaiWrapperTrigger: boolean; usesPythonDicts: boolean;
      functionField: string; nameField: string; argsField: string; idField: string; genIdField: string; parameterOrder: string[];
      /** The template writes the section end only after a second call (a lone call's turn ends without it). */
      sectionEndOptional?: boolean;
      /** The per-call end follows only the last call of a turn (none between two calls). */
      perCallEndLastOnly?: boolean;
      /** What the template writes between two calls of one section without per-call markers (`, `, a newline). */
      callSeparator?: string;
      /** JSON call-object fields with one value for every call (`"type":"tool"`): the value as JSON text, and the field it precedes. */
      fixedFields?: { key: string; value: string; before?: string }[];
      [more: string]: unknown;
    };
    function: { namePrefix: string; nameSuffix: string; close: string };
    arguments: {
      start: string; end: string; namePrefix: string; nameSuffix: string; valuePrefix: string; valueSuffix: string; separator: string;
      /** Values are self-delimiting literals (`f(a='x', n=1)`): strings in `stringDelimiter`, other values bare. */
      literalValues: boolean; stringDelimiter: string;
      /** The value prefix of a non-string (JSON) value when it differs from `valuePrefix` (the string one). */
      typedValuePrefix?: string;
      /** Wrapper around raw string values holding markup (`<![CDATA[` … `]]>`). */
      rawValueStart?: string; rawValueEnd?: string;
      /** Non-string values are written with Python's `str()` (`['a', 'b']`, `{'k': True}`), not as JSON. */
      pythonReprValues?: boolean;
      [more: string]: unknown;
    };
    callId: { pos: CallIdPosition; prefix: string; suffix: string; headerCounterAt?: number; [more: string]: unknown };
    /**
     * Present (true) when the template renders a tool-call turn only in the OpenAI wire shape — `content: null`
     * and `arguments` a JSON string — so the analysis probes and the request layer send calls that way.
     */
    requiresWireShape?: boolean;
    /**
     * Only without a tool format (`format.mode` `"NONE"`): tool-call tokens the template source names, which the
     * parser's fallback reads calls between (rule R13; `end` empty when calls end with their value).
     */
    fallbackMarkers?: { start: string; end: string; body: 'JSON' | 'PYTHONIC' }[];
    /**
     * How the template writes a call of its code-interpreter tool (`python`) whose arguments are raw code, when
     * it writes it otherwise than an ordinary call: `start` + code + `end` (tools.13, rule R41).
     */
    rawCodeCall?: { name: string; start: string; end: string };
  };
  preservedTokens: string[];
  analysisComplete: boolean;
  /** The template's own round trip (`verifyTemplate`), per part: `analysisComplete` can be true and still wrong. */
  verified: Verified;
  diffs: DiffRecord[];
  workarounds: string[];
  diagnostics: string[];
}

/** A lazy-grammar trigger (as llama.cpp's `grammar_triggers`). */
export interface Trigger { type: 'word' | 'pattern' | 'pattern_full' | 'token'; value: string }

/** A GBNF grammar for constrained tool calling. `gbnf` is empty when there is nothing to constrain. */
export interface Grammar {
  gbnf: string; lazy: boolean; triggers: Trigger[]; preservedTokens: string[];
  /** Reasoning block markers (empty if none): triggers inside a closed block should not fire. */
  reasoningStart: string; reasoningEnd: string;
}

/** Result of `checkGrammar`. */
export interface CheckResult { accepted: boolean; /** UTF-16 index in `text` of the first mismatch */ errorAt?: number }

/** One round trip of `verifyTemplate`. */
export interface VerifyResult { name: string; ok: boolean; output: string; expected: Message; actual: Message; error?: string; skipped?: string }

/** Result of `verifyTemplate`. */
/** `ok`: every round trip carrying the part read it back; `untested`: none carried it. */
export type PartStatus = 'ok' | 'failed' | 'untested';

/** Round-trip status per part of a message. */
export interface Verified { ok: boolean; content: PartStatus; reasoning: PartStatus; toolCalls: PartStatus }

export interface VerifyReport {
  ok: boolean; verified: Verified; results: VerifyResult[];
  /**
   * Only for a `ChatTemplate` built with a declared `responseTemplate`: each round-trip output parsed
   * again with it, and where its message differs from our analysis' (`ours`).
   */
  responseTemplate?: {
    agree: boolean; checked: number;
    disagreements: { name: string; output: string; ours: Message; declared?: Message; difference: string }[];
  };
}

/** A template source string, or a compiled `ChatTemplate` (analysis is cached on it). */
export type TemplateOrSource = ChatTemplate | string;

/** Analyse a template. */
export function analyzeTemplate(source: string, options?: RenderOptions): Analysis;

/** What the template appends for the assistant's turn, for this request. */
export function generationPrompt(templateOrSource: TemplateOrSource, options?: RequestOptions): string;

/**
 * Parse a whole model output. Never throws on model output: the message has `finishReason` `'stop'` or
 * `'tool_calls'`, or `'length'` (and a diagnostic) when the output ends inside a tool call.
 * @throws {ChatAutoparserError} `Parse` (with `offset`) with `strict: true` when `isPartial` is false and the output ends inside a tool call.
 */
export function parseOutput(templateOrSource: TemplateOrSource, text: string, options?: RequestOptions & { diagnostics?: false }): Message;
/** With `diagnostics: true`: the message and the problems a StreamParser would report for the same text. */
export function parseOutput(templateOrSource: TemplateOrSource, text: string, options: RequestOptions & { diagnostics: true }): ParseResult;

/** `parseOutput(…, { diagnostics: true })`. */
export interface ParseResult { message: Message; diagnostics: Diagnostic[] }

/** Streaming parser: one O(n) state machine; only text that could still begin a marker is held back. */
export class StreamParser {
  constructor(templateOrSource: TemplateOrSource, options?: RequestOptions);
  /**
   * Consume a chunk; never throws on malformed output (see `diagnostics`). A chunk may end inside a
   * UTF-16 surrogate pair: the high half waits for the next chunk.
   * @throws {ChatAutoparserError} `InvalidState` after `finish()` (the text would be lost).
   */
  push(chunk: string): Delta[];
  /**
   * Flush held-back text and set `finishReason` (`'length'` when the output ends inside a tool call).
   * @throws {ChatAutoparserError} `Parse` with `strict: true` when `isPartial` is false and the output ends inside a
   * tool call; the error's `deltas` property holds the flushed deltas. `InvalidState` when called twice.
   */
  finish(): Delta[];
  /**
   * `push`, plus transformers-style region events (for code written against transformers'
   * `ResponseParser`). Use `pushEvents`/`finishEvents` for the whole stream to get every event.
   */
  pushEvents(chunk: string): { deltas: Delta[]; events: RegionEvent[] };
  /** `finish`, plus the last region events (the open region closes). */
  finishEvents(): { deltas: Delta[]; events: RegionEvent[] };
  /** After `finish()`: `'length'` when the output ended inside a tool call (the last call is incomplete), else
   * `'tool_calls'` when the message has calls, else `'stop'`. `null` before `finish()` and for `isPartial: true`. */
  readonly finishReason: FinishReason | null;
  readonly message: Message;
  readonly diagnostics: Diagnostic[];
  /** True after a stop marker (harmony `<|return|>` / `<|call|>`). */
  readonly stopped: boolean;
  /** Release the wasm memory now (otherwise when garbage-collected). A second call is a no-op. */
  free(): void;
}

/** The parser spec format this version writes and reads (`ParserSpec.specVersion`). */
export type ParserSpecVersion = 4;

/**
 * A template's parser, compiled (`compileParser`): portable JSON that `chat-autoparser/parser` parses with,
 * no template engine needed. Treat it as opaque data: ship it as `JSON.stringify(spec)` or as the object.
 */
export interface ParserSpec {
  /** The spec format; another version's spec is refused with a `SpecVersion` error naming both. */
  specVersion: ParserSpecVersion;
  /** The package version that wrote it. */
  writtenBy: string;
  /** The output format (the analysis' `handler`). */
  format: Handler;
  /** What the template appends for the assistant's turn (one user message, no tools), per `enableThinking`:
   * not given, `true`, `false` (the last two only where they differ from the first). */
  generationPrompts: { default: string; thinking?: string; noThinking?: string };
  /** The analysis without `diffs` (empty) and `verified`. */
  analysis: Omit<Analysis, 'verified'>;
}

/** Options of `compileParser`. */
export interface CompileOptions {
  /** Extra template variables for the generation-prompt renders (what a request's `extraContext` would add). */
  extraContext?: Record<string, unknown>;
}

/**
 * Compile the template's parser into a `ParserSpec`, for `chat-autoparser/parser` (server-side or at build
 * time; ship the spec to the browser). Its `parseOutput` / `StreamParser` then give what this package's do for
 * the same options, as long as the generation prompt does not depend on the request's messages, tools or extra
 * context (else pass `generationPrompt`).
 * @throws {ChatAutoparserError} what analysing and rendering the template throws (`Limit`, `Analysis`, `Render`).
 */
export function compileParser(templateOrSource: TemplateOrSource, options?: CompileOptions): ParserSpec;

/** Build the GBNF grammar, lazy triggers and preserved tokens for a request's tools. */
export function buildGrammar(templateOrSource: TemplateOrSource, options?: RequestOptions): Grammar;

/** Check a text against a GBNF grammar. @throws {ChatAutoparserError} `Grammar` for an invalid grammar. */
export function checkGrammar(gbnf: string, text: string): CheckResult;

/** Render assistant messages through the template and parse them back. */
export function verifyTemplate(templateOrSource: TemplateOrSource): VerifyReport;

/** Options of `responseTemplate`. */
export interface ResponseTemplateOptions {
  /** Name of the reasoning field in the template (default `thinking`, as transformers reads it). */
  reasoningField?: 'thinking' | 'reasoning' | 'reasoning_content';
  /** Use this `start_anchor` instead of the derived one. */
  startAnchor?: string;
}

/** One thing the derived response template cannot express. */
export interface ResponseTemplateLoss {
  /** e.g. `tools.call_id`, `tools.literal_arguments`, `leniency`. */
  feature: string;
  /** `partial`: canonical output still parses; `unsupported`: outputs using the feature do not. */
  severity: 'partial' | 'unsupported';
  detail: string;
}

/** A transformers `response_template` (tokenizer_config.json key), as `parse_response` accepts it. */
export interface HfResponseTemplate {
  version?: 1;
  defaults?: Record<string, unknown>;
  start_anchor?: string | string[];
  start_anchor_pattern?: string;
  fields: Record<string, {
    open?: string | string[]; open_pattern?: string;
    close?: string | string[]; close_pattern?: string;
    content?: 'text' | 'int' | 'float' | 'bool' | 'json' | 'xml-inline' | 'kv-lines';
    content_args?: Record<string, unknown>;
    repeats?: boolean; join?: string; optional?: boolean;
    transform?: unknown; transform_each?: boolean;
  }>;
}

/** The template's analysis as a Hugging Face `response_template`, and what it cannot express. */
export function responseTemplate(
  templateOrSource: TemplateOrSource,
  options?: ResponseTemplateOptions,
): { responseTemplate: HfResponseTemplate; losses: ResponseTemplateLoss[] };

/**
 * transformers' `parse_response`: the message dict a declared response template gives for `text`
 * (`prefix`: the rendered prompt, cut after its last `start_anchor`; `tools`: types arguments;
 * `reasoningFormat` as `parseOutput` applies it: `'auto'` (default) and `'deepseek'` give transformers'
 * dict, `'none'` no reasoning field and the reasoning text in `content` where it stands,
 * `'deepseek-legacy'` the reasoning field and that `content`).
 * @throws {ChatAutoparserError} `InvalidInput` for a bad template, `Parse` where transformers raises.
 */
export function parseResponse(
  text: string,
  responseTemplate: HfResponseTemplate,
  options?: { prefix?: string; tools?: Tool[]; reasoningFormat?: 'none' | 'auto' | 'deepseek' | 'deepseek-legacy' },
): Record<string, unknown>;

/** The package version. */
export function version(): string;

/**
 * Render a chat template once.
 * @throws {ChatAutoparserError} `TemplateSyntax` (with line/column), `Render`, `Limit` or `InvalidInput`.
 */
export function renderTemplate(source: string, context: RenderContext, options?: RenderOptions): string;

/** A compiled chat template. */
/** A transformers streaming event. Text regions (`thinking`, `content`) stream clean chunks;
 * `tool_calls` chunks are argument text (`dirty`), the parsed call comes with `region_close`. */
export type RegionEvent =
  | { type: 'region_open'; field: string }
  | { type: 'region_chunk'; field: string; text: string; dirty: boolean }
  | { type: 'region_close'; field: string; value: unknown };

/** Options of the `ChatTemplate` constructor: render options, plus a declared response template. */
export interface ChatTemplateOptions extends RenderOptions {
  /** Parse this template's output with this Hugging Face `response_template` instead of the analysis. */
  responseTemplate?: HfResponseTemplate;
}

/** The keys of a tokenizer_config.json that matter here: the template, a declared response template, and the
 * special tokens the template is rendered with (`bos_token` / `eos_token`, unless the options give `bosToken` /
 * `eosToken`; the EOS token also ends a reply: `analysis.turnEnd`, rule R7). */
export interface TokenizerConfigLike {
  chat_template: string;
  response_template?: HfResponseTemplate;
  bos_token?: string | { content: string } | null;
  eos_token?: string | { content: string } | null;
  [key: string]: unknown;
}

export class ChatTemplate {
  /**
   * A template source, or a tokenizer_config.json-like object (`chat_template` and optionally
   * `response_template`). With a declared response template, `parseOutput` and `StreamParser`
   * parse by it (transformers' semantics, streamed with holdback).
   * @throws {ChatAutoparserError} `TemplateSyntax` with line and column; `InvalidInput` for a bad response template.
   */
  constructor(source: string | TokenizerConfigLike, options?: ChatTemplateOptions);
  /** The declared response template, if any. */
  readonly responseTemplate: HfResponseTemplate | undefined;
  /** Render with a context. */
  render(context: RenderContext): string;
  /** Capabilities (probed once, then cached). */
  readonly caps: Caps;
  /** The template's analysis (computed on first use, then cached). */
  readonly analysis: Analysis;
  /** The template source. */
  readonly source: string;
  /** Release the wasm memory now (otherwise when garbage-collected). A second call is a no-op. */
  free(): void;
}
