// pe.rope.fromConfig with realistic Hugging Face config.json objects: the spec it builds, the
// frequencies that spec gives (worked values of docs/encodings.md), and every INVALID_CONFIG path.
// The numbers are those of the public configs named in each test, except the LongRoPE factor
// lists, which are plausible made-up lists of the right length (48 = rotary_dim/2).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, maxAbs, randomFloats, throwsPosEnc } from './helpers.mjs';
import { defaultFreq, llama3Freq, rotateRow, worstRelative, yarnFreq } from './rope-formulas.mjs';

const pe = await createPosEnc();

const llama31_8b = {
  architectures: ['LlamaForCausalLM'], hidden_size: 4096, intermediate_size: 14336, max_position_embeddings: 131072,
  model_type: 'llama', num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, rms_norm_eps: 1e-5,
  rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0, torch_dtype: 'bfloat16', vocab_size: 128256,
};

const phiShort = Array.from({ length: 48 }, (_, i) => 1 + 0.02 * i);
const phiLong = Array.from({ length: 48 }, (_, i) => 1.1 + 1.3 * i);
const phi35mini = {
  architectures: ['Phi3ForCausalLM'], hidden_size: 3072, max_position_embeddings: 131072, model_type: 'phi3',
  num_attention_heads: 32, num_key_value_heads: 32, original_max_position_embeddings: 4096, rope_theta: 10000.0,
  rope_scaling: { long_factor: phiLong, short_factor: phiShort, type: 'longrope' }, sliding_window: 262144,
};

test('Llama 3.1 8B: llama3 scaling, theta 500000, head 128; bands 0-28 / 29-34 / 35-63; apply equals the formula', () => {
  const spec = pe.rope.fromConfig(llama31_8b);
  assert.deepEqual(spec, {
    headDim: 128, rotaryDim: 128, base: 500000, pairing: 'half',
    scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
  });
  const f = pe.rope.frequencies(spec);
  assert.deepEqual([f.llama3.band.indexOf('blended'), f.llama3.band.lastIndexOf('blended'), f.llama3.band.indexOf('divided')], [29, 34, 35]);
  const q0 = randomFloats(3 * 128, 1, -3, 3);
  const q = q0.slice();
  pe.rope.apply(q, null, { ...spec, dims: [3, 128], positionIds: [0, 9000, 100000] });
  const { w } = llama3Freq(128, 500000);
  [0, 9000, 100000].forEach((p, s) => {
    const want = rotateRow(q0.subarray(s * 128, s * 128 + 128), 128, false, Array.from(w, (v) => p * v));
    assert.ok(worstRelative(q.subarray(s * 128, s * 128 + 128), want, maxAbs(q0)) <= 1e-6, `position ${p}`);
  });
  assert.deepEqual(pe.rope.fromConfig(JSON.stringify(llama31_8b)), spec, 'JSON text works too');
});

test('Phi-3.5-mini: longrope, r 96, original 4096 (top level), max 131072 -> factor 32, attention 1.190238', () => {
  const spec = pe.rope.fromConfig(phi35mini);
  assert.equal(spec.headDim, 96);
  assert.equal(spec.rotaryDim, 96);
  assert.equal(spec.pairing, 'half');
  assert.deepEqual(spec.scaling, { type: 'longrope', shortFactor: phiShort, longFactor: phiLong, originalMaxPositionEmbeddings: 4096, factor: 32 });
  const f = pe.rope.frequencies(spec, { seqLen: 4097 });
  assert.ok(Math.abs(f.attentionFactor - 1.190238) < 5e-7);
  assert.equal(f.longrope.list, 'long');
  assert.equal(pe.rope.frequencies(spec, { seqLen: 4096 }).longrope.list, 'short');
  const old = pe.rope.fromConfig({ ...phi35mini, rope_scaling: { ...phi35mini.rope_scaling, type: 'su' } });
  assert.deepEqual(old, spec, "Phi-3's older name 'su'");
});

test('a YaRN model (r 128, base 10000, original 4096, factor 4): low 20, high 46, attention 1.13863', () => {
  const spec = pe.rope.fromConfig({
    model_type: 'qwen2', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 16384, rope_theta: 10000,
    rope_scaling: { type: 'yarn', factor: 4.0, original_max_position_embeddings: 4096 },
  });
  assert.deepEqual(spec.scaling, { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, betaFast: 32, betaSlow: 1, truncate: true });
  const f = pe.rope.frequencies(spec);
  assert.deepEqual([f.yarn.low, f.yarn.high], [20, 46]);
  assert.ok(Math.abs(f.attentionFactor - 1.13863) < 5e-6);
  const ref = yarnFreq(128, 10000, { factor: 4, original: 4096 });
  f.invFreq.forEach((v, i) => assert.ok(Math.abs(v / ref.w[i] - 1) < 1e-14));
});

test('DeepSeek-V3: rope part of the head (qk_rope_head_dim 64), interleaved, mscale == mscale_all_dim -> attention exactly 1', () => {
  const spec = pe.rope.fromConfig({
    model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128, qk_nope_head_dim: 128, qk_rope_head_dim: 64,
    v_head_dim: 128, max_position_embeddings: 163840, rope_theta: 10000,
    rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' },
  });
  assert.deepEqual([spec.headDim, spec.rotaryDim, spec.pairing], [64, 64, 'interleaved']);
  assert.equal(pe.rope.frequencies(spec).attentionFactor, 1);
  const halfDs = pe.rope.fromConfig({ model_type: 'deepseek_v3', qk_rope_head_dim: 64, rope_interleave: false, num_attention_heads: 8, hidden_size: 512 });
  assert.equal(halfDs.pairing, 'half');
});

test('gpt-oss-like: yarn with truncate false keeps a fractional correction range; explicit head_dim', () => {
  const spec = pe.rope.fromConfig({
    model_type: 'gpt_oss', hidden_size: 2880, num_attention_heads: 64, head_dim: 64, max_position_embeddings: 131072, rope_theta: 150000,
    rope_scaling: { beta_fast: 32.0, beta_slow: 1.0, factor: 32.0, original_max_position_embeddings: 4096, rope_type: 'yarn', truncate: false },
  });
  assert.deepEqual([spec.headDim, spec.rotaryDim, spec.pairing, spec.scaling.truncate], [64, 64, 'half', false]);
  const f = pe.rope.frequencies(spec);
  const ref = yarnFreq(64, 150000, { factor: 32, original: 4096, truncate: false });
  assert.ok(Math.abs(f.yarn.low - ref.low) < 1e-13 && f.yarn.low !== Math.floor(f.yarn.low));
});

test('partial rotary: GPT-NeoX 0.25 (rotary_pct), Phi-2 0.4, GPT-J rotary_dim 64 interleaved', () => {
  const neox = pe.rope.fromConfig({ model_type: 'gpt_neox', hidden_size: 6144, num_attention_heads: 64, rotary_pct: 0.25, rotary_emb_base: 10000, max_position_embeddings: 2048 });
  assert.deepEqual(neox, { headDim: 96, rotaryDim: 24, base: 10000, pairing: 'half' });
  const phi2 = pe.rope.fromConfig({ model_type: 'phi', hidden_size: 2560, num_attention_heads: 32, partial_rotary_factor: 0.4, rope_theta: 10000.0 });
  assert.deepEqual(phi2, { headDim: 80, rotaryDim: 32, base: 10000, pairing: 'half' });
  const truncated = pe.rope.fromConfig({ hidden_size: 1024, num_attention_heads: 8, partial_rotary_factor: 0.38 });
  assert.equal(truncated.rotaryDim, 48, 'int(128 * 0.38) = int(48.64) = 48, as Python truncates');
  const gptj = pe.rope.fromConfig({ model_type: 'gptj', n_embd: 4096, n_head: 16, rotary_dim: 64, n_positions: 2048 });
  assert.deepEqual(gptj, { headDim: 256, rotaryDim: 64, base: 10000, pairing: 'interleaved' });
  const q0 = randomFloats(2 * 80, 5);
  const q = q0.slice();
  pe.rope.apply(q, null, { ...phi2, dims: [2, 80], offset: 7 });
  for (let j = 32; j < 80; j++) assert.equal(q[80 + j], q0[80 + j], 'pass-through lanes');
});

test('Qwen2-VL: mrope_section [16, 24, 24] over head 128, theta 1e6; the spec drives applyMultimodal', () => {
  const config = {
    model_type: 'qwen2_vl', hidden_size: 3584, num_attention_heads: 28, num_key_value_heads: 4, max_position_embeddings: 32768,
    rope_theta: 1000000.0, rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] },
  };
  const spec = pe.rope.fromConfig(config);
  assert.deepEqual(spec, { headDim: 128, rotaryDim: 128, base: 1000000, pairing: 'half', mropeSection: [16, 24, 24] });
  assert.deepEqual(pe.rope.fromConfig({ ...config, rope_scaling: { rope_type: 'default', mrope_section: [16, 24, 24] } }), spec);
  const q0 = randomFloats(4 * 128, 6);
  const q = q0.slice();
  const ids = [0, 1, 1, 5, /* h */ 0, 2, 3, 5, /* w */ 0, 4, 1, 5];
  pe.rope.applyMultimodal(q, null, { ...spec, dims: [4, 128], positionIds: ids });
  const w = defaultFreq(128, 1e6);
  for (let s = 0; s < 4; s++) {
    const angles = Array.from(w, (v, i) => ids[(i < 16 ? 0 : i < 40 ? 1 : 2) * 4 + s] * v);
    assert.ok(worstRelative(q.subarray(s * 128, s * 128 + 128), rotateRow(q0.subarray(s * 128, s * 128 + 128), 128, false, angles), 1) <= 1e-6);
  }
  throwsPosEnc(() => pe.rope.apply(q, null, { ...spec, dims: [4, 128] }), 'INVALID_ARGUMENT', /applyMultimodal/);
});

test('v5 rope_parameters, per-layer-type parameters, text_config, dynamic, defaults', () => {
  const v5 = pe.rope.fromConfig({ model_type: 'llama', hidden_size: 2048, num_attention_heads: 16, max_position_embeddings: 4096,
    rope_parameters: { rope_type: 'linear', factor: 2.0, rope_theta: 20000, partial_rotary_factor: 0.5 } });
  assert.deepEqual(v5, { headDim: 128, rotaryDim: 64, base: 20000, pairing: 'half', scaling: { type: 'linear', factor: 2 } });
  const gemmaLike = { model_type: 'gemma3_text', hidden_size: 2560, num_attention_heads: 8, head_dim: 256, num_hidden_layers: 6, sliding_window: 512,
    rope_parameters: { full_attention: { rope_type: 'linear', factor: 8.0, rope_theta: 1000000 }, sliding_attention: { rope_type: 'default', rope_theta: 10000 } } };
  assert.deepEqual(pe.rope.fromConfig(gemmaLike, { layerType: 'sliding_attention' }), { headDim: 256, rotaryDim: 256, base: 10000, pairing: 'half' });
  assert.equal(pe.rope.fromConfig(gemmaLike, { layerType: 'full_attention' }).scaling.factor, 8);
  throwsPosEnc(() => pe.rope.fromConfig(gemmaLike), 'INVALID_CONFIG', /layers differ \(layers 5 and 0 rotate differently\): use pe\.model\.fromConfig .*pick layers with layerType: sliding_attention, full_attention/);
  const llava = pe.rope.fromConfig({ model_type: 'llava', text_config: { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, rope_theta: 10000 } });
  assert.deepEqual(llava, { headDim: 128, rotaryDim: 128, base: 10000, pairing: 'half' });
  const dyn = pe.rope.fromConfig({ model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 4096, rope_scaling: { type: 'dynamic', factor: 2.0 } });
  assert.deepEqual(dyn.scaling, { type: 'dynamic', factor: 2, maxPositionEmbeddings: 4096 });
  assert.deepEqual(pe.rope.fromConfig({ hidden_size: 64, num_attention_heads: 2, rope_scaling: null }), { headDim: 32, rotaryDim: 32, base: 10000, pairing: 'half' });
  const cohere = pe.rope.fromConfig({ model_type: 'cohere', hidden_size: 8192, num_attention_heads: 64, rope_theta: 8000000.0 });
  assert.equal(cohere.pairing, 'interleaved');
});

test('inconsistent configs: INVALID_CONFIG naming the field', () => {
  const bad = (patch, pattern, base = llama31_8b) => throwsPosEnc(() => pe.rope.fromConfig({ ...base, ...patch }), 'INVALID_CONFIG', pattern);
  bad({ rope_scaling: { ...phi35mini.rope_scaling, long_factor: phiLong.slice(1) } }, /rope_scaling\.long_factor must have rotary_dim\/2 = 48 entries, got 47/, phi35mini);
  bad({ rope_scaling: { ...phi35mini.rope_scaling, short_factor: [...phiShort.slice(1), 'x'] } }, /rope_scaling\.short_factor\[47\] must be a number/, phi35mini);
  bad({ rope_scaling: { type: 'longrope', long_factor: phiLong } }, /rope_scaling\.short_factor is required for rope type 'longrope'/, phi35mini);
  bad({ hidden_size: 320, num_attention_heads: 32, partial_rotary_factor: 0.3, rope_scaling: null }, /partial_rotary_factor gives rotary_dim 3, which must be an even number/);
  bad({ partial_rotary_factor: 1.5 }, /partial_rotary_factor must be in \(0, 1\]/);
  bad({ rope_scaling: { rope_type: 'ntk-by-parts', factor: 2 } }, /rope_scaling\.rope_type 'ntk-by-parts' is not a RoPE type posenc knows/);
  bad({ rope_scaling: { type: 'magic' } }, /rope_scaling\.type 'magic'/);
  bad({ rope_scaling: { rope_type: 7 } }, /rope_scaling\.rope_type must be a string/);
  bad({ rope_scaling: { factor: 8.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' } }, /rope_scaling\.low_freq_factor is required for rope type 'llama3'/);
  bad({ rope_scaling: { ...llama31_8b.rope_scaling, high_freq_factor: 0.5 } }, /rope_scaling\.high_freq_factor \(0\.5\) must be at least rope_scaling\.low_freq_factor/);
  bad({ rope_theta: '500000' }, /rope_theta must be a number, got '500000'/);
  bad({ rope_theta: -1 }, /rope_theta must be > 0/);
  bad({ rope_scaling: { ...llama31_8b.rope_scaling, factor: 'eight' } }, /rope_scaling\.factor must be a number/);
  bad({ hidden_size: 4001, num_attention_heads: 32 }, /hidden_size 4001 is not divisible by num_attention_heads 32/);
  bad({ hidden_size: undefined, model_type: undefined }, /head_dim or hidden_size is required/);
  bad({ num_attention_heads: undefined, model_type: undefined }, /num_attention_heads is required/);
  bad({ rope_scaling: { type: 'linear' } }, /rope_scaling\.factor is required for rope type 'linear'/);
  bad({ max_position_embeddings: undefined, rope_scaling: { type: 'dynamic', factor: 2 } }, /max_position_embeddings is required for rope type 'dynamic'/);
  bad({ max_position_embeddings: undefined, rope_scaling: { type: 'yarn', factor: 2 } }, /original_max_position_embeddings or max_position_embeddings is required/);
  bad({ rope_scaling: { type: 'yarn', factor: 2, original_max_position_embeddings: 4096, truncate: 'no' } }, /rope_scaling\.truncate must be true or false/);
  bad({ rope_scaling: [1, 2] }, /rope_scaling must be an object, got an array/);
  bad({ rope_parameters: 5 }, /rope_parameters must be an object/);
  bad({ rope_scaling: { type: 'mrope', mrope_section: [16, 24, 23] } }, /rope_scaling\.mrope_section sums to 63, but rotary_dim\/2 is 64/);
  bad({ rope_scaling: { type: 'mrope', mrope_section: [24, 20, 20], mrope_interleaved: true } }, /mrope_interleaved/);
  bad({ model_type: 'gptj', rotary_dim: 512 }, /rotary_dim gives rotary_dim 512/);
  bad({ model_type: 'deepseek_v3', qk_rope_head_dim: -1 }, /qk_rope_head_dim must be > 0/);
  bad({ model_type: 'bert', position_embedding_type: 'absolute' }, /model_type 'bert' does not use RoPE/);
  bad({ model_type: 'falcon', alibi: true }, /model_type 'falcon' does not use RoPE \(it uses ALiBi\)/);
  bad({ model_type: 'llama', alibi: true }, /alibi is true, but model_type 'llama' uses RoPE/);
  bad({ rope_scaling: { ...llama31_8b.rope_scaling, beta_typo: 2 } }, /rope_scaling\.beta_typo is a RoPE parameter posenc does not know/);
  bad({ text_config: { hidden_size: 10, num_attention_heads: 4 }, hidden_size: undefined, num_attention_heads: undefined }, /text_config\.hidden_size 10 is not divisible by text_config\.num_attention_heads 4/);
  throwsPosEnc(() => pe.rope.fromConfig(llama31_8b, { layerType: 'sliding_attention' }), 'INVALID_ARGUMENT', /layerType 'sliding_attention' matches no layer \(the model has full_attention\)/);
  throwsPosEnc(() => pe.rope.fromConfig(llama31_8b, { layerType: 3 }), 'INVALID_TYPE', /layerType must be a string/);
  throwsPosEnc(() => pe.rope.fromConfig('{"hidden_size": 4096,'), 'INVALID_CONFIG', /not valid JSON/);
  throwsPosEnc(() => pe.rope.fromConfig(42), 'INVALID_TYPE', /config must be a config\.json object/);
  throwsPosEnc(() => pe.rope.fromConfig([1]), 'INVALID_TYPE', /config must be/);
  throwsPosEnc(() => pe.rope.fromConfig(llama31_8b, { layer: 'x' }), 'UNKNOWN_OPTION', /'layer'/);
});
