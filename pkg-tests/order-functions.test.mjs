// scripts/order-functions.mjs, the build step that orders the wasm's functions for gzip (issue #28): the order is a
// permutation of the functions (none lost, none twice), alike bodies end up next to each other, and the same
// module always gives the same order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chain } from '../scripts/order-functions.mjs';

// Bodies from three families of near-identical instruction sequences, interleaved the way codegen order spreads a
// generic's instantiations, plus unrelated noise.
function bodies() {
  let seed = 28;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
  const family = (tag, variant) => Buffer.from(Array.from({ length: 120 }, (_, i) => (i % 17 === 5 ? variant : (tag * 31 + i * 7) & 0xff)));
  const out = [];
  for (let v = 0; v < 6; v++) for (let tag = 1; tag <= 3; tag++) { out.push(family(tag, v)); out.push(Buffer.from(Array.from({ length: 40 }, random))); }
  return out;
}

test('the function order is a permutation that puts alike bodies together, the same on every run', () => {
  const input = bodies();
  const order = chain(input);
  assert.deepEqual([...order].sort((a, b) => a - b), input.map((_, i) => i));
  assert.deepEqual(chain(bodies()), order);
  // Each family's six instantiations, 6 positions apart in the input, are one run in the order.
  const families = [1, 2, 3].map((tag) => [0, 1, 2, 3, 4, 5].map((v) => (v * 3 + tag - 1) * 2));
  for (const members of families) {
    const at = members.map((f) => order.indexOf(f)).sort((a, b) => a - b);
    assert.equal(at[5] - at[0], 5, `family ${members} placed at ${at}`);
  }
});
