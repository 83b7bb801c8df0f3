// pe.shaw through the public API: clipped indices (key minus query), gathers, and logits/attention
// against the paper's eqs. 3-5 evaluated naively in float64; every error path.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';
import { dot, maxError, rowsOf, shawIndex, softmax } from './relative-helpers.mjs';

const pe = await createPosEnc();

test('relative indices: clip(j - (queryOffset + i), -k, k) + k', () => {
  const m = pe.shaw.relativeIndices({ qLen: 4, kLen: 4, maxRelativePosition: 2 });
  assert.deepEqual(m.dims, [4, 4]);
  assert.deepEqual(Array.from(m.data), [2, 3, 4, 4, 1, 2, 3, 4, 0, 1, 2, 3, 0, 0, 1, 2]);
  for (const [k, offset] of [[1, 0], [3, 5], [16, 100]]) {
    const { data } = pe.shaw.relativeIndices({ qLen: 6, kLen: 130, maxRelativePosition: k, queryOffset: offset });
    for (let i = 0; i < 6; i++) for (let j = 0; j < 130; j++) assert.equal(data[i * 130 + j], shawIndex(i, j, k, offset));
  }
});

test('gather copies table rows into [qLen, kLen, width]', () => {
  const table = randomFloats(7 * 3, 1);
  const g = pe.shaw.gather({ data: table, dims: [7, 3] }, { qLen: 2, kLen: 6, queryOffset: 3 });
  assert.deepEqual(g.dims, [2, 6, 3]);
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 6; j++) {
      const r = shawIndex(i, j, 3, 3);
      assert.deepEqual(Array.from(g.data.subarray((i * 6 + j) * 3, (i * 6 + j + 1) * 3)), Array.from(table.subarray(r * 3, r * 3 + 3)));
    }
  }
  assert.deepEqual(pe.shaw.gather(table, { qLen: 2, kLen: 6, queryOffset: 3, tableDims: [7, 3], maxRelativePosition: 3 }).data, g.data);
});

/** Naive logits and outputs of one head (the paper's equations with explicit a_ij). */
function naive({ q, k, v, ak, av, heads, kvHeads, qLen, kLen, d, dv, maxRel, offset, causal, scale }) {
  const logits = [];
  const outputs = [];
  for (let h = 0; h < heads; h++) {
    const kvh = Math.floor(h / (heads / kvHeads));
    const qs = rowsOf(q, h, qLen, d);
    const ks = rowsOf(k, kvh, kLen, d);
    const vs = v && rowsOf(v, kvh, kLen, dv);
    for (let i = 0; i < qLen; i++) {
      const row = [];
      for (let j = 0; j < kLen; j++) {
        const r = shawIndex(i, j, maxRel, offset);
        const key = ks[j].map((x, c) => x + ak[r * d + c]);
        row.push(causal && j > offset + i ? -Infinity : dot(qs[i], key) * scale);
      }
      logits.push(...row);
      if (!vs) continue;
      const p = softmax(row);
      const z = new Float64Array(dv);
      for (let j = 0; j < kLen; j++) {
        const r = shawIndex(i, j, maxRel, offset);
        for (let c = 0; c < dv; c++) z[c] += p[j] * (vs[j][c] + (av ? av[r * dv + c] : 0));
      }
      outputs.push(...z);
    }
  }
  return { logits, outputs };
}

test('logits and attention equal the naive float64 formulas (one head, multi-head, GQA, causal, offset)', () => {
  const cases = [
    { heads: 1, kvHeads: 1, qLen: 5, kLen: 5, d: 8, dv: 8, maxRel: 2, offset: 0, causal: false, rank: 2 },
    { heads: 4, kvHeads: 4, qLen: 3, kLen: 9, d: 16, dv: 4, maxRel: 3, offset: 6, causal: true, rank: 3 },
    { heads: 4, kvHeads: 2, qLen: 6, kLen: 6, d: 8, dv: 8, maxRel: 1, offset: 0, causal: true, rank: 3 },
  ];
  for (const c of cases) {
    const rows = 2 * c.maxRel + 1;
    const q = randomFloats(c.heads * c.qLen * c.d, 1);
    const k = randomFloats(c.kvHeads * c.kLen * c.d, 2);
    const v = randomFloats(c.kvHeads * c.kLen * c.dv, 3);
    const ak = randomFloats(rows * c.d, 4);
    const av = randomFloats(rows * c.dv, 5);
    const dimsOf = (h, len, w) => (c.rank === 2 ? [len, w] : [h, len, w]);
    const opts = { dims: dimsOf(c.heads, c.qLen, c.d), kDims: dimsOf(c.kvHeads, c.kLen, c.d), queryOffset: c.offset, causal: c.causal };
    const scale = 1 / Math.sqrt(c.d);
    const want = naive({ ...c, q, k, v, ak, av, scale });
    const logits = pe.shaw.logits(q, k, { data: ak, dims: [rows, c.d] }, opts);
    assert.deepEqual(logits.dims, dimsOf(c.heads, c.qLen, c.kLen));
    assert.ok(maxError(logits.data, want.logits) < 2e-6, `logits ${JSON.stringify(c)}`);
    const z = pe.shaw.attention(q, k, v, ak, av, { ...opts, vDims: dimsOf(c.kvHeads, c.kLen, c.dv) });
    assert.deepEqual(z.dims, dimsOf(c.heads, c.qLen, c.dv));
    assert.ok(maxError(z.data, want.outputs) < 2e-6, `attention ${JSON.stringify(c)}`);
    const plain = pe.shaw.attention(q, k, v, ak, null, { ...opts, vDims: dimsOf(c.kvHeads, c.kLen, c.dv) });
    assert.ok(maxError(plain.data, naive({ ...c, q, k, v, ak, av: undefined, scale }).outputs) < 2e-6);
  }
});

test('an explicit scale and maxRelativePosition', () => {
  const q = { data: randomFloats(12, 1), dims: [3, 4] };
  const ak = randomFloats(3 * 4, 2);
  const a = pe.shaw.logits(q, q, ak, { scale: 1, maxRelativePosition: 1 });
  const b = pe.shaw.logits(q, q, ak);
  assert.ok(maxError(a.data, Array.from(b.data, (x) => x * 2)) < 1e-6);
});

test('errors: every bad argument throws PosEncError with a stable code', () => {
  const q = { data: randomFloats(2 * 3 * 4, 1), dims: [2, 3, 4] };
  const ak = { data: randomFloats(5 * 4, 2), dims: [5, 4] };
  const v = { data: randomFloats(2 * 3 * 6, 3), dims: [2, 3, 6] };
  const nan = { data: Float32Array.from(q.data, (x, i) => (i === 7 ? NaN : x)), dims: [2, 3, 4] };
  const cases = [
    [() => pe.shaw.relativeIndices({ qLen: 2, kLen: 2 }), 'MISSING_OPTION', /shaw\.relativeIndices: option 'maxRelativePosition' is required/],
    [() => pe.shaw.relativeIndices({ qLen: 2, kLen: 2, maxRelativePosition: 0 }), 'INVALID_ARGUMENT', /maxRelativePosition must be an integer >= 1, got 0/],
    [() => pe.shaw.relativeIndices({ qLen: 0, kLen: 2, maxRelativePosition: 2 }), 'INVALID_ARGUMENT', /qLen/],
    [() => pe.shaw.relativeIndices({ qLen: 2, kLen: 2, maxRelativePosition: 2, queryOffset: -3 }), 'INVALID_ARGUMENT', /queryOffset/],
    [() => pe.shaw.relativeIndices({ qLen: 2, kLen: 2, maxRelativePosition: 2, maxRelative: 2 }), 'UNKNOWN_OPTION', /maxRelative/],
    [() => pe.shaw.gather(new Float32Array(15), { qLen: 2, kLen: 2 }), 'MISSING_OPTION', /option 'tableDims' is required/],
    [() => pe.shaw.gather({ data: new Float32Array(16), dims: [4, 4] }, { qLen: 2, kLen: 2 }), 'SHAPE_MISMATCH', /table must have 2k\+1 rows/],
    [() => pe.shaw.gather({ data: new Float32Array(16), dims: [2, 2, 4] }, { qLen: 2, kLen: 2 }), 'SHAPE_MISMATCH', /table must be \[2k\+1, width\]/],
    [() => pe.shaw.gather({ data: new Float32Array(20), dims: [5, 4] }, { qLen: 2, kLen: 2, maxRelativePosition: 3 }), 'SHAPE_MISMATCH', /table must have 2 \* maxRelativePosition \+ 1 = 7 rows, got 5/],
    [() => pe.shaw.logits({ data: new Float32Array(8), dims: [1, 1, 2, 4] }, q, ak), 'SHAPE_MISMATCH', /q must be \[len, width\] or \[heads, len, width\]/],
    [() => pe.shaw.logits(q, { data: new Float32Array(12), dims: [3, 4] }, ak), 'SHAPE_MISMATCH', /same rank/],
    [() => pe.shaw.logits(q, { data: new Float32Array(30), dims: [2, 3, 5] }, ak), 'SHAPE_MISMATCH', /width of k \(headDim\) must be 4, got 5/],
    [() => pe.shaw.logits(q, { data: new Float32Array(36), dims: [3, 3, 4] }, ak), 'SHAPE_MISMATCH', /heads \(2\) must be a multiple of kvHeads \(3\)/],
    [() => pe.shaw.logits(q, q, { data: new Float32Array(15), dims: [5, 3] }), 'SHAPE_MISMATCH', /relativeKeys width \(its last dim\) must be 4, got 3/],
    [() => pe.shaw.logits(q, q, new Float32Array(18)), 'SHAPE_MISMATCH', /relativeKeys has 18 values, not a whole number of rows of width 4/],
    [() => pe.shaw.logits(q, q, [1, 2, 3]), 'INVALID_TYPE', /relativeKeys must be a Float32Array/],
    [() => pe.shaw.logits(q, q, ak, { scale: NaN }), 'INVALID_ARGUMENT', /scale must be a finite number, got NaN/],
    [() => pe.shaw.logits(q, q, ak, { causal: 'true' }), 'INVALID_TYPE', /causal must be true or false/],
    [() => pe.shaw.logits(q, q, ak, { vDims: [2, 3, 4] }), 'UNKNOWN_OPTION', /'vDims' is only for shaw\.attention/],
    [() => pe.shaw.logits(nan, q, ak), 'INVALID_ARGUMENT', /shaw\.logits: q\[7\] must be a finite number, got NaN/],
    [() => pe.shaw.logits(new Float32Array(24), q, ak), 'MISSING_OPTION', /option 'dims' is required/],
    [() => pe.shaw.attention(q, q, { data: v.data.subarray(0, 6 * 6), dims: [1, 6, 6] }, ak, null), 'SHAPE_MISMATCH', /heads of v must be 2, got 1/],
    [() => pe.shaw.attention(q, q, { data: v.data.subarray(0, 2 * 2 * 6), dims: [2, 2, 6] }, ak, null), 'SHAPE_MISMATCH', /length of v \(kLen\) must be 3, got 2/],
    [() => pe.shaw.attention(q, q, v, ak, { data: new Float32Array(18), dims: [3, 6] }), 'SHAPE_MISMATCH', /rows of relativeValues .* must be 5, got 3/],
    [() => pe.shaw.attention(q, q, v, ak, { data: new Float32Array(20), dims: [5, 4] }), 'SHAPE_MISMATCH', /relativeValues width \(its last dim\) must be 6, got 4/],
    [() => pe.shaw.attention(q, q, v, ak, { data: new Float32Array(30).fill(Infinity), dims: [5, 6] }), 'INVALID_ARGUMENT', /relativeValues\[0\] must be a finite number/],
  ];
  for (const [fn, code, pattern] of cases) throwsPosEnc(fn, code, pattern);
});
