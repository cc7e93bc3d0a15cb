// The wasm runs here, off the main thread, so analysing a large template never freezes the page.
// Protocol: main posts {id, op, args}; the worker answers {id, ok: true, result} or {id, ok: false, error}.
import init, * as api from './pkg/chat_autoparser.js';
import { grammarStart } from './triggers.js';
import { apiOffsetToIndex } from './offsets.js';
import { compareMessages, carriesIds } from './rt-compare.js';

const ready = init();

/** Which parts of the API this build has (the playground degrades panel by panel). */
function features() {
  const has = (name) => typeof api[name] === 'function';
  return {
    analyzeTemplate: has('analyzeTemplate'),
    StreamParser: has('StreamParser'),
    parseOutput: has('parseOutput'),
    buildGrammar: has('buildGrammar'),
    checkGrammar: has('checkGrammar'),
    verifyTemplate: has('verifyTemplate'),
    responseTemplate: has('responseTemplate') && has('parseResponse'),
  };
}

// One compiled template, reused by every request on the same source.
let compiled = null;
function template(source) {
  if (compiled && compiled.source === source) return compiled.tpl;
  const tpl = new api.ChatTemplate(source);
  if (compiled) compiled.tpl.free();
  compiled = { source, tpl };
  return tpl;
}

function need(name) {
  if (typeof api[name] !== 'function') {
    throw Object.assign(new Error(`${name} is not in this build`), { kind: 'NotInBuild' });
  }
}

// Sample outputs when verifyTemplate is missing: the text an assistant turn adds after the generation prompt.
const SAMPLE_TURNS = [
  { name: 'content', msg: { role: 'assistant', content: 'The weather in Paris is sunny, 22°C.' } },
  {
    name: 'tool call',
    msg: {
      role: 'assistant', content: '',
      tool_calls: [{ id: 'call_0001', type: 'function', function: { name: 'get_weather', arguments: { location: 'Paris' } } }],
    },
  },
];

function fixturesByRender(source, request) {
  const tpl = template(source);
  const messages = [{ role: 'user', content: "What's the weather in Paris?" }];
  const base = { messages, tools: request.tools, enable_thinking: request.enableThinking };
  const prompt = tpl.render({ ...base, add_generation_prompt: true });
  const out = [];
  for (const { name, msg } of SAMPLE_TURNS) {
    try {
      const full = tpl.render({ ...base, messages: [...messages, msg], add_generation_prompt: false });
      if (full.startsWith(prompt)) out.push({ name: `${name} (render diff)`, ok: null, output: full.slice(prompt.length) });
    } catch { /* a template that rejects this turn simply has no such fixture */ }
  }
  // The text after the plain-content turn's content is the end of turn (EOS and the like), which a
  // model's output does not contain: strip it from every fixture.
  const text = SAMPLE_TURNS[0].msg.content;
  const first = out[0]?.output ?? '';
  const at = first.lastIndexOf(text);
  const eot = at >= 0 ? first.slice(at + text.length) : '';
  if (eot) for (const f of out) if (f.output.endsWith(eot)) f.output = f.output.slice(0, -eot.length);
  return out;
}

let stream = null;

/**
 * Check a model output against a grammar the way llama.cpp applies it: from the first trigger of a lazy
 * grammar on. Positions in the answer (start, errorAt) are JS string indices into the whole output.
 */
function checkOutput(grammar, output) {
  const { start, trigger, errors } = grammarStart(grammar, output);
  if (start < 0) return { accepted: true, untriggered: true, start: null, trigger: null, errors };
  const rest = output.slice(start);
  const r = api.checkGrammar(grammar.gbnf, rest);
  return {
    accepted: r.accepted, errorAt: r.errorAt === undefined || r.errorAt === null ? undefined : start + apiOffsetToIndex(rest, r.errorAt),
    start, trigger, errors,
  };
}

/** Code-point chunks of about `size` code points (a chunk never splits a surrogate pair). */
function chunks(text, size) {
  const cps = Array.from(text);
  const out = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

// Outputs up to this many code points are streamed one code point at a time for exact delta positions.
const FINE_LIMIT = 20000;

/**
 * Parse an output the streaming way, recording where each delta was emitted: {events: [{delta, at}]
 * (at = JS index of the output read so far), message, diagnostics (with JS `index` added), stopped,
 * error, whole (parseOutput's message when it differs, for the consistency check)}.
 */
function parseStreamed(source, request, text) {
  const p = new api.StreamParser(template(source), request);
  const events = [];
  let at = 0;
  let error = null;
  try {
    const n = Array.from(text).length;
    for (const c of chunks(text, Math.max(1, Math.ceil(n / FINE_LIMIT)))) {
      at += c.length;
      for (const delta of p.push(c)) events.push({ delta, at });
    }
    try {
      for (const delta of p.finish()) events.push({ delta, at: text.length });
    } catch (e) {
      error = serialize(e);
      for (const delta of e.deltas || []) events.push({ delta, at: text.length });
    }
    const diagnostics = (p.diagnostics || []).map((d) => ({ ...d, index: apiOffsetToIndex(text, d.offset) }));
    const message = p.message;
    let whole = null;
    if (!error && typeof api.parseOutput === 'function') {
      try {
        const { finishReason: _, ...w } = api.parseOutput(template(source), text, request);
        if (JSON.stringify(w) !== JSON.stringify(message)) whole = w;
      } catch (e) { whole = { error: serialize(e) }; }
    }
    if (error && error.offset !== undefined) error.index = apiOffsetToIndex(text, error.offset);
    return { events, message, diagnostics, stopped: p.stopped, finishReason: p.finishReason ?? null, error, whole };
  } finally {
    p.free?.();
  }
}

const ops = {
  hello: () => ({ version: api.version(), features: features() }),

  analyze({ source }) {
    const t0 = performance.now();
    const tpl = template(source);
    const caps = tpl.caps;
    let analysis = null;
    if (typeof api.analyzeTemplate === 'function') {
      analysis = 'analysis' in tpl ? tpl.analysis : api.analyzeTemplate(source);
    }
    return { caps, analysis, ms: performance.now() - t0 };
  },

  /**
   * The prompt. With `continueFinal`, the conversation ends in an assistant prefill that the output
   * continues: as Hugging Face's continue_final_message, the render is cut after the prefill's last occurrence.
   */
  render({ source, context, continueFinal }) {
    const text = template(source).render(context);
    const last = context.messages?.at(-1);
    const prefill = continueFinal ? [last?.content, last?.reasoning_content].find((s) => typeof s === 'string' && s.trim()) : '';
    if (!prefill) return text;
    const at = text.lastIndexOf(prefill.trim());
    return at < 0 ? text : text.slice(0, at + prefill.trim().length);
  },

  grammar({ source, request, output }) {
    need('buildGrammar');
    const grammar = api.buildGrammar(template(source), request);
    let check = null;
    let checkError = null;
    if (typeof api.checkGrammar === 'function' && typeof output === 'string') {
      try { check = checkOutput(grammar, output); } catch (e) { checkError = serialize(e); }
    }
    return { grammar, check, checkError };
  },

  check({ grammar, output }) {
    need('checkGrammar');
    return checkOutput(grammar, output);
  },

  verify({ source }) {
    need('verifyTemplate');
    return api.verifyTemplate(template(source));
  },

  fixtures({ source, request }) {
    if (typeof api.verifyTemplate === 'function') {
      const v = api.verifyTemplate(template(source));
      return (v.results || []).filter((r) => typeof r.output === 'string')
        .map((r) => ({ name: r.name, ok: r.ok, output: r.output, hasToolCalls: !!r.expected?.tool_calls?.length }));
    }
    return fixturesByRender(source, request).map((f) => ({ ...f, hasToolCalls: f.name.startsWith('tool') }));
  },

  /**
   * The derived response_template and its losses, and whether parsing `text` by the spec (our own
   * implementation of transformers' parse_response, prefix = the generation prompt) gives our message;
   * the same for a declared response_template (from a dropped tokenizer_config.json) when there is one.
   */
  responseTemplate({ source, request, text, prompt, declared }) {
    need('responseTemplate');
    need('parseResponse');
    const tpl = template(source);
    const derived = api.responseTemplate(tpl);
    let message = null;
    let messageError = null;
    try { message = api.parseOutput(tpl, text, request); } catch (e) { messageError = serialize(e); }
    const opts = { prefix: typeof prompt === 'string' ? prompt : '' };
    if (Array.isArray(request.tools) && request.tools.length) opts.tools = request.tools;
    const check = (rt) => {
      try {
        const dict = api.parseResponse(text, rt, opts);
        return { dict, diffs: message ? compareMessages(message, dict, { withIds: carriesIds(rt) }) : null };
      } catch (e) {
        return { error: serialize(e) };
      }
    };
    return {
      responseTemplate: derived.responseTemplate, losses: derived.losses, message, messageError,
      derived: check(derived.responseTemplate), declared: declared === undefined || declared === null ? null : check(declared),
      declaredTemplate: declared ?? null,
    };
  },

  parse({ source, request, text }) {
    need('parseOutput');
    return api.parseOutput(template(source), text, request);
  },

  parseStreamed({ source, request, text }) {
    need('StreamParser');
    return parseStreamed(source, request, text);
  },

  streamStart({ source, request }) {
    need('StreamParser');
    if (stream) stream.free?.();
    stream = new api.StreamParser(template(source), request);
    return true;
  },

  streamPush({ chunk }) {
    if (!stream) throw Object.assign(new Error('no stream started'), { kind: 'InvalidInput' });
    const deltas = stream.push(chunk);
    return { deltas, diagnostics: stream.diagnostics, stopped: stream.stopped };
  },

  streamFinish() {
    if (!stream) throw Object.assign(new Error('no stream started'), { kind: 'InvalidInput' });
    const deltas = stream.finish();
    return { deltas, message: stream.message, diagnostics: stream.diagnostics, stopped: stream.stopped };
  },
};

/** Errors cross postMessage as plain objects; keep the kind and location the wasm attached. */
function serialize(e) {
  if (!(e instanceof Object)) return { message: String(e) };
  return {
    name: e.name, kind: e.kind, message: e.message ?? String(e),
    line: e.line, column: e.column, offset: e.offset,
    // A RuntimeError means the wasm instance trapped: the page restarts the worker.
    fatal: e instanceof WebAssembly.RuntimeError,
  };
}

self.onmessage = async ({ data }) => {
  const { id, op, args } = data;
  try {
    await ready;
    const fn = ops[op];
    if (!fn) throw new Error(`unknown op ${op}`);
    self.postMessage({ id, ok: true, result: fn(args || {}) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: serialize(e) });
  }
};
