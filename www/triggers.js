// Where a lazy grammar starts to apply in a model output. llama.cpp leaves the text before the first
// trigger free and constrains from the trigger on: a word (or token text) from where it occurs, a pattern
// from its first capture group (else the match start).
// llama.cpp tests patterns on the text generated so far, i.e. on every prefix of the output. So a pattern
// ending in `$` fires when some prefix ends with a match: the same as searching without the `$`. A full
// pattern fires when some prefix matches it whole: the same as searching `^(?:R)`.

/** Search form of a trigger regex over the whole output (see above). */
function searchSource(t) {
  if (t.type === 'pattern_full') return `^(?:${t.value})`;
  return /(^|[^\\])\$$/.test(t.value) ? t.value.slice(0, -1) : t.value;
}

/**
 * Find where the grammar applies: {start (JS index), trigger} for the earliest trigger, or null when no
 * trigger occurs (the grammar never activates). A non-lazy grammar applies from 0. Bad patterns are
 * returned in `errors` rather than thrown.
 */
export function grammarStart(grammar, text) {
  const errors = [];
  if (!grammar.lazy) return { start: 0, trigger: null, errors };
  // Like llama.cpp's runtime, a closed reasoning block is not searched: a tool call the model only
  // thinks about does not switch the grammar on. (The block may have been opened by the prompt.)
  let from = 0;
  const rEnd = grammar.reasoningEnd || '';
  if (rEnd) {
    const e = text.indexOf(rEnd);
    const rStart = grammar.reasoningStart || '';
    if (e >= 0 && (!rStart || !text.slice(0, e).trim() || text.lastIndexOf(rStart, e) >= 0 || !text.includes(rStart))) from = e + rEnd.length;
  }
  let best = null;
  for (const t of grammar.triggers || []) {
    let at = -1;
    if (t.type === 'word' || t.type === 'token') {
      at = t.value ? text.indexOf(t.value, from) : -1;
    } else if (t.type === 'pattern' || t.type === 'pattern_full') {
      let re;
      try { re = new RegExp(searchSource(t), 'd'); } catch (e) {
        errors.push(`trigger pattern ${JSON.stringify(t.value)} is not a JS regular expression: ${e.message}`);
        continue;
      }
      const rest = t.type === 'pattern_full' ? text : text.slice(from);
      const m = re.exec(rest);
      const base = t.type === 'pattern_full' ? 0 : from;
      if (m) at = base + (m.indices && m.indices[1] ? m.indices[1][0] : m.index);
    }
    if (at >= 0 && (!best || at < best.start)) best = { start: at, trigger: t };
  }
  return best ? { ...best, errors } : { start: -1, trigger: null, errors };
}

/** UTF-8 length of a JS string (the wasm API counts bytes). */
export const byteLength = (s) => new TextEncoder().encode(s).length;
