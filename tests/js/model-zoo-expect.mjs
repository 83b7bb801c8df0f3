// What transformers does with each zoo fixture (tests/fixtures/models, sources in SOURCES.md), layer
// by layer, derived from its code and written here independently of posenc: `rule` names the
// configuration/modeling function that decides the per-layer behaviour, the frequencies come from
// the float64 formulas in model-formulas.mjs.
import { readFileSync } from 'node:fs';

import { defaultFreq, llama3Freq, longropeFreq, rotaryDimOf, yarnAttentionFactor, yarnFreq } from './model-formulas.mjs';

export const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/models/${name}`, import.meta.url), 'utf8'));

/** A RoPE layer: head and rotary width, pairing, frequencies, attention factor (1 unless given). */
const rope = (headDim, w, { rotaryDim = headDim, pairing = 'half', attention = 1, long } = {}) => ({ headDim, rotaryDim, pairing, w, attention, long });
const full = (r) => () => ({ attention: 'full_attention', window: null, rope: r });
const slidingAll = (size, r) => () => ({ attention: 'sliding_attention', window: size, rope: r });

/** Gemma2Config.__init__: layer_types[i] = "sliding_attention" if (i + 1) % 2 else "full_attention". */
const gemma2 = (window, r) => (i) => (i % 2 === 0
  ? { attention: 'sliding_attention', window, rope: r }
  : { attention: 'full_attention', window: null, rope: r });

/**
 * Phi3Config (LongRoPE, `rope_scaling.type` "longrope"): _compute_longrope_parameters divides w_i by
 * short_factor up to original_max_position_embeddings and by long_factor beyond (longrope_frequency_update:
 * max(position_ids) + 1 > original); attention factor sqrt(1 + ln(max/original) / ln(original)).
 * Phi3Attention passes config.sliding_window to every layer.
 */
function phi3(cfg, headDim) {
  const rs = cfg.rope_scaling;
  const r = rotaryDimOf(headDim, cfg.partial_rotary_factor ?? 1);
  const factor = cfg.max_position_embeddings / cfg.original_max_position_embeddings;
  const short = longropeFreq(r, cfg.rope_theta, rs.short_factor, factor, cfg.original_max_position_embeddings);
  const long = longropeFreq(r, cfg.rope_theta, rs.long_factor, factor, cfg.original_max_position_embeddings);
  return slidingAll(cfg.sliding_window, rope(headDim, short.w, { rotaryDim: r, attention: short.attention, long: long.w }));
}

const g3 = fixture('gemma-3-1b-it.json');
const phi3mini = fixture('phi-3-mini-128k-instruct.json');
const phi35 = fixture('phi-3.5-mini-instruct.json');
const phi4 = fixture('phi-4-mini-instruct.json');
const smol3 = fixture('smollm3-3b.json');
const ministral = fixture('ministral-3-3b-reasoning-2512.json').text_config.rope_parameters;

/**
 * Per fixture: layer count, [heads, kv heads], head size, `layer(i)` (attention kind, window size or
 * null, rope or null; mrope / query scale where the model has them), `absolute` for learned tables.
 */
export const ZOO = {
  'gemma-2-9b-it.json': { rule: 'Gemma2Config.__init__ layer_types; Gemma2RotaryEmbedding on every layer', layers: 42, heads: [16, 8], headDim: 256,
    layer: gemma2(4096, rope(256, defaultFreq(256, 10000))) },
  'gemma-2-2b.json': { rule: 'Gemma2Config.__init__ layer_types; Gemma2RotaryEmbedding on every layer', layers: 26, heads: [8, 4], headDim: 256,
    layer: gemma2(4096, rope(256, defaultFreq(256, 10000))) },
  'gemma-2b.json': { rule: 'GemmaConfig: no layer types; GemmaRotaryEmbedding on every layer', layers: 18, heads: [8, 1], headDim: 256,
    layer: full(rope(256, defaultFreq(256, 10000))) },
  'gemma-3-1b-it.json': {
    rule: 'Gemma3TextConfig.__init__ layer_types from sliding_window_pattern ((i + 1) % 6: sliding); Gemma3TextModel rotary_emb_local (rope_local_base_freq, unscaled) on sliding layers, rotary_emb (rope_theta, rope_scaling) on full ones',
    layers: 26, heads: [4, 1], headDim: 256,
    layer: (i) => ((i + 1) % g3.sliding_window_pattern !== 0
      ? { attention: 'sliding_attention', window: 512, rope: rope(256, defaultFreq(256, g3.rope_local_base_freq)) }
      : { attention: 'full_attention', window: null, rope: rope(256, defaultFreq(256, g3.rope_theta)) }),
  },
  'mistral-nemo-base-2407.json': { rule: 'MistralConfig sliding_window null: no window; head_dim 128, not hidden/heads', layers: 40, heads: [32, 8], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'mistral-7b-v0.3.json': { rule: 'MistralAttention: sliding_window null, so full attention on every layer', layers: 32, heads: [32, 8], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'mixtral-8x7b-v0.1.json': { rule: 'MixtralAttention: sliding_window null, so full attention on every layer', layers: 32, heads: [32, 8], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'ministral-3-3b-reasoning-2512.json': {
    rule: 'Ministral3Config (v5 rope_parameters, yarn); _compute_yarn_parameters attention factor mscale/mscale_all_dim; modeling_ministral3 _get_llama_4_attn_scale(beta, original_max_position_embeddings) on every layer',
    layers: 26, heads: [32, 8], headDim: 128,
    layer: () => ({ ...full(rope(128, yarnFreq(128, 1e6, { factor: 16, original: 16384 }).w, { attention: yarnAttentionFactor(16, { mscale: 1, mscaleAllDim: 1 }) }))(),
      query: { beta: ministral.llama_4_scaling_beta, floorScale: 16384, offset: 0 } }),
  },
  'llama-3.2-1b-instruct.json': { rule: '_compute_llama3_parameters (factor 32, low 1, high 4, original 8192), every layer', layers: 16, heads: [32, 8], headDim: 64,
    layer: full(rope(64, llama3Freq(64, 500000, { factor: 32 }).w)) },
  'llama-3.2-3b-instruct.json': { rule: '_compute_llama3_parameters (factor 32), every layer', layers: 28, heads: [24, 8], headDim: 128,
    layer: full(rope(128, llama3Freq(128, 500000, { factor: 32 }).w)) },
  'llama-3.1-8b.json': { rule: '_compute_llama3_parameters (factor 8, low 1, high 4, original 8192), every layer', layers: 32, heads: [32, 8], headDim: 128,
    layer: full(rope(128, llama3Freq(128, 500000, { factor: 8 }).w)) },
  'llama-3.1-8b-instruct.json': { rule: '_compute_llama3_parameters (factor 8), every layer', layers: 32, heads: [32, 8], headDim: 128,
    layer: full(rope(128, llama3Freq(128, 500000, { factor: 8 }).w)) },
  'meta-llama-3-8b-instruct.json': { rule: '_compute_default_rope_parameters, rope_theta 500000', layers: 32, heads: [32, 8], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 500000))) },
  'tinyllama-1.1b-chat-v1.0.json': { rule: 'LlamaRotaryEmbedding default, every layer', layers: 22, heads: [32, 4], headDim: 64,
    layer: full(rope(64, defaultFreq(64, 10000))) },
  'smollm2-360m-instruct.json': { rule: 'LlamaConfig never reads rope_interleaved; LlamaRotaryEmbedding rotate_half (half pairing)', layers: 32, heads: [15, 5], headDim: 64,
    layer: full(rope(64, defaultFreq(64, 100000))) },
  'smollm3-3b.json': {
    rule: 'SmolLM3Attention: use_rope = config.no_rope_layers[layer_idx]; layer_types all full (use_sliding_window false)',
    layers: 36, heads: [16, 4], headDim: 128,
    layer: (i) => ({ attention: 'full_attention', window: null, rope: smol3.no_rope_layers[i] ? rope(128, defaultFreq(128, 5e6)) : null }),
  },
  'qwen1.5-1.8b-chat.json': { rule: 'Qwen2Config: use_sliding_window false, so layer_types all full', layers: 24, heads: [16, 16], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'qwen1.5-moe-a2.7b.json': { rule: 'Qwen2MoeConfig: use_sliding_window false, so every layer full', layers: 24, heads: [16, 16], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'qwen2.5-3b-instruct.json': { rule: 'Qwen2Config: use_sliding_window false (max_window_layers 70 unused)', layers: 36, heads: [16, 2], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'qwen2.5-7b.json': { rule: 'Qwen2Config: use_sliding_window false; use_mrope is not a Qwen2Config key', layers: 28, heads: [28, 4], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'qwen3-0.6b.json': { rule: 'Qwen3Config: head_dim 128 given (not hidden/heads = 64); no sliding', layers: 28, heads: [16, 8], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'qwen3-8b.json': { rule: 'Qwen3Config: no sliding, default RoPE', layers: 36, heads: [32, 8], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'qwen3-30b-a3b.json': { rule: 'Qwen3MoeConfig: no sliding, default RoPE', layers: 48, heads: [32, 4], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 1e6))) },
  'qwen3-vl-2b-instruct.json': {
    rule: 'Qwen3VLTextRotaryEmbedding: default frequencies, M-RoPE sections [24, 20, 20] interleaved over pairs (apply_interleaved_mrope)',
    layers: 28, heads: [16, 8], headDim: 128,
    layer: () => ({ attention: 'full_attention', window: null, mrope: { section: [24, 20, 20], interleaved: true }, rope: rope(128, defaultFreq(128, 5e6)) }),
  },
  'phi-3-mini-128k-instruct.json': { rule: 'Phi3Config LongRoPE (top-level original_max_position_embeddings); Phi3Attention sliding_window', layers: 32, heads: [32, 32], headDim: 96,
    layer: phi3(phi3mini, 96) },
  'phi-3.5-mini-instruct.json': { rule: 'Phi3Config LongRoPE; Phi3Attention sliding_window', layers: 32, heads: [32, 32], headDim: 96,
    layer: phi3(phi35, 96) },
  'phi-4-mini-instruct.json': { rule: 'Phi3Config LongRoPE over int(128 * 0.75) = 96 rotary lanes (partial_rotary_factor)', layers: 32, heads: [24, 8], headDim: 128,
    layer: phi3(phi4, 128) },
  'stablelm-3b-4e1t.json': { rule: 'StableLmAttention rotary_ndims = int(partial_rotary_factor * head_dim) = 20', layers: 32, heads: [32, 32], headDim: 80,
    layer: full(rope(80, defaultFreq(20, 10000), { rotaryDim: 20 })) },
  'stablelm-2-zephyr-1.6b.json': { rule: 'StableLmAttention rotary_ndims = int(0.25 * 64) = 16', layers: 24, heads: [32, 32], headDim: 64,
    layer: full(rope(64, defaultFreq(16, 10000), { rotaryDim: 16 })) },
  'redpajama-incite-3b-v1.json': { rule: 'GPTNeoXConfig rotary_pct 1.0, rotary_emb_base; GPTNeoXRotaryEmbedding rotate_half', layers: 32, heads: [32, 32], headDim: 80,
    layer: full(rope(80, defaultFreq(80, 10000))) },
  'starcoder2-7b.json': { rule: 'Starcoder2Attention: config.sliding_window (4096) on every layer', layers: 32, heads: [36, 4], headDim: 128,
    layer: slidingAll(4096, rope(128, defaultFreq(128, 1e6))) },
  'aya-23-8b.json': { rule: 'modeling_cohere.py rotate_half pairs x[..., ::2] with x[..., 1::2] (interleaved), every layer', layers: 32, heads: [32, 8], headDim: 128,
    layer: full(rope(128, defaultFreq(128, 10000), { pairing: 'interleaved' })) },
  'gpt2.json': { rule: 'GPT2Model wpe: learned table of n_positions rows, position p at row p; no RoPE', layers: 12, heads: [12, 12], headDim: 64,
    layer: full(null), absolute: { kind: 'learned', size: 1024, offset: 0, tensor: 'wpe.weight' } },
  'snowflake-arctic-embed-m.json': { rule: 'BertEmbeddings position_embedding_type "absolute": learned table, position p at row p', layers: 12, heads: [12, 12], headDim: 64,
    layer: full(null), absolute: { kind: 'learned', size: 512, offset: 0, tensor: 'embeddings.position_embeddings.weight' } },
};
