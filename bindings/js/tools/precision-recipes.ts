// The float32 parameters of the upstream RoPE pipelines the precision oracle emulates: the inverse
// frequencies Hugging Face computes in float32 for each rope_type (modeling_rope_utils.py, step by
// step), and ggml's theta_scale, freq_scale, YaRN correction dims and freq_factors (ggml-cpu
// ops.cpp, ggml.c ggml_rope_yarn_corr_dims, llama.cpp's conversion of llama3/LongRoPE factors).
// Every float32 operation is Math.fround of the float64 result (a correctly rounded float32
// operation); powf and logf are taken correctly rounded too.
import { PosEncError } from '../runtime/errors.js';
import type { RopeFrequencies, RopeScaling } from '../families/rope/spec.js';

const f32 = Math.fround;
const powf = (base: number, exponent: number) => f32(Math.pow(f32(base), f32(exponent)));
const logf = (x: number) => f32(Math.log(f32(x)));

/** What the oracle needs of a RoPE: its width, base, scaling and float64 frequencies. */
export interface OracleSpec {
  rotaryDim: number;
  base: number;
  scaling: RopeScaling | undefined;
  /** The float64 frequencies (pe.rope.frequencies at the context length). */
  freq: RopeFrequencies;
}

/** `base ** (torch.arange(0, dim, 2).float() / dim)` in float32 (_compute_default_rope_parameters). */
function posFreqs(base: number, dim: number): number[] {
  return Array.from({ length: dim / 2 }, (_, i) => powf(base, f32((2 * i) / dim)));
}

/** Hugging Face's float32 inverse frequencies for the spec, following each rope_type's code. */
export function hfInvFreq(fn: string, s: OracleSpec): Float64Array {
  const dim = s.rotaryDim;
  const type = s.scaling?.type ?? 'default';
  const scaling = s.scaling as Record<string, unknown> | undefined;
  const factor = s.freq.factor;
  // _compute_default_rope_parameters: 1.0 / (base ** (arange.float() / dim)), `1.0 / t` being t.reciprocal()
  const defaults = (base: number) => posFreqs(base, dim).map((p) => f32(1 / p));
  switch (type) {
    case 'default':
      return Float64Array.from(defaults(s.base));
    case 'linear': // _compute_linear_scaling_rope_parameters: inv_freq /= factor
      return Float64Array.from(defaults(s.base), (w) => f32(w / f32(factor)));
    case 'ntk':
    case 'dynamic': // the rescaled base is a Python float, rounded to float32 by the pow
      return Float64Array.from(defaults(s.freq.effectiveBase));
    case 'yarn': { // _compute_yarn_parameters
      const pos = posFreqs(s.base, dim);
      const { low, high } = s.freq.yarn!;
      const span = f32(high - low);
      return Float64Array.from(pos, (p, i) => {
        const extrapolation = f32(1 / p);
        const interpolation = f32(1 / f32(f32(factor) * p));
        const ramp = Math.min(Math.max(f32(f32(i - f32(low)) / span), 0), 1); // linear_ramp_factor, clamp
        const extrapolationFactor = f32(1 - ramp);
        return f32(f32(interpolation * f32(1 - extrapolationFactor)) + f32(extrapolation * extrapolationFactor));
      });
    }
    case 'llama3': { // _compute_llama3_parameters; `x / t` is t.reciprocal() * x
      const low = Number(scaling!.lowFreqFactor ?? 1);
      const high = Number(scaling!.highFreqFactor ?? 4);
      const old = Number(scaling!.originalMaxPositionEmbeddings ?? 8192);
      const lowWavelen = f32(old / low);
      const highWavelen = f32(old / high);
      return Float64Array.from(defaults(s.base), (w) => {
        const wavelen = f32(f32(1 / w) * f32(2 * Math.PI));
        const llama = wavelen > lowWavelen ? f32(w / f32(factor)) : w;
        const smooth = f32(f32(f32(f32(1 / wavelen) * f32(old)) - f32(low)) / f32(high - low));
        const smoothed = f32(f32(f32(f32(1 - smooth) * llama) / f32(factor)) + f32(smooth * llama));
        const medium = !(wavelen < highWavelen) && !(wavelen > lowWavelen);
        return medium ? smoothed : llama;
      });
    }
    case 'longrope': { // _compute_longrope_parameters: 1.0 / (ext_factors * base ** shape)
      const ext = s.freq.longrope!.factors;
      return Float64Array.from(posFreqs(s.base, dim), (p, i) => f32(1 / f32(f32(ext[i]!) * p)));
    }
    default:
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: no Hugging Face recipe for scaling type '${type}'`);
  }
}

/** ggml's parameters for the spec (ggml_rope_ext arguments as llama.cpp passes them). */
export interface GgmlRecipe {
  thetaScale: number;
  freqScale: number;
  extFactor: number;
  corrLow: number;
  corrHigh: number;
  attention: number;
  /** rope_freqs (llama3, LongRoPE), float32 values, or undefined. */
  freqFactors: Float64Array | undefined;
}

/** ggml_rope_yarn_corr_dim, in float32 as ggml.c computes it. */
function corrDim(nDims: number, nCtxOrig: number, nRot: number, base: number): number {
  const rotations = f32(f32(f32(nRot) * 2) * f32(Math.PI));
  return f32(f32(nDims * logf(f32(nCtxOrig / rotations))) / f32(2 * logf(base)));
}

/** Why ggml cannot run this spec, or undefined when it can. */
export function ggmlRefusal(s: OracleSpec): string | undefined {
  const type = s.scaling?.type ?? 'default';
  if (type === 'dynamic') return 'llama.cpp has no dynamic NTK scaling';
  if (type === 'yarn' && (s.scaling as { truncate?: boolean }).truncate === false) {
    return 'ggml always floors and ceils the YaRN correction range (truncate: false differs)';
  }
  return undefined;
}

/** ggml's float32 parameters for the spec. */
export function ggmlRecipe(s: OracleSpec): GgmlRecipe {
  const type = s.scaling?.type ?? 'default';
  const scaling = s.scaling as Record<string, unknown> | undefined;
  const base = type === 'ntk' ? s.freq.effectiveBase : s.base; // llama.cpp takes a static NTK base as its freq_base
  const recipe: GgmlRecipe = {
    thetaScale: powf(base, f32(-2 / s.rotaryDim)), freqScale: 1, extFactor: 0, corrLow: 0, corrHigh: 0,
    attention: f32(s.freq.attentionFactor), freqFactors: undefined,
  };
  if (type === 'linear') recipe.freqScale = f32(1 / f32(s.freq.factor));
  if (type === 'yarn') {
    const factor = s.freq.factor;
    const original = Number(scaling!.originalMaxPositionEmbeddings ?? scaling!.maxPositionEmbeddings);
    recipe.freqScale = f32(1 / f32(factor));
    recipe.extFactor = 1;
    recipe.corrLow = Math.max(0, Math.floor(corrDim(s.rotaryDim, original, Number(scaling!.betaFast ?? 32), base)));
    recipe.corrHigh = Math.min(s.rotaryDim - 1, Math.ceil(corrDim(s.rotaryDim, original, Number(scaling!.betaSlow ?? 1), base)));
    // rope_yarn multiplies attn_factor by 1 + 0.1 ln(1 / freq_scale): pass the rest of the spec's factor
    recipe.attention = scaling!.ggmlAttnFactor !== undefined
      ? f32(Number(scaling!.ggmlAttnFactor))
      : f32(s.freq.attentionFactor / (1 + 0.1 * Math.log(factor)));
  }
  if (type === 'llama3') { // rope_freqs: w_default / w_llama3 per pair (convert_hf_to_gguf.py), stored as float32
    const w = s.freq.invFreq;
    recipe.freqFactors = Float64Array.from(w, (v, i) => f32(s.base ** ((-2 * i) / s.rotaryDim) / v));
  }
  if (type === 'longrope') recipe.freqFactors = Float64Array.from(s.freq.longrope!.factors, (v) => f32(v));
  return recipe;
}
