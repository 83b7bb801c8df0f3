// pe.transformerXL through the public API: R against the sinusoid formula, the relative shift
// against a literal emulation of Hugging Face's pad/view/slice, the four-term score against eq. (3).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';
import { maxError } from './relative-helpers.mjs';

const pe = await createPosEnc();

test('R: half-layout sinusoid of distances memLen+qLen-1 down to 0, clamped by clampLen', () => {
  for (const [qLen, memLen, dModel, clampLen] of [[3, 0, 8, 0], [4, 6, 16, 0], [4, 6, 16, 5], [1, 1, 2, 0]]) {
    const { data, dims } = pe.transformerXL.relativeSinusoid({ qLen, memLen, dModel, clampLen });
    const kLen = qLen + memLen;
    assert.deepEqual(dims, [kLen, dModel]);
    const want = [];
    for (let r = 0; r < kLen; r++) {
      let t = kLen - 1 - r;
      if (clampLen > 0) t = Math.min(t, clampLen);
      const w = Array.from({ length: dModel / 2 }, (_, i) => 1 / 10000 ** ((2 * i) / dModel));
      want.push(...w.map((x) => Math.sin(t * x)), ...w.map((x) => Math.cos(t * x)));
    }
    assert.ok(maxError(data, want) <= 1.2e-7, `${qLen}/${memLen}/${dModel}/${clampLen}`);
  }
  const r = pe.transformerXL.relativeSinusoid({ qLen: 2, dModel: 4, base: 100 });
  assert.ok(Math.abs(r.data[1] - Math.sin(1 / 10)) < 1e-7, 'base');
});

/** torch.cat([zeros(q, 1), x], 1).view(k + 1, q)[1:].view(q, k) on a flat array. */
function hfRelShift(x, q, k) {
  const padded = [];
  for (let i = 0; i < q; i++) padded.push(0, ...x.slice(i * k, (i + 1) * k));
  return padded.slice(q);
}

test('relShift equals Hugging Face _rel_shift, garbage region included; maskFuture writes -Infinity there', () => {
  for (const [q, k] of [[1, 1], [3, 3], [3, 8], [4, 5], [5, 2]]) {
    const heads = 2;
    const bd = randomFloats(heads * q * k, q * 10 + k);
    const out = pe.transformerXL.relShift({ data: bd, dims: [heads, q, k] });
    const masked = pe.transformerXL.relShift(bd, { dims: [heads, q, k], maskFuture: true });
    assert.deepEqual(out.dims, [heads, q, k]);
    for (let h = 0; h < heads; h++) {
      const one = Array.from(bd.subarray(h * q * k, (h + 1) * q * k));
      const want = hfRelShift(one, q, k);
      for (let i = 0; i < q; i++) {
        for (let j = 0; j < k; j++) {
          const x = h * q * k + i * k + j;
          assert.equal(out.data[x], Math.fround(want[i * k + j]), `q ${q} k ${k} (${i}, ${j})`);
          if (j > k - q + i) assert.equal(masked.data[x], -Infinity);
          else {
            assert.equal(out.data[x], one[i * k + j + q - 1 - i], 'BD[i, j + qLen - 1 - i]');
            assert.equal(masked.data[x], out.data[x]);
          }
        }
      }
    }
  }
  // 2-D input keeps 2-D dims.
  assert.deepEqual(pe.transformerXL.relShift({ data: new Float32Array(6), dims: [2, 3] }).dims, [2, 3]);
});

test('score: (q_i + u).k_j + (q_i + v).r[kLen - 1 - (memLen + i - j)] for visible keys', () => {
  const heads = 3, qLen = 4, memLen = 3, kLen = 7, d = 8;
  const q = randomFloats(heads * qLen * d, 1);
  const k = randomFloats(heads * kLen * d, 2);
  const r = randomFloats(heads * kLen * d, 3);
  const u = randomFloats(heads * d, 4);
  const v = randomFloats(heads * d, 5);
  const out = pe.transformerXL.score(q, k, r, u, v, { dims: [heads, qLen, d], kDims: [heads, kLen, d], maskFuture: true });
  assert.deepEqual(out.dims, [heads, qLen, kLen]);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < qLen; i++) {
      for (let j = 0; j < kLen; j++) {
        const got = out.data[(h * qLen + i) * kLen + j];
        if (j > memLen + i) {
          assert.equal(got, -Infinity);
          continue;
        }
        const m = kLen - 1 - (memLen + i - j);
        let ac = 0;
        let bd = 0;
        for (let c = 0; c < d; c++) {
          const qc = q[(h * qLen + i) * d + c];
          ac += (qc + u[h * d + c]) * k[(h * kLen + j) * d + c];
          bd += (qc + v[h * d + c]) * r[(h * kLen + m) * d + c];
        }
        assert.ok(Math.abs(got - (ac + bd)) < 2e-6, `(${h}, ${i}, ${j})`);
      }
    }
  }
  // Without maskFuture the visible part is the same and the rest follows relShift.
  const raw = pe.transformerXL.score({ data: q, dims: [heads, qLen, d] }, { data: k, dims: [heads, kLen, d] },
    { data: r, dims: [heads, kLen, d] }, { data: u, dims: [heads, d] }, { data: v, dims: [heads, d] });
  for (let x = 0; x < raw.data.length; x++) if (out.data[x] !== -Infinity) assert.equal(raw.data[x], out.data[x]);
  // One head in 2-D, u and v as [d].
  const one = pe.transformerXL.score({ data: q.subarray(0, qLen * d), dims: [qLen, d] }, { data: k.subarray(0, kLen * d), dims: [kLen, d] },
    { data: r.subarray(0, kLen * d), dims: [kLen, d] }, u.subarray(0, d), v.subarray(0, d));
  assert.deepEqual(one.dims, [qLen, kLen]);
  assert.deepEqual(one.data, raw.data.subarray(0, qLen * kLen));
});

test('errors: every bad argument throws PosEncError with a stable code', () => {
  const t = (dims) => ({ data: new Float32Array(dims.reduce((a, b) => a * b, 1)), dims });
  const q = t([2, 3, 4]);
  const k = t([2, 5, 4]);
  const u = t([2, 4]);
  const bad = { data: Float32Array.from({ length: 8 }, (_, i) => (i === 3 ? NaN : 0)), dims: [2, 4] };
  const cases = [
    [() => pe.transformerXL.relativeSinusoid({ dModel: 8 }), 'MISSING_OPTION', /transformerXL\.relativeSinusoid: option 'qLen' is required/],
    [() => pe.transformerXL.relativeSinusoid({ qLen: 2 }), 'MISSING_OPTION', /'dModel'/],
    [() => pe.transformerXL.relativeSinusoid({ qLen: 2, dModel: 7 }), 'INVALID_ARGUMENT', /dModel must be an even integer >= 2, got 7/],
    [() => pe.transformerXL.relativeSinusoid({ qLen: 2, dModel: 8, memLen: -1 }), 'INVALID_ARGUMENT', /memLen must be an integer >= 0/],
    [() => pe.transformerXL.relativeSinusoid({ qLen: 2, dModel: 8, clampLen: 1.5 }), 'INVALID_ARGUMENT', /clampLen/],
    [() => pe.transformerXL.relativeSinusoid({ qLen: 2, dModel: 8, base: 0 }), 'INVALID_ARGUMENT', /base must be a finite number > 0/],
    [() => pe.transformerXL.relativeSinusoid({ qLen: 2 ** 30, memLen: 2 ** 30, dModel: 8 }), 'SIZE_OVERFLOW', /memLen \+ qLen/],
    [() => pe.transformerXL.relativeSinusoid({ qLen: 2, dModel: 8, clamp_len: 3 }), 'UNKNOWN_OPTION', /clamp_len/],
    [() => pe.transformerXL.relShift(t([1, 2, 3, 4])), 'SHAPE_MISMATCH', /bd must be \[len, width\] or \[heads, len, width\]/],
    [() => pe.transformerXL.relShift(new Float32Array(4)), 'MISSING_OPTION', /'dims'/],
    [() => pe.transformerXL.relShift(t([2, 2]), { maskFuture: 1 }), 'INVALID_TYPE', /maskFuture must be true or false/],
    [() => pe.transformerXL.score(q, t([1, 5, 4]), k, u, u), 'SHAPE_MISMATCH', /heads of k must be 2, got 1/],
    [() => pe.transformerXL.score(q, t([2, 5, 3]), k, u, u), 'SHAPE_MISMATCH', /width of k \(d\) must be 4, got 3/],
    [() => pe.transformerXL.score(q, k, t([2, 6, 4]), u, u), 'SHAPE_MISMATCH', /length of r \(kLen, as k\) must be 5, got 6/],
    [() => pe.transformerXL.score(q, k, t([5, 4]), u, u), 'SHAPE_MISMATCH', /same rank/],
    [() => pe.transformerXL.score(q, k, k, t([4]), u), 'SHAPE_MISMATCH', /u must be \[heads, d\] = \[2, 4\], got \[4\]/],
    [() => pe.transformerXL.score(q, k, k, u, new Float32Array(7)), 'SHAPE_MISMATCH', /v has 7 elements/],
    [() => pe.transformerXL.score(q, t([2, 2, 4]), t([2, 2, 4]), u, u), 'SHAPE_MISMATCH', /kLen \(memLen \+ qLen\) must be >= qLen \(3\), got 2/],
    [() => pe.transformerXL.score(q, k, k, bad, u), 'INVALID_ARGUMENT', /transformerXL\.score: u\[3\] must be a finite number, got NaN/],
    [() => pe.transformerXL.score(q, k, k, u, u, { maskFuture: null }), 'INVALID_TYPE', /maskFuture/],
  ];
  for (const [fn, code, pattern] of cases) throwsPosEnc(fn, code, pattern);
});
