// pe.model plans of the models whose layers differ, each rule checked against the transformers
// code that defines it (cited per test); configs carry the positional values of the public
// checkpoints named (the zoo suite holds verbatim published files). Also: unknown position keys,
// the LongRoPE switch rules, query scales, ALiBi and absolute tables, and the HF/GGUF round trips.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';
import { defaultFreq, linearFreq, llama3Freq, longropeFreq, proportionalFreq, worstRel, yarnFreq } from './model-formulas.mjs';

const pe = await createPosEnc();
const freq = (plan, i, opts) => pe.model.frequencies(plan, i, opts);

test('Gemma 3 (v4 keys): sliding layers use rope_local_base_freq unscaled, every 6th layer rope_theta with linear x8', () => {
  // Gemma3TextConfig: layer_types from sliding_window_pattern; Gemma3Model.rotary_emb_local (base rope_local_base_freq, default rope).
  const plan = pe.model.fromConfig({ model_type: 'gemma3_text', num_hidden_layers: 34, hidden_size: 2560, num_attention_heads: 8, num_key_value_heads: 4,
    head_dim: 256, rope_theta: 1000000.0, rope_local_base_freq: 10000.0, rope_scaling: { factor: 8.0, rope_type: 'linear' },
    sliding_window: 1024, sliding_window_pattern: 6, max_position_embeddings: 131072 });
  for (const l of plan.layers) {
    const global = (l.index + 1) % 6 === 0;
    assert.equal(l.attention, global ? 'full_attention' : 'sliding_attention');
    assert.deepEqual(l.window, global ? null : { kind: 'sliding', size: 1024, bidirectional: false });
    const want = global ? linearFreq(256, 1e6, 8) : defaultFreq(256, 10000);
    assert.ok(worstRel(freq(plan, l.index).invFreq, want) <= 1e-9, `layer ${l.index}`);
  }
  // The numbers: at position 4096 a sliding layer's cos differs from the global layer's.
  const cs = pe.model.cosSin(plan, 0, [4096]);
  assert.ok(Math.abs(cs.cos[1] - Math.cos(4096 * defaultFreq(256, 10000)[1])) < 1e-12);
  throwsPosEnc(() => pe.rope.fromConfig({ ...plan, model_type: 'gemma3_text', num_hidden_layers: 34, hidden_size: 2560, num_attention_heads: 8, head_dim: 256,
    rope_theta: 1e6, rope_local_base_freq: 10000, rope_scaling: { factor: 8, rope_type: 'linear' }, sliding_window: 1024, layers: undefined }), 'INVALID_CONFIG', /layers differ/);
});

test('ModernBERT: global_rope_theta on every 3rd layer, local_rope_theta with a bidirectional window of 128 elsewhere', () => {
  const plan = pe.model.fromConfig({ model_type: 'modernbert', num_hidden_layers: 22, hidden_size: 768, num_attention_heads: 12,
    global_attn_every_n_layers: 3, global_rope_theta: 160000.0, local_attention: 128, local_rope_theta: 10000.0, max_position_embeddings: 8192 });
  for (const l of plan.layers) {
    const global = l.index % 3 === 0;
    assert.deepEqual(l.window, global ? null : { kind: 'sliding', size: 128, bidirectional: true });
    assert.ok(worstRel(freq(plan, l.index).invFreq, defaultFreq(64, global ? 160000 : 10000)) <= 1e-9);
  }
});

test('Command R7B (cohere2): RoPE only on sliding layers, interleaved; global layers have none', () => {
  const plan = pe.model.fromConfig({ model_type: 'cohere2', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8,
    rope_theta: 50000, sliding_window: 4096, sliding_window_pattern: 4, max_position_embeddings: 8192 });
  for (const l of plan.layers) {
    const global = (l.index + 1) % 4 === 0;
    assert.equal(l.rope === null, global, `layer ${l.index}`);
    if (!global) assert.equal(l.rope.spec.pairing, 'interleaved');
  }
  throwsPosEnc(() => pe.rope.fromConfig({ model_type: 'cohere2', num_hidden_layers: 8, hidden_size: 4096, num_attention_heads: 32, sliding_window: 4096 }),
    'INVALID_CONFIG', /layers 3, 7 use no RoPE\): use pe\.model\.fromConfig/);
});

test('SmolLM3 and Llama 4: no_rope_layer_interval 4 (every 4th layer without RoPE); Llama 4 chunks its RoPE layers and tunes NoPE queries', () => {
  const smol = pe.model.fromConfig({ model_type: 'smollm3', num_hidden_layers: 36, hidden_size: 2048, num_attention_heads: 16, rope_theta: 5000000.0,
    no_rope_layer_interval: 4, use_sliding_window: false, sliding_window: null, max_position_embeddings: 65536 });
  smol.layers.forEach((l) => assert.equal(l.rope === null, (l.index + 1) % 4 === 0));
  // Llama 4 Scout: equal low/high freq factors (empty blended band), no_rope_layers [] means the default.
  const scout = pe.model.fromConfig({ model_type: 'llama4', text_config: { model_type: 'llama4_text', num_hidden_layers: 48, hidden_size: 5120,
    num_attention_heads: 40, num_key_value_heads: 8, head_dim: 128, rope_theta: 500000.0, attention_chunk_size: 8192, no_rope_layers: [],
    attn_temperature_tuning: true, floor_scale: 8192, attn_scale: 0.1, max_position_embeddings: 10485760,
    rope_scaling: { factor: 16.0, high_freq_factor: 1.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' } } });
  const want = llama3Freq(128, 500000, { factor: 16, low: 1, high: 1, original: 8192 });
  for (const l of scout.layers) {
    const nope = (l.index + 1) % 4 === 0;
    assert.equal(l.attention, nope ? 'full_attention' : 'chunked_attention');
    if (nope) {
      assert.equal(l.rope, null);
      assert.deepEqual(Array.from(pe.model.queryScales(scout, l.index, [0, 8190, 8191, 16383, 100000])),
        [0, 8190, 8191, 16383, 100000].map((p) => Math.log1p(Math.floor((p + 1) / 8192)) * 0.1 + 1));
    } else {
      assert.deepEqual(l.window, { kind: 'chunked', size: 8192 });
      assert.equal(l.rope.spec.pairing, 'interleaved');
      const f = freq(scout, l.index);
      assert.ok(worstRel(f.invFreq, want.w) <= 1e-9);
      assert.ok(!f.llama3.band.includes('blended'));
      assert.equal(pe.model.queryScales(scout, l.index, [0]), null);
    }
  }
});

test('Qwen3-Next: linear-attention layers without positions, partial rotary 0.25 on full layers', () => {
  const plan = pe.model.fromConfig({ model_type: 'qwen3_next', num_hidden_layers: 48, hidden_size: 2048, num_attention_heads: 16, head_dim: 256,
    partial_rotary_factor: 0.25, rope_theta: 10000000, full_attention_interval: 4, max_position_embeddings: 262144 });
  for (const l of plan.layers) {
    const full = (l.index + 1) % 4 === 0;
    assert.equal(l.attention, full ? 'full_attention' : 'linear_attention');
    if (full) assert.ok(worstRel(freq(plan, l.index).invFreq, defaultFreq(64, 1e7)) <= 1e-9);
    else assert.equal(l.rope, null);
  }
});

test('Gemma 4: proportional RoPE over global_head_dim on full layers (64 of 256 pairs), default over head_dim on sliding ones', () => {
  const plan = pe.model.fromConfig({ model_type: 'gemma4', text_config: { model_type: 'gemma4_text', num_hidden_layers: 12, hidden_size: 1536,
    num_attention_heads: 8, head_dim: 256, global_head_dim: 512, sliding_window: 512,
    rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1000000.0, rope_type: 'proportional' }, sliding_attention: { rope_theta: 10000.0, rope_type: 'default' } } } });
  for (const l of plan.layers) {
    const full = (l.index + 1) % 6 === 0;
    const f = freq(plan, l.index);
    if (full) {
      assert.deepEqual(l.rope.form, { kind: 'proportional', rotatedPairs: 64 });
      assert.equal(f.invFreq.length, 256);
      assert.ok(worstRel(f.invFreq, proportionalFreq(512, 1e6, 0.25)) <= 1e-9);
      assert.ok(f.invFreq.subarray(64).every((w) => w === 0));
    } else {
      assert.ok(worstRel(f.invFreq, defaultFreq(256, 10000)) <= 1e-9);
    }
  }
  throwsPosEnc(() => pe.rope.fromConfig(plan.layers && { model_type: 'gemma4_text', num_hidden_layers: 6, hidden_size: 1536, num_attention_heads: 8, head_dim: 256, sliding_window: 512 }, { layerType: 'full_attention' }),
    'INVALID_CONFIG', /proportional/);
});

test('DeepSeek-V3: decoupled RoPE on qk_rope_head_dim, YaRN with mscale, softmax scale x mscale(40, 1)^2', () => {
  const plan = pe.model.fromConfig({ model_type: 'deepseek_v3', num_hidden_layers: 61, hidden_size: 7168, num_attention_heads: 128, qk_nope_head_dim: 128,
    qk_rope_head_dim: 64, v_head_dim: 128, max_position_embeddings: 163840, rope_theta: 10000,
    rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' } });
  const l = plan.layers[0];
  const m = 0.1 * Math.log(40) + 1;
  // rope_interleave absent: DeepseekV3Config's default True (apply_rotary_pos_emb_interleave).
  assert.deepEqual(l.rope.form, { kind: 'decoupled', nopeHeadDim: 128, ropeHeadDim: 64, softmaxScaleFactor: m * m, deinterleave: true });
  assert.equal(pe.model.softmaxScaleFactor(plan, 0), m * m);
  assert.equal(plan.headDim, 192, 'q/k heads are qk_nope_head_dim + qk_rope_head_dim (HF qk_head_dim), not hidden / heads');
  const f = freq(plan, 0);
  assert.ok(worstRel(f.invFreq, yarnFreq(64, 10000, { factor: 40, original: 4096 }).w) <= 1e-9);
  assert.equal(f.attentionFactor, 1);
  assert.ok(plan.notes.some((n) => /older spelling of rope_type/.test(n)));
});

test("Ministral 3: llama_4_scaling_beta scales queries by 1 + beta ln(1 + floor(p / original)) on every layer", () => {
  const plan = pe.model.fromConfig({ model_type: 'ministral3', num_hidden_layers: 4, hidden_size: 3072, num_attention_heads: 32, head_dim: 128,
    max_position_embeddings: 262144, rope_parameters: { rope_type: 'yarn', rope_theta: 1000000.0, factor: 16.0, original_max_position_embeddings: 16384,
      beta_fast: 32.0, beta_slow: 1.0, mscale: 1.0, mscale_all_dim: 1.0, llama_4_scaling_beta: 0.1 } });
  const ps = [0, 16383, 16384, 50000];
  assert.deepEqual(Array.from(pe.model.queryScales(plan, 3, ps)), ps.map((p) => 1 + 0.1 * Math.log(1 + Math.floor(p / 16384))));
});

test('LongRoPE switch: HF per call (default), vLLM fixed from max_model_len, llama.cpp from the context size', () => {
  const short = Array.from({ length: 48 }, (_, i) => 1 + 0.01 * i);
  const long = Array.from({ length: 48 }, (_, i) => 1 + 0.5 * i);
  const config = { model_type: 'phi3', num_hidden_layers: 2, hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072,
    original_max_position_embeddings: 4096, rope_theta: 10000.0, rope_scaling: { long_factor: long, short_factor: short, type: 'longrope' }, sliding_window: 262144 };
  const hf = pe.model.fromConfig(config);
  assert.deepEqual([pe.model.longRopeList(hf, 4096), pe.model.longRopeList(hf, 4097)], ['short', 'long']);
  const wantLong = longropeFreq(96, 10000, long, 32, 4096);
  const f = freq(hf, 0, { seqLen: 5000 });
  assert.ok(worstRel(f.invFreq, wantLong.w) <= 1e-9);
  assert.ok(Math.abs(f.attentionFactor - wantLong.attention) <= 1e-12);
  assert.ok(worstRel(freq(hf, 0, { seqLen: 100 }).invFreq, longropeFreq(96, 10000, short, 32, 4096).w) <= 1e-9);
  const vllm = pe.model.fromConfig(config, { longRope: 'vllm' });
  assert.equal(pe.model.longRopeList(vllm, 10), 'long', 'vLLM: max_model_len 131072 > 4096 chooses long once');
  assert.ok(worstRel(freq(vllm, 0, { seqLen: 10 }).invFreq, wantLong.w) <= 1e-9);
  const cpp = pe.model.fromConfig(config, { longRope: 'llama.cpp', contextLength: 4096 });
  assert.equal(pe.model.longRopeList(cpp, 100000), 'short', 'llama.cpp: n_ctx 4096 is not above n_ctx_orig');
  throwsPosEnc(() => pe.model.fromConfig(config, { longRope: 'sglang' }), 'INVALID_ARGUMENT', /longRope/);
});

test('ALiBi and absolute tables: BLOOM, MPT, Falcon-RW, OPT (offset 2), GPT-2', () => {
  const bloom = pe.model.fromConfig({ model_type: 'bloom', n_layer: 24, n_head: 16, hidden_size: 1024 });
  assert.deepEqual(bloom.layers[5].alibi, { numHeads: 16, maxBias: 8, form: 'bloom' });
  const bloomSlopes = pe.model.alibiSlopes(bloom, 0);
  for (let h = 0; h < 16; h++) assert.ok(Math.abs(bloomSlopes[h] / 2 ** (-8 * (h + 1) / 16) - 1) < 1e-15, `BLOOM slope ${h}`);
  // MPT's gen_slopes (modeling_mpt.py build_mpt_alibi_tensor): concat(s[1::2], s[0::2])[:n] of the 2^ceil(log2 n) series.
  const mpt = pe.model.fromConfig({ model_type: 'mpt', n_layers: 2, n_heads: 12, d_model: 768, max_seq_len: 2048, attn_config: { alibi: true, alibi_bias_max: 8 } });
  const s16 = Array.from({ length: 16 }, (_, h) => 1 / 2 ** ((h + 1) * 8 / 16));
  const mptSlopes = [...s16.filter((_, i) => i % 2 === 1), ...s16.filter((_, i) => i % 2 === 0)].slice(0, 12);
  const got = pe.model.alibiSlopes(mpt, 1);
  mptSlopes.forEach((s, i) => assert.ok(Math.abs(got[i] / s - 1) < 1e-15, `MPT slope ${i}`));
  const falcon = pe.model.fromConfig({ model_type: 'falcon', num_hidden_layers: 24, hidden_size: 2048, num_attention_heads: 32, alibi: true });
  assert.equal(falcon.layers[0].alibi.form, 'bloom');
  const opt = pe.model.fromConfig({ model_type: 'opt', num_hidden_layers: 12, hidden_size: 768, num_attention_heads: 12, max_position_embeddings: 2048 });
  assert.deepEqual(opt.absolute, { kind: 'learned', size: 2050, offset: 2, tensor: 'decoder.embed_positions.weight' });
  const gpt2 = pe.model.fromConfig({ model_type: 'gpt2', n_layer: 12, n_head: 12, n_embd: 768, n_positions: 1024, n_ctx: 1024 });
  assert.equal(gpt2.absolute.size, 1024);
  assert.ok(gpt2.layers.every((l) => l.rope === null && l.alibi === null));
});

test('keys decided as transformers decides them: a key the class does not define is ignored with a note; unknown model types are refused', () => {
  const base = { model_type: 'llama', num_hidden_layers: 2, hidden_size: 256, num_attention_heads: 4, rope_theta: 10000 };
  const plain = pe.model.fromConfig({ ...base, vocab_size: 5, hidden_act: 'silu' });
  assert.equal(plain.layers.length, 2);
  assert.ok(!plain.notes.some((n) => /not read/.test(n)), 'fields of LlamaConfig are known');
  // LlamaConfig defines none of these and LlamaRotaryEmbedding reads none: transformers ignores them.
  for (const extra of [{ rope_offset: 3 }, { position_interpolation: 2 }, { no_rope_layers: [1, 0] }, { rope_local_base_freq: 5 }, { sliding_window_pattern: 2 }]) {
    const plan = pe.model.fromConfig({ ...base, ...extra });
    const key = Object.keys(extra)[0];
    assert.ok(plan.notes.some((n) => n.startsWith(`${key} is not read: LlamaConfig does not define it and no position code reads it`)), `${key}: ${plan.notes}`);
    assert.deepEqual(plan.layers.map((l) => l.rope.spec), plain.layers.map((l) => l.rope.spec));
  }
  throwsPosEnc(() => pe.model.fromConfig({ ...base, model_type: 'not_a_model' }), 'INVALID_CONFIG', /model_type 'not_a_model' is not a model_type of transformers/);
  throwsPosEnc(() => pe.model.fromConfig({ ...base, model_type: 'vit' }), 'INVALID_CONFIG', /model_type 'vit' \(ViTConfig\).*vision model/);
  throwsPosEnc(() => pe.model.fromConfig({ ...base, layer_types: ['full_attention', 'window_attention'] }), 'INVALID_CONFIG', /layer_types\[1\] 'window_attention'/);
  throwsPosEnc(() => pe.model.fromConfig({ ...base, num_hidden_layers: undefined, model_type: undefined }), 'INVALID_CONFIG', /num_hidden_layers is required/);
  throwsPosEnc(() => pe.model.frequencies({ layers: [] }, 0), 'INVALID_ARGUMENT', /plan\.source must be present/);
  throwsPosEnc(() => pe.model.frequencies(null, 0), 'INVALID_TYPE', /plan must be/);
});

test('keys that are positional in another dialect: refused naming the dialect, unless the value says what transformers does anyway', () => {
  // SmolLM2's rope_interleaved (nanotron; LlamaRotaryEmbedding pairs i with i + d/2) and Qwen2.5's
  // use_mrope (Qwen's own code; not a Qwen2Config key), seen in the zoo.
  const llama = { model_type: 'llama', num_hidden_layers: 2, hidden_size: 256, num_attention_heads: 4, rope_theta: 10000 };
  const half = pe.model.fromConfig({ ...llama, rope_interleaved: false });
  assert.equal(half.layers[0].rope.spec.pairing, 'half');
  assert.ok(half.notes.some((n) => /^rope_interleaved false is nanotron's key/.test(n)));
  throwsPosEnc(() => pe.model.fromConfig({ ...llama, rope_interleaved: true }), 'INVALID_CONFIG', /rope_interleaved true is nanotron's key for the lane pairing: transformers' LlamaConfig does not read it/);
  // Where HF pairs adjacent lanes (Cohere), false asks for the other pairing: refused.
  throwsPosEnc(() => pe.model.fromConfig({ ...llama, model_type: 'cohere', rope_interleaved: false }), 'INVALID_CONFIG', /rope_interleaved false is nanotron's key/);
  const qwen = { ...llama, model_type: 'qwen2' };
  assert.ok(pe.model.fromConfig({ ...qwen, use_mrope: false }).notes.some((n) => /^use_mrope false is Qwen's original code's key/.test(n)));
  throwsPosEnc(() => pe.model.fromConfig({ ...qwen, use_mrope: true }), 'INVALID_CONFIG', /use_mrope true is Qwen's original code's key/);
  // MLC-LLM's mlc-chat-config.json, TensorRT-LLM, llama.cpp GGUF metadata, vLLM.
  for (const [key, value, dialect] of [['context_window_size', 4096, 'MLC-LLM'], ['attention_sink_size', 4, 'MLC-LLM'], ['prefill_chunk_size', 2048, 'MLC-LLM'],
    ['sliding_window_size', 1024, 'MLC-LLM'], ['rotary_base', 10000, 'TensorRT-LLM'], ['llama.rope.freq_base', 10000, "llama.cpp's GGUF"],
    ['rope_freq_base', 10000, 'llama.cpp'], ['max_model_len', 8192, 'vLLM'], ['position_embedding_type', 'rope_gptj', 'TensorRT-LLM']]) {
    throwsPosEnc(() => pe.model.fromConfig({ ...llama, [key]: value }), 'INVALID_CONFIG', new RegExp(`^model\\.fromConfig: ${key.replace(/\./g, '\\.')} .* is ${dialect}`));
  }
  // Command R7B as some loaders publish it: TensorRT-LLM's GPT-J pairing is what Cohere2 does.
  const r7b = pe.model.fromConfig({ model_type: 'cohere2', num_hidden_layers: 4, hidden_size: 4096, num_attention_heads: 32, sliding_window: 4096,
    position_embedding_type: 'rope_gptj' });
  assert.equal(r7b.layers[0].rope.spec.pairing, 'interleaved');
  assert.ok(r7b.notes.some((n) => /position_embedding_type "rope_gptj" is TensorRT-LLM's key/.test(n)));
  // A per-layer override transformers applies (heterogeneous configs) is positional: refused.
  throwsPosEnc(() => pe.model.fromConfig({ ...llama, per_layer_config: { 0: { rope_theta: 5 } } }), 'INVALID_CONFIG', /per_layer_config overrides attributes layer by layer/);
});

test('configs transformers accepts are never refused for a key it ignores (GPT-J rotary, DeepSeek moe_layer_freq and routed_scaling_factor)', () => {
  const gptj = pe.model.fromConfig({ model_type: 'gptj', n_layer: 28, n_head: 16, n_embd: 4096, rotary_dim: 64, n_positions: 2048, rotary: true });
  assert.equal(gptj.layers.length, 28);
  assert.equal(gptj.layers[0].rope.spec.rotaryDim, 64);
  assert.ok(gptj.notes.some((n) => /^rotary is not read: GPTJConfig does not define it/.test(n)), gptj.notes.join('\n'));
  for (const model_type of ['deepseek_v2', 'deepseek_v3']) {
    const plan = pe.model.fromConfig({ model_type, num_hidden_layers: 4, hidden_size: 2048, num_attention_heads: 16, qk_rope_head_dim: 64, qk_nope_head_dim: 128,
      moe_layer_freq: 1, routed_scaling_factor: 2.5, rope_theta: 10000, max_position_embeddings: 4096 });
    assert.equal(plan.layers.length, 4);
    assert.equal(plan.layers[0].rope.form.kind, 'decoupled');
  }
});

test('a plan written as an HF config fragment reads back to the same layers', () => {
  const configs = [
    { model_type: 'gemma3_text', num_hidden_layers: 12, hidden_size: 2560, num_attention_heads: 8, head_dim: 256, rope_theta: 1e6, rope_local_base_freq: 10000,
      rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024, max_position_embeddings: 131072 },
    { model_type: 'smollm3', num_hidden_layers: 8, hidden_size: 2048, num_attention_heads: 16, rope_theta: 5e6, max_position_embeddings: 65536 },
    { model_type: 'llama', num_hidden_layers: 2, hidden_size: 2048, num_attention_heads: 32, max_position_embeddings: 131072, rope_theta: 500000,
      rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' } },
  ];
  for (const config of configs) {
    const plan = pe.model.fromConfig(config);
    const again = pe.model.fromConfig(pe.model.toConfig(plan));
    assert.deepEqual(again.layers.map((l) => [l.attention, l.window, l.rope?.spec]), plan.layers.map((l) => [l.attention, l.window, l.rope?.spec]), config.model_type);
  }
});

test('summarize groups identical layers', () => {
  const plan = pe.model.fromConfig({ model_type: 'gemma3_text', num_hidden_layers: 12, hidden_size: 2560, num_attention_heads: 8, head_dim: 256, rope_theta: 1e6,
    rope_local_base_freq: 10000, rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024 });
  const lines = pe.model.summarize(plan);
  assert.ok(lines.includes('layers 0-4, 6-10: sliding window 1024; RoPE base 10000, head 256, half'), lines.join('\n'));
  assert.ok(lines.includes('layers 5, 11: global; RoPE base 1e6, head 256, half, linear ×8'), lines.join('\n'));
});

test('a config whose head is wider than 65536 lanes is refused by name, before any memory is grown', () => {
  const bytes = pe.memory.bytes;
  const huge = { model_type: 'llama', num_hidden_layers: 1, hidden_size: 2 ** 30, num_attention_heads: 1 };
  throwsPosEnc(() => pe.model.fromConfig(huge), 'INVALID_CONFIG', /hidden_size \/ num_attention_heads.*at most 65536/);
  throwsPosEnc(() => pe.rope.fromConfig(huge), 'INVALID_CONFIG', /at most 65536/);
  throwsPosEnc(() => pe.doctor.config({ ...huge, hidden_size: 64, head_dim: 2 ** 20 }), 'INVALID_CONFIG', /head_dim.*at most 65536/);
  throwsPosEnc(() => pe.model.fromConfig({ model_type: 'deepseek_v3', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 1,
    qk_rope_head_dim: 2 ** 17, qk_nope_head_dim: 64 }), 'INVALID_CONFIG', /qk_rope_head_dim is 131072/);
  assert.equal(pe.memory.bytes, bytes);
  assert.equal(pe.model.fromConfig({ ...huge, hidden_size: 65536 }).headDim, 65536, 'the bound itself is a head');
});

test('class defaults: a Gemma 3 config whose text_config has five keys reads the rest from Gemma3TextConfig', () => {
  // google/gemma-3-4b-it's config.json lists only what differs from Gemma3TextConfig's defaults.
  const plan = pe.model.fromConfig({ model_type: 'gemma3', architectures: ['Gemma3ForConditionalGeneration'],
    text_config: { hidden_size: 2560, model_type: 'gemma3_text', num_hidden_layers: 34, rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024 },
    vision_config: { model_type: 'siglip_vision_model' } });
  assert.equal(plan.headDim, 256); // Gemma3TextConfig head_dim, not hidden_size / heads = 320
  assert.equal(plan.numHeads, 8);
  assert.equal(plan.numKeyValueHeads, 4);
  assert.equal(plan.numLayers, 34);
  assert.equal(plan.maxPositionEmbeddings, 131072);
  for (const l of plan.layers) {
    const global = (l.index + 1) % 6 === 0;
    assert.equal(l.attention, global ? 'full_attention' : 'sliding_attention');
    const want = global ? linearFreq(256, 1e6, 8) : defaultFreq(256, 10000);
    assert.ok(worstRel(freq(plan, l.index).invFreq, want) <= 1e-9, `layer ${l.index}`);
  }
  assert.ok(plan.notes.some((n) => /text_config\.head_dim is absent: 256 \(the Gemma3TextConfig default/.test(n)), plan.notes.join('\n'));
  // With no text_config at all, the wrapper's sub-config is Gemma3TextConfig as it is.
  const bare = pe.model.fromConfig({ model_type: 'gemma3' });
  assert.deepEqual([bare.numLayers, bare.numHeads, bare.numKeyValueHeads, bare.headDim], [26, 8, 4, 256]);
  // attribute_map aliases: GPT-J's num_attention_heads is its n_head.
  const gptj = pe.model.fromConfig({ model_type: 'gptj', num_hidden_layers: 2, num_attention_heads: 16, hidden_size: 4096 });
  assert.deepEqual([gptj.numLayers, gptj.numHeads, gptj.headDim, gptj.layers[0].rope.spec.rotaryDim], [2, 16, 256, 64]);
});
