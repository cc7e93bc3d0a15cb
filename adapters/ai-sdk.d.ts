import type { ChatTemplate, RequestOptions } from 'chat-autoparser';
import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4Middleware, LanguageModelV4Prompt } from '@ai-sdk/provider';

export interface ChatAutoparserMiddlewareOptions {
  /** The Jinja chat template source, or a ChatTemplate. */
  template: ChatTemplate | string;
  /** Parser request options, or a function of the call's params. `tools`/`messages` default to the call's. */
  options?: RequestOptions | ((params: LanguageModelV4CallOptions) => RequestOptions);
}

/** Parses a raw-text model's output into reasoning, text and tool-call parts (stream and generate). */
export function chatAutoparserMiddleware(options: ChatAutoparserMiddlewareOptions): LanguageModelV4Middleware;
/** AI SDK function tools as OpenAI tools. */
export function toOpenAITools(tools?: ReadonlyArray<LanguageModelV4FunctionTool | { type: string }>): NonNullable<RequestOptions['tools']>;
/** An AI SDK prompt as OpenAI chat messages. */
export function toOpenAIMessages(prompt?: LanguageModelV4Prompt): NonNullable<RequestOptions['messages']>;
