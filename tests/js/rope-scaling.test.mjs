// RoPE scaling through the public API: every variant and option against float64 formulas written
// in rope-formulas.mjs, the worked values of docs/encodings.md, the section-10 edge cases, the 8.11
// diagnostics, caches of scaled specs, and every error path with its code.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, maxAbs, randomFloats, throwsPosEnc } from './helpers.mjs';
import { defaultFreq, llama3Freq, rotateRow, worstRelative, yarnFreq } from './rope-formulas.mjs';

const pe = await createPosEnc();

const close = (got, want, rel, what) => {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= rel * Math.abs(want[i]), `${what}[${i}]: ${got[i]} vs ${want[i]}`);
};

/** Phi-3.5-mini-like LongRoPE lists: plausible values of the right length (48 = r/2), made up for the tests. */
const phiShort = Array.from({ length: 48 }, (_, i) => 1 + 0.02 * i);
const phiLong = Array.from({ length: 48 }, (_, i) => 1.1 + 1.3 * i);
const phi35 = { type: 'longrope', shortFactor: phiShort, longFactor: phiLong, originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 131072 };

/** Applies `spec` to random [seq, headDim] rows at `positions` and returns the worst error against the formula. */
function applyError({ headDim, spec, positions, w, attention, seqLen }) {
  const rotaryDim = spec.rotaryDim ?? headDim;
  const q0 = randomFloats(positions.length * headDim, 17, -3, 3);
  const q = q0.slice();
  pe.rope.apply(q, null, { dims: [positions.length, headDim], positionIds: positions, ...spec, ...(seqLen ? { seqLen } : {}) });
  let worst = 0;
  positions.forEach((p, s) => {
    const row = q0.subarray(s * headDim, (s + 1) * headDim);
    const want = rotateRow(row, rotaryDim, spec.pairing === 'interleaved', Array.from(w, (v) => p * v), attention);
    worst = Math.max(worst, worstRelative(q.subarray(s * headDim, (s + 1) * headDim), want, maxAbs(q0)));
  });
  return worst;
}

test('frequencies: default, linear, static NTK', () => {
  const plain = pe.rope.frequencies({ rotaryDim: 64, base: 500000 });
  close(plain.invFreq, defaultFreq(64, 500000), 1e-15, 'default');
  assert.equal(plain.attentionFactor, 1);
  assert.equal(plain.scalingType, 'default');
  assert.equal(plain.effectiveBase, 500000);
  assert.equal(plain.factor, 1);
  assert.equal(plain.seqLen, undefined);

  const linear = pe.rope.frequencies({ rotaryDim: 32, scaling: { type: 'linear', factor: 4 } });
  close(linear.invFreq, defaultFreq(32).map((v) => v / 4), 1e-15, 'linear');
  assert.equal(linear.factor, 4);

  const ntk = pe.rope.frequencies({ rotaryDim: 128, scaling: { type: 'ntk', factor: 8 } });
  const base = 10000 * 8 ** (128 / 126);
  assert.ok(Math.abs(ntk.effectiveBase / base - 1) < 1e-15);
  close(ntk.invFreq, defaultFreq(128, base), 1e-14, 'ntk');
  assert.equal(ntk.attentionFactor, 1);
});

test('dynamic NTK: exact unscaled frequencies at or below maxPositionEmbeddings, rescaled base above', () => {
  const scaling = { type: 'dynamic', factor: 2, maxPositionEmbeddings: 2048 };
  const plain = pe.rope.frequencies({ rotaryDim: 64 }).invFreq;
  for (const seqLen of [1, 2047, 2048]) {
    const f = pe.rope.frequencies({ rotaryDim: 64, scaling }, { seqLen });
    assert.deepEqual(f.invFreq, plain, `seqLen ${seqLen}`);
    assert.equal(f.seqLen, 2048);
    assert.equal(f.effectiveBase, 10000);
  }
  assert.deepEqual(pe.rope.frequencies({ rotaryDim: 64, scaling }).invFreq, plain, 'no seqLen: model load');
  for (const seqLen of [2049, 8192]) {
    const f = pe.rope.frequencies({ rotaryDim: 64, scaling, seqLen });
    const base = 10000 * ((2 * seqLen) / 2048 - 1) ** (64 / 62);
    assert.ok(Math.abs(f.effectiveBase / base - 1) < 1e-14, `seqLen ${seqLen}`);
    close(f.invFreq, defaultFreq(64, base), 1e-14, `seqLen ${seqLen}`);
    assert.equal(f.seqLen, seqLen);
  }
  // apply: the length defaults to max(position) + 1
  const w = (seqLen) => pe.rope.frequencies({ rotaryDim: 64, scaling }, { seqLen }).invFreq;
  assert.ok(applyError({ headDim: 64, spec: { scaling }, positions: [0, 5, 2047], w: w(2048), attention: 1 }) <= 1e-6);
  assert.ok(applyError({ headDim: 64, spec: { scaling }, positions: [0, 5, 4999], w: w(5000), attention: 1 }) <= 1e-6);
  assert.ok(applyError({ headDim: 64, spec: { scaling }, positions: [0, 5, 10], w: w(6000), attention: 1, seqLen: 6000 }) <= 1e-6);
});

test('YaRN worked example: r 128, base 10000, original 4096, factor 4 -> low 20, high 46, attention 1.13863', () => {
  const f = pe.rope.frequencies({ rotaryDim: 128, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096 } });
  assert.equal(f.yarn.low, 20);
  assert.equal(f.yarn.high, 46);
  assert.equal(f.yarn.factor, 4);
  assert.ok(Math.abs(f.attentionFactor - 1.13863) < 5e-6);
  assert.ok(Math.abs(f.attentionFactor - (0.1 * Math.log(4) + 1)) < 1e-15);
  const ref = yarnFreq(128, 10000, { factor: 4, original: 4096 });
  close(f.invFreq, ref.w, 1e-14, 'yarn');
  close(f.yarn.ramp, ref.ramp, 1e-15, 'ramp');
  assert.equal(f.yarn.ramp[20], 0);
  assert.equal(f.yarn.ramp[46], 1);
});

test('YaRN options: truncate=false, explicit attentionFactor, DeepSeek mscale, ggmlAttnFactor, hfV4Factor, derived factor', () => {
  const spec = (extra) => ({ rotaryDim: 64, base: 150000, scaling: { type: 'yarn', factor: 32, originalMaxPositionEmbeddings: 4096, ...extra } });
  const loose = pe.rope.frequencies(spec({ truncate: false }));
  const ref = yarnFreq(64, 150000, { factor: 32, original: 4096, truncate: false });
  assert.ok(Math.abs(loose.yarn.low - ref.low) < 1e-13 && loose.yarn.low !== Math.floor(loose.yarn.low));
  assert.ok(Math.abs(loose.yarn.high - ref.high) < 1e-13);
  close(loose.invFreq, ref.w, 1e-14, 'truncate false');
  assert.notDeepEqual(pe.rope.frequencies(spec({})).invFreq, loose.invFreq);

  assert.equal(pe.rope.frequencies(spec({ attentionFactor: 0.8 })).attentionFactor, 0.8);
  assert.equal(pe.rope.frequencies(spec({ mscale: 0.707, mscaleAllDim: 0.707 })).attentionFactor, 1, 'DeepSeek: exactly 1');
  assert.ok(Math.abs(pe.rope.frequencies(spec({ mscale: 1, mscaleAllDim: 0 })).attentionFactor - (0.1 * Math.log(32) + 1)) < 1e-15);
  assert.ok(Math.abs(pe.rope.frequencies(spec({ ggmlAttnFactor: 0.5 })).attentionFactor - 0.5 * (1 + 0.1 * Math.log(32))) < 1e-15);
  const derived = pe.rope.frequencies({ rotaryDim: 64, scaling: { type: 'yarn', originalMaxPositionEmbeddings: 4096, maxPositionEmbeddings: 65536 } });
  assert.equal(derived.yarn.factor, 16);
  assert.equal(pe.rope.frequencies(spec({ maxPositionEmbeddings: 65536 })).yarn.factor, 32, 'v5: a given factor wins');
  assert.equal(pe.rope.frequencies(spec({ maxPositionEmbeddings: 65536, hfV4Factor: true })).yarn.factor, 16, 'transformers 4.x');
});

test('Llama 3.1 8B bands: pairs 0-28 unchanged, 29-34 blended, 35-63 divided; blend weights', () => {
  const scaling = { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 };
  const f = pe.rope.frequencies({ rotaryDim: 128, base: 500000, scaling });
  const ref = llama3Freq(128, 500000);
  assert.deepEqual(f.llama3.band, ref.band);
  assert.deepEqual(f.llama3.band.slice(0, 29), new Array(29).fill('unchanged'));
  assert.deepEqual(f.llama3.band.slice(29, 35), new Array(6).fill('blended'));
  assert.deepEqual(f.llama3.band.slice(35), new Array(29).fill('divided'));
  close(f.invFreq, ref.w, 1e-14, 'llama3');
  const w = defaultFreq(128, 500000);
  for (let i = 29; i < 35; i++) {
    const s = (8192 / ((2 * Math.PI) / w[i]) - 1) / 3;
    assert.ok(Math.abs(f.llama3.blend[i] - s) < 1e-13 && s > 0 && s < 1, `blend ${i}`);
  }
  assert.equal(f.llama3.blend[0], 1);
  assert.equal(f.llama3.blend[63], 0);
  // Llama 3.1 values are the defaults, base 500000 included
  assert.deepEqual(pe.rope.frequencies({ rotaryDim: 128, scaling: { type: 'llama3' } }).invFreq, f.invFreq);
});

test('LongRoPE Phi-3.5-mini: factor 32, attention 1.190238, short list at original, long at original + 1', () => {
  const at = (seqLen) => pe.rope.frequencies({ rotaryDim: 96, scaling: phi35 }, { seqLen });
  const w = defaultFreq(96);
  for (const seqLen of [1, 4096]) {
    const f = at(seqLen);
    assert.equal(f.longrope.list, 'short', `seqLen ${seqLen}`);
    assert.deepEqual(Array.from(f.longrope.factors), phiShort);
    close(f.invFreq, w.map((v, i) => v / phiShort[i]), 1e-14, 'short');
  }
  for (const seqLen of [4097, 131072]) {
    const f = at(seqLen);
    assert.equal(f.longrope.list, 'long', `seqLen ${seqLen}`);
    close(f.invFreq, w.map((v, i) => v / phiLong[i]), 1e-14, 'long');
  }
  const f = at(5000);
  assert.equal(f.factor, 32);
  assert.ok(Math.abs(f.attentionFactor - 1.190238) < 5e-7);
  assert.ok(Math.abs(f.attentionFactor - Math.sqrt(1 + Math.log(32) / Math.log(4096))) < 1e-15);
  assert.equal(pe.rope.frequencies({ rotaryDim: 96, scaling: phi35 }).longrope.list, 'short', 'no seqLen: model load');
  assert.equal(pe.rope.frequencies({ rotaryDim: 96, scaling: { ...phi35, attentionFactor: 1.5 } }, { seqLen: 1 }).attentionFactor, 1.5);
  // llama.cpp: the list follows the context size, not the call
  assert.equal(pe.rope.frequencies({ rotaryDim: 96, scaling: { ...phi35, llamaCppContextLength: 8192 } }, { seqLen: 10 }).longrope.list, 'long');
  assert.equal(pe.rope.frequencies({ rotaryDim: 96, scaling: { ...phi35, llamaCppContextLength: 4096 } }, { seqLen: 9000 }).longrope.list, 'short');
});

test('apply with every scaling equals the formula; the attention factor scales rotated lanes only', () => {
  const yarn = yarnFreq(32, 10000, { factor: 4, original: 64 });
  const cases = [
    { spec: { rotaryDim: 32, scaling: { type: 'linear', factor: 3 } }, w: defaultFreq(32).map((v) => v / 3), attention: 1 },
    { spec: { rotaryDim: 32, scaling: { type: 'ntk', factor: 3 } }, w: defaultFreq(32, 10000 * 3 ** (32 / 30)), attention: 1 },
    { spec: { rotaryDim: 32, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 } }, w: yarn.w, attention: 0.1 * Math.log(4) + 1 },
    { spec: { rotaryDim: 32, base: 500000, scaling: { type: 'llama3', originalMaxPositionEmbeddings: 256 } }, w: llama3Freq(32, 500000, { original: 256 }).w, attention: 1 },
  ];
  for (const { spec, w, attention } of cases) {
    for (const pairing of ['half', 'interleaved']) {
      const worst = applyError({ headDim: 40, spec: { ...spec, pairing }, positions: [0, 1, 7, 300, 123456], w, attention });
      assert.ok(worst <= 1e-6, `${spec.scaling.type} ${pairing}: ${worst}`);
    }
  }
  // Phi-3.5 geometry: 96 rotated lanes of a 128-lane head (partial rotary), both lists
  const w = defaultFreq(96);
  const attention = Math.sqrt(1 + Math.log(32) / Math.log(4096));
  assert.ok(applyError({ headDim: 128, spec: { rotaryDim: 96, scaling: phi35 }, positions: [0, 4095], w: w.map((v, i) => v / phiShort[i]), attention }) <= 1e-6);
  assert.ok(applyError({ headDim: 128, spec: { rotaryDim: 96, scaling: phi35 }, positions: [0, 4096], w: w.map((v, i) => v / phiLong[i]), attention }) <= 1e-6);
});

test('position 0: identity when the attention factor is 1; YaRN/LongRoPE scale rotated lanes, never pass-through lanes', () => {
  const q0 = randomFloats(2 * 48, 3);
  for (const scaling of [{ type: 'linear', factor: 2 }, { type: 'ntk', factor: 2 }, { type: 'dynamic', factor: 2, maxPositionEmbeddings: 8 },
    { type: 'llama3' }, { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, mscale: 1, mscaleAllDim: 1 }]) {
    const q = q0.slice();
    pe.rope.apply(q, null, { dims: [2, 48], rotaryDim: 32, scaling, positionIds: [0, 0], seqLen: 100 });
    assert.deepEqual(q, q0, scaling.type);
  }
  for (const [scaling, rotaryDim, attention] of [
    [{ type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096 }, 32, 0.1 * Math.log(4) + 1],
    [phi35, 96, Math.sqrt(1 + Math.log(32) / Math.log(4096))],
  ]) {
    const x0 = randomFloats(128, 4);
    const x = x0.slice();
    pe.rope.apply(x, null, { dims: [1, 128], rotaryDim, scaling });
    for (let j = 0; j < rotaryDim; j++) assert.ok(Math.abs(x[j] - x0[j] * attention) <= 1e-6, `${scaling.type} lane ${j}`);
    for (let j = rotaryDim; j < 128; j++) assert.equal(x[j], x0[j], `${scaling.type} pass-through lane ${j}`);
  }
});

test('LongRoPE in apply: max(position) + 1 = original uses the short list, original + 1 the long list', () => {
  const run = (positions, seqLen) => {
    const q = randomFloats(2 * 96, 9);
    pe.rope.apply(q, null, { dims: [2, 96], scaling: phi35, positionIds: positions, ...(seqLen ? { seqLen } : {}) });
    return q;
  };
  assert.deepEqual(run([3, 4095]), run([3, 4095], 4096));
  assert.notDeepEqual(run([3, 4095]), run([3, 4095], 4097));
  assert.deepEqual(run([3, 4096]), run([3, 4096], 4097));
  const a = randomFloats(4 * 96, 9);
  const b = a.slice();
  pe.rope.apply(a, null, { dims: [4, 96], scaling: phi35, offset: 4093 }); // last position 4096: long
  pe.rope.apply(b, null, { dims: [4, 96], scaling: phi35, offset: 4093, seqLen: 4097 });
  assert.deepEqual(a, b);
});

test('a cache of a scaled spec bakes the attention factor and matches apply', () => {
  const spec = { rotaryDim: 32, headDim: 40, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 } };
  const cache = pe.rope.createCache({ ...spec, maxPositions: 50 });
  const { cos, sin } = cache.toTensors();
  const { w } = yarnFreq(32, 10000, { factor: 4, original: 64 });
  const att = 0.1 * Math.log(4) + 1;
  assert.ok(Math.abs(cos.data[10 * 16 + 5] - Math.cos(10 * w[5]) * att) <= 1e-7);
  assert.ok(Math.abs(sin.data[10 * 16 + 5] - Math.sin(10 * w[5]) * att) <= 1e-7);
  for (const pairing of ['half', 'interleaved']) {
    const c = pe.rope.createCache({ ...spec, pairing, maxPositions: 50 });
    const a = randomFloats(3 * 40, 11);
    const b = a.slice();
    c.apply(a, null, { dims: [3, 40], positionIds: [0, 7, 49] });
    pe.rope.apply(b, null, { ...spec, pairing, dims: [3, 40], positionIds: [0, 7, 49] });
    for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 4e-7, `${pairing} ${i}`);
    c.dispose();
  }
  cache.dispose();
  // dynamic/longrope caches use seqLen = maxPositions unless told otherwise
  const cosOf = (options) => {
    const c = pe.rope.createCache(options);
    try {
      return c.toTensors().cos;
    } finally {
      c.dispose();
    }
  };
  const short = cosOf({ rotaryDim: 96, scaling: phi35, maxPositions: 4096 });
  const long = cosOf({ rotaryDim: 96, scaling: phi35, maxPositions: 4097 });
  assert.deepEqual(cosOf({ rotaryDim: 96, scaling: phi35, maxPositions: 4097, seqLen: 4096 }).data.subarray(0, 4096 * 48), short.data);
  assert.deepEqual(cosOf({ rotaryDim: 96, scaling: phi35, maxPositions: 4096, seqLen: 4097 }).data, long.data.subarray(0, 4096 * 48));
  const w96 = defaultFreq(96);
  assert.ok(Math.abs(short.data[100 * 48 + 40] / Math.sqrt(1 + Math.log(32) / Math.log(4096)) - Math.cos(100 * w96[40] / phiShort[40])) < 1e-6);
  assert.ok(Math.abs(long.data[100 * 48 + 40] / Math.sqrt(1 + Math.log(32) / Math.log(4096)) - Math.cos(100 * w96[40] / phiLong[40])) < 1e-6);
});

test('angles: position * invFreq in float64, [n, rotaryDim/2]', () => {
  const a = pe.rope.angles({ rotaryDim: 8, scaling: { type: 'linear', factor: 2 } }, [0, 3, 1e6]);
  assert.ok(a.data instanceof Float64Array);
  assert.deepEqual(a.dims, [3, 4]);
  const w = defaultFreq(8);
  [0, 3, 1e6].forEach((p, t) => w.forEach((v, i) => assert.ok(Math.abs(a.data[t * 4 + i] - (p * v) / 2) <= 1e-15 * Math.abs(p * v))));
  // LongRoPE: the current length defaults to max(positionIds) + 1
  const long = pe.rope.angles({ rotaryDim: 96, scaling: phi35 }, [1, 4096]);
  const wl = defaultFreq(96).map((v, i) => v / phiLong[i]);
  assert.ok(Math.abs(long.data[48 + 10] - 4096 * wl[10]) < 1e-12);
  const short = pe.rope.angles({ rotaryDim: 96, scaling: phi35 }, [1, 4096], { seqLen: 4096 });
  assert.ok(Math.abs(short.data[48 + 10] - (4096 * defaultFreq(96)[10]) / phiShort[10]) < 1e-12);
  assert.deepEqual(pe.rope.angles({ rotaryDim: 4 }, new Int32Array([2])).data, Float64Array.from([2, 0.02]));
});

test('scaling errors: each with its code and a message naming the option', () => {
  const q = randomFloats(2 * 16, 1);
  const q0 = q.slice();
  const ap = (scaling, extra = {}) => () => pe.rope.apply(q, null, { dims: [2, 16], scaling, ...extra });
  const fr = (scaling, extra = {}) => () => pe.rope.frequencies({ rotaryDim: 16, scaling, ...extra });
  throwsPosEnc(ap({ type: 'lineer', factor: 2 }), 'INVALID_ARGUMENT', /scaling\.type must be 'default' or 'linear'/);
  throwsPosEnc(ap({ factor: 2 }), 'MISSING_OPTION', /'scaling\.type' is required/);
  throwsPosEnc(ap('yarn'), 'INVALID_TYPE', /scaling must be an object/);
  throwsPosEnc(ap({ type: 'linear' }), 'MISSING_OPTION', /'scaling\.factor' is required for scaling type 'linear'/);
  throwsPosEnc(ap({ type: 'ntk' }), 'MISSING_OPTION', /scaling\.factor/);
  throwsPosEnc(ap({ type: 'dynamic', factor: 2 }), 'MISSING_OPTION', /scaling\.maxPositionEmbeddings/);
  throwsPosEnc(ap({ type: 'linear', factor: 2, Factor: 3 }), 'UNKNOWN_OPTION', /unknown option 'scaling\.Factor'.*did you mean 'factor'/);
  throwsPosEnc(ap({ type: 'linear', factor: 2, betaFast: 3 }), 'UNKNOWN_OPTION', /'scaling\.betaFast' for scaling type 'linear'/);
  throwsPosEnc(ap({ type: 'default', factor: 2 }), 'UNKNOWN_OPTION', /takes no parameters/);
  throwsPosEnc(ap({ type: 'linear', factor: '2' }), 'INVALID_TYPE', /scaling\.factor must be a number/);
  throwsPosEnc(ap({ type: 'linear', factor: NaN }), 'INVALID_ARGUMENT', /scaling\.factor must be a finite number/);
  throwsPosEnc(ap({ type: 'linear', factor: -2 }), 'INVALID_ARGUMENT', /rope\.apply: scaling\.factor must be a finite number > 0, got -2/);
  throwsPosEnc(ap({ type: 'linear', factor: 0 }), 'INVALID_ARGUMENT', /scaling\.factor/);
  throwsPosEnc(fr({ type: 'ntk', factor: 2 }, { rotaryDim: 2 }), 'INVALID_ARGUMENT', /rotaryDim must be >= 4 for scaling type 'ntk'/);
  throwsPosEnc(fr({ type: 'dynamic', factor: 2, maxPositionEmbeddings: 0 }), 'INVALID_ARGUMENT', /scaling\.maxPositionEmbeddings must be a finite number > 0/);
  throwsPosEnc(fr({ type: 'yarn', factor: 4 }), 'MISSING_OPTION', /'scaling\.originalMaxPositionEmbeddings' \(or 'scaling\.maxPositionEmbeddings'\)/);
  throwsPosEnc(fr({ type: 'yarn', originalMaxPositionEmbeddings: 4096 }), 'MISSING_OPTION', /'scaling\.factor' is required for scaling type 'yarn' unless/);
  throwsPosEnc(fr({ type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, truncate: 'no' }), 'INVALID_TYPE', /scaling\.truncate must be true or false/);
  throwsPosEnc(fr({ type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, betaFast: 0 }), 'INVALID_ARGUMENT', /scaling\.betaFast/);
  throwsPosEnc(fr({ type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, attentionFactor: 1, ggmlAttnFactor: 1 }), 'INVALID_ARGUMENT', /not both/);
  throwsPosEnc(fr({ type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, attentionFactor: -1 }), 'INVALID_ARGUMENT', /scaling\.attentionFactor/);
  throwsPosEnc(fr({ type: 'llama3', lowFreqFactor: 4, highFreqFactor: 2 }), 'INVALID_ARGUMENT', /scaling\.highFreqFactor must be at least scaling\.lowFreqFactor/);
  throwsPosEnc(fr({ type: 'longrope', longFactor: [1] }), 'MISSING_OPTION', /scaling\.shortFactor/);
  throwsPosEnc(fr({ type: 'longrope', shortFactor: [1], longFactor: [1] }), 'MISSING_OPTION', /originalMaxPositionEmbeddings/);
  throwsPosEnc(fr({ type: 'longrope', shortFactor: [1], longFactor: [1], originalMaxPositionEmbeddings: 4 }), 'MISSING_OPTION', /'scaling\.factor' is required for scaling type 'longrope' unless/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 96, scaling: { ...phi35, longFactor: phiLong.slice(1) } }), 'SHAPE_MISMATCH', /scaling\.longFactor must have rotaryDim\/2 = 48 entries, got 47/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 96, scaling: { ...phi35, shortFactor: 'x' } }), 'INVALID_TYPE', /scaling\.shortFactor must be an array/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 96, scaling: { ...phi35, shortFactor: [...phiShort.slice(1), 'a'] } }), 'INVALID_TYPE', /scaling\.shortFactor\[47\]/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 96, scaling: { ...phi35, shortFactor: [0, ...phiShort.slice(1)] } }), 'INVALID_ARGUMENT', /scaling\.shortFactor\[0\] must be a finite number > 0/);
  throwsPosEnc(ap({ type: 'linear', factor: 2 }, { seqLen: 0 }), 'INVALID_ARGUMENT', /seqLen must be an integer >= 1/);
  throwsPosEnc(ap({ type: 'linear', factor: 2 }, { seqLen: 2.5 }), 'INVALID_ARGUMENT', /seqLen/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 8, seqLen: 4 }, { seqLen: 5 }), 'INVALID_ARGUMENT', /give seqLen once/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 8 }, { seqlen: 5 }), 'UNKNOWN_OPTION', /did you mean 'seqLen'/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 8, layout: 'bshd' }), 'UNKNOWN_OPTION', /'layout'/);
  throwsPosEnc(() => pe.rope.angles({ rotaryDim: 8 }, []), 'INVALID_ARGUMENT', /positionIds must hold at least one id/);
  throwsPosEnc(() => pe.rope.angles({ rotaryDim: 8 }, [1, NaN]), 'INVALID_ARGUMENT', /positionIds\[1\] must be a finite number/);
  throwsPosEnc(() => pe.rope.angles({ rotaryDim: 8 }, 'x'), 'INVALID_TYPE', /positionIds/);
  throwsPosEnc(() => pe.rope.apply(q, null, { dims: [2, 16], mropeSection: [2, 3, 3] }), 'INVALID_ARGUMENT', /applyMultimodal/);
  throwsPosEnc(() => pe.rope.createCache({ rotaryDim: 16, maxPositions: 4, scaling: { type: 'linear' } }), 'MISSING_OPTION', /rope\.createCache: option 'scaling\.factor'/);
  assert.deepEqual(q, q0, 'q untouched by failed calls');
});
