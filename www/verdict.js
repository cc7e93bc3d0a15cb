// The status badge: does the template's analysis actually round-trip? Verified / partly verified (which
// parts) / not verified. It prefers the analysis' own self-check (`analysis.verified`, #14) when the build
// reports one, else it derives the same from verifyTemplate's rows: a part (reasoning, content, tool
// calls) is verified when some row exercises it and every row that does gives it back unchanged.
export const PARTS = [['reasoning', 'reasoning'], ['content', 'content'], ['toolCalls', 'tool calls']];

const has = (v) => (Array.isArray(v) ? v.length > 0 : typeof v === 'string' ? v.length > 0 : false);
const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const calls = (m) => (m?.tool_calls || []).map((c) => ({ name: c.function?.name, args: normArgs(c.function?.arguments) }));
function normArgs(a) { try { return JSON.stringify(typeof a === 'string' ? JSON.parse(a) : a); } catch { return String(a); } }

/** Which parts one verify row exercises, and whether each came back. {reasoning: true|false|undefined, …} */
export function rowParts(r) {
  if (r.skipped) return {};
  const e = r.expected || {};
  const a = r.actual || {};
  const out = {};
  if (has(e.reasoning_content)) out.reasoning = (e.reasoning_content || '') === (a.reasoning_content || '');
  if (has(e.content) || (!has(e.reasoning_content) && !has(e.tool_calls))) out.content = (e.content || '') === (a.content || '');
  if (has(e.tool_calls)) out.toolCalls = same(calls(e), calls(a));
  // A failed row whose parts all look equal (e.g. an error) still fails every part it exercises.
  if (r.ok === false && Object.values(out).every(Boolean)) for (const k of Object.keys(out)) out[k] = false;
  return out;
}

/** Normalise `analysis.verified` (boolean, or per part booleans / {ok} objects) to {parts, failing}. */
function fromAnalysis(v) {
  if (typeof v === 'boolean') return { parts: Object.fromEntries(PARTS.map(([k]) => [k, v])), failing: [], source: 'analysis' };
  if (!v || typeof v !== 'object') return null;
  const parts = {};
  for (const [k] of PARTS) {
    const x = v[k] ?? v[k === 'toolCalls' ? 'tool_calls' : k];
    if (typeof x === 'boolean') parts[k] = x;
    else if (x === 'ok' || x === 'failed') parts[k] = x === 'ok'; // the shape this build reports; 'untested' is left out
    else if (x && typeof x === 'object' && typeof x.ok === 'boolean') parts[k] = x.ok;
    else if (x && typeof x === 'object' && typeof x.verified === 'boolean') parts[k] = x.verified;
  }
  return Object.keys(parts).length ? { parts, failing: [], source: 'analysis' } : null;
}

/**
 * The verdict: {level: 'verified' | 'partly' | 'not' | 'unknown', parts: {reasoning?, content?, toolCalls?},
 * failing: [row names], text, source}. `analysis` may be null, `report` is verifyTemplate's result or null.
 */
export function verdict(analysis, report) {
  let v = analysis && 'verified' in analysis ? fromAnalysis(analysis.verified) : null;
  const rows = Array.isArray(report?.results) ? report.results : [];
  const failing = rows.filter((r) => r.ok === false).map((r) => r.name);
  if (!v && rows.length) {
    const parts = {};
    for (const r of rows) for (const [k, ok] of Object.entries(rowParts(r))) parts[k] = (parts[k] ?? true) && ok;
    v = { parts, source: 'verifyTemplate' };
  }
  if (!v) return { level: 'unknown', parts: {}, failing, text: 'not checked yet', source: null };
  v.failing = failing;
  const tested = PARTS.filter(([k]) => typeof v.parts[k] === 'boolean');
  const good = tested.filter(([k]) => v.parts[k]);
  v.level = !tested.length ? 'unknown' : good.length === tested.length ? 'verified' : good.length ? 'partly' : 'not';
  const list = (xs) => xs.map(([, label]) => label).join(', ');
  const bad = tested.filter(([k]) => !v.parts[k]);
  v.text = v.level === 'verified' ? `verified: ${list(tested)}`
    : v.level === 'partly' ? `partly verified: ${list(good)} ✓ · ${list(bad)} ✗`
      : v.level === 'not' ? `not verified: ${list(bad)} ✗` : 'nothing to verify';
  return v;
}
