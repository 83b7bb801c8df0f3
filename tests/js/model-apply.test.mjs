// pe.model.apply, form by form, on plans read from configs with the values of the public models
// named: each layer's result against a float64 transcription of the transformers code that model
// runs (hf-rope-reference.mjs, cited per function), frequencies from modeling_rope_utils.py
// (model-formulas.mjs); lanes a layer does not rotate must pass through bit for bit.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';
import {
  applyAdjacentPairs, applyComplex, applyDeepseekInterleave, applyPartialHalf, applyRotateHalf, catTwice, pixtralFreqs, qwen2vlRows,
  qwen3vlFreqs,
} from './hf-rope-reference.mjs';
import { checkRows } from './model-apply-harness.mjs';
import {
  defaultFreq, dynamicFreq, hunyuanAlphaFreq, llama3Freq, logFloorScale, proportionalFreq, yarnAttentionFactor, yarnFreq,
} from './model-formulas.mjs';

const pe = await createPosEnc();
const range = (n, from = 0) => Array.from({ length: n }, (_, i) => from + i);

/** The layer's call as a checkRows runner. */
const applyOf = (plan, layer, extra = {}) => (q, k, dims, kDims) =>
  pe.model.apply(plan, layer, q, k, { layout: extra.layout ?? 'bshd', dims, kDims, ...extra.opts });

test('Gemma 4 proportional RoPE: 4 of 16 pairs of the whole head rotate, the other 12 pass through (global_head_dim 32)', () => {
  // HF _compute_proportional_rope_parameters (rope_angles = int(0.25 * 32 // 2) = 4, zeros after)
  // and Gemma4TextAttention: apply_rotary_pos_emb (rotate_half over the whole global head).
  const plan = pe.model.fromConfig({ model_type: 'gemma4_text', num_hidden_layers: 6, hidden_size: 64, num_attention_heads: 4,
    num_key_value_heads: 2, head_dim: 16, global_head_dim: 32, sliding_window: 512,
    rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1000000.0, rope_type: 'proportional' },
      sliding_attention: { rope_theta: 10000.0, rope_type: 'default' } } });
  const inv = proportionalFreq(32, 1e6, 0.25);
  const offset = 1000;
  for (const layout of ['bshd', 'bhsd']) {
    checkRows({ batch: 2, seq: 5, qHeads: 4, kHeads: 2, qDim: 32, layout }, applyOf(plan, 5, { layout, opts: { offset } }),
      (row, _b, s) => applyRotateHalf(row, catTwice(inv.map((w) => Math.cos((offset + s) * w))), catTwice(inv.map((w) => Math.sin((offset + s) * w)))),
      { exact: () => [...range(12, 4), ...range(12, 20)] });
  }
  // Sliding layers: the default RoPE over head_dim 16.
  const w = defaultFreq(16, 10000);
  checkRows({ batch: 1, seq: 3, qHeads: 4, kHeads: 2, qDim: 16 }, applyOf(plan, 0, { opts: { positionIds: [7, 3, 90] } }),
    (row, _b, s) => applyPartialHalf(row, w.map((v) => [7, 3, 90][s] * v)));
  // Gemma 4's own sizes (global_head_dim 512, 64 of 256 pairs) and a linear factor (HF: inv_freq /= factor).
  const big = pe.model.fromConfig({ model_type: 'gemma4_text', num_hidden_layers: 6, hidden_size: 1536, num_attention_heads: 8, head_dim: 256, sliding_window: 512,
    global_head_dim: 512, rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1e6, rope_type: 'proportional', factor: 8 },
      sliding_attention: { rope_theta: 10000.0, rope_type: 'default' } } });
  const inv8 = proportionalFreq(512, 1e6, 0.25, 8);
  checkRows({ batch: 1, seq: 2, qHeads: 2, kHeads: 1, qDim: 512 }, applyOf(big, 5, { opts: { offset: 123456 } }),
    (row, _b, s) => applyRotateHalf(row, catTwice(inv8.map((v) => Math.cos((123456 + s) * v))), catTwice(inv8.map((v) => Math.sin((123456 + s) * v)))),
    { exact: () => [...range(192, 64), ...range(192, 320)] });
});

test('Qwen3-VL interleaved M-RoPE (Qwen3-VL-2B values): t/h/w slots over pairs; Qwen2-VL sections; text = standard RoPE', () => {
  // Qwen3VLTextRotaryEmbedding.forward + apply_interleaved_mrope, then apply_rotary_pos_emb.
  const cfg = { model_type: 'qwen3_vl_text', num_hidden_layers: 2, hidden_size: 2048, num_attention_heads: 16, num_key_value_heads: 8,
    head_dim: 128, max_position_embeddings: 262144,
    rope_scaling: { mrope_interleaved: true, mrope_section: [24, 20, 20], rope_type: 'default' }, rope_theta: 5000000 };
  const plan = pe.model.fromConfig(cfg);
  const w = defaultFreq(128, 5000000);
  const [batch, seq] = [2, 4];
  const ids = Array.from({ length: 3 * batch * seq }, (_, i) => (i * 37) % 53);
  const axisFreqs = (b, s) => [0, 1, 2].map((a) => w.map((v) => ids[(a * batch + b) * seq + s] * v));
  checkRows({ batch, seq, qHeads: 2, kHeads: 1, qDim: 128, layout: 'bhsd' }, applyOf(plan, 1, { layout: 'bhsd', opts: { positionIds: ids } }),
    (row, b, s) => applyPartialHalf(row, qwen3vlFreqs(axisFreqs(b, s), [24, 20, 20])));
  // The same slots through pe.rope.applyMultimodal.
  const x0 = randomFloats(seq * 128, 3, -2, 2);
  const a = x0.slice();
  const bOnly = ids.filter((_, i) => Math.floor(i / seq) % batch === 0);
  pe.rope.applyMultimodal(a, null, { dims: [seq, 128], base: 5000000, mropeSection: [24, 20, 20], mropeInterleaved: true, positionIds: bOnly });
  const c = x0.slice();
  pe.model.apply(plan, 0, c, null, { dims: [seq, 128], positionIds: bOnly });
  assert.deepEqual(a, c);
  // Text: an offset means every axis at offset + s, which is the standard RoPE.
  checkRows({ batch: 1, seq: 3, qHeads: 1, qDim: 128 }, applyOf(plan, 0, { opts: { offset: 40 } }),
    (row, _b, s) => applyPartialHalf(row, w.map((v) => (40 + s) * v)));
  // Qwen2-VL (sections [16, 24, 24]): modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb.
  const q2 = pe.model.fromConfig({ model_type: 'qwen2_vl', num_hidden_layers: 1, hidden_size: 1536, num_attention_heads: 12, rope_theta: 1000000,
    rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } });
  const w2 = defaultFreq(128, 1e6);
  checkRows({ batch, seq, qHeads: 2, kHeads: 2, qDim: 128 }, applyOf(q2, 0, { opts: { positionIds: ids } }), (row, b, s) => {
    const { cos, sin } = qwen2vlRows([0, 1, 2].map((a2) => w2.map((v) => ids[(a2 * batch + b) * seq + s] * v)), [16, 24, 24]);
    return applyRotateHalf(row, cos, sin);
  });
});

test('DeepSeek-V3 decoupled RoPE: YaRN on the 64 lanes after 128 content lanes; rope_interleave de-interleaves (HF) or not (vLLM)', () => {
  // DeepSeek-V3's config values; DeepseekV3Attention: q = [q_pass, q_rot], k_rot [batch, 1, seq, 64] shared by the heads.
  const cfg = { model_type: 'deepseek_v3', num_hidden_layers: 2, hidden_size: 7168, num_attention_heads: 128, qk_nope_head_dim: 128,
    qk_rope_head_dim: 64, v_head_dim: 128, max_position_embeddings: 163840, rope_theta: 10000,
    rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' } };
  const plan = pe.model.fromConfig(cfg);
  const yarn = yarnFreq(64, 10000, { factor: 40, original: 4096 }).w;
  const att = yarnAttentionFactor(40, { mscale: 1, mscaleAllDim: 1 });
  const pos = [5000, 5001, 70000];
  const block = (row, d) => row.subarray(d - 64, d);
  const expect = (rotate) => (row, _b, s) => {
    const out = Float64Array.from(row);
    out.set(rotate(block(row, row.length), yarn.map((v) => pos[s] * v), att), row.length - 64);
    return out;
  };
  const run = (opts) => applyOf(plan, 0, { layout: 'bhsd', opts: { positionIds: pos, ...opts } });
  // q whole heads (192 lanes), k its rotary part alone: apply_rotary_pos_emb_interleave.
  checkRows({ batch: 1, seq: 3, qHeads: 3, kHeads: 1, qDim: 192, kDim: 64, layout: 'bhsd' }, run({}), expect(applyDeepseekInterleave),
    { exact: (row) => (row.length === 192 ? range(128) : []) });
  // laneOrder 'vllm': the adjacent pairs rotate in place (vLLM's is_neox_style=False rotary).
  checkRows({ batch: 1, seq: 3, qHeads: 2, kHeads: 2, qDim: 192, layout: 'bhsd' }, run({ laneOrder: 'vllm' }), expect(applyComplex));
  const m = 0.1 * Math.log(40) + 1;
  assert.equal(pe.model.softmaxScaleFactor(plan, 0), m * m);
  // rope_interleave false: plain rotate_half on the block.
  const flat = pe.model.fromConfig({ ...cfg, rope_interleave: false });
  checkRows({ batch: 1, seq: 3, qHeads: 2, kHeads: 1, qDim: 192, kDim: 64, layout: 'bhsd' },
    (q, k, dims, kDims) => pe.model.apply(flat, 1, q, k, { layout: 'bhsd', dims, kDims, positionIds: pos }),
    expect((x, f, a) => applyPartialHalf(x, f, a)));
  // DeepSeek-V2 (HF DeepseekV2Attention): complex multiply in place, softmax scale unchanged.
  const v2 = pe.model.fromConfig({ ...cfg, model_type: 'deepseek_v2', rope_scaling: { ...cfg.rope_scaling, mscale: 0.707, mscale_all_dim: 0.707 } });
  checkRows({ batch: 1, seq: 3, qHeads: 2, kHeads: 1, qDim: 192, kDim: 64, layout: 'bhsd' },
    (q, k, dims, kDims) => pe.model.apply(v2, 0, q, k, { layout: 'bhsd', dims, kDims, positionIds: pos }), expect(applyComplex));
  assert.equal(pe.model.softmaxScaleFactor(v2, 0), 1);
  assert.ok(v2.notes.some((n) => /DeepseekV2Attention keeps the softmax scale/.test(n)));
});

test('Llama 4 Scout: complex (adjacent) pairs with llama3 frequencies on RoPE layers; NoPE layers scale q by the attention temperature', () => {
  // Llama4TextRotaryEmbedding (freqs_cis = polar(1, freqs)), apply_rotary_emb; Llama4TextAttention.forward:
  // attn_scales = log(floor((cache_position + 1) / floor_scale) + 1) * attn_scale + 1 on NoPE layers.
  const plan = pe.model.fromConfig({ model_type: 'llama4_text', num_hidden_layers: 4, hidden_size: 5120, num_attention_heads: 40,
    num_key_value_heads: 8, head_dim: 128, rope_theta: 500000.0, attention_chunk_size: 8192, no_rope_layers: [], attn_temperature_tuning: true,
    floor_scale: 8192, attn_scale: 0.1, max_position_embeddings: 10485760,
    rope_scaling: { factor: 16.0, high_freq_factor: 1.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' } });
  const w = llama3Freq(128, 500000, { factor: 16, low: 1, high: 1, original: 8192 }).w;
  const offset = 8189;
  checkRows({ batch: 1, seq: 4, qHeads: 2, kHeads: 1, qDim: 128 }, applyOf(plan, 0, { opts: { offset } }),
    (row, _b, s) => applyComplex(row, w.map((v) => (offset + s) * v)));
  // Layer 3 has no RoPE: q times the temperature at its position (1 until p + 1 reaches 8192), k untouched.
  checkRows({ batch: 1, seq: 4, qHeads: 2, kHeads: 1, qDim: 128 }, applyOf(plan, 3, { opts: { offset } }),
    (row, _b, s, isQuery) => row.map((v) => (isQuery ? v * logFloorScale(offset + s, 0.1, 8192, 1) : v)),
    { exact: (_row, _b, s, isQuery) => (!isQuery || offset + s + 1 < 8192 ? range(128) : []) });
});

test('Ministral 3 (v5 rope_parameters): YaRN RoPE, and q scaled by 1 + beta ln(1 + floor(p / 16384)) on every layer', () => {
  // modeling_ministral3.py: apply_rotary_pos_emb, then query_states * get_llama_4_attn_scale(position_ids, beta, original).
  const plan = pe.model.fromConfig({ model_type: 'ministral3', num_hidden_layers: 2, hidden_size: 3072, num_attention_heads: 32, head_dim: 128,
    max_position_embeddings: 262144, rope_parameters: { rope_type: 'yarn', rope_theta: 1000000.0, factor: 16.0, original_max_position_embeddings: 16384,
      beta_fast: 32.0, beta_slow: 1.0, mscale: 1.0, mscale_all_dim: 1.0, llama_4_scaling_beta: 0.1 } });
  const w = yarnFreq(128, 1e6, { factor: 16, original: 16384 }).w;
  const att = yarnAttentionFactor(16, { mscale: 1, mscaleAllDim: 1 });
  const pos = [[16380, 16383, 16384, 40000], [3, 4, 5, 6]];
  checkRows({ batch: 2, seq: 4, qHeads: 2, kHeads: 1, qDim: 128 }, applyOf(plan, 1, { opts: { positionIds: pos.flat() } }), (row, b, s, isQuery) => {
    const p = pos[b][s];
    const out = applyPartialHalf(row, w.map((v) => p * v), att);
    return isQuery ? out.map((v) => v * logFloorScale(p, 0.1, 16384)) : out;
  });
});

test("Pixtral's 2-D RoPE: row ids with freqs[::2] on the first half of the pairs, column ids with freqs[1::2] on the second", () => {
  // PixtralRotaryEmbedding + apply_rotary_pos_emb; position_ids_in_meshgrid gives the patches of a grid in row-major order.
  const plan = pe.model.fromConfig({ model_type: 'pixtral', num_hidden_layers: 2, hidden_size: 1024, num_attention_heads: 16, head_dim: 64,
    image_size: 1024, patch_size: 16, rope_theta: 10000.0 });
  assert.deepEqual(plan.layers[0].rope.form, { kind: '2d', maxPatchesPerSide: 64 });
  const [rows, cols] = [3, 5];
  checkRows({ batch: 1, seq: rows * cols, qHeads: 2, kHeads: 2, qDim: 64 }, applyOf(plan, 0, { opts: { grid: [rows, cols] } }),
    (row, _b, s) => applyPartialHalf(row, pixtralFreqs(64, 10000, Math.floor(s / cols), s % cols)));
  throwsPosEnc(() => pe.model.apply(plan, 0, new Float32Array(64), null, { dims: [1, 64], positionIds: [0, 64] }), 'OUT_OF_RANGE', /0 to 63/);
  throwsPosEnc(() => pe.model.apply(plan, 0, new Float32Array(64), null, { dims: [1, 64], offset: 3 }), 'INVALID_ARGUMENT', /grid or positionIds/);
  throwsPosEnc(() => pe.model.cosSin(plan, 0, [3]), 'INVALID_ARGUMENT', /row and column ids/);
  const ids = [[0, 63, 10, 2], [63, 0, 11, 2]]; // [2, seq]: rows, then columns
  checkRows({ batch: 1, seq: 4, qHeads: 1, qDim: 64 }, applyOf(plan, 1, { opts: { positionIds: ids.flat() } }),
    (row, _b, s) => applyPartialHalf(row, pixtralFreqs(64, 10000, ids[0][s], ids[1][s])));
});

test("GLM-4's partial adjacent pairs and Cohere's adjacent pairs (modeling_glm.py / modeling_cohere.py rotate_half)", () => {
  const glm = pe.model.fromConfig({ model_type: 'glm', num_hidden_layers: 2, hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 2,
    head_dim: 128, partial_rotary_factor: 0.5, rope_theta: 10000, max_position_embeddings: 131072 });
  assert.deepEqual([glm.layers[0].rope.spec.rotaryDim, glm.layers[0].rope.spec.pairing], [64, 'interleaved']);
  const wg = defaultFreq(64, 10000);
  checkRows({ batch: 1, seq: 3, qHeads: 2, kHeads: 1, qDim: 128 }, applyOf(glm, 0, { opts: { offset: 77 } }),
    (row, _b, s) => applyAdjacentPairs(row, wg.map((v) => (77 + s) * v)), { exact: () => range(64, 64) });
  const cohere = pe.model.fromConfig({ model_type: 'cohere', num_hidden_layers: 2, hidden_size: 4096, num_attention_heads: 32, rope_theta: 10000,
    max_position_embeddings: 8192 });
  const wc = defaultFreq(128, 10000);
  checkRows({ batch: 1, seq: 3, qHeads: 2, kHeads: 2, qDim: 128, layout: 'bhsd' }, applyOf(cohere, 1, { layout: 'bhsd', opts: { offset: 5 } }),
    (row, _b, s) => applyAdjacentPairs(row, wc.map((v) => (5 + s) * v)));
});

test('YaRN with truncate false (gpt-oss values): the fractional correction range reaches the rotation', () => {
  // modeling_rope_utils.py _compute_yarn_parameters with truncate=False (no floor/ceil of the range).
  const plan = pe.model.fromConfig({ model_type: 'gpt_oss', num_hidden_layers: 2, hidden_size: 2880, num_attention_heads: 64, head_dim: 64,
    rope_theta: 150000, max_position_embeddings: 131072, sliding_window: 128, layer_types: ['sliding_attention', 'full_attention'],
    rope_scaling: { beta_fast: 32.0, beta_slow: 1.0, factor: 32.0, original_max_position_embeddings: 4096, rope_type: 'yarn', truncate: false } });
  const w = yarnFreq(64, 150000, { factor: 32, original: 4096, truncate: false }).w;
  const wTruncated = yarnFreq(64, 150000, { factor: 32, original: 4096 }).w;
  assert.ok(w.some((v, i) => Math.abs(v / wTruncated[i] - 1) > 1e-3), 'truncate changes the frequencies');
  const att = yarnAttentionFactor(32);
  checkRows({ batch: 1, seq: 2, qHeads: 2, kHeads: 1, qDim: 64 }, applyOf(plan, 1, { opts: { offset: 100000 } }),
    (row, _b, s) => applyPartialHalf(row, w.map((v) => (100000 + s) * v), att));
});

test("Dynamic NTK with HunYuan's alpha: the alpha base up to max_position_embeddings, HF's dynamic update from factor beyond", () => {
  // HunYuanDenseV1RotaryEmbedding (base * alpha^(d/(d-2)), d = head_dim) under LlamaRotaryEmbedding's
  // dynamic_rope_update, which recomputes _compute_dynamic_ntk_parameters once max(position) + 1 > 32768.
  const cfg = { model_type: 'hunyuan_v1_dense', num_hidden_layers: 2, hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8,
    head_dim: 128, max_position_embeddings: 32768, rope_theta: 10000.0, rope_scaling: { type: 'dynamic', alpha: 1000.0, factor: 1.0 } };
  const plan = pe.model.fromConfig(cfg);
  assert.deepEqual(plan.layers[0].rope.spec.scaling, { type: 'dynamic', alpha: 1000, factor: 1, maxPositionEmbeddings: 32768 });
  const alphaW = hunyuanAlphaFreq(128, 10000, 1000);
  const pos = [5, 32767];
  checkRows({ batch: 1, seq: 2, qHeads: 2, kHeads: 1, qDim: 128 }, applyOf(plan, 0, { opts: { positionIds: pos } }),
    (row, _b, s) => applyPartialHalf(row, alphaW.map((v) => pos[s] * v)));
  const far = [5, 40000]; // max(position) + 1 = 40001: the dynamic base from factor 1, alpha no longer applies
  const farW = dynamicFreq(128, 10000, 1, 32768, 40001);
  checkRows({ batch: 1, seq: 2, qHeads: 2, kHeads: 1, qDim: 128 }, applyOf(plan, 1, { opts: { positionIds: far } }),
    (row, _b, s) => applyPartialHalf(row, farW.map((v) => far[s] * v)));
  // Without factor HF's update would fail past max_position_embeddings: posenc refuses those lengths.
  const noFactor = pe.model.fromConfig({ ...cfg, rope_scaling: { type: 'dynamic', alpha: 1000.0 } });
  throwsPosEnc(() => pe.model.apply(noFactor, 0, new Float32Array(128), null, { dims: [1, 128], offset: 40000 }), 'INVALID_ARGUMENT', /factor is required/);
  // Other models never read alpha in transformers: refused rather than guessed.
  throwsPosEnc(() => pe.model.fromConfig({ ...cfg, model_type: 'llama' }), 'INVALID_CONFIG', /alpha is read by transformers only for HunYuan/);
  assert.deepEqual(pe.model.toConfig(plan).rope_parameters, { rope_type: 'dynamic', rope_theta: 10000, alpha: 1000, factor: 1 });
});

test('model.apply and createCache refuse what a layer cannot take, naming it', () => {
  const llama = pe.model.fromConfig({ model_type: 'llama', num_hidden_layers: 2, hidden_size: 64, num_attention_heads: 4, rope_theta: 10000 });
  const q = new Float32Array(2 * 16);
  throwsPosEnc(() => pe.model.apply(llama, 2, q, null, { dims: [2, 16] }), 'OUT_OF_RANGE', /layer 2 is outside the model's 2 layers/);
  throwsPosEnc(() => pe.model.apply({}, 0, q, null, { dims: [2, 16] }), 'INVALID_TYPE', /plan must be a plan/);
  throwsPosEnc(() => pe.model.apply(llama, 0, q, null, { dims: [2, 16], grid: [1, 2] }), 'INVALID_ARGUMENT', /grid is for Pixtral/);
  throwsPosEnc(() => pe.model.apply(llama, 0, q, null, { dims: [2, 16], laneOrder: 'sglang' }), 'INVALID_ARGUMENT', /laneOrder/);
  throwsPosEnc(() => pe.model.apply(llama, 0, q, null, { dims: [4, 8] }), 'SHAPE_MISMATCH', /headDim 16 disagrees with the tensors' head size 8/);
  throwsPosEnc(() => pe.model.apply(llama, 0, q, null, { dims: [2, 16], rotaryDim: 8 }), 'UNKNOWN_OPTION', /rotaryDim/);
  const deepseek = pe.model.fromConfig({ model_type: 'deepseek_v3', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 4,
    qk_nope_head_dim: 8, qk_rope_head_dim: 16, rope_theta: 10000 });
  throwsPosEnc(() => pe.model.apply(deepseek, 0, new Float32Array(20), null, { dims: [1, 20] }), 'SHAPE_MISMATCH', /neither qk_nope_head_dim \+ qk_rope_head_dim \(8 \+ 16\) nor qk_rope_head_dim/);
  const vl = pe.model.fromConfig({ model_type: 'qwen3_vl_text', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 4, rope_theta: 1e6,
    rope_scaling: { rope_type: 'default', mrope_section: [4, 2, 2], mrope_interleaved: true } });
  throwsPosEnc(() => pe.model.apply(vl, 0, q, null, { dims: [2, 16], positionIds: [0, 1, 2, 3, 4] }), 'SHAPE_MISMATCH', /positionIds/);
  throwsPosEnc(() => pe.model.createCache(llama, 0, {}), 'MISSING_OPTION', /maxPositions/);
  throwsPosEnc(() => pe.model.createCache(llama, 0, { maxPositions: 8, laneOrder: 1 }), 'INVALID_TYPE', /laneOrder must be 'hf' or 'vllm'/);
  const cache = pe.model.createCache(llama, 0, { maxPositions: 8 });
  cache.dispose();
  throwsPosEnc(() => cache.apply(q, null, { dims: [2, 16] }), 'DISPOSED', /LayerRopeCache.apply/);
});
