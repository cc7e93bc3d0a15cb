// The one place that turns an offset the wasm API reports into a JS string index (UTF-16 code units).
// The JS facade reports UTF-16 indices into the string passed (diagnostics, err.offset, checkGrammar's
// errorAt; issue #15); 'utf8' stays available for byte offsets from elsewhere (the Rust CLI's JSON).
export const API_OFFSET_UNIT = 'utf16';

/** API offset into `text` → index into the JS string, clamped to [0, text.length]. */
export function apiOffsetToIndex(text, offset, unit = API_OFFSET_UNIT) {
  const n = Math.max(0, Number(offset) || 0);
  if (unit === 'utf16') return Math.min(n, text.length);
  let bytes = 0;
  let i = 0;
  for (const ch of text) {
    if (bytes >= n) return i;
    const cp = ch.codePointAt(0);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += ch.length;
  }
  return text.length;
}

/** 1-based line and column (in code points) of a JS string index, for messages. */
export function lineColumn(text, index) {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  const col = Array.from(before.slice(before.lastIndexOf('\n') + 1)).length + 1;
  return { line, column: col };
}
