// pe.alibi through the public API: slope lists (8, 12, 20 heads and the general rule), the three
// bias forms with queryOffset and masking, BLOOM key positions from an attention mask, errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';
import { alibiSlopes, maxError } from './relative-helpers.mjs';

const pe = await createPosEnc();

test('slopes: the lists of docs/encodings.md for 8, 12 and 20 heads', () => {
  assert.deepEqual(Array.from(pe.alibi.slopes({ numHeads: 8 })), [1, 2, 3, 4, 5, 6, 7, 8].map((h) => 2 ** -h));
  const s12 = pe.alibi.slopes({ numHeads: 12 });
  const want12 = [...[1, 2, 3, 4, 5, 6, 7, 8].map((h) => 2 ** -h), 2 ** -0.5, 2 ** -1.5, 2 ** -2.5, 2 ** -3.5];
  assert.ok(maxError(s12, want12) < 2e-16);  // exp2 vs **: within an ulp
  const s20 = pe.alibi.slopes({ numHeads: 20 });
  const want20 = [...Array.from({ length: 16 }, (_, k) => 2 ** (-0.5 * (k + 1))), 2 ** -0.25, 2 ** -0.75, 2 ** -1.25, 2 ** -1.75];
  assert.ok(maxError(s20, want20) < 2e-16);
  assert.ok(s20 instanceof Float64Array);
});

test('slopes follow the documented rule for 1..64 heads and any maxBias', () => {
  for (const maxBias of [8, 16, 2.5]) {
    for (let n = 1; n <= 64; n++) {
      assert.ok(maxError(pe.alibi.slopes({ numHeads: n, maxBias }), alibiSlopes(n, maxBias)) < 1e-15, `heads ${n} maxBias ${maxBias}`);
    }
  }
});

/** The expected bias value of each form (undefined form = causal). */
function expected(form, m, qi, j, keyPos, maskFuture) {
  if (maskFuture && j > qi) return -Infinity;
  if (form === 'symmetric') return -m * Math.abs(qi - j);
  if (form === 'bloom') return m * keyPos;
  return -m * (qi - j);
}

test('bias forms: causal -m(i-j), symmetric -m|i-j|, bloom m*j, with queryOffset and maskFuture', () => {
  for (const form of ['causal', 'symmetric', 'bloom']) {
    for (const maskFuture of [true, false]) {
      for (const queryOffset of [0, 9]) {
        const numHeads = 12;
        const { data, dims } = pe.alibi.bias({ numHeads, qLen: 5, kLen: 16, queryOffset, form, maskFuture });
        assert.deepEqual(dims, [numHeads, 5, 16]);
        const m = alibiSlopes(numHeads);
        const want = new Float64Array(data.length);
        for (let h = 0; h < numHeads; h++) {
          for (let i = 0; i < 5; i++) {
            for (let j = 0; j < 16; j++) want[(h * 5 + i) * 16 + j] = Math.fround(expected(form, m[h], queryOffset + i, j, j, maskFuture));
          }
        }
        assert.equal(maxError(data, want), 0, `${form} maskFuture ${maskFuture} offset ${queryOffset}`);
      }
    }
  }
});

test('defaults: causal form masks the future with -Infinity; symmetric and bloom do not', () => {
  // One head: slope 2^-8.
  const m = 2 ** -8;
  const causal = pe.alibi.bias({ numHeads: 1, qLen: 2, kLen: 2 });
  assert.deepEqual(Array.from(causal.data), [0, -Infinity, -m, 0]);
  const sym = pe.alibi.bias({ numHeads: 1, qLen: 2, kLen: 2, form: 'symmetric' });
  assert.deepEqual(Array.from(sym.data), [0, -m, -m, 0]);
  assert.ok(Object.is(sym.data[0], 0), 'no negative zero on the diagonal');
  const bloom = pe.alibi.bias({ numHeads: 1, qLen: 2, kLen: 2, form: 'bloom' });
  assert.deepEqual(Array.from(bloom.data), [0, m, 0, m]);
});

test('bloom key positions come from the attention mask: (cumsum(mask) - 1) * mask', () => {
  const mask = [[0, 0, 1, 1, 1], [1, 1, 1, 1, 0]];
  const keyPos = [[0, 0, 0, 1, 2], [0, 1, 2, 3, 0]];
  const m = alibiSlopes(4);
  for (const input of [mask.flat(), new Int32Array(mask.flat()), { data: new BigInt64Array(mask.flat().map(BigInt)), dims: [2, 5] }]) {
    const { data, dims } = pe.alibi.bias({ numHeads: 4, qLen: 3, kLen: 5, form: 'bloom', attentionMask: input });
    assert.deepEqual(dims, [2, 4, 3, 5]);
    for (let b = 0; b < 2; b++) {
      for (let h = 0; h < 4; h++) {
        for (let i = 0; i < 3; i++) {
          for (let j = 0; j < 5; j++) assert.equal(data[((b * 4 + h) * 3 + i) * 5 + j], Math.fround(m[h] * keyPos[b][j]));
        }
      }
    }
  }
  // A one-row mask gives [heads, qLen, kLen]; booleans work too.
  const one = pe.alibi.bias({ numHeads: 2, qLen: 1, kLen: 3, form: 'bloom', attentionMask: [false, true, true] });
  assert.deepEqual(one.dims, [2, 1, 3]);
  assert.deepEqual(Array.from(one.data), [0, 0, 2 ** -4, 0, 0, 2 ** -8]); // key positions [0, 0, 1]
});

test('causal and bloom forms give the same attention scores; the causal bias doubles as the mask', () => {
  const q = { data: randomFloats(4 * 6 * 8, 1), dims: [4, 6, 8] };
  const k = { data: randomFloats(4 * 6 * 8, 2), dims: [4, 6, 8] };
  const paper = pe.attention.scores(q, k, { bias: pe.alibi.bias({ numHeads: 4, qLen: 6, kLen: 6 }) });
  const bloom = pe.attention.scores(q, k, { causal: true, bias: pe.alibi.bias({ numHeads: 4, qLen: 6, kLen: 6, form: 'bloom' }) });
  const unmasked = pe.attention.scores(q, k, { causal: true, bias: pe.alibi.bias({ numHeads: 4, qLen: 6, kLen: 6, maskFuture: false }) });
  assert.ok(maxError(paper.data, bloom.data) < 1e-6);
  assert.ok(maxError(paper.data, unmasked.data) < 1e-6);
});

test('large biases (1024 x 1024, 16 heads) are rows of one vector per head', () => {
  const { data, dims } = pe.alibi.bias({ numHeads: 16, qLen: 1024, kLen: 1024, maskFuture: false });
  assert.deepEqual(dims, [16, 1024, 1024]);
  const m = alibiSlopes(16);
  for (const [h, i, j] of [[0, 0, 0], [3, 1023, 0], [15, 500, 777], [7, 1023, 1023], [1, 2, 1000]]) {
    assert.equal(data[(h * 1024 + i) * 1024 + j], Math.fround(-m[h] * (i - j)) + 0);  // + 0: no -0 on the diagonal
  }
});

test('errors: every bad argument throws PosEncError with a stable code', () => {
  const cases = [
    [() => pe.alibi.slopes({}), 'MISSING_OPTION', /alibi\.slopes: option 'numHeads' is required/],
    [() => pe.alibi.slopes(8), 'INVALID_TYPE', /options must be an object/],
    [() => pe.alibi.slopes({ numHeads: 0 }), 'INVALID_ARGUMENT', /numHeads must be an integer >= 1, got 0/],
    [() => pe.alibi.slopes({ numHeads: 2.5 }), 'INVALID_ARGUMENT', /numHeads/],
    [() => pe.alibi.slopes({ numHeads: 8, maxBias: NaN }), 'INVALID_ARGUMENT', /maxBias must be a finite number > 0, got NaN/],
    [() => pe.alibi.slopes({ numHeads: 8, maxBias: 0 }), 'INVALID_ARGUMENT', /maxBias/],
    [() => pe.alibi.slopes({ numHeads: 8, maxBias: '8' }), 'INVALID_TYPE', /maxBias must be a number/],
    [() => pe.alibi.slopes({ numHeads: 8, heads: 8 }), 'UNKNOWN_OPTION', /unknown option 'heads'/],
    [() => pe.alibi.bias({ numHeads: 8, kLen: 4 }), 'MISSING_OPTION', /'qLen'/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 4, kLen: -4 }), 'INVALID_ARGUMENT', /kLen/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 4, kLen: 4, queryOffset: 0.5 }), 'INVALID_ARGUMENT', /queryOffset/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 4, kLen: 4, form: 'paper' }), 'INVALID_ARGUMENT', /form must be 'causal' or 'symmetric' or 'bloom'/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 4, kLen: 4, form: 1 }), 'INVALID_TYPE', /form/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 4, kLen: 4, maskFuture: 'yes' }), 'INVALID_TYPE', /maskFuture must be true or false/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, attentionMask: [1, 1] }), 'INVALID_ARGUMENT', /attentionMask is only used by form 'bloom'/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, form: 'bloom', attentionMask: [1, 2] }), 'INVALID_ARGUMENT', /attentionMask\[1\] must be 0 or 1, got 2/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, form: 'bloom', attentionMask: [1, 0.5] }), 'INVALID_ARGUMENT', /attentionMask\[1\]/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, form: 'bloom', attentionMask: [1, 1, 1] }), 'SHAPE_MISMATCH', /attentionMask has 3 values; expected kLen \(2\)/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, form: 'bloom', attentionMask: [] }), 'SHAPE_MISMATCH', /attentionMask has 0 values/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, form: 'bloom', attentionMask: { data: [1, 1, 1, 1], dims: [1, 4] } }), 'SHAPE_MISMATCH', /attentionMask dims \[1, 4\]/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, form: 'bloom', attentionMask: { data: [1, 1], dims: [0] } }), 'INVALID_ARGUMENT', /attentionMask\.dims\[0\]/],
    [() => pe.alibi.bias({ numHeads: 8, qLen: 1, kLen: 2, form: 'bloom', attentionMask: '11' }), 'INVALID_TYPE', /attentionMask must be an array or a typed array/],
    [() => pe.alibi.bias({ numHeads: 16, qLen: 8192, kLen: 8192 }), 'SIZE_OVERFLOW', /alibi\.bias: the bias \[16, 8192, 8192\] needs/],
    [() => pe.alibi.bias({ numHeads: 2, qLen: 8192, kLen: 8192, form: 'bloom', attentionMask: new Int32Array(8192 * 4).fill(1) }), 'SIZE_OVERFLOW', /the bias \[4, 2, 8192, 8192\]/],
  ];
  for (const [fn, code, pattern] of cases) throwsPosEnc(fn, code, pattern);
});
