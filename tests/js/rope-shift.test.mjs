// KV-cache context shift through the public API (pe.rope.shift, RopeCache.shift): shift(rope(k, p), d)
// against the float64 formula at p + d for every scaling whose shift is exact, both pairings,
// partial rotary, both layouts, per-token and per-batch-row moves (a span dropped from a cache, as
// llama.cpp's context shift does: llama_kv_cache seq_rm + seq_add), streaming eviction's many shifts in
// place and from the original positions, and
// every refusal and bad argument with its code.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, maxAbs, randomFloats, throwsPosEnc } from './helpers.mjs';
import { defaultFreq, llama3Freq, rotateRow, worstRelative, yarnFreq } from './rope-formulas.mjs';

const pe = await createPosEnc();

/** Worst error of k [seq, headDim] rows against the formula at `positions` (float64 frequencies w, attention factor a). */
function errorAt(k, k0, headDim, rotaryDim, interleaved, positions, w, attention = 1) {
  let worst = 0;
  positions.forEach((p, s) => {
    const row = k0.subarray(s * headDim, (s + 1) * headDim);
    const want = rotateRow(row, rotaryDim, interleaved, Array.from(w, (v) => p * v), attention);
    worst = Math.max(worst, worstRelative(k.subarray(s * headDim, (s + 1) * headDim), want, maxAbs(k0)));
  });
  return worst;
}

const SCALINGS = [
  { name: 'default', base: 10000, scaling: undefined, w: (r) => defaultFreq(r, 10000), attention: 1 },
  { name: 'linear', base: 10000, scaling: { type: 'linear', factor: 4 }, w: (r) => defaultFreq(r, 10000).map((v) => v / 4), attention: 1 },
  { name: 'ntk', base: 10000, scaling: { type: 'ntk', factor: 4 }, w: (r) => defaultFreq(r, 10000 * 4 ** (r / (r - 2))), attention: 1 },
  {
    name: 'yarn', base: 10000, scaling: { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 4096 },
    w: (r) => yarnFreq(r, 10000, { factor: 8, original: 4096 }).w, attention: 0.1 * Math.log(8) + 1,
  },
  { name: 'llama3', base: 500000, scaling: { type: 'llama3' }, w: (r) => llama3Freq(r, 500000).w, attention: 1 },
];

test('shift(rope(k, p), d) equals the formula at p + d: every exact scaling, both pairings, partial rotary', () => {
  for (const { name, base, scaling, w, attention } of SCALINGS) {
    for (const pairing of ['half', 'interleaved']) {
      for (const [headDim, rotaryDim] of [[128, 128], [80, 64]]) {
        const seq = 9;
        const k0 = randomFloats(seq * headDim, 31, -2, 2);
        const k = k0.slice();
        const spec = { base, pairing, rotaryDim, ...(scaling ? { scaling } : {}) };
        pe.rope.apply(k, null, { ...spec, dims: [seq, headDim], offset: 20000 });
        pe.rope.shift(k, { ...spec, dims: [seq, headDim], offset: 20000, delta: -12345 });
        const positions = Array.from({ length: seq }, (_, s) => 20000 - 12345 + s);
        const err = errorAt(k, k0, headDim, rotaryDim, pairing === 'interleaved', positions, w(rotaryDim), attention);
        assert.ok(err < 1e-6, `${name} ${pairing} ${rotaryDim}/${headDim}: ${err}`);
      }
    }
  }
});

test('dropping a span from a cache: per-token deltas, per-batch-row positions, both layouts', () => {
  // Two sequences of 12 cached keys, [batch, heads, seq, headDim]: row 0 drops tokens 4..6 (the 5
  // tokens after them move back by 3, as llama.cpp's seq_rm + seq_add do); row 1 (left-padded, its
  // positions start at -2) moves forward by 100.
  const [batch, heads, seq, headDim] = [2, 2, 12, 64];
  const positions = Array.from({ length: batch * seq }, (_, i) => (i < seq ? i : i - seq - 2));
  const delta = Array.from({ length: batch * seq }, (_, i) => (i < seq ? (i % seq >= 7 ? -3 : 0) : 100));
  for (const layout of ['bhsd', 'bshd']) {
    const dims = layout === 'bhsd' ? [batch, heads, seq, headDim] : [batch, seq, heads, headDim];
    const k0 = randomFloats(batch * heads * seq * headDim, 32);
    const k = k0.slice();
    pe.rope.apply(k, null, { layout, dims, positionIds: positions });
    pe.rope.shift(k, { layout, dims, positionIds: positions, delta });
    const moved = k0.slice();
    pe.rope.apply(moved, null, { layout, dims, positionIds: positions.map((p, i) => p + delta[i]) });
    assert.ok(worstRelative(k, moved, maxAbs(k0)) < 4e-7, layout);
    // The same move given as new positions
    const k2 = k0.slice();
    pe.rope.apply(k2, null, { layout, dims, positionIds: positions });
    pe.rope.shift(k2, { layout, dims, positionIds: positions, newPositionIds: positions.map((p, i) => p + delta[i]) });
    assert.deepEqual(k2, k);
  }
});

test('a shared delta list over per-batch positions, and a number over a range (newOffset)', () => {
  const [batch, seq, headDim] = [2, 3, 8];
  const k0 = randomFloats(batch * seq * 2 * headDim, 33);
  const ids = [5, 6, 7, 50, 51, 52];
  const k = k0.slice();
  pe.rope.apply(k, null, { numHeads: 2, dims: [batch, seq, 2 * headDim], positionIds: ids });
  pe.rope.shift(k, { numHeads: 2, dims: [batch, seq, 2 * headDim], positionIds: ids, delta: [1, -1, 2] });
  const want = k0.slice();
  pe.rope.apply(want, null, { numHeads: 2, dims: [batch, seq, 2 * headDim], positionIds: [6, 5, 9, 51, 50, 54] });
  assert.ok(worstRelative(k, want, 1) < 4e-7);
  const r = k0.slice();
  pe.rope.apply(r, null, { dims: [seq, headDim * 2 * batch], offset: 30 });
  pe.rope.shift(r, { dims: [seq, headDim * 2 * batch], offset: 30, newOffset: 7 });
  const r2 = k0.slice();
  pe.rope.apply(r2, null, { dims: [seq, headDim * 2 * batch], offset: 7 });
  assert.ok(worstRelative(r, r2, 1) < 4e-7);
});

// Streaming eviction (StreamingLLM-style caches, llama.cpp's context shift): many shifts by +1 or
// +k of the same keys. Each shift rotates in float64 and rounds each value once (half an ulp, at most
// 2^-24 for values below 2), and rotations keep earlier errors' size: after n shifts in place every
// value is within n * sqrt(2) * 2^-24 of one rotation at the final position. That bound is what holds:
// for the slow pairs each step moves a value by less than half an ulp, rounded the same way every
// time, so the error does grow like n (2.3e-5 after 1000 shifts of +1 at base 500000). Shifting from
// the original positions (the keys as first rotated, kept, moved by the total delta) rounds once.
const ROUNDING = 2 ** -24;

test('shifts in place, 1000 of +1, +4 or -1 (streaming eviction): within n * sqrt(2) * 2^-24, and drifting', () => {
  const [seq, headDim] = [8, 128];
  for (const pairing of ['half', 'interleaved']) {
    for (const [base, delta] of [[500000, 1], [500000, -1], [10000, 4]]) {
      const k0 = randomFloats(seq * headDim, 34);
      const k = k0.slice();
      let offset = 1_000_000;
      pe.rope.apply(k, null, { dims: [seq, headDim], pairing, base, offset });
      const steps = 1000;
      for (let n = 0; n < steps; n++) {
        pe.rope.shift(k, { dims: [seq, headDim], pairing, base, offset, delta });
        offset += delta;
      }
      const positions = Array.from({ length: seq }, (_, s) => offset + s);
      const err = errorAt(k, k0, headDim, headDim, pairing === 'interleaved', positions, defaultFreq(headDim, base));
      const bound = steps * Math.SQRT2 * ROUNDING * maxAbs(k0) * 1.5;
      assert.ok(err <= bound, `${pairing}, base ${base}, delta ${delta}: ${err} > ${bound}`);
      // more than a few roundings: the promise is the bound above, not the rounding of one shift
      if (base === 500000 && delta === 1) assert.ok(err > 20 * ROUNDING, `${pairing}: ${err} shows no drift`);
    }
  }
});

test('shifts from the original positions (keys kept as first rotated, moved by the total delta): one rounding after any number of steps', () => {
  // The pattern docs/reliability.md gives for streaming caches: keep each key as rotated at the
  // position it was written at; at every step, shift a copy of it from there to where it is now.
  const [seq, headDim] = [8, 128];
  const base = 500000;
  for (const pairing of ['half', 'interleaved']) {
    const k0 = randomFloats(seq * headDim, 36);
    const written = Array.from({ length: seq }, (_, s) => 1_000_000 + 3 * s); // positions they were rotated at
    const original = k0.slice();
    pe.rope.apply(original, null, { dims: [seq, headDim], pairing, base, positionIds: written });
    let worst = 0;
    for (let step = 1; step <= 3000; step++) {
      if (step % 100 !== 0 && step !== 1) continue; // every step is alike: a sample of them
      const now = written.map((p) => p + step); // after `step` evictions of +1
      const k = original.slice();
      pe.rope.shift(k, { dims: [seq, headDim], pairing, base, positionIds: written, newPositionIds: now });
      worst = Math.max(worst, errorAt(k, k0, headDim, headDim, pairing === 'interleaved', now, defaultFreq(headDim, base)));
    }
    // rope.apply's error (its float32 cos/sin rows, docs/encodings.md#82-precision) plus one shift's rounding,
    // at step 1 as at step 3000
    assert.ok(worst <= 4 * ROUNDING * maxAbs(k0), `${pairing}: ${worst}`);
  }
});

test('RopeCache.shift moves keys rotated by the cache, with its float64 frequencies', () => {
  const spec = { rotaryDim: 64, headDim: 96, base: 10000, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 2048 } };
  for (const pairing of ['half', 'interleaved']) {
    const cache = pe.rope.createCache({ ...spec, pairing, maxPositions: 64 });
    const k0 = randomFloats(4 * 96, 35);
    const k = k0.slice();
    cache.apply(k, null, { dims: [4, 96], offset: 60 });
    cache.shift(k, { dims: [4, 96], offset: 60, delta: 5000 }); // new positions outside the cache: fine for a shift
    const want = k0.slice();
    pe.rope.apply(want, null, { ...spec, pairing, dims: [4, 96], offset: 5060 });
    assert.ok(worstRelative(k, want, maxAbs(k0)) < 1e-6, pairing);
    throwsPosEnc(() => cache.shift(new Float32Array(4 * 80), { dims: [4, 80], delta: 1 }), 'SHAPE_MISMATCH', /built for headDim 96, k has head size 80/);
    cache.dispose();
    throwsPosEnc(() => cache.shift(k, { dims: [4, 96], delta: 1 }), 'DISPOSED');
  }
});

test('shifts that are not rotations are refused, naming why', () => {
  const k = new Float32Array(2 * 8);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [2, 8], scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 16 }, delta: 1 }),
    'INVALID_ARGUMENT', /dynamic NTK scaling cannot be shifted exactly: its base depends on the sequence length/);
  const longrope = { type: 'longrope', shortFactor: [1, 1, 1, 1], longFactor: [1, 2, 3, 4], originalMaxPositionEmbeddings: 4096, factor: 4 };
  throwsPosEnc(() => pe.rope.shift(k, { dims: [2, 8], scaling: longrope, offset: 4000, delta: 200 }),
    'INVALID_ARGUMENT', /LongRoPE uses the short factor list at length 4002 .* but the long list at length 4202/);
  // Within one list, or with the list fixed by seqLen, a LongRoPE shift is exact
  const k0 = randomFloats(2 * 8, 36);
  for (const [offset, delta, seqLen] of [[5000, 300, undefined], [4000, 200, 8192]]) {
    const a = k0.slice();
    pe.rope.apply(a, null, { dims: [2, 8], scaling: longrope, offset, seqLen: seqLen ?? offset + 2 });
    pe.rope.shift(a, { dims: [2, 8], scaling: longrope, offset, delta, seqLen });
    const b = k0.slice();
    pe.rope.apply(b, null, { dims: [2, 8], scaling: longrope, offset: offset + delta, seqLen: seqLen ?? offset + delta + 2 });
    assert.ok(worstRelative(a, b, 1) < 1e-6, `${offset} ${delta}`);
  }
});

test('bad arguments: missing or double targets, lengths, non-finite positions, unknown options', () => {
  const k = new Float32Array(3 * 8);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 8] }), 'MISSING_OPTION', /option 'delta', 'newOffset' or 'newPositionIds' is required/);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 8], delta: 1, newOffset: 4 }), 'INVALID_ARGUMENT', /give one of delta and newOffset/);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 8], delta: [1, 2] }), 'SHAPE_MISMATCH', /delta has 2 values; expected 3/);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 8], newPositionIds: [1, 2, NaN] }), 'INVALID_ARGUMENT', /new positions: positionIds\[2\] must be a finite number/);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 8], delta: Infinity }), 'INVALID_ARGUMENT', /delta/);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 8], delta: 1, kDims: [3, 8] }), 'UNKNOWN_OPTION', /kDims/);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 2, 4], delta: 1 }), 'MISSING_OPTION', /numHeads/);
  throwsPosEnc(() => pe.rope.shift(new Float32Array(8), { dims: [8], delta: 1 }), 'SHAPE_MISMATCH', /k must have 2, 3 or 4 dims/);
  throwsPosEnc(() => pe.rope.shift(k, { dims: [3, 8], rotaryDim: 10, delta: 1 }), 'OUT_OF_RANGE', /rotaryDim/);
  // The module stays usable
  const ok = randomFloats(3 * 8, 37);
  const before = ok.slice();
  pe.rope.shift(ok, { dims: [3, 8], delta: 0 });
  assert.ok(worstRelative(ok, before, 1) < 1e-7);
});
