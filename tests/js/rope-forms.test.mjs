// 2-D axial RoPE, xPos and Qwen2-VL M-RoPE through the public API, against float64 formulas
// written in rope-formulas.mjs from docs/encodings.md#89-2-d-axial-rope/8.10 and HF's M-RoPE layout, plus every
// error path with its code.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, maxAbs, randomFloats, throwsPosEnc } from './helpers.mjs';
import { defaultFreq, rotateRow, worstRelative } from './rope-formulas.mjs';

const pe = await createPosEnc();

test('apply2d (grid, lang): first axis block rotated by the row, second by the column, rest untouched', () => {
  const [rows, cols, heads, headDim, rotaryDim] = [3, 4, 2, 20, 16];
  const seq = rows * cols;
  for (const layout of ['bshd', 'bhsd']) {
    const q0 = randomFloats(seq * heads * headDim, 1, -2, 2);
    const k0 = randomFloats(seq * headDim, 2, -2, 2);
    const q = q0.slice();
    const k = k0.slice();
    const dims = layout === 'bshd' ? [1, seq, heads, headDim] : [1, heads, seq, headDim];
    const kDims = layout === 'bshd' ? [1, seq, 1, headDim] : [1, 1, seq, headDim];
    pe.rope.apply2d(q, k, { layout, dims, kDims, rotaryDim, base: 100, grid: [rows, cols] });
    const w = defaultFreq(rotaryDim / 2, 100);
    let worst = 0;
    for (let s = 0; s < seq; s++) {
      const angles = [...w.map((v) => Math.floor(s / cols) * v), ...w.map((v) => (s % cols) * v)];
      for (const [x0, x, h] of [[q0, q, heads], [k0, k, 1]]) {
        for (let hh = 0; hh < h; hh++) {
          const at = layout === 'bshd' ? (s * h + hh) * headDim : (hh * seq + s) * headDim;
          const want = rotateRow(x0.subarray(at, at + headDim), rotaryDim, true, angles);
          worst = Math.max(worst, worstRelative(x.subarray(at, at + headDim), want, 2));
          for (let j = rotaryDim; j < headDim; j++) assert.equal(x[at + j], x0[at + j]);
        }
      }
    }
    assert.ok(worst <= 1e-6, `${layout}: ${worst}`);
  }
});

test('apply2d with explicit [2, batch, seq] ids equals the grid; pixel frequencies', () => {
  const a = randomFloats(2 * 6 * 8, 3);
  const b = a.slice();
  pe.rope.apply2d(a, null, { dims: [2, 6, 8], numHeads: 1, grid: [2, 3] });
  const rowsIds = [0, 0, 0, 1, 1, 1];
  const colIds = [0, 1, 2, 0, 1, 2];
  pe.rope.apply2d(b, null, { dims: [2, 6, 8], numHeads: 1, positionIds: [...rowsIds, ...rowsIds, ...colIds, ...colIds] });
  assert.deepEqual(a, b);
  const c = randomFloats(2 * 6 * 8, 3);
  pe.rope.apply2d(c, null, { dims: [2, 6, 8], numHeads: 1, positionIds: [...rowsIds, ...colIds] }); // [2, seq] shared
  assert.deepEqual(c, a);

  // pixel: w_k = pi * linspace(1, maxFreq/2, axisDim/2), positions linspace(-1, 1, n)
  const x0 = randomFloats(3 * 5 * 16, 4);
  const x = x0.slice();
  pe.rope.apply2d(x, null, { dims: [15, 16], freqs: 'pixel', maxFreq: 10, grid: [3, 5] });
  const w = Array.from({ length: 4 }, (_, k) => Math.PI * (1 + (k * (5 - 1)) / 3));
  let worst = 0;
  for (let s = 0; s < 15; s++) {
    const r = -1 + (2 * Math.floor(s / 5)) / 2;
    const cc = -1 + (2 * (s % 5)) / 4;
    const want = rotateRow(x0.subarray(s * 16, s * 16 + 16), 16, true, [...w.map((v) => r * v), ...w.map((v) => cc * v)]);
    worst = Math.max(worst, worstRelative(x.subarray(s * 16, s * 16 + 16), want, 1));
  }
  assert.ok(worst <= 1e-6, `pixel: ${worst}`);
});

test('applyXPos: queries scaled by zeta^((m-c)/B), keys by zeta^(-(n-c)/B), per pair; interleaved by default', () => {
  const [seq, headDim, rotaryDim] = [7, 12, 8];
  for (const pairing of [undefined, 'half']) {
    const q0 = randomFloats(seq * headDim, 5, -2, 2);
    const k0 = randomFloats(seq * headDim, 6, -2, 2);
    const q = q0.slice();
    const k = k0.slice();
    pe.rope.applyXPos(q, k, { dims: [seq, headDim], rotaryDim, scaleBase: 16, offset: 2, ...(pairing ? { pairing } : {}) });
    const w = defaultFreq(rotaryDim);
    const zeta = Array.from({ length: rotaryDim / 2 }, (_, i) => (2 * i + 0.4 * rotaryDim) / (1.4 * rotaryDim));
    let worst = 0;
    for (let s = 0; s < seq; s++) {
      const p = 2 + s;
      const power = (p - Math.floor(seq / 2)) / 16;
      const angles = w.map((v) => p * v);
      const interleaved = pairing !== 'half';
      const wantQ = rotateRow(q0.subarray(s * headDim, (s + 1) * headDim), rotaryDim, interleaved, angles, zeta.map((z) => z ** power));
      const wantK = rotateRow(k0.subarray(s * headDim, (s + 1) * headDim), rotaryDim, interleaved, angles, zeta.map((z) => z ** -power));
      worst = Math.max(worst, worstRelative(q.subarray(s * headDim, (s + 1) * headDim), wantQ, 2),
        worstRelative(k.subarray(s * headDim, (s + 1) * headDim), wantK, 2));
    }
    assert.ok(worst <= 1e-6, `${pairing}: ${worst}`);
  }
});

test('applyXPos: q.k depends only on m - n for a fixed center, and decays with distance', () => {
  const q0 = randomFloats(16, 31);
  const k0 = randomFloats(16, 32);
  const dotAt = (m, n) => {
    const q = q0.slice();
    const k = k0.slice();
    pe.rope.applyXPos(q, new Float32Array(16), { dims: [1, 16], center: 100, positionIds: [m] });
    pe.rope.applyXPos(new Float32Array(16), k, { dims: [1, 16], center: 100, positionIds: [n] });
    return q.reduce((acc, v, i) => acc + v * k[i], 0);
  };
  for (const delta of [0, 3, -20]) {
    const ref = dotAt(50 + delta, 50);
    for (const n of [0, 120, 300]) assert.ok(Math.abs(dotAt(n + delta, n) - ref) <= 2e-5, `delta ${delta} n ${n}`);
  }
});

test('applyMultimodal: pair sections follow temporal/height/width ids [3, batch, seq] (HF apply_multimodal_rotary_pos_emb)', () => {
  const [batch, seq, heads, headDim] = [2, 5, 3, 16];
  const section = [2, 3, 3];
  const ids = Array.from({ length: 3 * batch * seq }, (_, i) => (i * 7) % 11);
  for (const pairing of ['half', 'interleaved']) {
    const q0 = randomFloats(batch * heads * seq * headDim, 7, -2, 2);
    const q = q0.slice();
    pe.rope.applyMultimodal(q, null, { layout: 'bhsd', dims: [batch, heads, seq, headDim], mropeSection: section, positionIds: ids, pairing });
    const w = defaultFreq(16);
    let worst = 0;
    for (let b = 0; b < batch; b++) {
      for (let s = 0; s < seq; s++) {
        const angles = w.map((v, i) => ids[((i < 2 ? 0 : i < 5 ? 1 : 2) * batch + b) * seq + s] * v);
        for (let h = 0; h < heads; h++) {
          const at = ((b * heads + h) * seq + s) * headDim;
          worst = Math.max(worst, worstRelative(q.subarray(at, at + headDim), rotateRow(q0.subarray(at, at + headDim), 16, pairing === 'interleaved', angles), maxAbs(q0)));
        }
      }
    }
    assert.ok(worst <= 1e-6, `${pairing}: ${worst}`);
  }
});

test('applyMultimodal of text tokens (equal ids on every axis) equals apply, scaling and attention factor included', () => {
  const spec = { rotaryDim: 32, base: 1e6, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 } };
  const a = randomFloats(2 * 3 * 40, 8);
  const b = a.slice();
  const c = a.slice();
  pe.rope.applyMultimodal(a, null, { ...spec, dims: [2, 3, 40], numHeads: 1, mropeSection: [4, 6, 6], offset: 3 });
  pe.rope.apply(b, null, { ...spec, dims: [2, 3, 40], numHeads: 1, offset: 3 });
  pe.rope.applyMultimodal(c, null, { ...spec, dims: [2, 3, 40], numHeads: 1, mropeSection: [4, 6, 6], positionIds: [3, 4, 5, 3, 4, 5, 3, 4, 5] });
  for (let i = 0; i < a.length; i++) {
    assert.ok(Math.abs(a[i] - b[i]) <= 2e-7, `offset ${i}`);
    assert.ok(Math.abs(c[i] - b[i]) <= 2e-7, `ids ${i}`);
  }
});

test('forms: every bad argument throws a PosEncError with its code, and nothing is modified', () => {
  const q = randomFloats(12 * 16, 1);
  const q0 = q.slice();
  const a2 = (opts) => () => pe.rope.apply2d(q, null, { dims: [12, 16], ...opts });
  throwsPosEnc(a2({}), 'MISSING_OPTION', /'grid' \(\[rows, cols\]\) or 'positionIds'/);
  throwsPosEnc(a2({ grid: [3, 4], positionIds: new Array(24).fill(0) }), 'INVALID_ARGUMENT', /either grid or positionIds/);
  throwsPosEnc(a2({ grid: [3, 5] }), 'SHAPE_MISMATCH', /grid \[3, 5\] holds 15 patches, but the tensors have seq 12/);
  throwsPosEnc(a2({ grid: [12] }), 'INVALID_ARGUMENT', /grid must be \[rows, cols\]/);
  throwsPosEnc(a2({ grid: [3, 0] }), 'INVALID_ARGUMENT', /grid\[1\]/);
  throwsPosEnc(a2({ grid: [3, 4], rotaryDim: 14 }), 'INVALID_ARGUMENT', /rotaryDim must be a multiple of 4 for 2-D RoPE/);
  throwsPosEnc(a2({ grid: [3, 4], rotaryDim: 20 }), 'OUT_OF_RANGE', /rotaryDim/);
  throwsPosEnc(a2({ grid: [3, 4], freqs: 'audio' }), 'INVALID_ARGUMENT', /freqs must be 'lang' or 'pixel'/);
  throwsPosEnc(a2({ grid: [3, 4], maxFreq: -1 }), 'INVALID_ARGUMENT', /maxFreq/);
  throwsPosEnc(a2({ grid: [3, 4], pairing: 'half' }), 'UNKNOWN_OPTION', /'pairing'/);
  throwsPosEnc(a2({ positionIds: new Array(12).fill(0) }), 'SHAPE_MISMATCH', /positionIds has 12 values; expected 24/);
  throwsPosEnc(a2({ positionIds: [...new Array(23).fill(0), NaN] }), 'INVALID_ARGUMENT', /positionIds\[23\] must be a finite number/);

  const xp = (opts) => () => pe.rope.applyXPos(q, null, { dims: [12, 16], ...opts });
  throwsPosEnc(xp({ gamma: 0 }), 'INVALID_ARGUMENT', /gamma must be a finite number > 0/);
  throwsPosEnc(xp({ scaleBase: NaN }), 'INVALID_ARGUMENT', /scaleBase/);
  throwsPosEnc(xp({ center: '3' }), 'INVALID_TYPE', /center must be a number/);
  throwsPosEnc(xp({ offset: 1, positionIds: new Array(12).fill(0) }), 'INVALID_ARGUMENT', /either offset or positionIds/);
  throwsPosEnc(xp({ scaling: { type: 'linear' } }), 'MISSING_OPTION', /rope\.applyXPos: option 'scaling\.factor'/);
  throwsPosEnc(xp({ Gamma: 0.4 }), 'UNKNOWN_OPTION', /'Gamma'.*did you mean 'gamma'/);

  const mm = (opts) => () => pe.rope.applyMultimodal(q, null, { dims: [12, 16], ...opts });
  throwsPosEnc(mm({}), 'MISSING_OPTION', /'mropeSection' is required/);
  throwsPosEnc(mm({ mropeSection: '2,3,3' }), 'INVALID_TYPE', /mropeSection must be an array/);
  throwsPosEnc(mm({ mropeSection: [2, 3.5, 3] }), 'INVALID_ARGUMENT', /mropeSection\[1\] must be an integer/);
  throwsPosEnc(mm({ mropeSection: [] }), 'INVALID_ARGUMENT', /at least one section/);
  throwsPosEnc(mm({ mropeSection: [2, 3, 2] }), 'SHAPE_MISMATCH', /mropeSection must sum to rotaryDim\/2 = 8, got 7/);
  throwsPosEnc(mm({ mropeSection: [2, 3, 3], positionIds: new Array(12).fill(0) }), 'SHAPE_MISMATCH', /positionIds has 12 values; expected 36/);
  throwsPosEnc(mm({ mropeSection: [2, 3, 3], positionIds: new Array(36).fill(0), offset: 2 }), 'INVALID_ARGUMENT', /either offset or positionIds/);
  throwsPosEnc(mm({ mropeSection: [2, 3, 3], offset: NaN }), 'INVALID_ARGUMENT', /offset/);
  assert.deepEqual(q, q0, 'q untouched by failed calls');
});
