// pe.attention through the public API: logits, scores and outputs against naive float64
// attention, with causal masks and query offsets, biases, grouped-query heads and RoPE; the
// documented behaviour of fully masked rows; every error path.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, ropeRow, throwsPosEnc } from './helpers.mjs';
import { dot, maxError, rowsOf, softmax } from './relative-helpers.mjs';

const pe = await createPosEnc();

/** Naive attention: logits, scores, outputs (flat arrays), with everything optional. */
function naive({ q, k, v, heads, kvHeads, qLen, kLen, d, dv, scale, causal = false, offset = 0, bias, biasHeads = heads }) {
  const logits = [];
  const scores = [];
  const outputs = [];
  for (let h = 0; h < heads; h++) {
    const kvh = Math.floor(h / (heads / kvHeads));
    const qs = rowsOf(q, h, qLen, d);
    const ks = rowsOf(k, kvh, kLen, d);
    for (let i = 0; i < qLen; i++) {
      const row = ks.map((kj, j) => {
        if (causal && j > offset + i) return -Infinity;
        return dot(qs[i], kj) * scale + (bias ? bias[((biasHeads === 1 ? 0 : h) * qLen + i) * kLen + j] : 0);
      });
      const p = softmax(row);
      logits.push(...row);
      scores.push(...p);
      if (v) {
        const vs = rowsOf(v, kvh, kLen, dv);
        for (let c = 0; c < dv; c++) outputs.push(p.reduce((s, pj, j) => s + pj * vs[j][c], 0));
      }
    }
  }
  return { logits, scores, outputs };
}

test('logits, scores and output equal naive attention (2-D, multi-head, GQA, causal with offset)', () => {
  const cases = [
    { heads: 1, kvHeads: 1, qLen: 5, kLen: 5, d: 8, dv: 8, causal: false, offset: 0, rank: 2 },
    { heads: 4, kvHeads: 4, qLen: 6, kLen: 6, d: 16, dv: 16, causal: true, offset: 0, rank: 3 },
    { heads: 8, kvHeads: 2, qLen: 3, kLen: 10, d: 8, dv: 5, causal: true, offset: 7, rank: 3 },
  ];
  for (const c of cases) {
    const q = randomFloats(c.heads * c.qLen * c.d, 1, -2, 2);
    const k = randomFloats(c.kvHeads * c.kLen * c.d, 2, -2, 2);
    const v = randomFloats(c.kvHeads * c.kLen * c.dv, 3, -2, 2);
    const dimsOf = (h, len, w) => (c.rank === 2 ? [len, w] : [h, len, w]);
    const opts = { dims: dimsOf(c.heads, c.qLen, c.d), kDims: dimsOf(c.kvHeads, c.kLen, c.d), causal: c.causal, queryOffset: c.offset };
    const want = naive({ ...c, q, k, v, scale: 1 / Math.sqrt(c.d) });
    const logits = pe.attention.logits(q, k, opts);
    const scores = pe.attention.scores(q, k, opts);
    const out = pe.attention.output(q, k, v, { ...opts, vDims: dimsOf(c.kvHeads, c.kLen, c.dv) });
    assert.deepEqual(logits.dims, dimsOf(c.heads, c.qLen, c.kLen));
    assert.deepEqual(out.dims, dimsOf(c.heads, c.qLen, c.dv));
    assert.ok(maxError(logits.data, want.logits) < 4e-6, 'logits');
    assert.ok(maxError(scores.data, want.scores) < 1e-7, 'scores');
    assert.ok(maxError(out.data, want.outputs) < 1e-6, 'output');
  }
});

test('additive bias [heads, qLen, kLen], [1, heads, qLen, kLen] or shared [qLen, kLen]; explicit scale', () => {
  const heads = 3, qLen = 4, kLen = 5, d = 4;
  const q = { data: randomFloats(heads * qLen * d, 4), dims: [heads, qLen, d] };
  const k = { data: randomFloats(heads * kLen * d, 5), dims: [heads, kLen, d] };
  const perHead = randomFloats(heads * qLen * kLen, 6, -3, 3);
  const shared = randomFloats(qLen * kLen, 7, -3, 3);
  const base = { q: q.data, k: k.data, heads, kvHeads: heads, qLen, kLen, d, scale: 0.7 };
  const a = pe.attention.scores(q, k, { scale: 0.7, bias: { data: perHead, dims: [heads, qLen, kLen] } });
  assert.ok(maxError(a.data, naive({ ...base, bias: perHead }).scores) < 1e-7);
  const b = pe.attention.scores(q, k, { scale: 0.7, bias: { data: perHead, dims: [1, heads, qLen, kLen] } });
  assert.deepEqual(b.data, a.data);
  const c = pe.attention.scores(q, k, { scale: 0.7, bias: perHead });
  assert.deepEqual(c.data, a.data);
  const s = pe.attention.scores(q, k, { scale: 0.7, bias: shared });
  assert.ok(maxError(s.data, naive({ ...base, bias: shared, biasHeads: 1 }).scores) < 1e-7);
  const s2 = pe.attention.scores(q, k, { scale: 0.7, bias: shared, biasDims: [1, qLen, kLen] });
  assert.deepEqual(s2.data, s.data);
});

test('rope: q rotated at queryOffset + i, k at j, before the products (options forwarded)', () => {
  const heads = 2, qLen = 3, kLen = 6, d = 8, offset = 3;
  const q = randomFloats(heads * qLen * d, 8);
  const k = randomFloats(heads * kLen * d, 9);
  for (const rope of [true, { rotaryDim: 4, base: 500, pairing: 'interleaved' }]) {
    const { rotaryDim = d, base = 10000, pairing = 'half' } = rope === true ? {} : rope;
    const rq = new Float32Array(q.length);
    const rk = new Float32Array(k.length);
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < qLen; i++) rq.set(ropeRow(q.subarray((h * qLen + i) * d, (h * qLen + i + 1) * d), rotaryDim, pairing === 'interleaved', offset + i, base), (h * qLen + i) * d);
      for (let j = 0; j < kLen; j++) rk.set(ropeRow(k.subarray((h * kLen + j) * d, (h * kLen + j + 1) * d), rotaryDim, pairing === 'interleaved', j, base), (h * kLen + j) * d);
    }
    const got = pe.attention.logits({ data: q, dims: [heads, qLen, d] }, { data: k, dims: [heads, kLen, d] }, { rope, queryOffset: offset, causal: true });
    const want = naive({ q: rq, k: rk, heads, kvHeads: heads, qLen, kLen, d, scale: 1 / Math.sqrt(d), causal: true, offset });
    assert.ok(maxError(got.data, want.logits) < 2e-6, JSON.stringify(rope));
  }
  // Relative property: the same offset shift on q and k leaves RoPE logits unchanged.
  const q1 = { data: q.subarray(0, d), dims: [1, d] };
  const k1 = { data: k.subarray(0, d), dims: [1, d] };
  const a = pe.attention.logits(q1, k1, { rope: true, queryOffset: 0 }).data[0];
  const b = pe.attention.logits(q1, k1, { rope: false }).data[0];
  assert.ok(Math.abs(a - b) < 1e-6, 'distance 0: RoPE leaves q.k unchanged');
});

test('fully masked rows: zero scores and a zero output row, never NaN', () => {
  const q = { data: randomFloats(2 * 4, 1), dims: [2, 4] };
  const k = { data: randomFloats(3 * 4, 2), dims: [3, 4] };
  const v = { data: randomFloats(3 * 2, 3), dims: [3, 2] };
  const bias = new Float32Array([-Infinity, -Infinity, -Infinity, 0, 0, -Infinity]);
  const scores = pe.attention.scores(q, k, { bias });
  assert.deepEqual(Array.from(scores.data.subarray(0, 3)), [0, 0, 0]);
  assert.ok(Math.abs(scores.data[3] + scores.data[4] - 1) < 1e-6);
  assert.equal(scores.data[5], 0);
  const out = pe.attention.output(q, k, v, { bias });
  assert.deepEqual(Array.from(out.data.subarray(0, 2)), [0, 0]);
  assert.ok(out.data.every(Number.isFinite));
  const logits = pe.attention.logits(q, k, { bias });
  assert.deepEqual(Array.from(logits.data.subarray(0, 3)), [-Infinity, -Infinity, -Infinity]);
});

test('errors: every bad argument throws PosEncError with a stable code', () => {
  const t = (dims, fill = 0) => ({ data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(fill), dims });
  const q = t([2, 3, 4]);
  const k = t([2, 5, 4]);
  const v = t([2, 5, 6]);
  const nanAt = (x, i) => ({ data: Float32Array.from(x.data, (y, j) => (j === i ? NaN : y)), dims: x.dims });
  const cases = [
    [() => pe.attention.logits(q, k, 'causal'), 'INVALID_TYPE', /attention\.logits: options must be an object/],
    [() => pe.attention.logits(q, k, { casual: true }), 'UNKNOWN_OPTION', /unknown option 'casual'/],
    [() => pe.attention.logits(t([1, 2, 3, 4]), k), 'SHAPE_MISMATCH', /q must be \[len, width\] or \[heads, len, width\]/],
    [() => pe.attention.logits(q, t([5, 4])), 'SHAPE_MISMATCH', /same rank/],
    [() => pe.attention.logits(q, t([2, 5, 3])), 'SHAPE_MISMATCH', /width of k \(headDim\) must be 4, got 3/],
    [() => pe.attention.logits(q, t([3, 5, 4])), 'SHAPE_MISMATCH', /heads \(2\) must be a multiple of kvHeads \(3\)/],
    [() => pe.attention.logits(new Float32Array(24), k), 'MISSING_OPTION', /'dims'/],
    [() => pe.attention.logits(new Float32Array(24), new Float32Array(40), { dims: [2, 3, 4] }), 'SHAPE_MISMATCH', /k has 40 elements, but dims \[2, 3, 4\] need 24/],
    [() => pe.attention.logits(q, k, { scale: Infinity }), 'INVALID_ARGUMENT', /scale must be a finite number/],
    [() => pe.attention.logits(q, k, { causal: 0 }), 'INVALID_TYPE', /causal must be true or false/],
    [() => pe.attention.logits(q, k, { queryOffset: -1 }), 'INVALID_ARGUMENT', /queryOffset must be an integer >= 0/],
    [() => pe.attention.logits(q, k, { vDims: [2, 5, 6] }), 'UNKNOWN_OPTION', /'vDims' is only for attention\.output/],
    [() => pe.attention.logits(q, k, { bias: new Float32Array(7) }), 'SHAPE_MISMATCH', /bias has 7 values; expected \[heads, qLen, kLen\] = \[2, 3, 5\]/],
    [() => pe.attention.logits(q, k, { bias: t([3, 3, 5]) }), 'SHAPE_MISMATCH', /bias dims \[3, 3, 5\] do not fit/],
    [() => pe.attention.logits(q, k, { bias: t([2, 5, 3]) }), 'SHAPE_MISMATCH', /bias dims/],
    [() => pe.attention.logits(q, k, { bias: t([2, 2, 3, 5]) }), 'SHAPE_MISMATCH', /bias dims/],
    [() => pe.attention.logits(q, k, { bias: nanAt(t([2, 3, 5]), 4) }), 'INVALID_ARGUMENT', /bias\[4\] must be a finite number or -Infinity, got NaN/],
    [() => pe.attention.logits(q, k, { bias: t([3, 5], Infinity) }), 'INVALID_ARGUMENT', /bias\[0\] must be a finite number or -Infinity, got Infinity/],
    [() => pe.attention.logits(q, k, { biasDims: [3, 5] }), 'INVALID_ARGUMENT', /biasDims given without bias/],
    [() => pe.attention.logits(q, k, { bias: [0, 1] }), 'INVALID_TYPE', /bias must be a Float32Array/],
    [() => pe.attention.logits(q, k, { rope: 'yes' }), 'INVALID_TYPE', /rope must be true\/false or an options object/],
    [() => pe.attention.logits(q, k, { rope: { rotaryDim: 3 } }), 'INVALID_ARGUMENT', /rotaryDim/],
    [() => pe.attention.logits(q, k, { rope: { rotaryDim: 8 } }), 'OUT_OF_RANGE', /rotaryDim/],
    [() => pe.attention.logits(q, k, { rope: { base: -1 } }), 'INVALID_ARGUMENT', /rope\.base must be a finite number > 0/],
    [() => pe.attention.logits(q, k, { rope: { pairing: 'neox' } }), 'INVALID_ARGUMENT', /rope\.pairing must be 'half' or 'interleaved'/],
    [() => pe.attention.logits(q, k, { rope: { theta: 1 } }), 'UNKNOWN_OPTION', /unknown option 'theta'/],
    [() => pe.attention.scores(nanAt(q, 5), k), 'INVALID_ARGUMENT', /attention\.scores: q\[5\] must be a finite number, got NaN/],
    [() => pe.attention.scores(q, nanAt(k, 2)), 'INVALID_ARGUMENT', /k\[2\] must be a finite number/],
    [() => pe.attention.output(q, k, nanAt(v, 9)), 'INVALID_ARGUMENT', /attention\.output: v\[9\] must be a finite number/],
    [() => pe.attention.output(q, k, t([1, 5, 6])), 'SHAPE_MISMATCH', /heads of v must be 2, got 1/],
    [() => pe.attention.output(q, k, t([2, 4, 6])), 'SHAPE_MISMATCH', /length of v \(kLen\) must be 5, got 4/],
    [() => pe.attention.output(q, k, t([5, 6])), 'SHAPE_MISMATCH', /same rank/],
    [() => pe.attention.output(q, k, new Float32Array(60)), 'MISSING_OPTION', /'kDims'/],
    [() => pe.attention.output(q, k, null), 'INVALID_TYPE', /v must be a Float32Array/],
  ];
  for (const [fn, code, pattern] of cases) throwsPosEnc(fn, code, pattern);
});
