// Float64 re-implementations of Hugging Face transformers' RoPE frequency functions and layer
// rules, written from its code (cited per function) and independent of posenc: the expectations
// of the model plan suites.
import { defaultFreq, llama3Freq, yarnFreq } from './rope-formulas.mjs';

export { defaultFreq, llama3Freq, yarnFreq };

/** modeling_rope_utils.py _compute_linear_scaling_rope_parameters: default / factor. */
export function linearFreq(r, base, factor) {
  return defaultFreq(r, base).map((w) => w / factor);
}

/**
 * modeling_rope_utils.py _compute_proportional_rope_parameters: rope_angles = int(p * head_dim // 2)
 * pairs with base^(-2i/head_dim), zeros for the other head_dim/2 - rope_angles pairs, all / factor.
 */
export function proportionalFreq(headDim, base, partial, factor = 1) {
  const angles = Math.floor((partial * headDim) / 2);
  return Float64Array.from({ length: headDim / 2 }, (_, i) => (i < angles ? base ** (-(2 * i) / headDim) / factor : 0));
}

/** modeling_rope_utils.py _compute_dynamic_ntk_parameters (seq_len <= max: unchanged). */
export function dynamicFreq(r, base, factor, maxPos, seqLen) {
  const L = Math.max(seqLen ?? maxPos, maxPos);
  return defaultFreq(r, base * (factor * L / maxPos - (factor - 1)) ** (r / (r - 2)));
}

/**
 * modeling_hunyuan_v1_dense.py HunYuanDenseV1RotaryEmbedding (alpha): base * alpha^(d/(d-2)) with
 * d = head_dim, inv_freq = base'^(-2i/d).
 */
export function hunyuanAlphaFreq(headDim, base, alpha) {
  return defaultFreq(headDim, base * alpha ** (headDim / (headDim - 2)));
}

/** modeling_rope_utils.py _compute_longrope_parameters: w_i / ext_i, attention sqrt(1 + ln f / ln original). */
export function longropeFreq(r, base, list, factor, original) {
  const w = defaultFreq(r, base).map((v, i) => v / list[i]);
  return { w, attention: factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(original)) };
}

/** Worst |a/b - 1| over two arrays (0 where both are 0). */
export function worstRel(a, b) {
  let worst = 0;
  for (let i = 0; i < b.length; i++) {
    if (a[i] === 0 && b[i] === 0) continue;
    worst = Math.max(worst, Math.abs(a[i] / b[i] - 1));
  }
  return worst;
}

/**
 * modeling_rope_utils.py _compute_yarn_parameters: the attention factor. get_mscale(s, m) =
 * 0.1 m ln(s) + 1 (1 for s <= 1); with both mscale and mscale_all_dim non-zero (DeepSeek,
 * Ministral 3) it is get_mscale(f, mscale) / get_mscale(f, mscale_all_dim), else get_mscale(f).
 */
export function yarnAttentionFactor(factor, { mscale, mscaleAllDim, attentionFactor } = {}) {
  if (attentionFactor !== undefined) return attentionFactor;
  const get = (s, m = 1) => (s <= 1 ? 1 : 0.1 * m * Math.log(s) + 1);
  return mscale && mscaleAllDim ? get(factor, mscale) / get(factor, mscaleAllDim) : get(factor);
}

/**
 * Partial rotary (GPT-NeoX rotary_pct, Phi/StableLM partial_rotary_factor): HF rotates the leading
 * dim = int(head_dim * factor) lanes (modeling_rope_utils.py _compute_default_rope_parameters).
 */
export function rotaryDimOf(headDim, partial) {
  return Math.trunc(headDim * partial);
}

/** modeling_llama4/ministral3 query scale: 1 + beta * ln(1 + floor((p + offset) / floorScale)). */
export function logFloorScale(p, beta, floorScale, offset = 0) {
  return 1 + beta * Math.log(1 + Math.floor((p + offset) / floorScale));
}

/**
 * llama.cpp convert_hf_to_gguf.py LlamaModel.generate_extra_tensors: the `rope_freqs` tensor of a
 * llama3-scaled model, per-pair divisors of base^(-2i/d). torch computes the frequencies and the
 * blend in float32 (`torch.arange(..., dtype=torch.float32)`), stored as float32: emulated with
 * Math.fround at each step.
 */
export function llama3RopeFreqs(dim, base, { factor = 8, low = 1, high = 4, original = 8192 } = {}) {
  const f = Math.fround;
  const lowWavelen = original / low;
  const highWavelen = original / high;
  return Float32Array.from({ length: dim / 2 }, (_, i) => {
    const freq = f(1 / f(base ** f(f(2 * i) / dim)));
    const wavelen = f((2 * Math.PI) / freq);
    if (wavelen < highWavelen) return 1;
    if (wavelen > lowWavelen) return factor;
    const smooth = f(f(f(original / wavelen) - low) / (high - low));
    return f(1 / f(f(f(1 - smooth) / factor) + smooth));
  });
}
