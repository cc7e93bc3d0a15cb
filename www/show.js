// DOM helpers shared by the panels. Everything user- or model-supplied goes in as text nodes, never HTML.

export const $ = (id) => document.getElementById(id);

/** Create an element: h('span', {class: 'x'}, 'text', child, …). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// Invisible characters get a visible stand-in (class "ws"); the real newline is kept so lines still break.
const MARKS = { ' ': '·', '\n': '↵', '\t': '⇥', '\r': '␍' };
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u00a0\u00ad\u200b-\u200f\u2028\u2029\u2060\ufeff]/;

/**
 * Text with spaces, newlines, tabs and other invisible characters made visible. Empty shows as ∅.
 * `inline` keeps it on one line (the ↵ stand-in without the line break).
 */
export function ws(text, cls, inline = false) {
  const out = h('span', { class: cls ? `vis ${cls}` : 'vis' });
  if (text === '' || text === undefined || text === null) {
    out.append(h('span', { class: 'ws empty', title: 'empty string' }, '∅'));
    return out;
  }
  let plain = '';
  const flush = () => { if (plain) { out.append(plain); plain = ''; } };
  for (const ch of String(text)) {
    const mark = MARKS[ch];
    if (mark) {
      flush();
      out.append(h('span', { class: 'ws', title: JSON.stringify(ch) }, mark));
      if (ch === '\n' && !inline) out.append('\n');
    } else if (INVISIBLE.test(ch)) {
      flush();
      out.append(h('span', { class: 'ws', title: 'invisible character' },
        `\\u${ch.codePointAt(0).toString(16).padStart(4, '0')}`));
    } else {
      plain += ch;
    }
  }
  flush();
  return out;
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

/** A message block: kind is 'note' | 'error' | 'ok'. */
export function note(text, kind = 'note') {
  return h('div', { class: kind }, text);
}

/** One line describing a wasm error: kind, message and location when known. */
export function errorText(e) {
  if (!e) return 'unknown error';
  const where = [];
  if (e.line) where.push(`line ${e.line}${e.column ? `, column ${e.column}` : ''}`);
  if (e.offset !== undefined && e.offset !== null) where.push(`offset ${e.offset}`);
  const msg = e.message || String(e);
  const loc = where.length && !/line \d/.test(msg) ? ` (${where.join(', ')})` : '';
  return `${e.kind ? `${e.kind}: ` : ''}${msg}${loc}`;
}

/** Pretty JSON for display. */
export const pretty = (v) => JSON.stringify(v, null, 2);

/** Copy text to the clipboard; falls back to a hidden textarea where the async API is unavailable. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = h('textarea', { style: 'position:fixed;left:-9999px' });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}

/** Debounce a function by `ms`; `.pending()` tells whether a call is waiting. */
export function debounce(fn, ms) {
  let t = null;
  const run = (...a) => { clearTimeout(t); t = setTimeout(() => { t = null; fn(...a); }, ms); };
  run.pending = () => t !== null;
  return run;
}
