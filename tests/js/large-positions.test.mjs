// Sines and cosines of large angles (issue 15, item 2): every finite position gives sin/cos of its
// float64 angle rounded once to float32 (docs/encodings.md#82-precision), through every family that
// evaluates them, and an angle that overflows is an OUT_OF_RANGE error, never a NaN or Infinity.
//
// The reference is Math.sin/Math.cos of the same float64 angle: V8's fdlibm port reduces any finite
// double exactly (__kernel_rem_pio2, Payne-Hanek), as glibc and musl do. With dim 2 the one frequency
// is base^0 = 1, so the angle is the position itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

// Half a float32 ulp of a value in [0.5, 1) is 2^-25; every value here is rounded once.
const ROUNDED_ONCE = 2 ** -25;
// The positions: the old kernel was 2.4e-6 off at 1e12, 0.55 at 1e16, returned 3.8e20 at
// 1e18, Infinity at 1.7e20 and NaN at 1e200.
const LARGE = [1e7, 3.3e6, 1e12, 1e16, 1e18, 1.7e20, 1e200, 1.7976931348623157e308, -1e300, -123456789012.5];

function assertNear(actual, expected, tol, what) {
  assert.ok(Number.isFinite(actual), `${what}: ${actual} is not finite`);
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected} (off by ${Math.abs(actual - expected)}, tolerance ${tol})`);
}

test('sinusoidal.table: sin/cos of any finite position, rounded once (dim 2)', () => {
  for (const p of LARGE) {
    const { data } = pe.sinusoidal.table({ dim: 2, positionIds: [p] });
    assertNear(data[0], Math.sin(p), ROUNDED_ONCE, `sin at ${p}`);
    assertNear(data[1], Math.cos(p), ROUNDED_ONCE, `cos at ${p}`);
  }
});

test('sinusoidal.table: every column at large positions is sin/cos of the float64 angle p * w_i', () => {
  const dim = 64;
  const w = pe.sinusoidal.frequencies({ dim });
  const ids = [1e12, 1e16, 1e18, 1.7e20, 1e200, 5e15 + 0.5];
  for (const layout of ['interleaved', 'half']) {
    const { data } = pe.sinusoidal.table({ dim, positionIds: ids, layout });
    ids.forEach((p, t) => {
      for (let i = 0; i < dim / 2; i++) {
        const [s, c] = layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, dim / 2 + i];
        assertNear(data[t * dim + s], Math.sin(p * w[i]), ROUNDED_ONCE, `${layout} sin p=${p} i=${i}`);
        assertNear(data[t * dim + c], Math.cos(p * w[i]), ROUNDED_ONCE, `${layout} cos p=${p} i=${i}`);
      }
    });
  }
});

test('sinusoidal tables over ranges at large offsets: exact and fast rows, tables and adds', () => {
  // Offsets whose positions offset + t are exact doubles, so the angles t + offset (w = 1) are too.
  for (const offset of [1e12, 2 ** 52 - 200, -1e15]) {
    const length = 200;  // > 64: the fast path anchors its rows, the exact one steps phasors
    const exact = pe.sinusoidal.table({ dim: 2, length, offset });
    const fast = pe.sinusoidal.table({ dim: 2, length, offset, precision: 'fast' });
    const added = pe.sinusoidal.addTo({ data: new Float32Array(2 * length), dims: [length, 2] }, { offset, precision: 'fast' });
    for (let t = 0; t < length; t++) {
      const p = offset + t;
      assertNear(exact.data[2 * t], Math.sin(p), ROUNDED_ONCE + 1e-15, `exact sin at ${p}`);
      assertNear(exact.data[2 * t + 1], Math.cos(p), ROUNDED_ONCE + 1e-15, `exact cos at ${p}`);
      // 'fast': anchor and offset rows combined in float32, at most 3.2e-7 (docs/reference.md)
      assertNear(fast.data[2 * t], Math.sin(p), 3.2e-7, `fast sin at ${p}`);
      assertNear(fast.data[2 * t + 1], Math.cos(p), 3.2e-7, `fast cos at ${p}`);
      assert.equal(added[2 * t], fast.data[2 * t], 'addTo fast adds the rows of the fast table');
    }
  }
});

test('rope.apply turns [1, 0] into [cos, sin] of the angle at any offset or position id', () => {
  for (const p of [1e12, 1e16, 1e20, 1e200, -1e300]) {
    const byOffset = { data: new Float32Array([1, 0]), dims: [1, 1, 2] };
    pe.rope.apply(byOffset, null, { numHeads: 1, offset: p });
    assertNear(byOffset.data[0], Math.cos(p), ROUNDED_ONCE, `cos at offset ${p}`);
    assertNear(byOffset.data[1], Math.sin(p), ROUNDED_ONCE, `sin at offset ${p}`);
    const byId = { data: new Float32Array([1, 0, 0, 1]), dims: [1, 2, 2] };
    pe.rope.apply(byId, null, { numHeads: 1, positionIds: [p, p], pairing: 'interleaved' });
    assertNear(byId.data[0], Math.cos(p), ROUNDED_ONCE, `cos at id ${p}`);
    assertNear(byId.data[1], Math.sin(p), ROUNDED_ONCE, `sin at id ${p}`);
    assertNear(byId.data[2], -Math.sin(p), ROUNDED_ONCE, `-sin at id ${p}`);
    assertNear(byId.data[3], Math.cos(p), ROUNDED_ONCE, `cos at id ${p}`);
  }
});

test('rope.apply at offset 1e20: the issue\'s [3.2e32, -6.9e30] is now [cos 1e20, sin 1e20]', () => {
  const q = { data: new Float32Array([1, 0]), dims: [1, 1, 2] };
  pe.rope.apply(q, null, { numHeads: 1, offset: 1e20 });
  assertNear(q.data[0], Math.cos(1e20), ROUNDED_ONCE, 'cos');
  assertNear(q.data[1], Math.sin(1e20), ROUNDED_ONCE, 'sin');
});

test('RoPE forms at large positions: multimodal, shift, pe.model rows and apply, xPos scale, rope.angles', () => {
  const p = 1e16;
  // M-RoPE with [3, seq] ids: every section at the same large id.
  const mm = { data: new Float32Array([1, 1, 1, 1, 0, 0, 0, 0]), dims: [1, 1, 1, 8] };  // half pairing: (x_i, x_i+4) = (1, 0)
  pe.rope.applyMultimodal(mm, null, { layout: 'bshd', mropeSection: [2, 1, 1], positionIds: [p, p, p], base: 10000 });
  const w = pe.rope.frequencies({ rotaryDim: 8 }).invFreq;
  for (let i = 0; i < 4; i++) {
    assertNear(mm.data[i], Math.cos(p * w[i]), ROUNDED_ONCE, `mrope cos ${i}`);
    assertNear(mm.data[i + 4], Math.sin(p * w[i]), ROUNDED_ONCE, `mrope sin ${i}`);
  }
  // A context shift by a large delta rotates by delta * w_i (cos/sin in double, rounded once).
  const k = { data: new Float32Array([1, 0]), dims: [1, 1, 1, 2] };
  pe.rope.shift(k, { layout: 'bshd', rotaryDim: 2, delta: p });
  assertNear(k.data[0], Math.cos(p), ROUNDED_ONCE, 'shift cos');
  assertNear(k.data[1], Math.sin(p), ROUNDED_ONCE, 'shift sin');
  // The cos/sin rows pe.model gives for a layer, and pe.model.apply's rotation, at the same id.
  const plan = pe.model.fromConfig({ hidden_size: 8, num_attention_heads: 4, num_hidden_layers: 1, rope_theta: 10000 });
  const cs = pe.model.cosSin(plan, 0, [p]);
  assertNear(cs.cos[0], Math.cos(p), 1e-15, 'model.cosSin cos');
  const q = { data: new Float32Array([1, 0, 1, 0, 1, 0, 1, 0]), dims: [1, 1, 4, 2] };  // 4 heads of width 2
  pe.model.apply(plan, 0, q, null, { layout: 'bshd', positionIds: [p] });
  for (let h = 0; h < 4; h++) {
    assertNear(q.data[2 * h], Math.cos(p), ROUNDED_ONCE, `model.apply cos, head ${h}`);
    assertNear(q.data[2 * h + 1], Math.sin(p), ROUNDED_ONCE, `model.apply sin, head ${h}`);
  }
  // xPos keeps its angles exact, but its scale zeta^((p - c)/scaleBase) overflows long before: an error.
  throwsPosEnc(() => pe.rope.applyXPos({ data: new Float32Array(8), dims: [1, 1, 1, 8] }, null, { layout: 'bshd', positionIds: [p] }),
    'INVALID_ARGUMENT', /xPos scale/);
  // rope.angles is the float64 product itself.
  assert.equal(pe.rope.angles({ rotaryDim: 2 }, [p]).data[0], p);
});

test('an angle that overflows a double is OUT_OF_RANGE, never NaN', () => {
  // base 0.5: w_1 = 0.5^(-2/4) = sqrt(2) > 1, so 1.7e308 * w_1 overflows.
  const huge = 1.7e308;
  throwsPosEnc(() => pe.sinusoidal.table({ dim: 4, base: 0.5, positionIds: [huge] }), 'OUT_OF_RANGE', /positionIds reach .*overflow to Infinity/);
  throwsPosEnc(() => pe.sinusoidal.addTo({ data: new Float32Array(4), dims: [1, 4] }, { base: 0.5, offset: huge }), 'OUT_OF_RANGE', /overflow/);
  throwsPosEnc(() => pe.rope.apply({ data: new Float32Array(4), dims: [1, 1, 4] }, null, { numHeads: 1, base: 0.5, positionIds: [huge] }), 'OUT_OF_RANGE', /overflow/);
  throwsPosEnc(() => pe.rope.angles({ rotaryDim: 4, base: 0.5 }, [huge]), 'OUT_OF_RANGE', /overflow/);
  throwsPosEnc(() => pe.rope.shift({ data: new Float32Array(4), dims: [1, 1, 1, 4] }, { layout: 'bshd', offset: -huge, newOffset: huge }),
    'OUT_OF_RANGE', /overflows/);
  const plan = pe.model.fromConfig({ hidden_size: 16, num_attention_heads: 4, num_hidden_layers: 1, rope_theta: 0.5 });
  throwsPosEnc(() => pe.model.cosSin(plan, 0, [huge]), 'OUT_OF_RANGE', /overflows/);
  // The module keeps working.
  assert.equal(pe.sinusoidal.table({ dim: 2, positionIds: [0] }).data[1], 1);
});

// Issue 22, item 6: a range of positions from a large offset is at the float64 angle (offset + t) w_i
// row by row, as positionIds are. (Rows stepped by angle addition from a direct row were one
// rounding of the product p w_i away: 1.1e-4 at 1e12, 0.05 at 1e15.) Every width and frequency below
// is an ordinary one (w_i != 1), so the product p w_i is rounded.
const OFFSETS = [1e6, 1e9, 1e12, 1e15];
// Half a float32 ulp, plus the 2^-30 a stepped row may still differ by below 2^22 (angle_rows.cpp).
const ONE_ROUNDING = 2 ** -25 + 2 ** -30;

function worstRows(rows, seq, pairs, w, offset, at) {
  let worst = 0;
  for (let t = 0; t < seq; t++) {
    for (let i = 0; i < pairs; i++) {
      const a = (offset + t) * w[i];
      const [c, s] = at(rows, t, i);
      worst = Math.max(worst, Math.abs(c - Math.cos(a)), Math.abs(s - Math.sin(a)));
    }
  }
  return worst;
}

test('large offsets: rope.apply, applyMultimodal and pe.model.apply are sin/cos of (offset + t) w_i', () => {
  const headDim = 64;
  const pairs = headDim / 2;
  const seq = 150; // more than the 64 rows between direct evaluations
  const w = pe.rope.frequencies({ rotaryDim: headDim, base: 10000 }).invFreq;
  const ones = () => { // (x_i, x_{i+pairs}) = (1, 0): the rotation writes (cos, sin)
    const data = new Float32Array(seq * headDim);
    for (let t = 0; t < seq; t++) data.fill(1, t * headDim, t * headDim + pairs);
    return data;
  };
  const half = (d, t, i) => [d[t * headDim + i], d[t * headDim + pairs + i]];
  const plan = pe.model.fromConfig({ hidden_size: headDim, num_attention_heads: 1, num_hidden_layers: 1, rope_theta: 10000 });
  for (const offset of OFFSETS) {
    const q = { data: ones(), dims: [1, seq, headDim] };
    pe.rope.apply(q, null, { numHeads: 1, offset });
    assert.ok(worstRows(q.data, seq, pairs, w, offset, half) <= ONE_ROUNDING, `rope.apply at offset ${offset}`);
    const mm = { data: ones(), dims: [1, seq, 1, headDim] };
    pe.rope.applyMultimodal(mm, null, { layout: 'bshd', mropeSection: [16, 8, 8], offset, base: 10000 });
    assert.ok(worstRows(mm.data, seq, pairs, w, offset, half) <= ONE_ROUNDING, `applyMultimodal at offset ${offset}`);
    const m = { data: ones(), dims: [1, seq, headDim] };
    pe.model.apply(plan, 0, m, null, { numHeads: 1, offset });
    assert.ok(worstRows(m.data, seq, pairs, w, offset, half) <= ONE_ROUNDING, `model.apply at offset ${offset}`);
  }
});

test('large offsets: sinusoidal.table and addTo (exact and fast) are sin/cos of (offset + t) w_i', () => {
  const dim = 64;
  const length = 150;
  const w = pe.sinusoidal.frequencies({ dim });
  const pair = (d, t, i) => [d[t * dim + 2 * i + 1], d[t * dim + 2 * i]];
  for (const offset of OFFSETS) {
    const exact = pe.sinusoidal.table({ dim, length, offset });
    assert.ok(worstRows(exact.data, length, dim / 2, w, offset, pair) <= ONE_ROUNDING, `table at offset ${offset}`);
    const added = pe.sinusoidal.addTo({ data: new Float32Array(length * dim), dims: [length, dim] }, { offset });
    assert.ok(worstRows(added, length, dim / 2, w, offset, pair) <= ONE_ROUNDING, `addTo at offset ${offset}`);
    // 'fast' keeps its documented 3.2e-7 at every offset (its anchors are exact, and past 2^22 its rows are)
    const fast = pe.sinusoidal.table({ dim, length, offset, precision: 'fast' });
    assert.ok(worstRows(fast.data, length, dim / 2, w, offset, pair) <= 3.2e-7, `fast table at offset ${offset}`);
    const fastAdded = pe.sinusoidal.addTo({ data: new Float32Array(length * dim), dims: [length, dim] }, { offset, precision: 'fast' });
    assert.ok(worstRows(fastAdded, length, dim / 2, w, offset, pair) <= 3.2e-7, `fast addTo at offset ${offset}`);
  }
});

test('large angles in caches: rows past 2^22 radians are the float64 angle too', () => {
  // Linear factor 1e-3 multiplies the frequencies by 1000: row 8191 of pair 0 is at 8.2e6 radians.
  const spec = { rotaryDim: 8, base: 10000, scaling: { type: 'linear', factor: 1e-3 } };
  const w = pe.rope.frequencies(spec).invFreq;
  const rows = 8192;
  const cache = pe.rope.createCache({ ...spec, maxPositions: rows });
  const q = { data: new Float32Array(rows * 8), dims: [1, rows, 8] };
  for (let t = 0; t < rows; t++) q.data.fill(1, t * 8, t * 8 + 4);
  cache.apply(q, null, { numHeads: 1 });
  cache.dispose();
  assert.ok(worstRows(q.data, rows, 4, w, 0, (d, t, i) => [d[t * 8 + i], d[t * 8 + 4 + i]]) <= ONE_ROUNDING);
});
