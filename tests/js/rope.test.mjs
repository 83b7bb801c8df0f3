// pe.rope against the float64 formula through the public JS API: pairings, layouts, partial
// rotary, GQA, offsets, per-row ids, the 1e-6 bound at position 1e6, caches, and every error path.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, maxAbs, randomFloats, ropeRow, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

/** Offset of head row (b, s, h) in a 4-D tensor of the given layout. */
function rowAt(layout, [batch, seq, heads, d], b, s, h) {
  return layout === 'bshd' ? ((b * seq + s) * heads + h) * d : ((b * heads + h) * seq + s) * d;
}

function checkAgainstFormula({ layout, pairing, batch, seq, qHeads, kHeads, headDim, rotaryDim, base, offset, positionIds }) {
  const shape = (h) => (layout === 'bshd' ? [batch, seq, h, headDim] : [batch, h, seq, headDim]);
  const q0 = randomFloats(batch * seq * qHeads * headDim, 1, -3.5, 3.5);
  const k0 = randomFloats(batch * seq * kHeads * headDim, 2, -3.5, 3.5);
  const q = { data: q0.slice(), dims: shape(qHeads) };
  const k = { data: k0.slice(), dims: shape(kHeads) };
  pe.rope.apply(q, k, { layout, pairing, rotaryDim, base, offset, positionIds });
  const position = (b, s) => (positionIds ? (positionIds.length === seq ? positionIds[s] : positionIds[b * seq + s]) : (offset ?? 0) + s);
  let worst = 0;
  for (const [x0, x, heads] of [[q0, q.data, qHeads], [k0, k.data, kHeads]]) {
    const scale = maxAbs(x0);
    for (let b = 0; b < batch; b++) {
      for (let s = 0; s < seq; s++) {
        for (let h = 0; h < heads; h++) {
          const at = rowAt(layout, [batch, seq, heads, headDim], b, s, h);
          const ref = ropeRow(x0.subarray(at, at + headDim), rotaryDim ?? headDim, pairing === 'interleaved', position(b, s), base ?? 10000);
          for (let j = 0; j < headDim; j++) worst = Math.max(worst, Math.abs(x[at + j] - ref[j]) / scale);
        }
      }
    }
  }
  return worst;
}

test('apply equals the float64 formula for both pairings, layouts, partial rotary and GQA', () => {
  for (const layout of ['bshd', 'bhsd']) {
    for (const pairing of ['half', 'interleaved']) {
      for (const [headDim, rotaryDim] of [[64, undefined], [64, 32], [10, 4], [2, 2]]) {
        const worst = checkAgainstFormula({ layout, pairing, batch: 2, seq: 70, qHeads: 4, kHeads: 2, headDim, rotaryDim, offset: 3 });
        assert.ok(worst <= 1e-6, `${layout} ${pairing} ${headDim}/${rotaryDim}: ${worst}`);
      }
    }
  }
});

test('a tensor of several MiB (long rows: the paired kernel) equals the float64 formula, with GQA and partial rotary', () => {
  for (const layout of ['bshd', 'bhsd']) {
    for (const pairing of ['half', 'interleaved']) {
      // q [1, 400, 16, 128] is 3.3 MiB, k has 4 heads; 96 of 128 dims rotate.
      const worst = checkAgainstFormula({ layout, pairing, batch: 1, seq: 400, qHeads: 16, kHeads: 4, headDim: 128, rotaryDim: 96, offset: 5 });
      assert.ok(worst <= 1e-6, `${layout} ${pairing}: ${worst}`);
    }
  }
});

test('stays within 1e-6 of float64 (relative to the input scale) at position 1,000,000', () => {
  for (const pairing of ['half', 'interleaved']) {
    const worst = checkAgainstFormula({ layout: 'bhsd', pairing, batch: 1, seq: 8, qHeads: 2, kHeads: 1, headDim: 128, base: 500000, offset: 1e6 });
    assert.ok(worst <= 1e-6, `${pairing}: ${worst}`);
  }
});

test('per-row position ids (left padding), shared ids and BigInt64Array ids', () => {
  const ids = [1, 1, 0, 1, 2, 0, 1, 2, 3, 4];
  assert.ok(checkAgainstFormula({ layout: 'bshd', pairing: 'half', batch: 2, seq: 5, qHeads: 2, kHeads: 2, headDim: 16, positionIds: ids }) <= 1e-6);
  assert.ok(checkAgainstFormula({ layout: 'bshd', pairing: 'half', batch: 2, seq: 5, qHeads: 2, kHeads: 1, headDim: 16, positionIds: [7, 8, 9, 10, 11] }) <= 1e-6);
  const a = randomFloats(2 * 3 * 8, 5);
  const b = a.slice();
  pe.rope.apply(a, null, { dims: [2, 3, 8], numHeads: 1, positionIds: new BigInt64Array([0n, 5n, 6n, 2n, 3n, 4n]) });
  pe.rope.apply(b, null, { dims: [2, 3, 8], numHeads: 1, positionIds: [0, 5, 6, 2, 3, 4] });
  assert.deepEqual(a, b);
});

test('3-D [batch, seq, hidden] with numHeads equals 4-D bshd', () => {
  const a = randomFloats(2 * 5 * 3 * 8, 9);
  const b = a.slice();
  pe.rope.apply(a, null, { dims: [2, 5, 24], numHeads: 3, offset: 11 });
  pe.rope.apply(b, null, { dims: [2, 5, 3, 8], layout: 'bshd', offset: 11 });
  assert.deepEqual(a, b);
});

test('position 0 is the identity and q.k depends only on m - n', () => {
  const q0 = randomFloats(64, 3);
  const q = q0.slice();
  pe.rope.apply(q, null, { dims: [1, 64] });
  assert.deepEqual(q, q0);
  const k0 = randomFloats(64, 4);
  const dotAt = (m, n) => {
    const a = q0.slice();
    const b = k0.slice();
    pe.rope.apply(a, null, { dims: [1, 64], offset: m });
    pe.rope.apply(b, null, { dims: [1, 64], offset: n });
    return a.reduce((acc, v, i) => acc + v * b[i], 0);
  };
  for (const delta of [0, 5, -12]) {
    const ref = dotAt(delta, 0);
    for (const n of [10, 1000, 250000]) assert.ok(Math.abs(dotAt(n + delta, n) - ref) <= 2e-5, `delta ${delta} n ${n}`);
  }
});

test('frequencies are base^(-2i/rotaryDim) in float64', () => {
  const { invFreq, attentionFactor } = pe.rope.frequencies({ rotaryDim: 8, base: 500000 });
  assert.equal(attentionFactor, 1);
  assert.equal(invFreq.length, 4);
  invFreq.forEach((w, i) => assert.ok(Math.abs(w / 500000 ** (-2 * i / 8) - 1) <= 4e-16, `pair ${i}`)); // pow may differ by an ulp
});

test('a cache gives the same rotation as apply, and its tensors are ONNX cos/sin caches', () => {
  for (const pairing of ['half', 'interleaved']) {
    const cache = pe.rope.createCache({ rotaryDim: 16, headDim: 24, maxPositions: 100, pairing });
    // cos and sin rows, [100, 8] each; interleaved caches also keep them expanded ([100, 16] each)
    assert.equal(cache.bytes, (pairing === 'half' ? 2 : 6) * 100 * 8 * 4);
    const a = randomFloats(2 * 3 * 4 * 24, 7);
    const b = a.slice();
    const opts = { dims: [2, 3, 4, 24], layout: 'bhsd', positionIds: [1, 2, 3, 4, 96, 97, 98, 99] };
    cache.apply(a, null, opts);
    pe.rope.apply(b, null, { ...opts, rotaryDim: 16, pairing });
    for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 4e-7);
    const { cos, sin } = cache.toTensors();
    assert.deepEqual(cos.dims, [100, 8]);
    assert.ok(Math.abs(cos.data[50 * 8 + 3] - Math.cos(50 * 10000 ** (-6 / 16))) <= 6e-8);
    assert.ok(Math.abs(sin.data[50 * 8 + 3] - Math.sin(50 * 10000 ** (-6 / 16))) <= 6e-8);
    throwsPosEnc(() => cache.apply(a, null, { dims: [2, 3, 4, 24], layout: 'bhsd', offset: 98 }), 'OUT_OF_RANGE', /outside the table's positions 0\.\.99/);
    throwsPosEnc(() => cache.apply(new Float32Array(32), null, { dims: [1, 32] }), 'SHAPE_MISMATCH', /headDim 24/);
    cache.dispose();
    assert.equal(cache.bytes, 0);
    throwsPosEnc(() => cache.toTensors(), 'DISPOSED', /disposed/);
  }
});

test('every bad argument throws a PosEncError naming it, and nothing is modified', () => {
  const q = randomFloats(2 * 4 * 8, 1);
  const k = randomFloats(2 * 4 * 8, 2);
  const q0 = q.slice();
  const base = { dims: [1, 2, 4, 8], layout: 'bshd' };
  const ap = (opts, kk = k) => () => pe.rope.apply(q, kk, opts);
  throwsPosEnc(ap({ ...base, rotaryDim: 7 }), 'INVALID_ARGUMENT', /rotaryDim must be an even integer from 2 to headDim \(8\), got 7/);
  throwsPosEnc(ap({ ...base, rotaryDim: 10 }), 'OUT_OF_RANGE', /rotaryDim .* got 10/);
  throwsPosEnc(ap({ ...base, rotaryDim: 0 }), 'INVALID_ARGUMENT', /rotaryDim/);
  throwsPosEnc(ap({ ...base, rotaryDim: 4.5 }), 'INVALID_ARGUMENT', /rotaryDim must be an integer/);
  throwsPosEnc(ap({ ...base, headDim: 16 }), 'SHAPE_MISMATCH', /headDim 16 disagrees/);
  throwsPosEnc(ap({ dims: [1, 2, 4, 8] }), 'MISSING_OPTION', /'layout' is required/);
  throwsPosEnc(ap({ ...base, layout: 'bsdh' }), 'INVALID_ARGUMENT', /layout must be 'bshd' or 'bhsd'/);
  throwsPosEnc(ap({ ...base, pairing: 'neox' }), 'INVALID_ARGUMENT', /pairing must be 'half' or 'interleaved'/);
  throwsPosEnc(ap({ ...base, base: 0 }), 'INVALID_ARGUMENT', /base must be a finite number > 0/);
  throwsPosEnc(ap({ ...base, base: NaN }), 'INVALID_ARGUMENT', /base/);
  throwsPosEnc(ap({ ...base, offset: NaN }), 'INVALID_ARGUMENT', /offset/);
  throwsPosEnc(ap({ ...base, offset: 1, positionIds: [1, 2] }), 'INVALID_ARGUMENT', /either offset or positionIds/);
  throwsPosEnc(ap({ ...base, positionIds: [1, 2, 3] }), 'SHAPE_MISMATCH', /positionIds has 3 values; expected 2/);
  throwsPosEnc(ap({ ...base, positionIds: [1, Infinity] }), 'INVALID_ARGUMENT', /positionIds\[1\] must be a finite number/);
  throwsPosEnc(ap({ ...base, positionIds: 'abc' }), 'INVALID_TYPE', /positionIds/);
  throwsPosEnc(ap({ ...base, dims: [1, 2, 4, 9] }), 'SHAPE_MISMATCH', /64 elements, but dims \[1, 2, 4, 9\] need 72/);
  throwsPosEnc(ap({ ...base, dims: [1, 2, 0, 8] }), 'INVALID_ARGUMENT', /dims\[2\] must be an integer >= 1, got 0/);
  throwsPosEnc(ap({ ...base, dims: [1, -2, 4, 8] }), 'INVALID_ARGUMENT', /dims\[1\]/);
  throwsPosEnc(ap({ ...base, dims: [1, 2, 4, 8], kDims: [2, 1, 4, 8] }), 'SHAPE_MISMATCH', /k dims \[2, 1, 4, 8\] do not fit/);
  throwsPosEnc(ap({ ...base, rotaryDim: 8, rotarydim: 8 }), 'UNKNOWN_OPTION', /did you mean 'rotaryDim'/);
  throwsPosEnc(ap({ dims: [1, 2, 32], numHeads: 3 }), 'SHAPE_MISMATCH', /not divisible/);
  throwsPosEnc(ap({ dims: [2, 32], numHeads: 3 }), 'SHAPE_MISMATCH', /holds one head/);
  throwsPosEnc(ap({ dims: [2, 2, 16] }), 'MISSING_OPTION', /'numHeads'/);
  throwsPosEnc(ap({ dims: [64] }), 'SHAPE_MISMATCH', /2, 3 or 4 dims/);
  const shared = new Float32Array(96);
  throwsPosEnc(() => pe.rope.apply(shared.subarray(0, 64), shared.subarray(32), base), 'INVALID_ARGUMENT', /must not overlap/);
  pe.rope.apply(shared.subarray(0, 32), shared.subarray(32, 64), { dims: [1, 1, 4, 8], layout: 'bshd' }); // adjacent is fine
  throwsPosEnc(() => pe.rope.apply(new Float64Array(64), null, base), 'INVALID_TYPE', /q must be a Float32Array/);
  throwsPosEnc(() => pe.rope.apply(q, null), 'INVALID_TYPE', /options must be an object/);
  throwsPosEnc(() => pe.rope.apply(q, null, { dims: [2 ** 16, 2 ** 15], layout: 'bshd' }), 'SIZE_OVERFLOW', /too many/);
  throwsPosEnc(() => pe.rope.frequencies({ base: 10 }), 'MISSING_OPTION', /rotaryDim/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 5 }), 'INVALID_ARGUMENT', /even/);
  throwsPosEnc(() => pe.rope.createCache({ rotaryDim: 8 }), 'MISSING_OPTION', /maxPositions/);
  assert.deepEqual(q, q0, 'q untouched by failed calls');
  pe.rope.apply(q, k, { ...base, offset: 1 }); // and the module still works
  assert.notDeepEqual(q, q0);
});
