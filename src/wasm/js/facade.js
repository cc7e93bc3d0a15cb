// The public JS API: a hand-written facade over the wasm-bindgen glue.
//
// scripts/bundle-js.mjs pastes this file after the glue (wrapped so that its exports are `raw.*`) and before
// an entry-specific tail, producing the Node CommonJS entry and the browser ESM entry. In scope here:
//   raw       the glue's exports (raw classes and functions; context/options cross as JSON text)
//   wasm()    the instance's exports, or undefined before `init()` in the browser
//
// Why a facade: wasm-bindgen passes whatever it is given (a number where a string is expected reads
// garbage memory, a forged `{__handle}` object reads another object), a trap leaves the wasm shadow stack
// pointer wherever it was, and an object whose method trapped stays borrowed forever. Here every argument
// and every `this` is checked before anything crosses, every error becomes a `ChatAutoparserError` with a
// `kind`, and after a trap the stack pointer is restored and only the object that trapped is retired.

/** Every error this package throws. `kind` is machine-readable; see the README for the list. */
class ChatAutoparserError extends Error {
  constructor(kind, message, details) {
    super(message);
    this.name = 'ChatAutoparserError';
    this.kind = kind;
    if (details) {
      for (const key of ['line', 'column', 'offset', 'deltas']) {
        if (details[key] !== undefined) this[key] = details[key];
      }
    }
  }
}

const invalid = (message) => new ChatAutoparserError('InvalidInput', message);
const invalidState = (message) => new ChatAutoparserError('InvalidState', message);

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'object') return 'an object';
  return `${typeof v === 'undefined' ? '' : 'a '}${typeof v}`;
}

function needString(v, name) {
  if (typeof v !== 'string') throw invalid(`${name}: expected a string, got ${describe(v)}`);
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON text for a value the user passed; whatever JSON.stringify throws (cycles, BigInt, depth) is InvalidInput. */
function toJson(v, name) {
  let text;
  try {
    text = JSON.stringify(v);
  } catch (e) {
    const why = e instanceof RangeError ? 'too deeply nested' : String(e && e.message);
    throw invalid(`${name}: cannot be converted to JSON (${why})`);
  }
  if (typeof text !== 'string') throw invalid(`${name}: cannot be converted to JSON`);
  return text;
}

// The option fields and their JS types. Unknown names are errors, as on the Rust side (which checks again).
const count = (v) => Number.isSafeInteger(v) && v >= 0;
const oneOf = (...values) => [(v) => values.includes(v), `one of ${values.map((x) => `'${x}'`).join(', ')}`];
const RENDER_OPTIONS = {
  now: [(v) => typeof v === 'number' && Number.isFinite(v), 'a finite number (Unix seconds)'],
  fuel: [count, 'a non-negative integer'],
  recursionLimit: [count, 'a non-negative integer'],
  maxOutputBytes: [count, 'a non-negative integer'],
  bosToken: [(v) => typeof v === 'string', 'a string'],
  eosToken: [(v) => typeof v === 'string', 'a string'],
};
const REQUEST_OPTIONS = {
  tools: [Array.isArray, 'an array of tools'],
  messages: [Array.isArray, 'an array of messages'],
  addGenerationPrompt: [(v) => typeof v === 'boolean', 'a boolean'],
  continueFinalMessage: oneOf('none', 'content', 'reasoning', 'auto'),
  enableThinking: [(v) => typeof v === 'boolean', 'a boolean'],
  reasoningFormat: oneOf('none', 'auto', 'deepseek', 'deepseek-legacy'),
  parallelToolCalls: [(v) => typeof v === 'boolean', 'a boolean'],
  toolChoice: [(v) => typeof v === 'string' || isPlainObject(v), "'auto', 'required', 'none' or {type: 'function', function: {name}}"],
  jsonSchema: [(v) => v === null || typeof v === 'boolean' || isPlainObject(v), 'a JSON schema object'],
  isPartial: [(v) => typeof v === 'boolean', 'a boolean'],
  extraContext: [isPlainObject, 'an object'],
};
// Render options may be null (= default); request options only where the Rust type is optional.
const NULLABLE = new Set([...Object.keys(RENDER_OPTIONS), 'jsonSchema']);

/** Check an options object against a schema; returns its JSON text, or undefined when absent. */
function optionsJson(options, schema, name = 'options') {
  if (options === undefined || options === null) return undefined;
  return userCode(name, () => checkOptions(options, schema, name));
}

/** Run validation that touches user objects (getters, proxies may throw): their errors are InvalidInput. */
function userCode(name, f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof ChatAutoparserError) throw e;
    throw invalid(`${name}: reading it threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
}

function checkOptions(options, schema, name) {
  if (!isPlainObject(options)) throw invalid(`${name}: expected an object, got ${describe(options)}`);
  const copy = {};
  for (const key of Object.keys(options)) {
    const value = options[key];
    if (!Object.prototype.hasOwnProperty.call(schema, key)) {
      throw invalid(`${name}.${key}: unknown option (expected one of ${Object.keys(schema).join(', ')})`);
    }
    if (value === undefined || (value === null && NULLABLE.has(key))) continue;
    const [ok, what] = schema[key];
    if (!ok(value)) throw invalid(`${name}.${key}: expected ${what}, got ${describe(value)}`);
    copy[key] = value;
  }
  return toJson(copy, name);
}

function contextJson(context) {
  return userCode('context', () => {
    if (!isPlainObject(context)) throw invalid(`context: expected an object, got ${describe(context)}`);
    return toJson(context, 'context');
  });
}

// Per-object state, keyed by the facade object: the raw wasm-bindgen object, and why it can no longer be
// used (freed, finished, broken by a trap). A WeakMap, not a property: `this` cannot be forged.
const templates = new WeakMap();
const parsers = new WeakMap();

function stateOf(map, self, cls, method) {
  const s = map.get(self);
  if (s === undefined) throw invalid(`${cls}.${method}: \`this\` is not a ${cls}`);
  if (s.broken) throw invalidState(`${cls}.${method}: ${s.broken}`);
  if (s.raw === null) throw invalidState(`${cls}.${method}: this ${cls} has been freed`);
  return s;
}

/** A `templateOrSource` argument: a source string as is, or the raw object behind a live ChatTemplate. */
function templateArg(v, name = 'templateOrSource') {
  if (typeof v === 'string') return { arg: v, state: undefined };
  const s = templates.get(v);
  if (s === undefined) throw invalid(`${name}: expected a template source string or a ChatTemplate, got ${describe(v)}`);
  if (s.broken) throw invalidState(`${name}: ${s.broken}`);
  if (s.raw === null) throw invalid(`${name}: this ChatTemplate has been freed`);
  return { arg: s.raw, state: s };
}

/** An error the Rust side returned (already has `kind`), as a ChatAutoparserError. */
function fromRust(e) {
  if (e instanceof ChatAutoparserError) return e;
  return new ChatAutoparserError(e.kind, e.message, e);
}

/**
 * Run one call into wasm. Errors the Rust side returns pass through (with their `kind`). Anything else
 * unwound through wasm without running its epilogues (a trap: stack exhaustion, an abort, out of memory):
 * put the shadow stack pointer back, retire the objects the call was using (their Rust state may be half
 * updated and their borrow flags stay set), drop the cached source templates, and report `Internal`.
 */
function guarded(states, f) {
  const w = wasm();
  if (w === undefined) throw invalidState('the wasm module is not loaded yet: `await init()` first');
  const sp = w.__stack_pointer;
  const saved = sp.value;
  try {
    return f();
  } catch (e) {
    if (e !== null && typeof e === 'object' && typeof e.kind === 'string') throw fromRust(e);
    sp.value = saved;
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    for (const s of states) {
      if (s === undefined || s.raw === null) continue;
      s.broken = `unusable after an internal error in an earlier call (${what})`;
      // Detach without freeing: its Rust value may be mid-update. Leaking it is the safe choice.
      s.raw.__destroy_into_raw();
      s.raw = null;
    }
    try { raw.__resetAfterTrap(); } catch { sp.value = saved; }
    throw new ChatAutoparserError('Internal', `internal error: ${what}; the objects this call used are retired, everything else keeps working`);
  }
}

/** `free()`: release the wasm memory now; a second call is a no-op. */
function freeObject(map, self, cls) {
  const s = map.get(self);
  if (s === undefined) throw invalid(`${cls}.free: \`this\` is not a ${cls}`);
  if (s.raw === null) return;
  const r = s.raw;
  s.raw = null;
  guarded([], () => r.free());
}

class ChatTemplate {
  /** Compile a template. Throws `TemplateSyntax` (with line and column). */
  constructor(source, options) {
    needString(source, 'source');
    const opts = optionsJson(options, RENDER_OPTIONS);
    const r = guarded([], () => new raw.ChatTemplate(source, opts));
    templates.set(this, { raw: r, broken: null });
  }

  render(context) {
    const s = stateOf(templates, this, 'ChatTemplate', 'render');
    const ctx = contextJson(context);
    return guarded([s], () => s.raw.render(ctx));
  }

  get caps() {
    const s = stateOf(templates, this, 'ChatTemplate', 'caps');
    return guarded([s], () => s.raw.caps);
  }

  get analysis() {
    const s = stateOf(templates, this, 'ChatTemplate', 'analysis');
    return guarded([s], () => s.raw.analysis);
  }

  get source() {
    const s = stateOf(templates, this, 'ChatTemplate', 'source');
    return guarded([s], () => s.raw.source);
  }

  /** Release the wasm memory now. Freeing twice is a no-op. */
  free() {
    freeObject(templates, this, 'ChatTemplate');
  }
}

function isHighSurrogate(code) {
  return code >= 0xd800 && code <= 0xdbff;
}

class StreamParser {
  constructor(templateOrSource, options) {
    const t = templateArg(templateOrSource);
    const opts = optionsJson(options, REQUEST_OPTIONS);
    const r = guarded([t.state], () => new raw.StreamParser(t.arg, opts));
    // `pending`: a high surrogate that ended the last chunk. UTF-8 cannot carry half a pair, so it waits
    // for the low half that starts the next chunk.
    parsers.set(this, { raw: r, broken: null, finished: false, pending: '' });
  }

  /** Consume a chunk; returns the deltas it completed. Never throws on malformed output. */
  push(chunk) {
    const s = stateOf(parsers, this, 'StreamParser', 'push');
    needString(chunk, 'chunk');
    if (s.finished) throw invalidState('StreamParser.push: the parser is finished (push after finish() would lose the text)');
    let text = s.pending === '' ? chunk : s.pending + chunk;
    s.pending = '';
    if (text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      s.pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text === '') return [];
    return guarded([s], () => s.raw.push(text));
  }

  /** End of output: the remaining deltas. An unpaired high surrogate left over becomes U+FFFD. */
  finish() {
    const s = stateOf(parsers, this, 'StreamParser', 'finish');
    if (s.finished) throw invalidState('StreamParser.finish: the parser is already finished');
    const tail = s.pending;
    s.pending = '';
    const before = tail === '' ? [] : guarded([s], () => s.raw.push(tail));
    s.finished = true;
    try {
      const rest = guarded([s], () => s.raw.finish());
      return before.length === 0 ? rest : before.concat(rest);
    } catch (e) {
      if (before.length > 0 && Array.isArray(e.deltas)) e.deltas = before.concat(e.deltas);
      throw e;
    }
  }

  get message() {
    const s = stateOf(parsers, this, 'StreamParser', 'message');
    return guarded([s], () => s.raw.message);
  }

  get diagnostics() {
    const s = stateOf(parsers, this, 'StreamParser', 'diagnostics');
    return guarded([s], () => s.raw.diagnostics);
  }

  get stopped() {
    const s = stateOf(parsers, this, 'StreamParser', 'stopped');
    return guarded([s], () => s.raw.stopped);
  }

  /** Release the wasm memory now. Freeing twice is a no-op. */
  free() {
    freeObject(parsers, this, 'StreamParser');
  }
}

function renderTemplate(source, context, options) {
  needString(source, 'source');
  const ctx = contextJson(context);
  const opts = optionsJson(options, RENDER_OPTIONS);
  return guarded([], () => raw.renderTemplate(source, ctx, opts));
}

function analyzeTemplate(source, options) {
  needString(source, 'source');
  const opts = optionsJson(options, RENDER_OPTIONS);
  return guarded([], () => raw.analyzeTemplate(source, opts));
}

function generationPrompt(templateOrSource, options) {
  const t = templateArg(templateOrSource);
  const opts = optionsJson(options, REQUEST_OPTIONS);
  return guarded([t.state], () => raw.generationPrompt(t.arg, opts));
}

function parseOutput(templateOrSource, text, options) {
  const t = templateArg(templateOrSource);
  needString(text, 'text');
  const opts = optionsJson(options, REQUEST_OPTIONS);
  return guarded([t.state], () => raw.parseOutput(t.arg, text, opts));
}

function buildGrammar(templateOrSource, options) {
  const t = templateArg(templateOrSource);
  const opts = optionsJson(options, REQUEST_OPTIONS);
  return guarded([t.state], () => raw.buildGrammar(t.arg, opts));
}

function checkGrammar(gbnf, text) {
  needString(gbnf, 'gbnf');
  needString(text, 'text');
  return guarded([], () => raw.checkGrammar(gbnf, text));
}

function verifyTemplate(templateOrSource) {
  const t = templateArg(templateOrSource);
  return guarded([t.state], () => raw.verifyTemplate(t.arg));
}

function version() {
  return guarded([], () => raw.version());
}

const API = {
  ChatTemplate, StreamParser, ChatAutoparserError, renderTemplate, analyzeTemplate, generationPrompt, parseOutput,
  buildGrammar, checkGrammar, verifyTemplate, version, init,
};
