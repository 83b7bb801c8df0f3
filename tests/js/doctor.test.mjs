// The convention doctor (pe.doctor): identify() on tensors rotated by known conventions (pe.rope.apply
// with every scaling, both pairings, partial rotary, offsets, layouts; an emulated Hugging Face
// float32 pipeline; bfloat16 data) must name the convention, reproduce `after` and say how sure it
// is; config() must list the ambiguities of real configs (tests/fixtures/models) and the choice made.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const fixture = (name) => readFileSync(new URL(`../fixtures/models/${name}`, import.meta.url), 'utf8');

/** before (random head rows) and after (rotated with `spec` at positions given + offset). */
function rotated(spec, { seq = 16, heads = 4, headDim = 64, first = 0, offset = 0, seed = 71 } = {}) {
  const dims = [1, seq, heads * headDim];
  const before = randomFloats(seq * heads * headDim, seed);
  const after = before.slice();
  pe.rope.apply(after, null, { ...spec, numHeads: heads, dims, offset: first + offset });
  return { before, after, shape: { numHeads: heads, dims, offset: first } };
}

const CASES = [
  ['default, half', { base: 10000 }, {}, { base: 10000, pairing: 'half', rotaryDim: 64 }],
  ['interleaved, partial rotary 32 of 80', { base: 10000, pairing: 'interleaved', rotaryDim: 32 }, { headDim: 80 }, { base: 10000, pairing: 'interleaved', rotaryDim: 32 }],
  ['half, partial rotary 20 of 80 (StableLM)', { base: 10000, rotaryDim: 20 }, { headDim: 80 }, { base: 10000, pairing: 'half', rotaryDim: 20 }],
  ['linear x4', { base: 10000, scaling: { type: 'linear', factor: 4 } }, {}, { scaling: { type: 'linear', factor: 4 } }],
  ['llama3 (Llama 3.1)', { base: 500000, scaling: { type: 'llama3' } }, { headDim: 128 },
    { base: 500000, scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 } }],
  ['yarn (DeepSeek-like factor 40, base 10000)', { base: 10000, scaling: { type: 'yarn', factor: 40, originalMaxPositionEmbeddings: 4096 } }, { headDim: 64 },
    { base: 10000, scaling: { type: 'yarn', factor: 40, originalMaxPositionEmbeddings: 4096 } }],
  ['yarn (Qwen-like, base 1e6)', { base: 1e6, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32768 } }, { headDim: 128 },
    { base: 1e6, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32768 } }],
];

test('identify names the convention of pe.rope.apply: pairing, rotary width, base, scaling, offset', () => {
  for (const [name, spec, shape, want] of CASES) {
    const { before, after, shape: opts } = rotated(spec, { ...shape, first: 100, offset: 37 });
    const r = pe.doctor.identify(before, after, opts);
    for (const [key, value] of Object.entries(want)) assert.deepEqual(r.spec[key], value, `${name}: ${key}`);
    assert.equal(r.offset, 37, name);
    assert.ok(r.residual < 1e-6, `${name}: residual ${r.residual}`);
    assert.equal(r.scalingType, want.scaling?.type ?? 'default', name);
    assert.notEqual(r.confidence, 'low', `${name}: ${r.notes.join('; ')}`);
    assert.equal(r.candidates[0].pairing, r.spec.pairing);
  }
});

test('identify: YaRN attention factor, and YaRN against Llama 3.1 told apart', () => {
  const yarn = rotated({ base: 10000, scaling: { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 2048 } }, { headDim: 128 });
  const ry = pe.doctor.identify(yarn.before, yarn.after, yarn.shape);
  assert.equal(ry.scalingType, 'yarn');
  assert.ok(Math.abs(ry.attentionFactor - (0.1 * Math.log(8) + 1)) < 1e-7);
  assert.equal(ry.confidence, 'high');
  const given = rotated({ base: 10000, scaling: { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 2048, attentionFactor: 1.5 } }, { headDim: 128 });
  const rg = pe.doctor.identify(given.before, given.after, given.shape);
  assert.equal(rg.spec.scaling.attentionFactor, 1.5);
  assert.ok(rg.residual < 1e-6);
  // YaRN with attention factor 1 (Ministral 3's mscale = mscale_all_dim): the ramp's shape alone says YaRN
  const plain = rotated({ base: 10000, scaling: { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 2048, attentionFactor: 1 } }, { headDim: 128 });
  const rp = pe.doctor.identify(plain.before, plain.after, plain.shape);
  assert.deepEqual(rp.spec.scaling, { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 2048, attentionFactor: 1 });
  // Llama 3.2 (factor 32) in a 64-lane head: 3 blended pairs
  const l32 = rotated(JSON.parse(JSON.stringify(pe.rope.fromConfig(fixture('llama-3.2-1b-instruct.json')))), { headDim: 64, first: 10 });
  const rl = pe.doctor.identify(l32.before, l32.after, l32.shape);
  assert.deepEqual(rl.spec.scaling, { type: 'llama3', factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 });
  assert.match(rl.notes.join(), /lowFreqFactor 1 is assumed/);
});

test('identify: static NTK reads as its larger base; LongRoPE as per-pair factors that reproduce the data', () => {
  const ntk = rotated({ base: 10000, scaling: { type: 'ntk', factor: 4 } });
  const rn = pe.doctor.identify(ntk.before, ntk.after, ntk.shape);
  const effective = pe.rope.frequencies({ rotaryDim: 64, scaling: { type: 'ntk', factor: 4 } }).effectiveBase;
  assert.ok(Math.abs(rn.spec.base / effective - 1) < 1e-5, `${rn.spec.base} vs ${effective}`);
  assert.match(rn.notes.join(), /static NTK-aware scaling .* cannot be told from a larger base/);
  const factors = Array.from({ length: 32 }, (_, i) => 1 + ((i * 7) % 5) / 3);
  const lr = rotated({ base: 10000, scaling: { type: 'longrope', shortFactor: factors, longFactor: factors, originalMaxPositionEmbeddings: 4096, factor: 16 } });
  const rl = pe.doctor.identify(lr.before, lr.after, lr.shape);
  assert.equal(rl.scalingType, 'longrope');
  assert.ok(rl.residual < 1e-5, `${rl.residual}`);
  assert.ok(Math.abs(rl.attentionFactor - Math.sqrt(1 + Math.log(16) / Math.log(4096))) < 1e-6);
  assert.equal(rl.confidence, 'medium');
});

test('identify: 4-D layouts, batches with their own positions, negative offsets', () => {
  const [batch, heads, seq, headDim] = [2, 3, 9, 32];
  const before = randomFloats(batch * heads * seq * headDim, 72);
  const after = before.slice();
  const given = Array.from({ length: batch * seq }, (_, i) => (i < seq ? i : i - seq + 50));
  pe.rope.apply(after, null, { layout: 'bhsd', dims: [batch, heads, seq, headDim], pairing: 'interleaved', base: 1e6, positionIds: given.map((p) => p - 5) });
  const r = pe.doctor.identify({ data: before, dims: [batch, heads, seq, headDim] }, { data: after, dims: [batch, heads, seq, headDim] }, { layout: 'bhsd', positionIds: given });
  assert.deepEqual(r.spec, { headDim: 32, rotaryDim: 32, base: 1e6, pairing: 'interleaved' });
  assert.equal(r.offset, -5);
  assert.ok(r.residual < 1e-6);
});

test('identify: an emulated Hugging Face float32 pipeline at large positions is still named, within its own noise', () => {
  // LlamaRotaryEmbedding.forward: theta = fl32(inv_freq32 * fl32(p)), cos/sin in float32, rotation in float32.
  // Near position 5000 such angles are off by up to 2.4e-4 rad, and steadily so over a few positions:
  // the slope of some pairs' angles is off by more than the scatter shows.
  const f = Math.fround;
  const [seq, heads, headDim, first] = [24, 4, 128, 5000];
  const half = headDim / 2;
  for (const spec of [{ base: 10000 }, { base: 500000, scaling: { type: 'llama3' } }]) {
    const before = randomFloats(seq * heads * headDim, 73);
    const after = before.slice();
    const w32 = Array.from(pe.rope.frequencies({ rotaryDim: headDim, ...spec }).invFreq, (w) => f(w));
    for (let s = 0; s < seq; s++) {
      for (let h = 0; h < heads; h++) {
        for (let i = 0; i < half; i++) {
          const theta = f(w32[i] * f(first + s));
          const [c, sn] = [f(Math.cos(theta)), f(Math.sin(theta))];
          const o = (s * heads + h) * headDim;
          const [a, b] = [before[o + i], before[o + i + half]];
          after[o + i] = f(f(a * c) - f(b * sn));
          after[o + i + half] = f(f(a * sn) + f(b * c));
        }
      }
    }
    const r = pe.doctor.identify(before, after, { numHeads: heads, dims: [1, seq, heads * headDim], offset: first });
    const want = spec.scaling ? { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 } : undefined;
    assert.deepEqual(r.spec.scaling, want);
    assert.equal(r.spec.base, spec.base);
    assert.equal(r.offset, 0);
    assert.ok(r.residual > 1e-6 && r.residual < 1e-4, `${r.residual}`);
    assert.notEqual(r.confidence, 'low');
  }
});

test('identify says what the data cannot tell: one pair, positions apart, bfloat16 noise', () => {
  const one = rotated({ base: 10000 }, { headDim: 2, heads: 1 });
  const r1 = pe.doctor.identify(one.before, one.after, one.shape);
  // issue 22, item 8: a genuine 2-lane rotation gives a finite answer (it was base NaN, residual Infinity)
  assert.equal(r1.confidence, 'medium');
  assert.equal(r1.spec.base, 10000);
  assert.ok(Number.isFinite(r1.residual) && r1.residual < 1e-6, `${r1.residual}`);
  assert.match(r1.notes.join(), /one rotated pair \(2 lanes\).*cannot determine a base/);
  const linear = rotated({ base: 10000, scaling: { type: 'linear', factor: 4 } }, { headDim: 2, heads: 1 });
  const r1b = pe.doctor.identify(linear.before, linear.after, linear.shape);
  assert.deepEqual(r1b.spec.scaling, { type: 'linear', factor: 4 });
  const b = randomFloats(8 * 64, 74);
  const a = b.slice();
  const ids = [0, 3, 6, 9, 12, 15, 18, 21];
  pe.rope.apply(a, null, { dims: [8, 64], positionIds: ids });
  const r2 = pe.doctor.identify(b, a, { dims: [8, 64], positionIds: ids });
  assert.equal(r2.spec.base, 10000);
  assert.equal(r2.confidence, 'medium');
  assert.match(r2.notes.join(), /closest positions are 3 apart/);
  // bfloat16 storage: the lowest frequencies of Llama 3.1 turn too little over 16 positions to be seen
  const bf = (x) => { const v = new Float32Array([x]); const u = new Uint32Array(v.buffer); u[0] = (u[0] + 0x7fff + ((u[0] >> 16) & 1)) & 0xffff0000; return v[0]; };
  const l = rotated({ base: 500000, scaling: { type: 'llama3' } }, { headDim: 128, first: 50 });
  const r3 = pe.doctor.identify(l.before.map(bf), l.after.map(bf), l.shape);
  assert.equal(r3.spec.pairing, 'half');
  assert.notEqual(r3.confidence, 'high');
  assert.match(r3.notes.join(), /pairs turn too little between the positions given/);
});

test('identify: bad arguments', () => {
  const x = randomFloats(4 * 8, 75);
  throwsPosEnc(() => pe.doctor.identify(x, x.slice(0, 16), { dims: [4, 8] }), 'SHAPE_MISMATCH', /after has 16 elements/);
  throwsPosEnc(() => pe.doctor.identify({ data: x, dims: [4, 8] }, { data: x, dims: [8, 4] }), 'SHAPE_MISMATCH', /before has dims \[4, 8\] but after \[8, 4\]/);
  throwsPosEnc(() => pe.doctor.identify(x, x, { dims: [4, 8], positionIds: [3, 3, 3, 3] }), 'INVALID_ARGUMENT', /every token is at position 3/);
  throwsPosEnc(() => pe.doctor.identify(x, x, { dims: [4, 8] }), 'INVALID_ARGUMENT', /before and after are equal/);
  throwsPosEnc(() => pe.doctor.identify(x, x, { dims: [4, 8], offset: 1, positionIds: [0, 1, 2, 3] }), 'INVALID_ARGUMENT', /either offset or positionIds/);
  throwsPosEnc(() => pe.doctor.identify(x, x, { dims: [4, 8], pairing: 'half' }), 'UNKNOWN_OPTION', /pairing/);
  throwsPosEnc(() => pe.doctor.identify(x, x), 'MISSING_OPTION', /dims/);
});

test('config: every ambiguity of real configs and the choice made', () => {
  const keys = (r) => r.findings.map((f) => f.key);
  const text = (r) => r.findings.map((f) => `${f.key}: ${f.text}`).join('\n');
  const phi3 = pe.doctor.config(fixture('phi-3-mini-128k-instruct.json'));
  assert.match(text(phi3), /rope_scaling\.type: rope_scaling\.type is the older spelling of rope_type/);
  assert.match(text(phi3), /LongRoPE: short factors up to 4096 tokens, long factors beyond\. Rule 'hf'/);
  assert.match(text(phi3), /LongRoPE attention factor 1\.19024/);
  assert.equal(phi3.plan.layers.length, 32);
  assert.match(text(pe.doctor.config(fixture('phi-4-mini-instruct.json'))), /partial_rotary_factor: partial_rotary_factor 0\.75 x head dim 128 = 96: rotary_dim 96 of 128 lanes; the other 32 pass through/);
  assert.match(text(pe.doctor.config(fixture('qwen3-0.6b.json'))), /head_dim: head_dim 128 is not hidden_size \/ num_attention_heads = 64/);
  const llama = pe.doctor.config(fixture('llama-3.1-8b-instruct.json'));
  assert.match(text(llama), /pairing 'half'.*GGUF files .* permuted .* pe\.rope\.permuteWeights/);
  assert.match(text(llama), /Llama 3\.1 scaling: 29 pairs keep their frequency \(wavelength below 2048\), 29 are divided by 8 \(wavelength above 8192\), 6 are blended/);
  assert.match(text(pe.doctor.config(fixture('aya-23-8b.json'))), /pairing 'interleaved': lanes 2i and 2i \+ 1 .*'cohere'/);
  assert.doesNotMatch(text(pe.doctor.config(fixture('qwen3-8b.json'))), /GGUF/);
  const gemma = pe.doctor.config(fixture('gemma-3-1b-it.json'));
  assert.match(text(gemma), /layers differ \(2 kinds\): pe\.rope\.fromConfig refuses this model/);
  assert.equal(keys(gemma).filter((k) => k === 'model_type').length, 1, 'one pairing finding for layers that agree');
  assert.match(text(pe.doctor.config(fixture('qwen2.5-7b.json'))), /sliding_window: sliding_window is not used/);
  assert.match(text(pe.doctor.config(fixture('qwen3-vl-2b-instruct.json'))), /M-RoPE sections \[24, 20, 20\], interleaved/);
});

test('config: spelled-out cases (truncation, both generations, YaRN factor, dynamic NTK) and errors', () => {
  const base = { model_type: 'llama', num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 4, hidden_size: 320, max_position_embeddings: 8192 };
  const text = (config) => pe.doctor.config(config).findings.map((f) => `${f.key}: ${f.text}`).join('\n');
  assert.match(text({ ...base, partial_rotary_factor: 0.33 }), /partial_rotary_factor 0\.33 x head dim 80 = 26\.4, truncated by int\(\) to 26: rotary_dim 26 of 80 lanes/);
  assert.match(text({ ...base, rope_theta: 10000, rope_parameters: { rope_type: 'default', rope_theta: 20000 }, rope_scaling: { type: 'linear', factor: 2 } }),
    /both rope_parameters \(transformers v5\) and rope_scaling \(v4\) are given[\s\S]*rope_theta: rope_theta 10000 and rope_parameters\.rope_theta 20000 differ/);
  assert.match(text({ ...base, rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 4096 } }),
    /YaRN factor 4 differs from max_position_embeddings \/ original_max_position_embeddings = 2[\s\S]*YaRN attention factor 1\.13863 \(0\.1 ln\(factor\) \+ 1\)/);
  assert.match(text({ ...base, rope_scaling: { rope_type: 'dynamic', factor: 2 } }), /dynamic NTK: transformers recomputes the base .* longer than 8192/);
  assert.match(text({ ...base, num_key_value_heads: undefined }), /num_key_value_heads is absent: 4 key\/value heads/);
  // A misspelt key is ignored, as transformers ignores it: the report says so, and what it is close to.
  assert.ok(pe.doctor.config({ ...base, rope_scalling: { type: 'linear' } }).findings.some((f) => f.key === 'rope_scalling' && /close to rope_scaling/.test(f.text)));
  throwsPosEnc(() => pe.doctor.config('{'), 'INVALID_CONFIG', /^doctor\.config: the config is not valid JSON/);
});

test('identify (issue 22, item 8): non-finite tensors, strided positions, YaRN without truncation', () => {
  const r = rotated({ base: 10000 }, { seq: 8, heads: 1 });
  for (const [name, bad] of [['before', NaN], ['after', Infinity], ['after', -Infinity]]) {
    const t = { before: r.before.slice(), after: r.after.slice() };
    t[name][37] = bad;
    throwsPosEnc(() => pe.doctor.identify(t.before, t.after, r.shape), 'INVALID_ARGUMENT', new RegExp(`${name}\\[37\\] is ${bad}: the tensors must hold finite values`));
  }
  // Positions with a common stride alias the fast pairs (by multiples of 2 pi / 7): unwrapped to the slow pairs' law.
  const b = randomFloats(8 * 64, 76);
  for (const [stride, spec] of [[7, { base: 10000 }], [9, { base: 500000, scaling: { type: 'linear', factor: 2 } }]]) {
    const ids = Array.from({ length: 8 }, (_, t) => stride * t);
    const a = b.slice();
    pe.rope.apply(a, null, { dims: [8, 64], positionIds: ids, ...spec });
    const got = pe.doctor.identify(b, a, { dims: [8, 64], positionIds: ids });
    assert.equal(got.spec.base, spec.base, `stride ${stride}`);
    assert.deepEqual(got.spec.scaling, spec.scaling, `stride ${stride}`);
    assert.ok(got.residual < 1e-6, `stride ${stride}: ${got.residual}`);
    assert.match(got.notes.join(), new RegExp(`positions are ${stride} apart: \\d+ pairs turn faster`));
    assert.doesNotMatch(got.notes.join(), /shortFactor/);
  }
  // gpt-oss: YaRN factor 32 from 4096, betas 32 and 1, no truncation of the correction range
  const gptOss = { base: 150000, scaling: { type: 'yarn', factor: 32, originalMaxPositionEmbeddings: 4096, truncate: false } };
  const y = rotated(gptOss, { seq: 64, heads: 1 });
  const got = pe.doctor.identify(y.before, y.after, y.shape);
  assert.deepEqual(got.spec.scaling, gptOss.scaling);
  assert.equal(got.spec.base, 150000);
  assert.ok(got.residual < 1e-6, `${got.residual}`);
  // and the truncated one is still told apart
  const truncated = { base: 150000, scaling: { type: 'yarn', factor: 32, originalMaxPositionEmbeddings: 4096 } };
  const t = rotated(truncated, { seq: 64, heads: 1 });
  assert.deepEqual(pe.doctor.identify(t.before, t.after, t.shape).spec.scaling, truncated.scaling);
});

test('identify (issue 22, item 9): work linear in the head width', async () => {
  const { fitWork } = await import('../../dist/tools/doctor-fit.js');
  for (const [headDim, rotaryDim, pairing] of [[8192, 2, 'interleaved'], [8192, 2, 'half'], [8192, 4096, 'half'], [4096, 4096, 'interleaved']]) {
    const seq = 4;
    const before = randomFloats(seq * headDim, 77);
    const after = before.slice();
    pe.rope.apply(after, null, { dims: [seq, headDim], rotaryDim, pairing });
    fitWork.pairRows = 0;
    const got = pe.doctor.identify(before, after, { dims: [seq, headDim] });
    assert.equal(got.spec.rotaryDim, rotaryDim);
    // one interleaved fit at the full width, at most 17 half-pairing fits: each pair-row at most 9 times per lane pair
    assert.ok(fitWork.pairRows <= 9 * headDim * seq, `${headDim} lanes, ${rotaryDim} rotated: ${fitWork.pairRows} pair-rows`);
  }
});
