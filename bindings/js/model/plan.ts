// The position plan of a model: for every layer, what it does to positions (RoPE and its form,
// ALiBi, attention window, query scaling), plus the model-level facts (absolute table, head sizes,
// the LongRoPE switch). Plain data (JSON-serialisable): pe.model builds it from a Hugging Face
// config.json or a GGUF header and computes frequencies, slopes and scales from it.
import type { RopeModelSpec } from '../families/rope/spec.js';

/**
 * How a layer's RoPE places its frequencies on the head, beyond the spec's `rotaryDim`/`pairing`
 * (docs/encodings.md#812-proportional-rope-gemma-4 to #815-pixtrals-2-d-image-rope; `pe.model.apply` applies each):
 * - `'standard'`: the leading `rotaryDim` lanes rotate with `w_i = base^(-2i/rotaryDim)` (scaled).
 * - `'proportional'` (Gemma 4 full-attention layers; HF `_compute_proportional_rope_parameters`):
 *   the half pairing over the whole head (pair i = lanes i and i + headDim/2),
 *   `w_i = base^(-2i/headDim) / factor` for the first `rotatedPairs` pairs; the other pairs have
 *   frequency 0 and pass through.
 * - `'mrope'` (Qwen2-VL, Qwen2.5-VL: contiguous `section` blocks of pairs take the temporal, height
 *   and width position ids; Qwen3-VL, Qwen3.5 with `interleaved`: pair i takes the height id if
 *   i % 3 == 1 and i < 3·section[1], the width id if i % 3 == 2 and i < 3·section[2], the temporal id
 *   otherwise, HF `apply_interleaved_mrope`). With equal ids (text) both are the standard RoPE.
 *   Position ids are HF's three axes whatever the section count: section k takes axis k % 3 (HF
 *   splits its two copies of the pairs into `section * 2` chunks, chunk k on axis k % 3), so with a
 *   count that is not a multiple of 3 a pair's two lanes read two axes: applied where those ids
 *   agree (text), refused elsewhere.
 * - `'decoupled'` (DeepSeek-V2/V3 MLA): only the `ropeHeadDim` lanes that follow the `nopeHeadDim`
 *   content lanes of each query head rotate, the key's rotary part is shared by all heads; the
 *   softmax scale is multiplied by `softmaxScaleFactor` (YaRN mscale², HF DeepseekV3Attention).
 *   `deinterleave` (DeepSeek-V3's `rope_interleave`, HF `apply_rotary_pos_emb_interleave`): the
 *   block's lanes are reordered [x0 x2 x4 ... x1 x3 x5 ...] and rotated in the half pairing, so the
 *   rotated block leaves in that order (vLLM rotates the adjacent pairs in place instead).
 * - `'2d'` (Pixtral vision encoder, HF `PixtralRotaryEmbedding`): patch (row, col) ids below
 *   `maxPatchesPerSide`; with f_j = base^(-2j/headDim), pair i < headDim/4 rotates by row · f_2i and
 *   pair headDim/4 + i by col · f_(2i+1), in the half pairing over the whole head.
 */
export type RopeForm =
  | { kind: 'standard' }
  | { kind: 'proportional'; rotatedPairs: number }
  | { kind: 'mrope'; section: number[]; interleaved: boolean }
  | { kind: 'decoupled'; nopeHeadDim: number; ropeHeadDim: number; softmaxScaleFactor: number; deinterleave: boolean }
  | { kind: '2d'; maxPatchesPerSide: number };

/** A layer's rotary embedding: the spec (spread it into pe.rope calls) and where it goes on the head. */
export interface LayerRope {
  /** headDim, rotaryDim, base, pairing, scaling: usable with pe.rope.apply/frequencies/createCache. */
  spec: RopeModelSpec;
  /** Where the frequencies go on the head (see {@link RopeForm}). */
  form: RopeForm;
  /** The config entry it came from (e.g. `'rope_parameters.sliding_attention'`, `'rope_local_base_freq'`). */
  source: string;
}

/** ALiBi on a layer: `-slope_h * distance` added to the logits (slopes: pe.model.alibiSlopes). */
export interface LayerAlibi {
  /** Heads, one slope each. */
  numHeads: number;
  /** The 8 of 2^(-8h/n) (MPT `alibi_bias_max`). */
  maxBias: number;
  /** Which values are added: `'bloom'` (BLOOM, Falcon: slope * key position) or `'causal'` (MPT: slope * (key - last)). */
  form: 'bloom' | 'causal';
}

/**
 * The keys a query sees. `'sliding'`: key j is visible to query i iff `0 <= i - j < size` (HF
 * `sliding_window`, causal) or, with `bidirectional`, iff `|i - j| <= size / 2` (ModernBERT
 * `local_attention`). `'chunked'`: only keys in the same block of `size` positions (Llama 4
 * `attention_chunk_size`): `floor(i / size) == floor(j / size)`.
 */
export type AttentionWindow =
  | { kind: 'sliding'; size: number; bidirectional: boolean }
  | { kind: 'chunked'; size: number };

/**
 * Queries multiplied by `1 + scale * ln(1 + floor((position + positionOffset) / floorScale))`:
 * Llama 4 `attn_temperature_tuning` on its no-RoPE layers (`attn_scale`, `floor_scale`, offset 1)
 * and Ministral 3 `llama_4_scaling_beta` (beta, `original_max_position_embeddings`, offset 0).
 */
export interface QueryScaling {
  /** The one law so far: `1 + scale * ln(1 + floor((position + positionOffset) / floorScale))`. */
  kind: 'log-floor';
  /** `attn_scale` (Llama 4) or `llama_4_scaling_beta` (Ministral 3). */
  scale: number;
  /** `floor_scale` (Llama 4) or `original_max_position_embeddings` (Ministral 3). */
  floorScale: number;
  /** Added to the position first: 1 (Llama 4) or 0 (Ministral 3). */
  positionOffset: number;
  /** The config keys it came from. */
  source: string;
}

/** What one layer does to positions. */
export interface LayerPlan {
  /** The layer's index, from 0. */
  index: number;
  /**
   * The attention kind (HF `layer_types` vocabulary): `'full_attention'`, `'sliding_attention'`,
   * `'chunked_attention'`, `'linear_attention'` (no positions: Qwen3-Next Gated DeltaNet) ...
   */
  attention: string;
  /** The rotary embedding, or null (no RoPE on this layer). */
  rope: LayerRope | null;
  /** ALiBi biases, or null. */
  alibi: LayerAlibi | null;
  /** The keys a query sees, or null (all keys up to the query: full causal attention). */
  window: AttentionWindow | null;
  /** Queries scaled by position (Llama 4, Ministral 3), or null. */
  queryScaling: QueryScaling | null;
}

/** Absolute positions added to the token embeddings, once, before the first layer. */
export type AbsolutePositions =
  | {
      kind: 'learned';
      /** Rows of the table (`max_position_embeddings`, `n_positions`). */
      size: number;
      /** Row of position 0: OPT's 2 (HF `OPTLearnedPositionalEmbedding.offset`), RoBERTa's padding_idx + 1. */
      offset: number;
      /** The weight tensor name in the checkpoint, when known (e.g. `'transformer.wpe.weight'`). */
      tensor?: string;
    }
  | { kind: 'sinusoidal'; dim: number; base: number };

/** Which LongRoPE factor list a layer uses; the rule is chosen with the `longRope` option. */
export interface LongRopeSwitch {
  /**
   * `'hf'` (default, HF `longrope_frequency_update`): per call, long when max(position) + 1 >
   * `originalMaxPositionEmbeddings`; `'vllm'` (`Phi3LongRoPEScaledRotaryEmbedding`): once, long when
   * `max_model_len > original` (`length` = max_model_len, default max_position_embeddings);
   * `'llama.cpp'`: once, long when the context size `n_ctx > n_ctx_orig` (`length` = n_ctx).
   */
  rule: 'hf' | 'vllm' | 'llama.cpp';
  /** The length above which the long list is used. */
  originalMaxPositionEmbeddings: number;
  /** vLLM max_model_len or llama.cpp context size (the fixed choices). */
  length?: number;
}

/**
 * The most layers a plan holds: a plan lists every layer, and published models have at most a few
 * hundred, so a larger count is a broken config rather than a model (and would exhaust memory).
 */
export const MAX_LAYERS = 65536;
/**
 * The widest attention head a config may state, in lanes (real models use 64-576): a pasted config
 * cannot make posenc grow WebAssembly memory by gigabytes, which it could never give back.
 */
export const MAX_HEAD_DIM = 65536;

/** The model-level facts of a plan. */
export interface ModelPlan {
  /** Where it was read from. */
  source: 'hf-config' | 'gguf';
  /** HF `model_type` (or the GGUF `general.architecture`). */
  modelType: string;
  /** Number of layers (`num_hidden_layers`). */
  numLayers: number;
  /** Query heads (`num_attention_heads`). */
  numHeads: number;
  /** Key/value heads (`num_key_value_heads`; equal to numHeads without grouped-query attention). */
  numKeyValueHeads: number;
  /** Lanes per attention head (the most common one when layers differ, e.g. Gemma 4). */
  headDim: number;
  /** The context the model was configured for (`max_position_embeddings`), if given. */
  maxPositionEmbeddings?: number;
  /** Absolute positions added to the embeddings, or null. */
  absolute: AbsolutePositions | null;
  /** What each layer does, `layers[i].index === i`. */
  layers: LayerPlan[];
  /** Present when a layer uses LongRoPE. */
  longRope?: LongRopeSwitch;
  /** Choices posenc made where the config leaves room (defaults filled in, old key spellings). */
  notes: string[];
}
