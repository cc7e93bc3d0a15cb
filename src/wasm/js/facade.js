// The public JS API: a hand-written facade over the wasm-bindgen glue. This file is what both modules share
// (errors, argument checks, trap recovery, offsets, StreamParser, parseOutput, generationPrompt); the full
// package adds facade-full.js, the parse-only `chat-autoparser/parser` facade-parser.js. Each of those
// defines `target(v)`: what `templateOrSource` (full) or `spec` (parser) resolves to, `{ arg, state, source }`,
// and ends with `const API = { … }`.
//
// scripts/bundle-js.mjs pastes these after the glue (wrapped so that its exports are `raw.*`) and before
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
  streamArguments: [(v) => typeof v === 'boolean', 'a boolean'],
  extraContext: [isPlainObject, 'an object'],
  reasoningField: oneOf('reasoning_content', 'reasoning', 'thinking'),
  generationPrompt: [(v) => typeof v === 'string', 'a string'],
  strict: [(v) => typeof v === 'boolean', 'a boolean'],
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
  return optionsText(copy, name);
}

// JSON text of option values kept per object, so a constant `tools` list does not cost a JSON.stringify per
// call (Node 20 takes ≈ 55 µs for 32 tools, longer than the whole rest of a parse's set-up):
// - a deep-frozen array or plain object of plain data (`Object.freeze` all the way down, data properties
//   only, no `toJSON`) cannot change: serialised once, never read again;
// - any other array or plain object of the request-constant options (SNAPSHOT_OPTIONS) is kept with a
//   snapshot of what JSON.stringify reads (keys, lengths, primitive values, in order); the next call walks
//   it against the snapshot (≈ 3× faster than serialising) and serialises again only if anything differs.
//   The walk takes only arrays and plain objects with nothing JSON.stringify would treat otherwise (a
//   `toJSON`, another prototype, an own `constructor`): anything else is serialised on every call.
const frozenJson = new WeakMap();
const snapshots = new WeakMap();
// Options that stay the same from call to call in a chat frontend (messages grow every turn: not kept).
const SNAPSHOT_OPTIONS = new Set(['tools', 'toolChoice', 'jsonSchema', 'extraContext']);

function optionsText(copy, name) {
  const plainProtos = protosArePlain();
  const parts = [];
  for (const key of Object.keys(copy)) {
    const value = copy[key];
    let json;
    if (value !== null && typeof value === 'object' && plainProtos) {
      json = Object.isFrozen(value) ? frozenText(value) : undefined;
      if (json === undefined && SNAPSHOT_OPTIONS.has(key)) json = snapshotText(value, `${name}.${key}`);
    }
    parts.push(key, json ?? toJson(value, `${name}.${key}`));
  }
  // The same parts as the last call (kept texts are the same strings: compared in constant time): the same
  // text, already flat, so the module's id for it is found without comparing kilobytes.
  if (parts.length === lastOptions.parts.length && parts.every((p, i) => p === lastOptions.parts[i])) return lastOptions.text;
  let text = '{';
  for (let i = 0; i < parts.length; i += 2) text += `${i > 0 ? ',' : ''}${JSON.stringify(parts[i])}:${parts[i + 1]}`;
  text = `${text}}`;
  lastOptions = { parts, text };
  return text;
}
let lastOptions = { parts: [], text: '{}' };

// Request options the module holds by an id of ours (src/wasm/request_options.rs): the same options text
// (kilobytes with many tools: ≈ 8 µs to encode and compare at every call) crosses into wasm once, then as
// `\u0001id`. A text is matched by value against the last few sent; an id the module no longer holds (its
// store is bounded too) is answered by sending the text again, so nothing depends on the two staying in step.
const SEND_BY_ID_FROM = 512;
const SENT_OPTIONS_MAX = 4;
const sentOptions = [];
let nextOptionsId = 1;

/** Call `f` with request options `text` (or undefined) as the module should receive them. */
function withRequestOptions(text, f) {
  if (text === undefined || text.length < SEND_BY_ID_FROM) return f(text);
  const at = sentOptions.findIndex((s) => s.text === text);
  if (at >= 0) {
    const sent = sentOptions[at];
    if (at > 0) sentOptions.unshift(...sentOptions.splice(at, 1));
    try {
      return f(sent.arg);
    } catch (e) {
      if (!(e instanceof Error && e.kind === 'InvalidInput' && e.message.includes(OPTIONS_ID_NOT_HELD))) throw e;
      sentOptions.splice(sentOptions.indexOf(sent), 1);
    }
  }
  const id = nextOptionsId++;
  sentOptions.unshift({ text, arg: `\u0001${id}` });
  if (sentOptions.length > SENT_OPTIONS_MAX) sentOptions.pop();
  return f(`\u0001${id}\u0001${text}`);
}
// The module's error for an id it does not hold (request_options.rs `UNKNOWN_ID`).
const OPTIONS_ID_NOT_HELD = 'options id not held';

/** Nothing on the shared prototypes changes what JSON.stringify writes (a `toJSON`, enumerable keys). */
function protosArePlain() {
  if (Object.prototype.toJSON !== undefined || Array.prototype.toJSON !== undefined) return false;
  for (const _ in {}) return false;
  return true;
}

/** The JSON of a frozen `value` if it is plain data all the way down, else undefined. */
function frozenText(value) {
  let json = frozenJson.get(value);
  if (json === undefined && isFrozenData(value, 0)) {
    json = JSON.stringify(value);
    frozenJson.set(value, json);
  }
  return json;
}

/** The JSON of `value`, from its snapshot when the walk finds it unchanged; else serialised anew (and its
 *  snapshot taken again). Undefined when `value` cannot be walked: the caller serialises it. */
function snapshotText(value, name) {
  const kept = snapshots.get(value);
  if (kept !== undefined && sameAsSnapshot(value, kept.tokens, 0, 0) === kept.tokens.length) return kept.json;
  const tokens = [];
  if (!takeSnapshot(value, tokens, 0)) {
    snapshots.delete(value);
    return undefined;
  }
  const json = toJson(value, name);
  snapshots.set(value, { tokens, json });
  return json;
}

// A snapshot is a flat list: an array is ARRAY then its length then its items; a plain object is OBJECT,
// its key count, then each key and its value; anything else is itself (compared with ===).
const ARRAY = Array.prototype;
const OBJECT = Object.prototype;
const MAX_DEPTH = 64;

function takeSnapshot(v, out, depth) {
  if (v === null || typeof v !== 'object') {
    out.push(v);
    return true;
  }
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== ARRAY || v.constructor !== Array) return false;
    const n = v.length;
    out.push(ARRAY, n);
    for (let i = 0; i < n; i++) if (!takeSnapshot(v[i], out, depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== OBJECT || v.constructor !== Object) return false;
  const at = out.length;
  out.push(OBJECT, 0);
  let n = 0;
  for (const k in v) {
    if (k === 'toJSON') return false;
    n++;
    out.push(k);
    if (!takeSnapshot(v[k], out, depth + 1)) return false;
  }
  out[at + 1] = n;
  return true;
}

/** Index after `v`'s part of snapshot `t` from `i` if `v` matches it, else -1. `constructor` stands for the
 *  prototype check (an object with another prototype or its own `constructor` key does not match). */
function sameAsSnapshot(v, t, i, depth) {
  if (v === null || typeof v !== 'object') return t[i] === v ? i + 1 : -1;
  if (depth > MAX_DEPTH) return -1;
  if (Array.isArray(v)) {
    const n = v.length;
    if (t[i] !== ARRAY || v.constructor !== Array || t[i + 1] !== n) return -1;
    i += 2;
    for (let j = 0; j < n && i >= 0; j++) i = sameAsSnapshot(v[j], t, i, depth + 1);
    return i;
  }
  if (t[i] !== OBJECT || v.constructor !== Object) return -1;
  const count = t[i + 1];
  let n = 0;
  i += 2;
  for (const k in v) {
    if (++n > count || t[i] !== k) return -1;
    i = sameAsSnapshot(v[k], t, i + 1, depth + 1);
    if (i < 0) return -1;
  }
  return n === count ? i : -1;
}

function isFrozenData(v, depth) {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return true;
  if (typeof v !== 'object' || depth > 64 || !Object.isFrozen(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (Array.isArray(v) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) return false;
  for (const key of Reflect.ownKeys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, key);
    // Symbol keys are not serialised, but an accessor anywhere could change what is.
    if (!('value' in d) || (typeof key !== 'symbol' && !isFrozenData(d.value, depth + 1))) return false;
  }
  return true;
}

// Per-object state, keyed by the facade object: the raw wasm-bindgen object, and why it can no longer be
// used (freed, finished, broken by a trap). A WeakMap, not a property: `this` cannot be forged.
const parsers = new WeakMap();

function stateOf(map, self, cls, method) {
  const s = map.get(self);
  if (s === undefined) throw invalid(`${cls}.${method}: \`this\` is not a ${cls}`);
  if (s.broken) throw invalidState(`${cls}.${method}: ${s.broken}`);
  if (s.raw === null) throw invalidState(`${cls}.${method}: this ${cls} has been freed`);
  return s;
}

/** An error the Rust side returned (already has `kind`), as a ChatAutoparserError with JS offsets:
 * `where.source` (the template) converts `column`, `where.toUtf16` (the parsed text) converts `offset`. */
function fromRust(e, where) {
  if (e instanceof ChatAutoparserError) return e;
  const err = new ChatAutoparserError(e.kind, e.message, e);
  if (where && where.source !== undefined && typeof err.line === 'number' && typeof err.column === 'number') {
    err.column = utf16Column(where.source, err.line, err.column);
  }
  if (where && where.toUtf16 !== undefined && typeof err.offset === 'number') err.offset = where.toUtf16(err.offset);
  return err;
}

/**
 * Run one call into wasm. Errors the Rust side returns pass through (with their `kind`). Anything else
 * unwound through wasm without running its epilogues (a trap: stack exhaustion, an abort, out of memory):
 * put the shadow stack pointer back, retire the objects the call was using (their Rust state may be half
 * updated and their borrow flags stay set), drop the cached source templates, and report `Internal`.
 * `where` says which JS strings the error's positions refer to (see `fromRust`).
 */
function guarded(states, f, where) {
  const saved = enterWasm();
  try {
    return f();
  } catch (e) {
    throw afterThrow(e, states, where, saved);
  } finally {
    callDepth--;
  }
}

// Calls into wasm in progress (a JS import the module calls may itself call in). Outside any call the shadow
// stack pointer sits where the idle module keeps it: read once, since the global's getter costs more than a
// short push.
let callDepth = 0;
let idleModule;
let idleStackPointer = 0;

/** Before a call into wasm: the shadow stack pointer to put back if it traps. */
function enterWasm() {
  const w = wasm();
  if (w === undefined) throw invalidState('the wasm module is not loaded yet: `await init()` first');
  let saved;
  if (callDepth > 0) saved = w.__stack_pointer.value;
  else {
    if (idleModule !== w) { idleModule = w; idleStackPointer = w.__stack_pointer.value; }
    saved = idleStackPointer;
  }
  callDepth++;
  return saved;
}

/** What a call into wasm threw, as the error to throw (see `guarded`). */
function afterThrow(e, states, where, saved) {
  if (e !== null && typeof e === 'object' && typeof e.kind === 'string') return fromRust(e, where);
  const sp = wasm().__stack_pointer;
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
  return new ChatAutoparserError('Internal', `internal error: ${what}; the objects this call used are retired, everything else keeps working`);
}

/** The module's memory as bytes. Growing the memory detaches the old buffer (its views then have length 0);
 * checking that is far cheaper than reading `memory.buffer` on every push. */
let memoryBytes = null;
let memoryModule;
function wasmBytes() {
  if (memoryBytes === null || memoryBytes.byteLength === 0 || memoryModule !== idleModule) {
    memoryModule = idleModule;
    memoryBytes = new Uint8Array(memoryModule.memory.buffer);
  }
  return memoryBytes;
}

/** Writes `s` (at most 64 UTF-16 units) at `at` as UTF-8, as TextEncoder would (an unpaired surrogate
 * becomes U+FFFD); returns the byte count. For short chunks a loop beats TextEncoder's fixed cost. */
function writeUtf8(s, bytes, at) {
  let n = at;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) { bytes[n++] = c; continue; }
    if (c < 0x800) { bytes[n++] = 0xc0 | (c >> 6); bytes[n++] = 0x80 | (c & 63); continue; }
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = s.charCodeAt(i + 1);
      if (c <= 0xdbff && isLow(d)) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        bytes[n++] = 0xf0 | (cp >> 18); bytes[n++] = 0x80 | ((cp >> 12) & 63); bytes[n++] = 0x80 | ((cp >> 6) & 63); bytes[n++] = 0x80 | (cp & 63);
        i++;
        continue;
      }
      c = 0xfffd;
    }
    bytes[n++] = 0xe0 | (c >> 12); bytes[n++] = 0x80 | ((c >> 6) & 63); bytes[n++] = 0x80 | (c & 63);
  }
  return n - at;
}

// --- Offsets: the core reports UTF-8 byte offsets and code-point columns; JS code indexes UTF-16 units.

const isHigh = (c) => c >= 0xd800 && c <= 0xdbff;
/** No unpaired surrogate (where the runtime cannot tell: treated as not, which takes the general path). */
const wellFormed = typeof ''.isWellFormed === 'function' ? (s) => s.isWellFormed() : () => false;
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff;

/** Bytes of `s` in UTF-8 as TextEncoder writes it (an unpaired surrogate becomes U+FFFD: 3 bytes). */
function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (isHigh(c) && isLow(s.charCodeAt(i + 1))) { n += 4; i++; } else n += 3;
  }
  return n;
}

/** The UTF-16 index in `s` of UTF-8 byte `byte` (of the character holding it, if it falls inside one). */
function utf16Index(s, byte) {
  let b = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const pair = isHigh(c) && isLow(s.charCodeAt(i + 1));
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (b + n > byte) break;
    b += n;
    i += pair ? 2 : 1;
  }
  return i;
}

/** A 1-based column counted in code points (the core's) → counted in UTF-16 units, on line `line` of `source`. */
function utf16Column(source, line, column) {
  let start = 0;
  for (let l = 1; l < line; l++) {
    const nl = source.indexOf('\n', start);
    if (nl < 0) return column;
    start = nl + 1;
  }
  let i = start;
  for (let k = 1; k < column && i < source.length; k++) i += isHigh(source.charCodeAt(i)) && isLow(source.charCodeAt(i + 1)) ? 2 : 1;
  return i - start + 1;
}

/** Where the text a StreamParser was given has characters outside ASCII: each such chunk with its UTF-8 and
 * UTF-16 starts. Between them the text is ASCII, where a byte offset is a UTF-16 offset, so an ASCII stream
 * keeps nothing and a byte offset maps back in O(log n + one chunk) without re-reading the stream. */
class StreamText {
  constructor() {
    this.spans = [];   // { s, u8, u16, n8 }: a chunk with non-ASCII characters, where it starts, its UTF-8 length
    this.u8 = 0;
    this.u16 = 0;
  }

  /** `bytes`: the chunk's UTF-8 length when the caller knows it. */
  add(s, bytes = utf8Length(s)) {
    if (bytes !== s.length) this.spans.push({ s, u8: this.u8, u16: this.u16, n8: bytes });
    this.u8 += bytes;
    this.u16 += s.length;
  }

  toUtf16(byte) {
    let lo = 0;
    let hi = this.spans.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.spans[mid].u8 <= byte) { at = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (at < 0) return byte;
    const p = this.spans[at];
    if (byte < p.u8 + p.n8) return p.u16 + utf16Index(p.s, byte - p.u8);
    return p.u16 + p.s.length + (byte - p.u8 - p.n8);
  }
}

/** How a finished parse ended: `'length'` inside a tool call, else `'tool_calls'` when the message has calls,
 * else `'stop'` (the reasons OpenAI's API gives). A partial parse (`isPartial`) has not ended: `null`. */
function endReason(message, cut, partial) {
  if (partial) return null;
  if (cut) return 'length';
  return message.tool_calls && message.tool_calls.length > 0 ? 'tool_calls' : 'stop';
}

const withUtf16Offsets = (diagnostics, toUtf16) =>
  diagnostics.map((d) => (d.lastOffset === undefined ? { ...d, offset: toUtf16(d.offset) } : { ...d, offset: toUtf16(d.offset), lastOffset: toUtf16(d.lastOffset) }));

/** `free()`: release the wasm memory now; a second call is a no-op. */
function freeObject(map, self, cls) {
  const s = map.get(self);
  if (s === undefined) throw invalid(`${cls}.free: \`this\` is not a ${cls}`);
  if (s.raw === null) return;
  const r = s.raw;
  s.raw = null;
  guarded([], () => r.free());
}

const isPartial = (options) => isPlainObject(options) && userCode('options', () => options.isPartial === true);
/** A finished StreamParser's reason, from its state and message. */
const finishReasonOf = (s, message) => endReason(message, s.cut || guarded([s], () => s.raw.finishReason) === 'length', s.partial);

class StreamParser {
  // The state, also in `parsers`: `push` reads it from here (a private field is cheaper than a WeakMap
  // lookup on every chunk, ≈ 3 % of a stream of 4-character chunks).
  #s;

  constructor(templateOrSource, options) {
    const t = target(templateOrSource);
    const opts = optionsJson(options, REQUEST_OPTIONS);
    const r = guarded([t.state], () => withRequestOptions(opts, (o) => new raw.StreamParser(t.arg, o)), t);
    // `pending`: a high surrogate that ended the last chunk. UTF-8 cannot carry half a pair, so it waits
    // for the low half that starts the next chunk. `text`: what went in, to report offsets in UTF-16.
    const text = new StreamText();
    // `cut`: a strict finish() threw because the output ended inside a tool call (finishReason 'length').
    const input = guarded([], () => r.inputPtr());
    this.#s = { raw: r, broken: null, finished: false, cut: false, partial: isPartial(options), pending: '', text, toUtf16: (b) => text.toUtf16(b), input };
    parsers.set(this, this.#s);
  }

  /** Consume a chunk; returns the deltas it completed. Never throws on malformed output. */
  push(chunk) {
    const s = typeof this === 'object' && this !== null && #s in this ? this.#s : undefined;
    // Anything but a live parser: `stateOf` throws the error it always did.
    if (s === undefined || s.broken || s.raw === null) stateOf(parsers, this, 'StreamParser', 'push');
    needString(chunk, 'chunk');
    if (s.finished) throw invalidState('StreamParser.push: the parser is finished (push after finish() would lose the text)');
    let text = s.pending === '' ? chunk : s.pending + chunk;
    s.pending = '';
    if (text.length > 0 && isHigh(text.charCodeAt(text.length - 1))) {
      s.pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text === '') return [];
    // Most chunks come back whole as one delta: built here from `text`, not decoded from wasm memory. Only a
    // well-formed chunk is its own UTF-8 round trip (an unpaired surrogate reached the parser as U+FFFD).
    // A short chunk is written straight into the parser's input buffer (see `JsStreamParser::input`).
    // `guarded` spelled out: this runs once per chunk, and its closure and array cost ≈ 6 % of a stream of
    // 4-character chunks. An all-ASCII chunk is well-formed without asking.
    let code;
    let ascii = false;
    const saved = enterWasm();
    try {
      if (text.length > 64) {
        s.text.add(text);
        code = s.raw.pushCode(text);
      } else {
        const bytes = writeUtf8(text, wasmBytes(), s.input);
        ascii = bytes === text.length;
        s.text.add(text, bytes);
        code = s.raw.pushCodeInput(bytes);
      }
    } catch (e) {
      throw afterThrow(e, [s], undefined, saved);
    } finally {
      callDepth--;
    }
    if (code === 0) return [];
    if (code === 1 && (ascii || wellFormed(text))) return [{ content: text }];
    if (code === 2 && (ascii || wellFormed(text))) return [{ reasoning_content: text }];
    return guarded([s], () => s.raw.takeDeltas());
  }

  /** End of output: the remaining deltas. An unpaired high surrogate left over becomes U+FFFD. */
  finish() {
    const s = stateOf(parsers, this, 'StreamParser', 'finish');
    if (s.finished) throw invalidState('StreamParser.finish: the parser is already finished');
    const tail = s.pending;
    s.pending = '';
    if (tail !== '') s.text.add(tail);
    const before = tail === '' ? [] : guarded([s], () => s.raw.push(tail));
    s.finished = true;
    try {
      const rest = guarded([s], () => s.raw.finish(), s);
      return before.length === 0 ? rest : before.concat(rest);
    } catch (e) {
      if (e.kind === 'Parse') s.cut = true;
      if (before.length > 0 && Array.isArray(e.deltas)) e.deltas = before.concat(e.deltas);
      throw e;
    }
  }

  /** The message parsed so far; after `finish()` it also has `finishReason` (unless `isPartial`). */
  get message() {
    const s = stateOf(parsers, this, 'StreamParser', 'message');
    const message = guarded([s], () => s.raw.message);
    if (s.finished) {
      const reason = finishReasonOf(s, message);
      if (reason !== null) message.finishReason = reason;
    }
    return message;
  }

  get diagnostics() {
    const s = stateOf(parsers, this, 'StreamParser', 'diagnostics');
    return withUtf16Offsets(guarded([s], () => s.raw.diagnostics), s.toUtf16);
  }

  /** After `finish()`: `'length'` when the output ended inside a tool call, else `'tool_calls'` when the
   * message has calls, else `'stop'`. `null` before `finish()` and for a partial parse (`isPartial`). */
  get finishReason() {
    const s = stateOf(parsers, this, 'StreamParser', 'finishReason');
    if (!s.finished) return null;
    return finishReasonOf(s, guarded([s], () => s.raw.message));
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

function generationPrompt(templateOrSource, options) {
  const t = target(templateOrSource);
  const opts = optionsJson(options, REQUEST_OPTIONS);
  return guarded([t.state], () => withRequestOptions(opts, (o) => raw.generationPrompt(t.arg, o)), t);
}

/**
 * Parse a whole output. With `{ diagnostics: true }` (a JS-side option) the result is
 * `{ message, diagnostics }`, the diagnostics a StreamParser given the same text would report.
 */
function parseOutput(templateOrSource, text, options) {
  const t = target(templateOrSource);
  needString(text, 'text');
  let withDiagnostics = false;
  let rest = options;
  if (isPlainObject(options) && userCode('options', () => Object.prototype.hasOwnProperty.call(options, 'diagnostics'))) {
    ({ diagnostics: withDiagnostics, ...rest } = userCode('options', () => ({ ...options })));
    if (typeof withDiagnostics !== 'boolean' && withDiagnostics !== undefined) {
      throw invalid(`options.diagnostics: expected a boolean, got ${describe(withDiagnostics)}`);
    }
  }
  const opts = optionsJson(rest, REQUEST_OPTIONS);
  const where = { source: t.source, toUtf16: (b) => utf16Index(text, b) };
  const partial = isPartial(rest);
  const withReason = (message) => {
    const reason = endReason(message, message.finishReason === 'length', partial);
    if (reason === null) delete message.finishReason; else message.finishReason = reason;
    return message;
  };
  if (!withDiagnostics) return withReason(guarded([t.state], () => withRequestOptions(opts, (o) => raw.parseOutput(t.arg, text, o)), where));
  // The core's parseOutput is exactly a StreamParser given the whole text, then finished.
  return guarded([t.state], () => {
    const p = withRequestOptions(opts, (o) => new raw.StreamParser(t.arg, o));
    p.push(text);
    try {
      p.finish();
    } catch (e) {
      if (e !== null && typeof e === 'object' && typeof e.kind === 'string') p.free();   // not after a trap
      throw e;
    }
    const message = p.message;
    if (p.finishReason) message.finishReason = p.finishReason;
    withReason(message);
    const result = { message, diagnostics: withUtf16Offsets(p.diagnostics, where.toUtf16) };
    p.free();
    return result;
  }, where);
}

function version() {
  return guarded([], () => raw.version());
}

