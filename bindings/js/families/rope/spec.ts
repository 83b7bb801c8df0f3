// The RoPE spec shared by every RoPE call: width, base, pairing and the scaling variant. This file
// checks what only JS can get wrong (types, unknown keys, missing keys) and packs the scaling into
// the block of doubles the C++ core reads (bindings/embind/rope_spec.hpp); the maths and the
// semantic checks (ranges, list lengths) live in src/encodings/rope_scaling.cpp.
import * as args from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import { nearestName } from '../../runtime/nearest.js';
import type { Heap } from '../../runtime/heap.js';
import type { HeapScope } from '../../runtime/scope.js';
import type { Ptr } from '../../runtime/raw-module.js';
import {
  LLAMA3_BANDS, PAIRINGS, readRopeFrequencyBlock, ROPE_SCALING_BLOCK_VALUES, ropeFrequencyBlockLength, SCALING_TYPES,
  writeRopeScalingBlock,
} from '../../generated/boundary.js';
import type { RopeScalingBlockLists, RopeScalingBlockValues } from '../../generated/boundary.js';

export { PAIRINGS };

/**
 * Which lanes form a rotated pair. `'half'` pairs lane i with lane i + rotaryDim/2 (GPT-NeoX,
 * HF Llama `rotate_half`, ggml NEOX); `'interleaved'` pairs lanes 2i and 2i+1 (GPT-J, Meta Llama,
 * RoFormer, ggml NORMAL).
 */
export type RopePairing = (typeof PAIRINGS)[number];

/** The scaling variants, named as Hugging Face's `rope_type` (plus `'ntk'`, static NTK-aware scaling). */
export type RopeScalingType = (typeof SCALING_TYPES)[number];

/** No scaling (HF `"default"`): w_i = base^(-2i/rotaryDim). */
export interface DefaultRopeScaling {
  /** The variant. */
  type: 'default';
}

/** Linear position interpolation (HF `"linear"`, lucidrains `interpolate_factor`): w_i / factor. */
export interface LinearRopeScaling {
  /** The variant. */
  type: 'linear';
  /** Required; > 0. */
  factor: number;
}

/** Static NTK-aware scaling (lucidrains `theta_rescale_factor`): base' = base * factor^(r/(r-2)). rotaryDim >= 4. */
export interface NtkRopeScaling {
  /** The variant. */
  type: 'ntk';
  /** Required; > 0. */
  factor: number;
}

/**
 * Dynamic NTK (HF `"dynamic"`): with L = max(seqLen, maxPositionEmbeddings),
 * base' = base * (factor * L / maxPositionEmbeddings - (factor - 1))^(r/(r-2)); exactly the
 * unscaled frequencies while seqLen <= maxPositionEmbeddings. rotaryDim >= 4.
 */
export interface DynamicRopeScaling {
  /** The variant. */
  type: 'dynamic';
  /** Required unless `alpha` is given (then required only for lengths beyond maxPositionEmbeddings); > 0. */
  factor?: number;
  /**
   * HunYuan's NTK alpha (HF `HunYuanDenseV1RotaryEmbedding`): while L <= maxPositionEmbeddings,
   * base' = base * alpha^(r/(r-2)); beyond, HF's dynamic update uses the formula above with `factor`.
   * (vLLM's `DynamicNTKAlphaRotaryEmbedding` keeps the alpha base at every length: `{ type: 'ntk', factor: alpha }`.)
   */
  alpha?: number;
  /** Required: the reference length (HF `max_position_embeddings`, not the original one). */
  maxPositionEmbeddings: number;
}

/**
 * YaRN (Peng et al. 2023), as Hugging Face transformers v5 computes it: a linear ramp over pairs
 * between the correction dims of `betaFast` and `betaSlow` rotations blends w_i into w_i/factor;
 * cos and sin are multiplied by the attention factor.
 */
export interface YarnRopeScaling {
  /** The variant. */
  type: 'yarn';
  /** The extension factor. Absent: maxPositionEmbeddings / originalMaxPositionEmbeddings. */
  factor?: number;
  /** The pre-extension context of the correction range. Absent: maxPositionEmbeddings (HF fallback). */
  originalMaxPositionEmbeddings?: number;
  /** The extended context (HF `max_position_embeddings`), used when factor or the original length is absent. */
  maxPositionEmbeddings?: number;
  /** Default 32. */
  betaFast?: number;
  /** Default 1. */
  betaSlow?: number;
  /** DeepSeek: with mscaleAllDim (both non-zero) the derived attention factor is (0.1 mscale ln f + 1) / (0.1 mscaleAllDim ln f + 1). */
  mscale?: number;
  /** DeepSeek's `mscale_all_dim`: the mscale of the denominator in the formula above. */
  mscaleAllDim?: number;
  /** Replaces the derived attention factor (HF `attention_factor`). Default: 0.1 ln(factor) + 1 (1 for factor <= 1). */
  attentionFactor?: number;
  /** Floor/ceil the correction range (default true; gpt-oss uses false). */
  truncate?: boolean;
  /** ggml/llama.cpp `attn_factor`: the attention factor becomes ggmlAttnFactor * (1 + 0.1 ln factor). Not with attentionFactor. */
  ggmlAttnFactor?: number;
  /** transformers 4.x (2025 revision): replace a given factor by maxPositionEmbeddings / originalMaxPositionEmbeddings when both are known. Default false (v5). */
  hfV4Factor?: boolean;
}

/**
 * Llama 3.1 (HF `"llama3"`): wavelengths below original/highFreqFactor keep w_i, above
 * original/lowFreqFactor get w_i/factor, the band between is blended. Defaults are Llama 3.1's
 * (8, 1, 4, 8192), and with this scaling `base` defaults to 500000.
 */
export interface Llama3RopeScaling {
  /** The variant. */
  type: 'llama3';
  /** Default 8. */
  factor?: number;
  /** Default 1. */
  lowFreqFactor?: number;
  /** Default 4; must exceed lowFreqFactor. */
  highFreqFactor?: number;
  /** Default 8192. */
  originalMaxPositionEmbeddings?: number;
}

/**
 * LongRoPE (Phi-3 / Phi-3.5, HF `"longrope"`): w_i / ext_i with ext = longFactor when the current
 * length exceeds originalMaxPositionEmbeddings, else shortFactor; attention factor
 * sqrt(1 + ln(factor) / ln(original)) (1 for factor <= 1).
 */
export interface LongRopeScaling {
  /** The variant. */
  type: 'longrope';
  /** rotaryDim/2 divisors used up to the original length. */
  shortFactor: ArrayLike<number>;
  /** rotaryDim/2 divisors used beyond it. */
  longFactor: ArrayLike<number>;
  /** The length above which the long list is used. Absent: maxPositionEmbeddings (HF fallback). */
  originalMaxPositionEmbeddings?: number;
  /** The extended context; factor defaults to maxPositionEmbeddings / originalMaxPositionEmbeddings. */
  maxPositionEmbeddings?: number;
  /** Only used for the default attention factor. */
  factor?: number;
  /** Replaces the derived attention factor. */
  attentionFactor?: number;
  /** llama.cpp: choose the list once from this context size (n_ctx > original) instead of from each call's seqLen (HF). */
  llamaCppContextLength?: number;
}

/** A scaling variant: `{ type, ...parameters }` with HF's `rope_scaling` keys in camelCase. */
export type RopeScaling =
  | DefaultRopeScaling | LinearRopeScaling | NtkRopeScaling | DynamicRopeScaling | YarnRopeScaling | Llama3RopeScaling
  | LongRopeScaling;

/** What defines a RoPE: its width, base, pairing and scaling. */
export interface RopeSpec {
  /** Lanes per head. Taken from the tensors when omitted; if given, it must match them. */
  headDim?: number;
  /** Leading lanes that rotate (even, 2..headDim; default headDim). The rest pass through. */
  rotaryDim?: number;
  /** Frequency base θ (default 10000; 500000 with `llama3` scaling): w_i = base^(-2i/rotaryDim). */
  base?: number;
  /** Lane pairing (default `'half'`). */
  pairing?: RopePairing;
  /** A scaling variant for longer contexts (default none). */
  scaling?: RopeScaling | null;
}

/** The keys of a {@link RopeSpec}. */
export const SPEC_KEYS = ['headDim', 'rotaryDim', 'base', 'pairing', 'scaling'];

/** The keys each scaling type takes: each is a value of the scaling block C++ reads (compile-time checked). */
type ScalingKey = Exclude<keyof RopeScalingBlockValues, 'type'> | keyof RopeScalingBlockLists;
const SCALING_KEYS: Record<RopeScalingType, readonly ScalingKey[]> = {
  default: [],
  linear: ['factor'],
  ntk: ['factor'],
  dynamic: ['factor', 'maxPositionEmbeddings', 'alpha'],
  yarn: ['factor', 'originalMaxPositionEmbeddings', 'maxPositionEmbeddings', 'betaFast', 'betaSlow', 'mscale',
    'mscaleAllDim', 'attentionFactor', 'truncate', 'ggmlAttnFactor', 'hfV4Factor'],
  llama3: ['factor', 'lowFreqFactor', 'highFreqFactor', 'originalMaxPositionEmbeddings'],
  longrope: ['shortFactor', 'longFactor', 'originalMaxPositionEmbeddings', 'maxPositionEmbeddings', 'factor',
    'attentionFactor', 'llamaCppContextLength'],
};

/** A parsed scaling: its type, the block for C++ and the LongRoPE lists (for the diagnostics). */
export interface ParsedScaling {
  type: RopeScalingType;
  block: Float64Array | undefined;
  shortFactor?: Float64Array;
  longFactor?: Float64Array;
}

/** A resolved spec: what every RoPE binding takes. */
export interface ResolvedSpec {
  rotaryDim: number;
  base: number;
  pairing: number;
  scaling: ParsedScaling;
}

function factorList(fn: string, name: string, value: unknown): Float64Array {
  return Float64Array.from(args.listOf(fn, name, value, (v, at) => args.finite(fn, at, v), { typed: true }));
}

/** Validates `scaling` and packs it for C++. */
export function parseScaling(fn: string, value: unknown): ParsedScaling {
  if (value === undefined || value === null) return { type: 'default', block: undefined };
  if (typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: scaling must be an object { type, ...parameters }, got ${args.describe(value)}`);
  }
  const s = value as Record<string, unknown>;
  for (const key of Object.keys(s)) { // a Hugging Face rope_scaling object as it is: say so before "type is required"
    const camel = args.camelCaseFor(key, ['type', ...new Set(Object.values(SCALING_KEYS).flat())]);
    if (camel) {
      throw new PosEncError('UNKNOWN_OPTION', `${fn}: unknown option 'scaling.${key}' (posenc's options are camelCase: ` +
        `did you mean 'scaling.${camel}'?); to use a model's config.json as it is, pass it to pe.rope.fromConfig(config)`);
    }
  }
  if (s.type === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: option 'scaling.type' is required`);
  const typeIndex = args.choice(fn, 'scaling.type', s.type, SCALING_TYPES);
  const type = SCALING_TYPES[typeIndex]!;
  const known = SCALING_KEYS[type];
  for (const key of Object.keys(s)) {
    if (key === 'type' || (known as readonly string[]).includes(key)) continue;
    const near = nearestName(key, known);
    throw new PosEncError('UNKNOWN_OPTION', `${fn}: unknown option 'scaling.${key}' for scaling type '${type}'` +
      (near ? ` (did you mean '${near}'?)` : known.length ? `; known: ${known.join(', ')}` : '; it takes no parameters'));
  }
  if (type === 'default') return { type, block: undefined };
  const has = (k: string) => s[k] !== undefined;
  const need = (k: string, why = `for scaling type '${type}'`) => {
    if (!has(k)) throw new PosEncError('MISSING_OPTION', `${fn}: option 'scaling.${k}' is required ${why}`);
  };
  if (type === 'linear' || type === 'ntk' || (type === 'dynamic' && !has('alpha'))) need('factor');
  if (type === 'dynamic') need('maxPositionEmbeddings');
  if (type === 'longrope') {
    need('shortFactor');
    need('longFactor');
  }
  if ((type === 'yarn' || type === 'longrope') && !has('originalMaxPositionEmbeddings') && !has('maxPositionEmbeddings')) {
    throw new PosEncError('MISSING_OPTION', `${fn}: option 'scaling.originalMaxPositionEmbeddings' (or 'scaling.maxPositionEmbeddings') is required for scaling type '${type}'`);
  }
  if (type === 'yarn' && !has('factor') && !(has('maxPositionEmbeddings') && has('originalMaxPositionEmbeddings'))) {
    need('factor', "for scaling type 'yarn' unless maxPositionEmbeddings and originalMaxPositionEmbeddings are both given");
  }
  if (type === 'longrope') {
    if (!has('factor') && !has('maxPositionEmbeddings') && !has('attentionFactor')) {
      need('factor', "for scaling type 'longrope' unless maxPositionEmbeddings or attentionFactor is given");
    }
  }

  const shortFactor = has('shortFactor') ? factorList(fn, 'scaling.shortFactor', s.shortFactor) : new Float64Array(0);
  const longFactor = has('longFactor') ? factorList(fn, 'scaling.longFactor', s.longFactor) : new Float64Array(0);
  // The block's values are the scaling's own keys (NaN = absent), its type the C++ enum value.
  const values = {} as RopeScalingBlockValues;
  for (const key of ROPE_SCALING_BLOCK_VALUES) {
    const v = s[key];
    if (key === 'type') values.type = typeIndex;
    else if (v === undefined) values[key] = NaN;
    else if (key === 'truncate' || key === 'hfV4Factor') {
      if (typeof v !== 'boolean') throw new PosEncError('INVALID_TYPE', `${fn}: scaling.${key} must be true or false, got ${args.describe(v)}`);
      values[key] = v ? 1 : 0;
    } else {
      values[key] = args.finite(fn, `scaling.${key}`, v);
    }
  }
  return { type, block: writeRopeScalingBlock(values, { shortFactor, longFactor }), shortFactor, longFactor };
}

/** rotaryDim (default headDim), checked against an explicit headDim option and the tensors' head size. */
export function rotaryDimOf(fn: string, opts: Record<string, unknown>, headDim: number | undefined): number {
  if (opts.headDim !== undefined) {
    const given = args.integer(fn, 'headDim', opts.headDim);
    if (headDim !== undefined && given !== headDim) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: headDim ${given} disagrees with the tensors' head size ${headDim}`);
    }
    headDim = given;
  }
  if (opts.rotaryDim !== undefined) return args.integer(fn, 'rotaryDim', opts.rotaryDim);
  if (headDim === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: option 'rotaryDim' (or 'headDim') is required`);
  return headDim;
}

/** Resolves the spec keys of `opts` (headDim, rotaryDim, base, pairing, scaling). */
export function resolveSpec(fn: string, opts: Record<string, unknown>, headDim: number | undefined, defaultPairing = 0): ResolvedSpec {
  const rotaryDim = rotaryDimOf(fn, opts, headDim);
  const scaling = parseScaling(fn, opts.scaling);
  const defaultBase = scaling.type === 'llama3' ? 500000 : 10000;
  const base = opts.base === undefined ? defaultBase : args.finite(fn, 'base', opts.base, true);
  const pairing = opts.pairing === undefined ? defaultPairing : args.choice(fn, 'pairing', opts.pairing, PAIRINGS);
  return { rotaryDim, base, pairing, scaling };
}

/** The spec fields of a RoPE binding's arguments; the scaling block is copied into `scope`. */
export function specArgs(spec: ResolvedSpec, scope: HeapScope) {
  return {
    pairing: spec.pairing, rotaryDim: spec.rotaryDim, base: spec.base,
    scaling: scope.f64In(spec.scaling.block, 'the scaling parameters'),
  };
}

/** The current length option (NaN when absent, which the C++ core reads as "not given"). */
export function seqLenOf(fn: string, value: unknown): number {
  return value === undefined ? NaN : args.integer(fn, 'seqLen', value);
}

/** The Llama 3.1 treatment of a pair. */
export type Llama3Band = (typeof LLAMA3_BANDS)[number];

/** The frequencies of a RoPE and the quantities that define its scaling variant. */
export interface RopeFrequencies {
  /** rotaryDim/2 angular frequencies (radians per position), float64. */
  invFreq: Float64Array;
  /** Multiplies cos and sin of rotated lanes (1 for the unscaled RoPE). */
  attentionFactor: number;
  /** The scaling variant (`'default'` without scaling). */
  scalingType: RopeScalingType;
  /** The base of the default formula: the given base, or the rescaled one for `ntk` and `dynamic`. */
  effectiveBase: number;
  /** The scaling factor in use (1 without scaling; NaN for LongRoPE when neither factor nor maxPositionEmbeddings is given). */
  factor: number;
  /** The current length the frequencies were computed for (`dynamic`: max(seqLen, maxPositionEmbeddings); `longrope`: seqLen or llamaCppContextLength). */
  seqLen?: number;
  /** YaRN: correction range (after truncation and clamping) and ramp per pair (0 keeps w_i, 1 is w_i/factor). */
  yarn?: { low: number; high: number; ramp: Float64Array; factor: number };
  /** Llama 3.1: band of each pair and the weight s of the original frequency in w_i' = (1-s) w_i/factor + s w_i. */
  llama3?: { band: Llama3Band[]; blend: Float64Array };
  /** LongRoPE: which list is in use at the current length, and its values. */
  longrope?: { list: 'short' | 'long'; factors: Float64Array };
}

/** Number of doubles the ropeFrequencies binding writes for `pairs` pairs (a RopeFrequencyBlock). */
export const frequencyBlockLength = ropeFrequencyBlockLength;

/** Reads what the ropeFrequencies binding wrote at `ptr` (a RopeFrequencyBlock, bindings/boundary/blocks.mjs). */
export function readFrequencies(heap: Heap, ptr: Ptr, pairs: number, scaling: ParsedScaling): RopeFrequencies {
  const b = readRopeFrequencyBlock(heap.f64(ptr, frequencyBlockLength(pairs)), pairs); // views: copy what is kept
  const result: RopeFrequencies = {
    invFreq: b.invFreq.slice(),
    attentionFactor: b.attentionFactor,
    scalingType: scaling.type,
    effectiveBase: b.effectiveBase,
    factor: b.factor,
  };
  if (!Number.isNaN(b.seqLen)) result.seqLen = b.seqLen;
  if (scaling.type === 'yarn') {
    result.yarn = { low: b.yarnLow, high: b.yarnHigh, ramp: b.yarnRamp.slice(), factor: b.factor };
  } else if (scaling.type === 'llama3') {
    result.llama3 = { band: Array.from(b.llama3Band, (band) => LLAMA3_BANDS[band]!), blend: b.llama3Blend.slice() };
  } else if (scaling.type === 'longrope') {
    const long = b.longropeLong === 1;
    result.longrope = { list: long ? 'long' : 'short', factors: (long ? scaling.longFactor : scaling.shortFactor)!.slice() };
  }
  return result;
}

/** The RoPE of a model: pass it (spread) to apply, createCache, frequencies, applyMultimodal... */
export interface RopeModelSpec {
  /** Lanes per head that the spec applies to (DeepSeek: `qk_rope_head_dim`, the rotary part of a head). */
  headDim: number;
  /** Rotated lanes: int(headDim * partial_rotary_factor), or GPT-J/CodeGen `rotary_dim`. */
  rotaryDim: number;
  /** `rope_theta` (default 10000; GPT-NeoX `rotary_emb_base`). */
  base: number;
  /** `'interleaved'` for GPT-J, CodeGen, Cohere, GLM, DeepSeek (`rope_interleave`) and Llama 4; `'half'` otherwise. */
  pairing: RopePairing;
  /** The scaling variant with every default made explicit; absent for the unscaled RoPE. */
  scaling?: RopeScaling;
  /** Qwen2-VL-style M-RoPE sections (`mrope_section`): use {@link RopeApi.applyMultimodal}. */
  mropeSection?: number[];
}

/** Options of {@link RopeApi.fromConfig}. */
export interface RopeConfigOptions {
  /** The layers to read, by attention type (e.g. `'full_attention'`, `'sliding_attention'`), when the model's layers differ. */
  layerType?: string;
}
