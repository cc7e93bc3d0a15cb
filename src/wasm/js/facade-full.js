// The full package's part of the facade (see facade.js, pasted before it): templates, analysis, grammars,
// response templates, compileParser, and `templateOrSource` arguments.

const RESPONSE_TEMPLATE_OPTIONS = {
  reasoningField: oneOf('thinking', 'reasoning', 'reasoning_content'),
  startAnchor: [(v) => typeof v === 'string', 'a string'],
};
// The full package's template objects, as `parsers` in facade.js (a WeakMap: `this` cannot be forged).
const templates = new WeakMap();

const COMPILE_OPTIONS = {
  extraContext: [isPlainObject, 'an object'],
};
const PARSE_RESPONSE_OPTIONS = {
  prefix: [(v) => typeof v === 'string', 'a string'],
  tools: [Array.isArray, 'an array of tools'],
  reasoningFormat: REQUEST_OPTIONS.reasoningFormat,
};

function contextJson(context) {
  return userCode('context', () => {
    if (!isPlainObject(context)) throw invalid(`context: expected an object, got ${describe(context)}`);
    return toJson(context, 'context');
  });
}


/** A `templateOrSource` argument: a source string as is, or the raw object behind a live ChatTemplate. */
function templateArg(v, name = 'templateOrSource') {
  if (typeof v === 'string') return { arg: v, state: undefined, source: v };
  const s = templates.get(v);
  if (s === undefined) throw invalid(`${name}: expected a template source string or a ChatTemplate, got ${describe(v)}`);
  if (s.broken) throw invalidState(`${name}: ${s.broken}`);
  if (s.raw === null) throw invalid(`${name}: this ChatTemplate has been freed`);
  return { arg: s.raw, state: s, source: s.source };
}


/** `bosToken` / `eosToken` from a tokenizer_config.json: each a string or an AddedToken-shaped `{ content }`. */
function configTokens(config) {
  const text = (t) => (typeof t === 'string' ? t : isPlainObject(t) && typeof t.content === 'string' ? t.content : undefined);
  const out = {};
  const bos = text(config.bos_token);
  const eos = text(config.eos_token);
  if (bos !== undefined) out.bosToken = bos;
  if (eos !== undefined) out.eosToken = eos;
  return out;
}

class ChatTemplate {
  /** Compile a template. Throws `TemplateSyntax` (with line and column). */
  /** `source`: the template, or a tokenizer_config.json-like `{chat_template, response_template?}`;
   * `options.responseTemplate`: a declared Hugging Face response template to parse by. */
  constructor(source, options) {
    let declared;
    if (isPlainObject(source)) {
      let tokens;
      ({ source, declared, tokens } = userCode('source', () => ({ source: source.chat_template, declared: source.response_template, tokens: configTokens(source) })));
      if (typeof source !== 'string') throw invalid(`source.chat_template: expected a string (resolve a named-template list first), got ${describe(source)}`);
      // The config's `bos_token` / `eos_token`, as transformers passes them to the template, unless the options
      // give their own; the analysis also takes the EOS token as a turn end (a reply may end with it as text).
      if (options === undefined || options === null) options = tokens;
      else if (isPlainObject(options)) options = { ...tokens, ...userCode('options', () => ({ ...options })) };
    }
    needString(source, 'source');
    if (isPlainObject(options) && userCode('options', () => Object.prototype.hasOwnProperty.call(options, 'responseTemplate'))) {
      const { responseTemplate, ...rest } = userCode('options', () => ({ ...options }));
      if (responseTemplate !== undefined && responseTemplate !== null) declared = responseTemplate;
      options = rest;
    }
    let rt;
    if (declared !== undefined && declared !== null) {
      if (!isPlainObject(declared)) throw invalid(`responseTemplate: expected a response_template object, got ${describe(declared)}`);
      rt = userCode('responseTemplate', () => toJson(declared, 'responseTemplate'));
    }
    const opts = optionsJson(options, RENDER_OPTIONS);
    const r = guarded([], () => new raw.ChatTemplate(source, opts, rt), { source });
    templates.set(this, { raw: r, broken: null, source });
  }

  /** The declared response template, or undefined. */
  get responseTemplate() {
    const s = stateOf(templates, this, 'ChatTemplate', 'responseTemplate');
    return guarded([s], () => s.raw.responseTemplate, s);
  }

  render(context) {
    const s = stateOf(templates, this, 'ChatTemplate', 'render');
    const ctx = contextJson(context);
    return guarded([s], () => s.raw.render(ctx), s);
  }

  get caps() {
    const s = stateOf(templates, this, 'ChatTemplate', 'caps');
    return guarded([s], () => s.raw.caps, s);
  }

  get analysis() {
    const s = stateOf(templates, this, 'ChatTemplate', 'analysis');
    return guarded([s], () => s.raw.analysis, s);
  }

  get source() {
    const s = stateOf(templates, this, 'ChatTemplate', 'source');
    return s.source;
  }

  /** Release the wasm memory now. Freeing twice is a no-op. */
  free() {
    freeObject(templates, this, 'ChatTemplate');
  }
}


function renderTemplate(source, context, options) {
  needString(source, 'source');
  const ctx = contextJson(context);
  const opts = optionsJson(options, RENDER_OPTIONS);
  return guarded([], () => raw.renderTemplate(source, ctx, opts), { source });
}

function analyzeTemplate(source, options) {
  needString(source, 'source');
  const opts = optionsJson(options, RENDER_OPTIONS);
  return guarded([], () => raw.analyzeTemplate(source, opts), { source });
}


function buildGrammar(templateOrSource, options) {
  const t = templateArg(templateOrSource);
  const opts = optionsJson(options, REQUEST_OPTIONS);
  return guarded([t.state], () => withRequestOptions(opts, (o) => raw.buildGrammar(t.arg, o)), t);
}

function checkGrammar(gbnf, text) {
  needString(gbnf, 'gbnf');
  needString(text, 'text');
  const result = guarded([], () => raw.checkGrammar(gbnf, text), { source: gbnf });
  if (typeof result.errorAt === 'number') result.errorAt = utf16Index(text, result.errorAt);
  return result;
}

function verifyTemplate(templateOrSource) {
  const t = templateArg(templateOrSource);
  return guarded([t.state], () => raw.verifyTemplate(t.arg), t);
}

/** The template's analysis as a Hugging Face `response_template`: `{ responseTemplate, losses }`. */
function responseTemplate(templateOrSource, options) {
  const t = templateArg(templateOrSource);
  const opts = optionsJson(options, RESPONSE_TEMPLATE_OPTIONS);
  return guarded([t.state], () => raw.responseTemplate(t.arg, opts), t);
}

/** transformers' `parse_response` with a declared response template: the message dict. */
function parseResponse(text, template, options) {
  needString(text, 'text');
  if (!isPlainObject(template)) throw invalid(`responseTemplate: expected a response_template object, got ${describe(template)}`);
  const rt = userCode('responseTemplate', () => toJson(template, 'responseTemplate'));
  const opts = optionsJson(options, PARSE_RESPONSE_OPTIONS);
  return guarded([], () => raw.parseResponse(text, rt, opts));
}


function target(v) {
  return templateArg(v);
}

/** The parser spec format this facade writes: `PARSER_SPEC_VERSION` of src/findings/spec.rs (pkg-tests/parser.test.mjs
 * checks that the spec written here is the native `ChatTemplate::compile_parser`'s, byte for byte). */
const PARSER_SPEC_VERSION = 4;

/**
 * Compile the template's parser into a spec object for `chat-autoparser/parser` (portable JSON): what the
 * native `ChatTemplate::compile_parser` writes, assembled here from the analysis and the generation prompts so
 * that the full module carries no code of its own for it (issue #28: the full module must not grow).
 */
function compileParser(templateOrSource, options) {
  const t = templateArg(templateOrSource);
  const request = optionsJson(options, COMPILE_OPTIONS) ?? '{}';
  // A source string is compiled once here (and freed after), not once per call below.
  const own = t.state === undefined ? guarded([], () => new raw.ChatTemplate(t.arg, undefined, undefined), t) : undefined;
  const target = own ?? t.state.raw;
  try {
    const { verified, ...analysis } = guarded([t.state], () => target.analysis, t);
    analysis.diffs = [];
    const tail = (enableThinking) => {
      const r = enableThinking === undefined ? request : JSON.stringify({ ...JSON.parse(request), enableThinking });
      return guarded([t.state], () => raw.generationPrompt(target, r), t);
    };
    const generationPrompts = { default: tail(undefined) };
    for (const [key, on] of [['thinking', true], ['noThinking', false]]) {
      const other = tail(on);
      if (other !== generationPrompts.default) generationPrompts[key] = other;
    }
    return { specVersion: PARSER_SPEC_VERSION, writtenBy: guarded([], () => raw.version()), format: analysis.handler, generationPrompts, analysis };
  } finally {
    if (own !== undefined) guarded([], () => own.free());
  }
}

// Region events need the response-template machinery, which only the full package has.
for (const [name, method] of Object.entries({
  /** `push`, plus transformers-style region events: `{ deltas, events }`. */
  pushEvents(chunk) {
    const s = stateOf(parsers, this, 'StreamParser', 'pushEvents');
    needString(chunk, 'chunk');
    if (s.finished) throw invalidState('StreamParser.pushEvents: the parser is finished (push after finish() would lose the text)');
    let text = s.pending === '' ? chunk : s.pending + chunk;
    s.pending = '';
    if (text.length > 0 && isHigh(text.charCodeAt(text.length - 1))) {
      s.pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text === '') return { deltas: [], events: [] };
    s.text.add(text);
    return guarded([s], () => s.raw.pushEvents(text));
  },

  /** `finish`, plus the last region events (the open region closes). */
  finishEvents() {
    const s = stateOf(parsers, this, 'StreamParser', 'finishEvents');
    if (s.finished) throw invalidState('StreamParser.finishEvents: the parser is already finished');
    const tail = s.pending;
    s.pending = '';
    if (tail !== '') s.text.add(tail);
    const before = tail === '' ? { deltas: [], events: [] } : guarded([s], () => s.raw.pushEvents(tail));
    s.finished = true;
    try {
      const rest = guarded([s], () => s.raw.finishEvents(), s);
      return { deltas: before.deltas.concat(rest.deltas), events: before.events.concat(rest.events) };
    } catch (e) {
      if (e.kind === 'Parse') s.cut = true;
      if (before.deltas.length > 0 && Array.isArray(e.deltas)) e.deltas = before.deltas.concat(e.deltas);
      throw e;
    }
  }

})) {
  Object.defineProperty(StreamParser.prototype, name, { value: method, writable: true, configurable: true });
}

const API = {
  ChatTemplate, compileParser, StreamParser, ChatAutoparserError, renderTemplate, analyzeTemplate, generationPrompt, parseOutput,
  buildGrammar, checkGrammar, verifyTemplate, responseTemplate, parseResponse, version, init, initSync,
};
