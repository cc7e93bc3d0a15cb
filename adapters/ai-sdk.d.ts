// Self-contained: these declarations import nothing from `ai` or `@ai-sdk/provider`, so they compile under
// `--strict` (without skipLibCheck) with ai 6 (@ai-sdk/provider 3), ai 7 (@ai-sdk/provider 4) or neither
// installed. They describe the parts of the SDK's types the middleware uses, structurally: the middleware is
// assignable to ai 6's `LanguageModelV3Middleware` and to ai 7's `LanguageModelMiddleware`.
import type { ChatTemplate, RequestOptions } from 'chat-autoparser';

/** A function tool of the call (`LanguageModelV3FunctionTool` / `LanguageModelV4FunctionTool`). */
export interface AiSdkFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  inputSchema?: unknown;
}

/** A message of the SDK's model prompt (`LanguageModelV3Prompt` / `LanguageModelV4Prompt`). */
export type AiSdkPromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user' | 'assistant' | 'tool'; content: ReadonlyArray<AiSdkContentPart> };

/** A part of a prompt message's content: the fields the middleware reads (text, tool calls, tool results). */
export interface AiSdkContentPart {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
}

/** The call options the middleware reads (`LanguageModelV3CallOptions` / `LanguageModelV4CallOptions`). */
export interface AiSdkCallOptions {
  prompt: ReadonlyArray<AiSdkPromptMessage>;
  tools?: ReadonlyArray<{ type: string }>;
  maxOutputTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  topP?: number;
  topK?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
}

/** A generate result: the SDK's own type flows through (`content` is rewritten into reasoning, text and tool calls). */
interface GenerateResultLike { content: ReadonlyArray<{ type: string }> }
/** A stream result: the SDK's own type flows through (`stream` is rewritten into parsed parts). */
interface StreamResultLike { stream: ReadableStream<any> }

/** The middleware: pass it to `wrapLanguageModel` from ai 6 or ai 7. */
export interface ChatAutoparserMiddleware {
  /** `'v3'`: what ai 6 requires; ai 7 accepts any version here. */
  readonly specificationVersion: 'v3';
  wrapGenerate<G extends GenerateResultLike, S extends StreamResultLike>(options: {
    doGenerate: () => PromiseLike<G>;
    doStream: () => PromiseLike<S>;
    params: AiSdkCallOptions;
  }): Promise<G>;
  wrapStream<G extends GenerateResultLike, S extends StreamResultLike>(options: {
    doGenerate: () => PromiseLike<G>;
    doStream: () => PromiseLike<S>;
    params: AiSdkCallOptions;
  }): Promise<S>;
}

export interface ChatAutoparserMiddlewareOptions {
  /** The Jinja chat template source, or a ChatTemplate. */
  template: ChatTemplate | string;
  /** Parser request options, or a function of the call's params. `tools`/`messages` default to the call's. */
  options?: RequestOptions | ((params: AiSdkCallOptions) => RequestOptions);
}

/** Parses a raw-text model's output into reasoning, text and tool-call parts (stream and generate), for ai 6 and ai 7. */
export function chatAutoparserMiddleware(options: ChatAutoparserMiddlewareOptions): ChatAutoparserMiddleware;
/** AI SDK function tools as OpenAI tools (other tool types are left out). */
export function toOpenAITools(tools?: ReadonlyArray<AiSdkFunctionTool | { type: string }>): NonNullable<RequestOptions['tools']>;
/** An AI SDK prompt as OpenAI chat messages. */
export function toOpenAIMessages(prompt?: ReadonlyArray<AiSdkPromptMessage>): NonNullable<RequestOptions['messages']>;
