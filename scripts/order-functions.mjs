// Order a wasm module's functions so that gzip finds more of each function in the ones just before it.
//
// gzip (deflate) copies only from the last 32 KB, and LLVM emits functions in codegen order, so the many
// near-identical bodies a Rust build has (one per generic instantiation: B-tree, hashbrown, serde visitors,
// `drop_in_place`…) usually sit too far apart to be matched. This script chains the functions greedily, each one
// followed by the not-yet-placed function whose bytes are most alike (cosine similarity of their sets of 4-byte
// shingles), and writes that order as function names; `wasm-opt --reorder-functions-by-name` then applies it
// (scripts/build.sh). The code is not changed, only where each function sits: the full module ≈ 4 % smaller
// gzipped (688,907 → 661,513 B gzip -9 when it came; BENCHMARKS.md "Session 16", with the orders measured).
//
//   node scripts/order-functions.mjs IN.wasm OUT.wasm
//
// OUT is IN with a `name` section (any other is dropped) naming function i "f<rank>". Deterministic: the same
// module gives the same order on any Node version (no randomness; Map and Set iterate in insertion order).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// A shingle in more functions than this (a common instruction sequence) says nothing about likeness and makes
// the search quadratic, so it is not indexed.
const COMMON_SHINGLE = 1000;

function readLeb(bytes, at) {
  let value = 0, shift = 0, byte;
  do { byte = bytes[at.pos++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
  return value;
}

function writeLeb(value) {
  const out = [];
  do { let byte = value & 0x7f; value = Math.floor(value / 128); if (value) byte |= 0x80; out.push(byte); } while (value);
  return Buffer.from(out);
}

// Sections as [id, payload start, payload end], in order.
function sections(bytes) {
  const at = { pos: 8 }, out = [];
  while (at.pos < bytes.length) {
    const id = bytes[at.pos++];
    const size = readLeb(bytes, at);
    out.push([id, at.pos, at.pos + size]);
    at.pos += size;
  }
  return out;
}

function customName(bytes, [, start]) {
  const at = { pos: start };
  const length = readLeb(bytes, at);
  return bytes.subarray(at.pos, at.pos + length).toString('utf8');
}

function functionBodies(bytes, [, start]) {
  const at = { pos: start }, bodies = [];
  for (let count = readLeb(bytes, at); count > 0; count--) {
    const size = readLeb(bytes, at);
    bodies.push(bytes.subarray(at.pos, at.pos + size));
    at.pos += size;
  }
  return bodies;
}

function shingles(body) {
  const set = new Set();
  for (let i = 0; i + 4 <= body.length; i++) {
    let hash = 0x811c9dc5;
    for (let k = 0; k < 4; k++) hash = Math.imul(hash ^ body[i + k], 0x01000193) >>> 0;
    set.add(hash);
  }
  return Uint32Array.from(set);
}

// The greedy chain: returns the functions (indices into `bodies`) in their new order.
export function chain(bodies) {
  const n = bodies.length;
  const sets = bodies.map(shingles);
  const postings = new Map();
  sets.forEach((set, f) => {
    for (const s of set) {
      const list = postings.get(s);
      if (list) list.push(f); else postings.set(s, [f]);
    }
  });
  const placed = new Uint8Array(n), order = [], shared = new Int32Array(n), seen = [];
  for (let current = 0; order.length < n;) {
    placed[current] = 1;
    order.push(current);
    seen.length = 0;
    for (const s of sets[current]) {
      const list = postings.get(s);
      if (list.length > COMMON_SHINGLE) continue;
      for (const f of list) if (!placed[f]) { if (shared[f]++ === 0) seen.push(f); }
    }
    let best = -1, bestScore = 0;
    for (const f of seen) {
      const score = shared[f] / Math.sqrt(sets[current].length * sets[f].length);
      shared[f] = 0;
      if (score > bestScore || (score === bestScore && Math.abs(f - current) < Math.abs(best - current))) { best = f; bestScore = score; }
    }
    // Nothing alike: the nearest function not yet placed, which keeps LLVM's own locality.
    for (let d = 1; best < 0 && d < n; d++) {
      if (current + d < n && !placed[current + d]) best = current + d;
      else if (current - d >= 0 && !placed[current - d]) best = current - d;
    }
    if (best < 0) break;
    current = best;
  }
  return order;
}

function main([input, output]) {
  if (!input || !output) throw new Error('usage: node scripts/order-functions.mjs IN.wasm OUT.wasm');
  const bytes = readFileSync(input);
  const imported = WebAssembly.Module.imports(new WebAssembly.Module(bytes)).filter((i) => i.kind === 'function').length;
  const all = sections(bytes);
  const code = all.find(([id]) => id === 10);
  const order = code ? chain(functionBodies(bytes, code)) : [];
  const names = new Array(imported + order.length);
  const width = String(names.length).length;
  // Imports come first whatever their names; the defined functions sort by rank.
  for (let i = 0; i < imported; i++) names[i] = 'i' + String(i).padStart(width, '0');
  order.forEach((f, rank) => { names[imported + f] = 'f' + String(rank).padStart(width, '0'); });
  const entries = [writeLeb(names.length)];
  names.forEach((name, i) => entries.push(writeLeb(i), writeLeb(name.length), Buffer.from(name)));
  const functionNames = Buffer.concat(entries);
  const payload = Buffer.concat([writeLeb(4), Buffer.from('name'), Buffer.from([1]), writeLeb(functionNames.length), functionNames]);
  const kept = all.filter((s) => !(s[0] === 0 && customName(bytes, s) === 'name'))
    .map(([id, start, end]) => Buffer.concat([Buffer.from([id]), writeLeb(end - start), bytes.subarray(start, end)]));
  writeFileSync(output, Buffer.concat([bytes.subarray(0, 8), ...kept, Buffer.from([0]), writeLeb(payload.length), payload]));
}

// A script when run, a module when imported (pkg-tests/order-functions.test.mjs tests `chain`).
if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
