// pe.deberta through the public API: log buckets (worked values, formula), relative positions
// query minus key, clamped c2p/p2c indices, and every error path.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';
import { debertaBucket } from './relative-helpers.mjs';

const pe = await createPosEnc();

test('worked values of docs/encodings.md: 256/512 buckets are not clamped', () => {
  const expected = { 511: 255, 512: 256, 1000: 317, 20000: 592, [-20000]: -592, 128: 128, 129: 129, 0: 0, [-128]: -128 };
  for (const [rel, bucket] of Object.entries(expected)) assert.equal(pe.deberta.bucket(Number(rel)), bucket, `rel ${rel}`);
  assert.equal(pe.deberta.bucket(511, { bucketSize: 256, maxPosition: 512 }), 255);
  assert.equal(pe.deberta.attentionSpan(), 256);
  assert.equal(pe.deberta.attentionSpan({ bucketSize: 0, maxPosition: 24 }), 24);
});

test('buckets equal the float64 formula for |rel| <= 20000 in the checked configurations', () => {
  for (const [bucketSize, maxPosition] of [[256, 512], [128, 512], [64, 128], [256, 1024], [32, 64]]) {
    // A column (query i, key 0) gives rel = i; a row (query 0, key j) gives rel = -j.
    const column = pe.deberta.relativePositions({ qLen: 20001, kLen: 1, bucketSize, maxPosition });
    const row = pe.deberta.relativePositions({ qLen: 1, kLen: 20001, bucketSize, maxPosition });
    for (let n = 0; n <= 20000; n++) {
      assert.equal(column.data[n], debertaBucket(n, bucketSize, maxPosition), `${bucketSize}/${maxPosition} rel ${n}`);
      assert.equal(row.data[n], debertaBucket(-n + 0, bucketSize, maxPosition), `${bucketSize}/${maxPosition} rel ${-n}`);
    }
    for (const rel of [-20000, -513, -1, 0, 129, 20000]) {
      assert.equal(pe.deberta.bucket(rel, { bucketSize, maxPosition }), debertaBucket(rel, bucketSize, maxPosition));
    }
  }
});

test('relative positions are query minus key; c2p and p2c clamp into [0, 2 attSpan)', () => {
  for (const [bucketSize, maxPosition] of [[256, 512], [8, 32], [0, 6]]) {
    const opts = { qLen: 30, kLen: 600, bucketSize, maxPosition };
    const span = bucketSize > 0 ? bucketSize : maxPosition;
    const rel = pe.deberta.relativePositions(opts);
    const c2p = pe.deberta.c2pIndices(opts);
    const p2c = pe.deberta.p2cIndices(opts);
    for (const t of [rel, c2p, p2c]) {
      assert.deepEqual(t.dims, [30, 600]);
      assert.ok(t.data instanceof Int32Array);
    }
    const clamp = (x) => Math.min(Math.max(x, 0), 2 * span - 1);
    for (let i = 0; i < 30; i++) {
      for (let j = 0; j < 600; j++) {
        const b = bucketSize > 0 ? debertaBucket(i - j, bucketSize, maxPosition) : i - j;
        const x = i * 600 + j;
        assert.equal(rel.data[x], b);
        assert.equal(c2p.data[x], clamp(b + span));
        assert.equal(p2c.data[x], clamp(-b + span));
      }
    }
  }
});

test('errors: every bad argument throws PosEncError with a stable code', () => {
  const cases = [
    [() => pe.deberta.bucket(null), 'INVALID_TYPE', /deberta\.bucket: relativePosition must be a number/],
    [() => pe.deberta.bucket(1.5), 'INVALID_ARGUMENT', /relativePosition must be an integer/],
    [() => pe.deberta.bucket(2 ** 60), 'INVALID_ARGUMENT', /relativePosition/],
    [() => pe.deberta.bucket(0, { bucketsize: 3 }), 'UNKNOWN_OPTION', /did you mean 'bucketSize'/],
    [() => pe.deberta.bucket(0, { bucketSize: -1 }), 'INVALID_ARGUMENT', /bucketSize must be an integer >= 0/],
    [() => pe.deberta.bucket(0, { bucketSize: 1 }), 'INVALID_ARGUMENT', /bucketSize must be an integer >= 2 \(or 0 for no bucketing\)/],
    [() => pe.deberta.bucket(0, { bucketSize: 1024 }), 'INVALID_ARGUMENT', /bucketSize \(1024\) must be <= maxPosition \(512\)/],
    [() => pe.deberta.bucket(0, { maxPosition: 0 }), 'INVALID_ARGUMENT', /maxPosition must be an integer >= 1/],
    [() => pe.deberta.bucket(0, { maxPosition: 'x' }), 'INVALID_TYPE', /maxPosition must be a number/],
    [() => pe.deberta.bucket(0, { bucketSize: 2, maxPosition: 2 }), 'INVALID_ARGUMENT', /maxPosition \(2\) must be > bucketSize\/2 \+ 1/],
    [() => pe.deberta.attentionSpan({ bucketSize: 600 }), 'INVALID_ARGUMENT', /deberta\.attentionSpan: bucketSize \(600\)/],
    [() => pe.deberta.attentionSpan([]), 'INVALID_TYPE', /options must be an object/],
    [() => pe.deberta.relativePositions({ kLen: 2 }), 'MISSING_OPTION', /'qLen'/],
    [() => pe.deberta.c2pIndices({ qLen: 2 }), 'MISSING_OPTION', /'kLen'/],
    [() => pe.deberta.p2cIndices({ qLen: 2, kLen: 0 }), 'INVALID_ARGUMENT', /deberta\.p2cIndices: kLen must be an integer >= 1/],
    [() => pe.deberta.c2pIndices({ qLen: 2, kLen: 2, bucketSize: 700 }), 'INVALID_ARGUMENT', /deberta\.c2pIndices: bucketSize \(700\)/],
    [() => pe.deberta.relativePositions({ qLen: 2, kLen: 2, queryOffset: 1 }), 'UNKNOWN_OPTION', /queryOffset/],
    [() => pe.deberta.relativePositions({ qLen: 1 << 20, kLen: 1 << 20 }), 'SIZE_OVERFLOW', /WebAssembly memory/],
  ];
  for (const [fn, code, pattern] of cases) throwsPosEnc(fn, code, pattern);
});
