/* Hand-written TypeScript declarations for chat-autoparser. They mirror src/api.rs and src/wasm/. */

/** Every error thrown by this package is an `Error` with a machine-readable `kind`. */
export interface ChatAutoparserError extends Error {
  name: 'ChatAutoparserError';
  kind: 'TemplateSyntax' | 'Render' | 'Limit' | 'InvalidInput' | 'Analysis' | 'Parse' | 'Grammar' | 'Schema';
  /** 1-based line/column in the template, for syntax and render errors. */
  line?: number;
  column?: number;
  /** Byte offset into the parsed text, for parse errors. */
  offset?: number;
}

/** Options for compiling and rendering a template. */
export interface RenderOptions {
  /** Unix time in seconds used by `strftime_now` (default: now). */
  now?: number;
  /** Fuel per render (≈ template instructions); default 1,000,000. */
  fuel?: number;
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

/** The package version. */
export function version(): string;

/**
 * Render a chat template once.
 * @throws {ChatAutoparserError} `TemplateSyntax` (with line/column), `Render`, `Limit` or `InvalidInput`.
 */
export function renderTemplate(source: string, context: RenderContext, options?: RenderOptions): string;

/** A compiled chat template. */
export class ChatTemplate {
  /** @throws {ChatAutoparserError} `TemplateSyntax` with line and column. */
  constructor(source: string, options?: RenderOptions);
  /** Render with a context. */
  render(context: RenderContext): string;
  /** Capabilities (probed once, then cached). */
  readonly caps: Caps;
  /** The template source. */
  readonly source: string;
  free(): void;
}

/** Browser/bundler build only: load the wasm module. Call once before anything else. */
export default function init(input?: unknown): Promise<unknown>;
