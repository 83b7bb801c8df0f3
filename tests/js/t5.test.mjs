// pe.t5 through the public API: buckets against the float64 formula, the exact boundaries at
// distances 16/32/64, the bias gather, and every error path.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';
import { t5Bucket } from './relative-helpers.mjs';

const pe = await createPosEnc();

test('exact boundaries at distance 16, 32, 64 (bidirectional 32/128) and the last bucket', () => {
  const expected = { [-15]: 9, [-16]: 10, [-31]: 11, [-32]: 12, [-63]: 13, [-64]: 14, [-127]: 15, [-128]: 15, [-1e6]: 15,
    16: 26, 32: 28, 64: 30, 0: 0, 1: 17, [-1]: 1, [-8]: 8 };
  for (const [rel, bucket] of Object.entries(expected)) assert.equal(pe.t5.bucket(Number(rel)), bucket, `rel ${rel}`);
  // Causal: every future key shares bucket 0 with distance 0.
  for (const rel of [0, 1, 1e6]) assert.equal(pe.t5.bucket(rel, { bidirectional: false }), 0);
  assert.equal(pe.t5.bucket(-32, { bidirectional: false }), 21);
  assert.equal(pe.t5.bucket(-200, { bidirectional: false }), 31);
});

test('buckets equal the float64 formula for the configurations of docs/encodings.md, |rel| <= 2000', () => {
  for (const [numBuckets, maxDistance] of [[32, 128], [16, 64], [64, 128], [64, 256], [128, 128], [320, 800]]) {
    for (const bidirectional of [true, false]) {
      const opts = { numBuckets, maxDistance, bidirectional };
      // The matrix with qLen 1, queryOffset 2000 and kLen 4001 covers rel = -2000..2000.
      const { data, dims } = pe.t5.buckets({ qLen: 1, kLen: 4001, queryOffset: 2000, ...opts });
      assert.deepEqual(dims, [1, 4001]);
      for (let j = 0; j < 4001; j++) assert.equal(data[j], t5Bucket(j - 2000, opts), `${numBuckets}/${maxDistance} ${bidirectional} rel ${j - 2000}`);
      for (const rel of [-2000, -77, 0, 5, 999]) assert.equal(pe.t5.bucket(rel, opts), t5Bucket(rel, opts));
    }
  }
});

test('bucket matrix: key minus query, rows shifted by queryOffset', () => {
  const { data, dims } = pe.t5.buckets({ qLen: 5, kLen: 300, queryOffset: 7, bidirectional: false });
  assert.deepEqual(dims, [5, 300]);
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 300; j++) assert.equal(data[i * 300 + j], t5Bucket(j - (7 + i), { bidirectional: false }));
  }
  assert.ok(data instanceof Int32Array);
});

test('bias [heads, qLen, kLen] gathers table[bucket, head]; tensor-like, bare and tableDims tables agree', () => {
  const heads = 12;
  const table = randomFloats(32 * heads, 3);
  const opts = { qLen: 6, kLen: 140, queryOffset: 134 };
  const bias = pe.t5.bias({ data: table, dims: [32, heads] }, opts);
  assert.deepEqual(bias.dims, [heads, 6, 140]);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < 6; i++) {
      for (let j = 0; j < 140; j++) {
        assert.equal(bias.data[(h * 6 + i) * 140 + j], table[t5Bucket(j - (134 + i)) * heads + h]);
      }
    }
  }
  assert.deepEqual(pe.t5.bias(table, opts).data, bias.data);
  assert.deepEqual(pe.t5.bias(table, { ...opts, tableDims: [32, heads], numHeads: heads }).data, bias.data);
  const causal = pe.t5.bias({ data: table.subarray(0, 16 * 2), dims: [16, 2] }, { qLen: 3, kLen: 3, numBuckets: 16, maxDistance: 64, bidirectional: false });
  assert.equal(causal.data[0 * 3 + 2], table[0 * 2 + 0], 'future key -> bucket 0');
  assert.equal(causal.data[9 + 2 * 3 + 0], table[t5Bucket(-2, { bidirectional: false, numBuckets: 16, maxDistance: 64 }) * 2 + 1]);
});

test('the bias feeds pe.attention as an additive bias', () => {
  const table = randomFloats(32 * 2, 4);
  const q = { data: randomFloats(2 * 3 * 4, 5), dims: [2, 3, 4] };
  const k = { data: randomFloats(2 * 3 * 4, 6), dims: [2, 3, 4] };
  const bias = pe.t5.bias({ data: table, dims: [32, 2] }, { qLen: 3, kLen: 3 });
  const plain = pe.attention.logits(q, k);
  const biased = pe.attention.logits(q, k, { bias });
  for (let x = 0; x < plain.data.length; x++) assert.ok(Math.abs(biased.data[x] - plain.data[x] - bias.data[x]) < 1e-6);
});

test('errors: every bad argument throws PosEncError with a stable code', () => {
  const table = new Float32Array(64);
  const cases = [
    [() => pe.t5.bucket('3'), 'INVALID_TYPE', /t5\.bucket: relativePosition must be a number/],
    [() => pe.t5.bucket(0.5), 'INVALID_ARGUMENT', /relativePosition must be an integer/],
    [() => pe.t5.bucket(NaN), 'INVALID_ARGUMENT', /relativePosition/],
    [() => pe.t5.bucket(Infinity), 'INVALID_ARGUMENT', /relativePosition/],
    [() => pe.t5.bucket(0, 5), 'INVALID_TYPE', /options must be an object/],
    [() => pe.t5.bucket(0, { numbuckets: 32 }), 'UNKNOWN_OPTION', /did you mean 'numBuckets'/],
    [() => pe.t5.bucket(0, { numBuckets: 0 }), 'INVALID_ARGUMENT', /numBuckets must be an integer >= 1/],
    [() => pe.t5.bucket(0, { numBuckets: 31.5 }), 'INVALID_ARGUMENT', /numBuckets/],
    [() => pe.t5.bucket(0, { numBuckets: '32' }), 'INVALID_TYPE', /numBuckets must be a number/],
    [() => pe.t5.bucket(0, { numBuckets: 3 }), 'INVALID_ARGUMENT', /numBuckets must be an integer >= 4 when bidirectional/],
    [() => pe.t5.bucket(0, { numBuckets: 1, bidirectional: false }), 'INVALID_ARGUMENT', /numBuckets must be an integer >= 2 when causal/],
    [() => pe.t5.bucket(0, { maxDistance: 15 }), 'INVALID_ARGUMENT', /maxDistance must be an integer >= numBuckets\/2 \(16\)/],
    [() => pe.t5.bucket(0, { maxDistance: 16, bidirectional: false }), 'INVALID_ARGUMENT', /> the exact range numBuckets\/2 \(16\)/],
    [() => pe.t5.bucket(0, { maxDistance: NaN }), 'INVALID_ARGUMENT', /maxDistance/],
    [() => pe.t5.bucket(0, { bidirectional: 1 }), 'INVALID_TYPE', /bidirectional must be true or false/],
    [() => pe.t5.buckets({ kLen: 3 }), 'MISSING_OPTION', /option 'qLen' is required/],
    [() => pe.t5.buckets({ qLen: 3 }), 'MISSING_OPTION', /option 'kLen' is required/],
    [() => pe.t5.buckets({ qLen: 0, kLen: 3 }), 'INVALID_ARGUMENT', /t5\.buckets: qLen must be an integer >= 1, got 0/],
    [() => pe.t5.buckets({ qLen: 3, kLen: 2.5 }), 'INVALID_ARGUMENT', /kLen/],
    [() => pe.t5.buckets({ qLen: 3, kLen: 3, queryOffset: -1 }), 'INVALID_ARGUMENT', /queryOffset must be an integer >= 0/],
    [() => pe.t5.buckets({ qLen: 3, kLen: 3, queryOffset: NaN }), 'INVALID_ARGUMENT', /queryOffset/],
    [() => pe.t5.buckets({ qLen: 2 ** 31, kLen: 3 }), 'INVALID_ARGUMENT', /qLen/],
    [() => pe.t5.buckets({ qLen: 1 << 20, kLen: 1 << 20 }), 'SIZE_OVERFLOW', /more than WebAssembly memory can hold/],
    [() => pe.t5.buckets({ qLen: 3, kLen: 3, maxDistance: 4 }), 'INVALID_ARGUMENT', /t5\.buckets: maxDistance/],
    [() => pe.t5.bias([1, 2], { qLen: 1, kLen: 1 }), 'INVALID_TYPE', /table must be a Float32Array/],
    [() => pe.t5.bias(new Float32Array(33), { qLen: 1, kLen: 1 }), 'SHAPE_MISMATCH', /not a multiple of numBuckets \(32\)/],
    [() => pe.t5.bias({ data: table, dims: [16, 4] }, { qLen: 1, kLen: 1 }), 'SHAPE_MISMATCH', /table must have numBuckets \(32\) rows/],
    [() => pe.t5.bias({ data: table, dims: [32, 2, 1] }, { qLen: 1, kLen: 1 }), 'SHAPE_MISMATCH', /table must be \[numBuckets, heads\]/],
    [() => pe.t5.bias(table, { qLen: 1, kLen: 1, tableDims: [32, 3] }), 'SHAPE_MISMATCH', /table has 64 elements/],
    [() => pe.t5.bias({ data: new Float64Array(64), dims: [32, 2] }, { qLen: 1, kLen: 1 }), 'INVALID_TYPE', /table\.data must be a Float32Array/],
    [() => pe.t5.bias(table, { qLen: 1, kLen: 1, numBuckets: 64, maxDistance: 10 }), 'INVALID_ARGUMENT', /maxDistance/],
    [() => pe.t5.bias(table, { qLen: 1, kLen: 1, heads: 2 }), 'UNKNOWN_OPTION', /unknown option 'heads'/],
    [() => pe.t5.bias(table, { qLen: 1, kLen: 1, numHeads: 4 }), 'SHAPE_MISMATCH', /table has 2 columns \(\[numBuckets, heads\]\) but numHeads is 4/],
    [() => pe.t5.bias(table, { qLen: 1, kLen: 1, numHeads: 0 }), 'INVALID_ARGUMENT', /numHeads must be an integer >= 1/],
    [() => pe.t5.bias(table, { qLen: 16384, kLen: 16384 }), 'SIZE_OVERFLOW', /t5\.bias: the bias \[2, 16384, 16384\] needs 2147483648 bytes/],
  ];
  for (const [fn, code, pattern] of cases) throwsPosEnc(fn, code, pattern);
  assert.equal(pe.t5.bucket(-20), 10, 'the module still works after errors');
});
