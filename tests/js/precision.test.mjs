// The precision oracle (pe.precision.oracle) against an emulation written here from the upstream
// code: Hugging Face's modeling_rope_utils.py _compute_default/_llama3/_yarn_parameters and
// LlamaRotaryEmbedding.forward + apply_rotary_pos_emb, ggml-cpu ops.cpp ggml_rope_cache_init /
// rope_yarn / rotate_pairs, float32 steps as Math.fround and float16/bfloat16 rounding to nearest
// even written independently of the C++ core. Then plans, buckets, summaries and the errors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const f = Math.fround;
const fixture = (name) => readFileSync(new URL(`../fixtures/models/${name}`, import.meta.url), 'utf8');

/** Round half to even of a real number v (an exact double). */
function roundEven(v) {
  const r = Math.round(v);
  return Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** x (a double) rounded to float16 or bfloat16, nearest, ties to even. */
function roundTo(x, format) {
  if (format === 'float32') return f(x);
  if (x === 0 || !Number.isFinite(x)) return x;
  const [bits, minExp, max] = format === 'float16' ? [10, -14, 65504] : [7, -126, 255 * 2 ** 120];
  let e = Math.floor(Math.log2(Math.abs(x)));
  if (2 ** e > Math.abs(x)) e -= 1;
  if (2 ** (e + 1) <= Math.abs(x)) e += 1;
  const q = 2 ** (Math.max(e, minExp) - bits);
  const r = roundEven(x / q) * q;
  return Math.abs(r) > max ? Math.sign(x) * Infinity : r;
}

/** HF float32 inverse frequencies, written from _compute_default_rope_parameters. */
const hfDefault = (base, dim) => Array.from({ length: dim / 2 }, (_, i) => f(1 / f(f(base) ** f((2 * i) / dim))));

/** HF float32 llama3 frequencies, written from _compute_llama3_parameters (`x / t` = t.reciprocal() * x). */
function hfLlama3(base, dim, { factor, low, high, old }) {
  return hfDefault(base, dim).map((w) => {
    const wavelen = f(f(1 / w) * f(2 * Math.PI));
    const llama = wavelen > f(old / low) ? f(w / f(factor)) : w;
    const smooth = f(f(f(f(1 / wavelen) * f(old)) - f(low)) / f(high - low));
    const smoothed = f(f(f(f(1 - smooth) * llama) / f(factor)) + f(smooth * llama));
    return !(wavelen < f(old / high)) && !(wavelen > f(old / low)) ? smoothed : llama;
  });
}

/**
 * The errors the oracle reports, emulated: per position, max row error and rotation error of the
 * unit vector (pair i: (cos(0.5 + i), sin(0.5 + i))) for an HF activation format.
 */
function hfErrors(w32, w64, attention, p, format) {
  let rows = 0;
  let rotation = 0;
  const a32 = f(attention);
  w32.forEach((w, i) => {
    const theta = f(w * f(p));
    const c = roundTo(f(f(Math.cos(theta)) * a32), format);
    const s = roundTo(f(f(Math.sin(theta)) * a32), format);
    const ce = attention * Math.cos(p * w64[i]);
    const se = attention * Math.sin(p * w64[i]);
    rows = Math.max(rows, Math.abs(c - ce), Math.abs(s - se));
    const a = roundTo(f(Math.cos(0.5 + i)), format);
    const b = roundTo(f(Math.sin(0.5 + i)), format);
    const op = (v) => roundTo(f(v), format); // computed in float32, rounded to the activation format
    const ra = op(op(a * c) + op(-b * s));
    const rb = op(op(b * c) + op(a * s));
    rotation = Math.max(rotation, Math.abs(ra - (a * ce - b * se)), Math.abs(rb - (a * se + b * ce)));
  });
  return { rows, rotation };
}

/**
 * ggml: theta = p, theta *= theta_scale per pair (ggml_rope_cache_init); per pair theta / ff,
 * freq_scale interpolation and the YaRN ramp (rope_yarn, rope_yarn_ramp); rotation in float32
 * (rotate_pairs), then stored in `storage`. `y`: { freqScale, low, high, attnFactor } for YaRN.
 */
function ggmlErrors(base, dim, w64, attention, p, storage, { ff, y } = {}) {
  const thetaScale = f(f(base) ** f(-2 / dim));
  let theta = f(p);
  let rows = 0;
  let rotation = 0;
  for (let i = 0; i < dim / 2; i++) {
    const extrap = f(theta / f(ff ? ff[i] : 1));
    let t = f(f(y ? y.freqScale : 1) * extrap);
    let mscale = f(attention);
    if (y) {
      const ramp = 1 - Math.min(1, Math.max(0, f(f(i - f(y.low)) / Math.max(f(0.001), f(y.high - y.low)))));
      t = f(f(t * f(1 - ramp)) + f(extrap * ramp));
      mscale = f(f(y.attnFactor) * f(1 + f(f(0.1) * f(Math.log(f(1 / f(y.freqScale)))))));
    }
    const c = f(f(Math.cos(t)) * mscale);
    const s = f(f(Math.sin(t)) * mscale);
    const ce = attention * Math.cos(p * w64[i]);
    const se = attention * Math.sin(p * w64[i]);
    rows = Math.max(rows, Math.abs(c - ce), Math.abs(s - se));
    const a = roundTo(f(Math.cos(0.5 + i)), storage);
    const b = roundTo(f(Math.sin(0.5 + i)), storage);
    const ra = roundTo(f(f(a * c) - f(b * s)), storage);
    const rb = roundTo(f(f(a * s) + f(b * c)), storage);
    rotation = Math.max(rotation, Math.abs(ra - (a * ce - b * se)), Math.abs(rb - (a * se + b * ce)));
    theta = f(theta * thetaScale);
  }
  return { rows, rotation };
}

/** HF float32 YaRN frequencies, written from _compute_yarn_parameters. */
function hfYarn(base, dim, factor, low, high) {
  return Array.from({ length: dim / 2 }, (_, i) => {
    const pos = f(f(base) ** f((2 * i) / dim));
    const ramp = Math.min(Math.max(f(f(i - f(low)) / f(high - low)), 0), 1);
    const extrapolationFactor = f(1 - ramp);
    return f(f(f(1 / f(f(factor) * pos)) * f(1 - extrapolationFactor)) + f(f(1 / pos) * extrapolationFactor));
  });
}

/** ggml_rope_yarn_corr_dims (ggml.c), float32. */
function corrDims(nDims, nCtxOrig, base, betaFast = 32, betaSlow = 1) {
  const dimOf = (nRot) => f(f(nDims * f(Math.log(f(nCtxOrig / f(f(f(nRot) * 2) * f(Math.PI)))))) / f(2 * f(Math.log(f(base)))));
  return [Math.max(0, Math.floor(dimOf(betaFast))), Math.min(nDims - 1, Math.ceil(dimOf(betaSlow)))];
}

/** Checks every position of a report against the emulation. */
function checkAgainst(report, emulate) {
  for (const pipe of report.pipelines) {
    for (let p = 0; p < report.contextLength; p++) {
      const want = emulate(pipe.name, p);
      assert.ok(Math.abs(pipe.cosSinError[p] - want.rows) <= 1e-12, `${pipe.name} rows at ${p}: ${pipe.cosSinError[p]} vs ${want.rows}`);
      assert.ok(Math.abs(pipe.rotationError[p] - want.rotation) <= 1e-12, `${pipe.name} rotation at ${p}: ${pipe.rotationError[p]} vs ${want.rotation}`);
    }
  }
}

test('every pipeline position by position: the default RoPE, HF and ggml, all formats', () => {
  const [base, dim] = [10000, 64];
  const report = pe.precision.oracle({ rotaryDim: dim, base }, { contextLength: 3000 });
  assert.deepEqual(report.pipelines.map((p) => p.name), ['hf-float32', 'hf-float16', 'hf-bfloat16', 'ggml-float32', 'ggml-float16']);
  const w64 = pe.rope.frequencies({ rotaryDim: dim, base }).invFreq;
  const w32 = hfDefault(base, dim);
  checkAgainst(report, (name, p) => {
    const format = name.slice(name.indexOf('-') + 1);
    return name.startsWith('hf') ? hfErrors(w32, w64, 1, p, format) : ggmlErrors(base, dim, w64, 1, p, format);
  });
  assert.equal(report.positions.length, 3000);
  assert.deepEqual(report.spec, { rotaryDim: 64, base: 10000, scalingType: 'default', attentionFactor: 1 });
});

test('scaled frequencies: HF llama3 in float32 steps (and its attention-free rows), against the emulation', () => {
  const spec = pe.rope.fromConfig(fixture('llama-3.2-1b-instruct.json'));
  const report = pe.precision.oracle(spec, { contextLength: 600, pipelines: ['hf-float32', 'hf-bfloat16'] });
  const s = spec.scaling;
  const w32 = hfLlama3(spec.base, spec.rotaryDim, { factor: s.factor, low: s.lowFreqFactor, high: s.highFreqFactor, old: s.originalMaxPositionEmbeddings });
  const w64 = pe.rope.frequencies(spec).invFreq;
  checkAgainst(report, (name, p) => hfErrors(w32, w64, 1, p, name.slice(3)));
});

test('scaled frequencies: HF YaRN, ggml YaRN (correction dims, ramp, mscale) and llama3 rope_freqs, against the emulation', () => {
  const yarn = { rotaryDim: 64, base: 10000, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 2048 } };
  const report = pe.precision.oracle(yarn, { contextLength: 500 });
  const freq = pe.rope.frequencies(yarn, { seqLen: 500 });
  const w32 = hfYarn(10000, 64, 4, freq.yarn.low, freq.yarn.high);
  const [low, high] = corrDims(64, 2048, 10000);
  const a = freq.attentionFactor;
  const y = { freqScale: f(1 / 4), low, high, attnFactor: a / (1 + 0.1 * Math.log(4)) };
  checkAgainst(report, (name, p) => {
    const format = name.slice(name.indexOf('-') + 1);
    return name.startsWith('hf') ? hfErrors(w32, freq.invFreq, a, p, format) : ggmlErrors(10000, 64, freq.invFreq, a, p, format, { y });
  });
  // llama3 in llama.cpp: the factors are the rope_freqs tensor, w_default / w_llama3 as float32
  const spec = pe.rope.fromConfig(fixture('llama-3.2-1b-instruct.json'));
  const l3 = pe.precision.oracle(spec, { contextLength: 300, pipelines: ['ggml-float32'] });
  const w = pe.rope.frequencies(spec).invFreq;
  const ff = Array.from(w, (v, i) => f(spec.base ** ((-2 * i) / spec.rotaryDim) / v));
  checkAgainst(l3, (name, p) => ggmlErrors(spec.base, spec.rotaryDim, w, 1, p, 'float32', { ff }));
});

test('float32 angles: the error grows with the position, formats order as their precision; buckets are maxima', () => {
  const each = pe.precision.oracle({ rotaryDim: 128, base: 500000 }, { contextLength: 32768 });
  const report = pe.precision.oracle({ rotaryDim: 128, base: 500000 }, { contextLength: 32768, bucket: 4096 });
  assert.deepEqual(report.positions, [0, 4096, 8192, 12288, 16384, 20480, 24576, 28672]);
  const windowMax = (list, from, to) => Math.max(...list.slice(from, to));
  const by = Object.fromEntries(each.pipelines.map((p) => [p.name, p]));
  report.pipelines.forEach((p, k) => {
    for (let b = 0; b < 8; b++) {
      assert.equal(p.cosSinError[b], windowMax(each.pipelines[k].cosSinError, 4096 * b, 4096 * (b + 1)));
      assert.equal(p.rotationError[b], windowMax(each.pipelines[k].rotationError, 4096 * b, 4096 * (b + 1)));
    }
    assert.equal(p.maxRotationError, Math.max(...p.rotationError));
    assert.equal(p.maxRotationErrorPosition, 4096 * p.rotationError.indexOf(p.maxRotationError));
    assert.ok(p.steps.length >= 4 && p.steps.every((line) => typeof line === 'string'));
  });
  // float32 angles: ~p * ulp(w), so positions near 32k are 100x worse than positions below 64
  for (const name of ['hf-float32', 'ggml-float32']) {
    assert.ok(windowMax(by[name].cosSinError, 32704, 32768) > 100 * windowMax(by[name].cosSinError, 1, 64), name);
  }
  // At small positions the format dominates: bfloat16 > float16 > float32
  const small = (n) => windowMax(by[n].rotationError, 0, 64);
  assert.ok(small('hf-bfloat16') > small('hf-float16') && small('hf-float16') > 10 * small('hf-float32'));
  assert.ok(small('ggml-float16') > 10 * small('ggml-float32'));
  assert.ok(small('hf-bfloat16') < 2 ** -6 && small('hf-float16') < 2 ** -9 && small('hf-float32') < 1e-5);
});

test('a plan: the first RoPE layer by default, LongRoPE at the context length, YaRN in ggml', () => {
  const plan = pe.model.fromConfig(fixture('phi-3.5-mini-instruct.json'));
  const short = pe.precision.oracle(plan, { contextLength: 4096, bucket: 4096, pipelines: ['hf-float32'] });
  const long = pe.precision.oracle(plan, { contextLength: 8192, bucket: 8192, pipelines: ['hf-float32'] });
  assert.equal(short.spec.scalingType, 'longrope');
  assert.match(short.notes[0], /^layer 0 /);
  assert.ok(short.pipelines[0].maxRotationError > 0 && long.pipelines[0].maxRotationError > 0);
  const yarn = { rotaryDim: 64, base: 10000, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 2048 } };
  const y = pe.precision.oracle(yarn, { contextLength: 100 });
  assert.equal(y.pipelines.length, 5);
  assert.ok(Math.abs(y.spec.attentionFactor - (0.1 * Math.log(4) + 1)) < 1e-15);
  // the rows carry the attention factor: every pipeline's rows are within float32 reach of it at position 0
  for (const p of y.pipelines.filter((q) => q.name.endsWith('float32'))) assert.ok(p.cosSinError[0] < 1e-6, p.name);
});

test('pipelines that cannot run a RoPE are left out with a note, or refused when asked for', () => {
  const dynamic = { rotaryDim: 32, scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 64 } };
  const r = pe.precision.oracle(dynamic, { contextLength: 128 });
  assert.deepEqual(r.pipelines.map((p) => p.name), ['hf-float32', 'hf-float16', 'hf-bfloat16']);
  assert.match(r.notes.join(), /ggml pipelines left out: llama.cpp has no dynamic NTK scaling/);
  throwsPosEnc(() => pe.precision.oracle(dynamic, { contextLength: 128, pipelines: ['ggml-float16'] }), 'INVALID_ARGUMENT', /ggml-float16 cannot run this RoPE/);
  const noTruncate = { rotaryDim: 32, scaling: { type: 'yarn', factor: 2, originalMaxPositionEmbeddings: 64, truncate: false } };
  throwsPosEnc(() => pe.precision.oracle(noTruncate, { contextLength: 8, pipelines: ['ggml-float32'] }), 'INVALID_ARGUMENT', /floors and ceils/);
});

test('bad arguments', () => {
  const spec = { rotaryDim: 16 };
  throwsPosEnc(() => pe.precision.oracle(spec, {}), 'MISSING_OPTION', /contextLength/);
  throwsPosEnc(() => pe.precision.oracle(spec, { contextLength: 0 }), 'INVALID_ARGUMENT', /contextLength/);
  throwsPosEnc(() => pe.precision.oracle(spec, { contextLength: 2 ** 24 + 1 }), 'OUT_OF_RANGE', /2\^24/);
  throwsPosEnc(() => pe.precision.oracle(spec, { contextLength: 8, pipelines: ['hf-float64'] }), 'INVALID_ARGUMENT', /pipelines\[0\]/);
  throwsPosEnc(() => pe.precision.oracle(spec, { contextLength: 8, pipelines: [] }), 'INVALID_TYPE', /non-empty array/);
  throwsPosEnc(() => pe.precision.oracle(spec, { contextLength: 8, bucket: 0 }), 'INVALID_ARGUMENT', /bucket/);
  throwsPosEnc(() => pe.precision.oracle(spec, { contextLength: 8, layer: 1 }), 'INVALID_ARGUMENT', /'layer' needs a plan/);
  throwsPosEnc(() => pe.precision.oracle(spec, { contextLength: 8, context: 8 }), 'UNKNOWN_OPTION', /context/);
  throwsPosEnc(() => pe.precision.oracle(null, { contextLength: 8 }), 'INVALID_TYPE', /planOrSpec/);
  const bloom = pe.model.fromConfig({ model_type: 'bloom', n_layer: 2, n_head: 4, hidden_size: 64 });
  throwsPosEnc(() => pe.precision.oracle(bloom, { contextLength: 8 }), 'INVALID_ARGUMENT', /no layer .* uses RoPE/);
  const plan = pe.model.fromConfig(fixture('llama-3.2-1b-instruct.json'));
  throwsPosEnc(() => pe.precision.oracle(plan, { contextLength: 8, layer: 16 }), 'OUT_OF_RANGE', /layer 16 is outside/);
});

test('oracle: a call past its work bound is refused up front (issue 22, item 9)', () => {
  const before = pe.memory.bytes;
  throwsPosEnc(() => pe.precision.oracle({ rotaryDim: 2 ** 27, base: 10000 }, { contextLength: 8 }), 'OUT_OF_RANGE', /at most 2\^26 \(and at most 65536 lanes\)/);
  throwsPosEnc(() => pe.precision.oracle({ rotaryDim: 1024, base: 10000 }, { contextLength: 2 ** 18 }), 'OUT_OF_RANGE', /134217728 position-pairs/);
  const plan = pe.model.fromConfig({ model_type: 'llama', num_hidden_layers: 1, hidden_size: 4096, num_attention_heads: 1, rope_theta: 10000 });
  throwsPosEnc(() => pe.precision.oracle(plan, { contextLength: 2 ** 16 }), 'OUT_OF_RANGE', /position-pairs/);
  assert.equal(pe.memory.bytes, before, 'nothing was allocated');
  // at the bound it runs
  assert.equal(pe.precision.oracle({ rotaryDim: 2, base: 10000 }, { contextLength: 4096 }).contextLength, 4096);
});
