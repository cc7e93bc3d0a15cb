// The playground's state in the URL fragment and in localStorage. The fragment is the JSON state,
// deflate-raw compressed (CompressionStream) and base64url encoded: `#s=…`. A fragment is never sent to
// a server, so a shared link carries the template, request and output without anything leaving the browser.
const KEY = 'chat-autoparser-playground';
export const STATE_VERSION = 1;

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

function toBase64url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** State object → fragment payload (without `#s=`). */
export async function encodeState(state) {
  const json = new TextEncoder().encode(JSON.stringify({ v: STATE_VERSION, ...state }));
  return toBase64url(await pipe(json, new CompressionStream('deflate-raw')));
}

/** Fragment payload → state object; throws on a damaged link. */
export async function decodeState(payload) {
  const bytes = await pipe(fromBase64url(payload), new DecompressionStream('deflate-raw'));
  const state = JSON.parse(new TextDecoder().decode(bytes));
  if (!state || typeof state !== 'object' || state.v !== STATE_VERSION) throw new Error('not a playground link of this version');
  return state;
}

/** The state payload in a URL fragment, or null. */
export function fragmentPayload(hash = location.hash) {
  const m = /^#s=([A-Za-z0-9_-]+)$/.exec(hash);
  return m ? m[1] : null;
}

/** Put the state in the address bar (no history entry) and in localStorage. Returns the link. */
export async function saveState(state) {
  const payload = await encodeState(state);
  const link = `${location.origin}${location.pathname}#s=${payload}`;
  history.replaceState(null, '', `#s=${payload}`);
  try { localStorage.setItem(KEY, JSON.stringify({ v: STATE_VERSION, ...state })); } catch { /* quota or disabled: the URL still has it */ }
  return link;
}

/** The state saved by the last visit, or null. */
export function storedState() {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) || 'null');
    return s && s.v === STATE_VERSION ? s : null;
  } catch {
    return null;
  }
}

export function clearStoredState() {
  try { localStorage.removeItem(KEY); } catch { /* nothing stored */ }
}
