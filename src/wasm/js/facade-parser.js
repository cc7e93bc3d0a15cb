// The parse-only package's part of the facade (`chat-autoparser/parser`; see facade.js, pasted before it):
// `parseOutput`, `StreamParser` and `generationPrompt` take a compiled parser spec (what the full package's
// `compileParser` returns, or its JSON text) where the full package takes a template.

/** A spec object's JSON text, made once per object: a spec is data to pass along, not to change. */
const specTexts = new WeakMap();

/** A `spec` argument: `{ arg }` with its JSON text (checked, and read once per distinct text, in wasm). */
function target(v) {
  if (typeof v === 'string') return { arg: v, state: undefined, source: undefined };
  if (!isPlainObject(v)) throw invalid(`spec: expected a parser spec (the object compileParser returns, or its JSON text), got ${describe(v)}`);
  let text = specTexts.get(v);
  if (text === undefined) {
    text = userCode('spec', () => toJson(v, 'spec'));
    specTexts.set(v, text);
  }
  return { arg: text, state: undefined, source: undefined };
}

/**
 * Run after the wasm is instantiated (the bundle calls it from `init`, `initSync` and the Node entry): one whole
 * parse and one streamed parse of a short reply with reasoning-shaped text and a tool call, with the spec of a
 * common template (src/wasm/js/warm-up-spec.json, pasted in by scripts/bundle-js.mjs as `WARM_UP_SPEC`).
 * V8 compiles wasm functions lazily, on their first call, one at a time on the calling thread: the first parse
 * of a fresh module spent ≈ 25 ms compiling the few hundred functions it reaches (BENCHMARKS.md "The parse-only
 * module"). Paying that while the page loads, not when the first token arrives, is the trade a chat frontend
 * wants; it is done once, and never fails a load.
 */
function afterLoad() {
  try {
    const options = { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } } } } }] };
    const reply = '<think>ok</think>Sure.\n<tool_call>\n{"name": "f", "arguments": {"a": 1, "b": "x\\u00e9"}}\n</tool_call>';
    parseOutput(WARM_UP_SPEC, reply, options);
    const p = new StreamParser(WARM_UP_SPEC, options);
    for (let i = 0; i < reply.length; i += 5) p.push(reply.slice(i, i + 5));
    p.finish();
    void p.message;
    p.free();
  } catch { /* a warm-up that fails costs only its time */ }
}

const API = { StreamParser, ChatAutoparserError, generationPrompt, parseOutput, version, init, initSync };
