// Does a response_template parse (transformers' dict) say what our parser's message says? The same
// comparison as scripts/response_template_crosscheck.py: content and reasoning trimmed, tool calls by
// name and arguments (JSON strings decoded), ids only when the template's transform carries them.

const REASONING_KEYS = ['reasoning_content', 'reasoning', 'thinking'];

const text = (v) => (typeof v === 'string' ? v : '').trim();
const reasoningOf = (m) => text(REASONING_KEYS.map((k) => m?.[k]).find((v) => typeof v === 'string'));

function args(a) {
  if (typeof a !== 'string') return a ?? null;
  try { return JSON.parse(a); } catch { return a; }
}

function calls(list, withIds) {
  return (Array.isArray(list) ? list : []).map((c) => {
    const fn = c && typeof c.function === 'object' && c.function ? c.function : {};
    const item = { name: fn.name ?? null, arguments: args(fn.arguments) };
    if (withIds) item.id = c?.id ?? null;
    return item;
  });
}

/** Equal as JSON values, object keys in any order. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

/** Whether the template's tool_calls transform keeps the call id (then ids are compared too). */
export function carriesIds(rt) {
  return JSON.stringify(rt?.fields?.tool_calls?.transform ?? {}).includes('{id}');
}

/** The fields where `dict` (parse_response's result) differs from `message` (ours): [{field, ours, theirs}]. */
export function compareMessages(message, dict, { withIds = false } = {}) {
  const pairs = [
    ['content', text(message?.content), text(dict?.content)],
    ['reasoning', reasoningOf(message), reasoningOf(dict)],
    ['tool_calls', calls(message?.tool_calls, withIds), calls(dict?.tool_calls, withIds)],
  ];
  return pairs.filter(([, a, b]) => !same(a, b)).map(([field, ours, theirs]) => ({ field, ours, theirs }));
}
