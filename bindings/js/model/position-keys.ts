// The explicit list of config keys that can change what a model does to positions: a key whose
// name matches one of the patterns and that posenc does not read (or know to be unrelated) is an
// INVALID_CONFIG error naming it, so no positional setting is ever silently ignored.
import type { Fields } from './config-fields.js';

/** Name fragments of keys that can affect positions. */
export const POSITION_KEY_PATTERNS: readonly RegExp[] = [
  /rope/, /rotary/, /position/, /(^|_)pos(_|$)/, /alibi/, /window/, /theta/, /scaling/, /(^|_)freq/, /nope/,
  /chunk/, /relative/, /temperature/, /floor_scale/, /attn_scale/, /seq_len/, /local_attention/, /global_attn/,
  /yarn/, /ntk/, /interleave/, /layer_types/, /attention_interval/,
];

/** Keys posenc reads when it builds a plan. */
const READ = [
  'rope_theta', 'rope_scaling', 'rope_parameters', 'partial_rotary_factor', 'rotary_pct', 'rotary_dim', 'rotary_emb_base',
  'rope_local_base_freq', 'sliding_window', 'sliding_window_pattern', 'global_rope_theta', 'local_rope_theta',
  'global_attn_every_n_layers', 'local_attention', 'no_rope_layers', 'no_rope_layer_interval', 'layer_types', 'use_alibi',
  'alibi', 'position_embedding_type', 'attention_chunk_size', 'use_sliding_window', 'max_window_layers',
  'max_position_embeddings', 'n_positions', 'original_max_position_embeddings', 'rope_interleave', 'qk_rope_head_dim',
  'qk_nope_head_dim', 'attn_temperature_tuning', 'floor_scale', 'attn_scale', 'full_attention_interval', 'max_seq_len',
  'rope_type',
];

/**
 * Keys that match a pattern but do not change positions (checked against the HF modeling code of
 * the models that carry them).
 */
const UNRELATED = [
  'n_ctx', // GPT-2/GPT-J: the context n_positions already gives; modeling_gpt2.py never reads it
  'chunk_size_feed_forward', // BERT-style feed-forward chunking (memory only)
  'interleave_moe_layer_step', // Llama 4: which layers are MoE
  'logits_scaling', // Granite: output logits divisor
  'temperature', // old generation defaults
  'use_cache', 'pad_token_id',
  'position_buckets', // DeBERTa (not read for a decoder plan; DeBERTa models are refused)
  'scale_attn_by_inverse_layer_idx', 'scale_attn_weights', 'reorder_and_upcast_attn', // GPT-2 attention scaling, not positional
  'attention_k_eq_v', 'num_kv_shared_layers', // Gemma 4 key/value sharing
  'linear_conv_kernel_dim', // Qwen3-Next Gated DeltaNet convolution (linear-attention layers, no positions)
  'sliding_window_size', // Gemma 2 checkpoints: a duplicate of sliding_window that Gemma2Config/modeling_gemma2.py never read
];

const KNOWN = new Set([...READ, ...UNRELATED]);

/**
 * Keys published configs carry that transformers never reads, accepted only with the value that
 * agrees with what transformers does (any other value means the checkpoint expects something the
 * HF model would not do, so the plan would be wrong either way).
 */
const IGNORED_WHEN = new Map<string, { value: unknown; why: string; applies: (modelType: string, interleaved: boolean) => boolean }>(Object.entries({
  // SmolLM2 (nanotron export): LlamaConfig/LlamaRotaryEmbedding never read it; HF pairs lanes i and i + d/2.
  rope_interleaved: { value: false, why: 'transformers never reads it and pairs lanes i and i + rotary_dim/2', applies: (_m: string, interleaved: boolean) => !interleaved },
  // Qwen2 / Qwen2.5 text checkpoints: Qwen2Config has no M-RoPE; only qwen2_vl* models read mrope_section.
  use_mrope: { value: false, why: 'Qwen2Config never reads it and the text model has no M-RoPE', applies: (m: string) => m.startsWith('qwen2') && !m.includes('vl') },
}));

/** Whether a key name looks like it could affect positions. */
export function isPositionKey(key: string): boolean {
  return POSITION_KEY_PATTERNS.some((p) => p.test(key));
}

/** How the model pairs lanes, for the keys whose accepted value depends on it. */
export interface PositionKeyContext {
  modelType: string;
  /** Whether transformers pairs adjacent lanes for this model. */
  interleaved: boolean;
  notes: string[];
}

/** Throws INVALID_CONFIG for the first key of `f` that may affect positions and that posenc does not know. */
export function refuseUnknownPositionKeys(f: Fields, ctx: PositionKeyContext, alsoKnown: readonly string[] = []): void {
  for (const key of Object.keys(f.obj)) {
    if (KNOWN.has(key) || alsoKnown.includes(key) || !isPositionKey(key)) continue;
    const ignored = IGNORED_WHEN.get(key);
    if (ignored && ignored.applies(ctx.modelType, ctx.interleaved)) {
      if (f.obj[key] === ignored.value) {
        ctx.notes.push(`${f.name(key)} ${JSON.stringify(ignored.value)} is not read: ${ignored.why}`);
        continue;
      }
      throw f.invalid(`${f.name(key)} is ${JSON.stringify(f.obj[key])}, but ${ignored.why}; ` +
        'the checkpoint expects something the transformers model does not do, so no plan would be right');
    }
    throw f.invalid(`${f.name(key)} may change how the model uses positions, and posenc does not know it; ` +
      'refusing to build a plan that could be wrong');
  }
}
