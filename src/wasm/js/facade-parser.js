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

const API = { StreamParser, ChatAutoparserError, generationPrompt, parseOutput, version, init, initSync };
