// Vercel AI SDK middleware, for ai 6 (LanguageModelV3, @ai-sdk/provider 3) and ai 7 (LanguageModelV4,
// @ai-sdk/provider 4): a raw-text model (any provider whose output is the template's text — a completions
// endpoint, a local engine) becomes a chat model with reasoning, text and tool calls, parsed by
// chat-autoparser from the chat template itself.
//
// The two generations share every shape this middleware reads and writes (call options, prompt, stream parts,
// generate content, `finishReason: {unified, raw}`). ai 6 requires `specificationVersion: 'v3'`; ai 7 accepts any
// (its `LanguageModelMiddleware` makes the field an optional string), so the middleware declares 'v3'.
//
//   import { wrapLanguageModel, streamText } from 'ai';
//   import { chatAutoparserMiddleware } from 'chat-autoparser/ai-sdk';
//   const model = wrapLanguageModel({ model: rawModel, middleware: chatAutoparserMiddleware({ template }) });
//
// Uses only the package's public API (imported by its own name), so it works with every entry.
import { StreamParser } from 'chat-autoparser';
import { finishParser } from './finish.mjs';

/** AI SDK function tools (`{type: 'function', name, description, inputSchema}`) as OpenAI tools. */
export function toOpenAITools(tools = []) {
  return tools.filter((t) => t.type === 'function').map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema ?? { type: 'object', properties: {} } },
  }));
}

const textOf = (content) => (typeof content === 'string' ? content
  : (content ?? []).filter((p) => p.type === 'text' || p.type === 'reasoning').map((p) => p.text).join(''));
const resultText = (output) => {
  if (output == null) return '';
  if (typeof output !== 'object' || !('value' in output)) return JSON.stringify(output);
  return typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
};

/** An AI SDK prompt (`LanguageModelV3Prompt` / `LanguageModelV4Prompt`) as OpenAI chat messages, for the template's context. */
export function toOpenAIMessages(prompt = []) {
  const out = [];
  for (const m of prompt) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content });
    else if (m.role === 'user') out.push({ role: 'user', content: textOf(m.content) });
    else if (m.role === 'assistant') {
      const calls = m.content.filter((p) => p.type === 'tool-call').map((p) => ({
        id: p.toolCallId, type: 'function',
        function: { name: p.toolName, arguments: typeof p.input === 'string' ? p.input : JSON.stringify(p.input) },
      }));
      out.push({ role: 'assistant', content: m.content.filter((p) => p.type === 'text').map((p) => p.text).join(''), ...(calls.length ? { tool_calls: calls } : {}) });
    } else if (m.role === 'tool') {
      for (const p of m.content) {
        if (p.type === 'tool-result') out.push({ role: 'tool', tool_call_id: p.toolCallId, name: p.toolName, content: resultText(p.output) });
      }
    }
  }
  return out;
}

/**
 * Turns parser deltas into LanguageModelV3/V4 stream parts: `reasoning-start/delta/end`,
 * `text-start/delta/end`, `tool-input-start/delta/end` and one `tool-call` per complete call.
 * A call's id is the one on its first delta (a model id written after the name is not re-sent).
 */
class PartWriter {
  constructor(emit) {
    this.emit = emit;
    this.block = null;   // { type: 'text' | 'reasoning', id }
    this.call = null;    // { index, id, name, input }
    this.blocks = 0;
    this.calls = [];
  }

  #open(type) {
    if (this.block?.type === type) return this.block.id;
    this.#closeBlock();
    this.#closeCall(true);
    this.block = { type, id: `${type === 'text' ? 'txt' : 'reasoning'}-${this.blocks++}` };
    this.emit({ type: `${type}-start`, id: this.block.id });
    return this.block.id;
  }

  #closeBlock() {
    if (this.block) this.emit({ type: `${this.block.type}-end`, id: this.block.id });
    this.block = null;
  }

  #closeCall(complete) {
    const c = this.call;
    if (!c) return;
    this.emit({ type: 'tool-input-end', id: c.id });
    if (complete) {
      const part = { type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.input || '{}' };
      this.calls.push(part);
      this.emit(part);
    }
    this.call = null;
  }

  write(deltas) {
    for (const d of deltas) {
      if (d.content !== undefined) {
        if (d.content) this.emit({ type: 'text-delta', id: this.#open('text'), delta: d.content });
      } else if (d.reasoning_content !== undefined) {
        if (d.reasoning_content) this.emit({ type: 'reasoning-delta', id: this.#open('reasoning'), delta: d.reasoning_content });
      } else {
        for (const tc of d.tool_calls ?? []) {
          if (this.call?.index !== tc.index) {
            this.#closeBlock();
            this.#closeCall(true);
            this.call = { index: tc.index, id: tc.id, name: tc.function?.name ?? '', input: '' };
            this.emit({ type: 'tool-input-start', id: this.call.id, toolName: this.call.name });
          }
          const args = tc.function?.arguments;
          if (args) {
            this.call.input += args;
            this.emit({ type: 'tool-input-delta', id: this.call.id, delta: args });
          }
        }
      }
    }
  }

  /** Close what is open; the last call is a `tool-call` only if it was complete. */
  end(lastCallComplete) {
    this.#closeBlock();
    this.#closeCall(lastCallComplete);
  }
}

function finishReason(source, calls, cut) {
  const raw = source?.raw;
  if (cut) return { unified: 'length', raw };
  if (calls.length) return { unified: 'tool-calls', raw };
  return source ?? { unified: 'stop', raw };
}

/**
 * A language-model middleware (ai 6 and ai 7) that parses the wrapped model's raw text with the chat template.
 * `template`: the Jinja chat template source or a `ChatTemplate`. `options`: request options for
 * the parser (`enableThinking`, `reasoningFormat`, …), or a function `(params) => options`. By
 * default `tools` and `messages` come from the call (`params.tools`, `params.prompt`), so the
 * parser starts where the rendered prompt ended and ids are tied to the conversation.
 */
export function chatAutoparserMiddleware({ template, options = {} }) {
  if (template == null) throw new TypeError('chatAutoparserMiddleware: `template` is required');
  const makeParser = (params) => {
    const extra = typeof options === 'function' ? options(params) : options;
    return new StreamParser(template, { tools: toOpenAITools(params.tools), messages: toOpenAIMessages(params.prompt), ...extra });
  };
  return {
    specificationVersion: 'v3',

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const parser = makeParser(params);
      const content = [];
      const writer = new PartWriter((p) => {
        if (p.type === 'text-delta') {
          const last = content.at(-1);
          if (last?.type === 'text' && last.id === p.id) last.text += p.delta; else content.push({ type: 'text', text: p.delta, id: p.id });
        } else if (p.type === 'reasoning-delta') {
          const last = content.at(-1);
          if (last?.type === 'reasoning' && last.id === p.id) last.text += p.delta; else content.push({ type: 'reasoning', text: p.delta, id: p.id });
        } else if (p.type === 'tool-call') content.push(p);
      });
      const others = [];
      for (const part of result.content) {
        if (part.type === 'text') writer.write(parser.push(part.text));
        else others.push(part);
      }
      const { deltas, cut } = finishParser(parser);
      writer.write(deltas);
      writer.end(!cut);
      const parts = content.map(({ id, ...p }) => p);
      return { ...result, content: [...parts, ...others], finishReason: finishReason(result.finishReason, writer.calls, cut) };
    },

    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const parser = makeParser(params);
      let writer;
      const transform = new TransformStream({
        start(controller) { writer = new PartWriter((p) => controller.enqueue(p)); },
        transform(part, controller) {
          switch (part.type) {
            case 'text-start':
            case 'text-end':
              return;   // our own text blocks replace the raw ones
            case 'text-delta':
              return writer.write(parser.push(part.delta));
            case 'finish': {
              const { deltas, cut } = finishParser(parser);
              writer.write(deltas);
              writer.end(!cut);
              return controller.enqueue({ ...part, finishReason: finishReason(part.finishReason, writer.calls, cut) });
            }
            default:
              return controller.enqueue(part);
          }
        },
      });
      return { stream: stream.pipeThrough(transform), ...rest };
    },
  };
}
