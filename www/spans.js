// Where in the model output each delta came from. The API reports no source spans, so they are derived:
// the worker feeds the output one code point at a time and records, for every delta, the output position
// `at` (UTF-16 index) reached when the parser emitted it. A delta's text (content, reasoning, a tool
// name, id or arguments) is then looked up verbatim in the output, ending as close to `at` as possible
// and never before the end of the previous verbatim match: the parser emits text in output order and
// only after reading it. Text the parser rewrote (arguments re-serialised as JSON, lenient repairs) is
// not found verbatim; its span is the input read since the previous delta was emitted (marked inexact).

/** The field a delta writes: {key, kind, index?, text}. kind: content | reasoning | name | id | arguments. */
export function deltaParts(d) {
  const out = [];
  if (typeof d.reasoning_content === 'string') out.push({ key: 'reasoning', kind: 'reasoning', text: d.reasoning_content });
  if (typeof d.content === 'string') out.push({ key: 'content', kind: 'content', text: d.content });
  for (const tc of d.tool_calls || []) {
    const i = tc.index ?? 0;
    if (tc.id) out.push({ key: `tool${i}.id`, kind: 'id', index: i, text: tc.id });
    if (tc.function?.name) out.push({ key: `tool${i}.name`, kind: 'name', index: i, text: tc.function.name });
    if (typeof tc.function?.arguments === 'string') out.push({ key: `tool${i}.arguments`, kind: 'arguments', index: i, text: tc.function.arguments });
  }
  return out;
}

/** Add [s, e) to a sorted list of ranges, joining touching ones. */
function addRange(ranges, s, e) {
  if (e <= s) return;
  const last = ranges.at(-1);
  if (last && s <= last[1]) last[1] = Math.max(last[1], e);
  else ranges.push([s, e]);
}

/**
 * events: [{delta, at}] in emission order. Returns the deltas merged per consecutive field, each
 * {key, kind, index, text, count, ranges: [[start, end)…], exact} with UTF-16 ranges into `text`.
 */
export function deltaSpans(text, events) {
  const merged = [];
  let cursor = 0; // end of the last verbatim match
  let lastAt = 0; // output position of the previous emission
  for (const { delta, at } of events) {
    for (const part of deltaParts(delta)) {
      if (!part.text) continue;
      // Search only the window [cursor, at): a miss then costs the window, not the whole prefix.
      const inWindow = at - cursor >= part.text.length ? text.slice(cursor, at).lastIndexOf(part.text) : -1;
      const s = inWindow >= 0 ? cursor + inWindow : -1;
      let range;
      let exact = s >= 0;
      if (exact) {
        range = [s, s + part.text.length];
        cursor = range[1];
      } else if (part.kind === 'id') {
        range = [at, at]; // an id the parser generated: it has no source (an empty range adds nothing)
      } else {
        const start = Math.max(cursor, lastAt) < at ? Math.max(cursor, lastAt) : cursor;
        range = [start, Math.max(start, at)];
      }
      const prev = merged.at(-1);
      if (prev && prev.key === part.key) {
        prev.text += part.text;
        prev.count += 1;
        prev.exact &&= exact;
        addRange(prev.ranges, ...range);
        if (prev.ranges.length > 1) prev.ranges.sort((a, b) => a[0] - b[0]);
      } else {
        const m = { key: part.key, kind: part.kind, index: part.index, text: part.text, count: 1, ranges: [], exact };
        addRange(m.ranges, ...range);
        merged.push(m);
      }
    }
    lastAt = at;
  }
  return merged;
}

/**
 * Highlight regions for the output editor: reasoning / content ranges, one region per tool call (from its
 * first to its last span) with its arguments inside, and the analysis' markers found in the gaps.
 * Returns [{start, end, cls, label}] sorted by start; tool-call regions may contain argument regions.
 */
export function outputRegions(text, spans, markers = []) {
  const regions = [];
  const calls = new Map();
  for (const s of spans) {
    for (const [a, b] of s.ranges) {
      if (s.kind === 'reasoning' || s.kind === 'content') regions.push({ start: a, end: b, cls: `r-${s.kind}`, label: s.kind });
      else {
        if (s.kind === 'arguments') regions.push({ start: a, end: b, cls: 'r-args', label: `tool call ${s.index} arguments` });
        if (s.kind === 'name') regions.push({ start: a, end: b, cls: 'r-name', label: `tool call ${s.index} name` });
        const c = calls.get(s.index) || { start: a, end: b };
        c.start = Math.min(c.start, a);
        c.end = Math.max(c.end, b);
        calls.set(s.index, c);
      }
    }
  }
  for (const [i, c] of calls) regions.push({ start: c.start, end: c.end, cls: 'r-call', label: `tool call ${i}`, outer: true });
  // Markers: analysis strings that occur where no text region is.
  const covered = (a, b) => regions.some((r) => !r.outer && a < r.end && b > r.start);
  const found = [];
  for (const { value, field } of [...markers].sort((a, b) => b.value.length - a.value.length)) {
    if (!value || !value.trim()) continue;
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length)) {
      if (!covered(at, at + value.length) && !found.some((f) => at < f.end && at + value.length > f.start)) {
        found.push({ start: at, end: at + value.length, cls: 'r-marker', label: `marker ${field}` });
      }
    }
  }
  regions.push(...found);
  return regions.sort((a, b) => a.start - b.start || (b.outer ? 1 : 0) - (a.outer ? 1 : 0));
}
