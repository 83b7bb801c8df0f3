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
