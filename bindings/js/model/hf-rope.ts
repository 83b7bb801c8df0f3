// One RoPE parameter dictionary of a Hugging Face config (v4 `rope_scaling` with `type` or
// `rope_type`, v5 `rope_parameters` with `rope_theta` inside) read into a posenc RoPE spec and
// form, as transformers' modeling_rope_utils.py (`ROPE_INIT_FUNCTIONS`, `_compute_*_parameters`)
// reads it. Every problem is an INVALID_CONFIG error naming the field.
import type { RopeModelSpec } from '../families/rope/spec.js';
import type { LongRopeScaling, RopeScaling, YarnRopeScaling } from '../families/rope/spec.js';
import type { Fields } from './config-fields.js';
import type { RopeForm } from './plan.js';
import { INTERLEAVED_PAIRING } from './rope-pairing.js';

/** HF rope types (and the older names configs still carry) -> posenc scaling types. */
const ROPE_TYPES: ReadonlyMap<string, RopeScaling['type'] | 'proportional'> = new Map(Object.entries({
  default: 'default', mrope: 'default', linear: 'linear', dynamic: 'dynamic', yarn: 'yarn', llama3: 'llama3',
  longrope: 'longrope', su: 'longrope', proportional: 'proportional',
} as const));

/** Keys a RoPE dictionary may hold (HF `RopeParameters` plus the model-specific ones); any other is an error. */
const PARAMETER_KEYS: Record<string, readonly string[]> = {
  default: [],
  linear: ['factor'],
  dynamic: ['factor', 'alpha'],
  yarn: ['factor', 'original_max_position_embeddings', 'attention_factor', 'beta_fast', 'beta_slow', 'mscale', 'mscale_all_dim', 'truncate'],
  llama3: ['factor', 'low_freq_factor', 'high_freq_factor', 'original_max_position_embeddings'],
  longrope: ['factor', 'short_factor', 'long_factor', 'original_max_position_embeddings', 'attention_factor'],
  proportional: ['factor'],
};
/** Keys of every type: the type, base, partial rotary, M-RoPE sections, Ministral 3 query scaling. */
const COMMON_KEYS = ['rope_type', 'type', 'rope_theta', 'partial_rotary_factor', 'mrope_section', 'mrope_interleaved',
  'llama_4_scaling_beta', 'original_max_position_embeddings',
  // Mistral 3's standardised dictionary repeats the model's max_position_embeddings; the RoPE functions read the config's.
  'max_position_embeddings'];
const ALL_KEYS = new Set([...COMMON_KEYS, ...Object.values(PARAMETER_KEYS).flat()]);

/** Models that pair adjacent lanes (HF rotates `x[..., ::2]` with `x[..., 1::2]`, or multiplies complex pairs). */
const INTERLEAVED_MODELS = new Set(['gptj', 'codegen', 'cohere', 'cohere2', 'glm', 'glm4', 'deepseek_v2', 'deepseek_v3',
  'llama4', 'llama4_text']);
/** Models whose rotary embedding reads HunYuan's NTK `alpha` (HF HunYuanDenseV1RotaryEmbedding, HunYuanMoEV1RotaryEmbedding). */
const ALPHA_MODELS = new Set(['hunyuan_v1_dense', 'hunyuan_v1_moe']);
/** Models whose M-RoPE interleaves t/h/w over pairs (HF `apply_interleaved_mrope`). */
const INTERLEAVED_MROPE_MODELS = new Set(['qwen3_vl', 'qwen3_vl_text', 'qwen3_vl_moe', 'qwen3_vl_moe_text', 'qwen3_5',
  'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text']);

/** Whether transformers pairs adjacent lanes for `modelType` (before DeepSeek's `rope_interleave`). */
export function pairsAdjacentLanes(modelType: string): boolean {
  return INTERLEAVED_MODELS.has(modelType) || INTERLEAVED_PAIRING.has(modelType);
}

/** Whether `modelType` has M-RoPE (its rope parameters may carry mrope_section). */
export function usesMrope(modelType: string): boolean {
  return INTERLEAVED_MROPE_MODELS.has(modelType) || modelType.startsWith('qwen2_vl') || modelType.startsWith('qwen2_5_vl');
}

/** The RoPE type named in a parameter dictionary (`rope_type`, or the older `type`), and the field that named it. */
export function ropeTypeOf(p: Fields | undefined): { type: string; field: string } {
  if (!p) return { type: 'default', field: 'rope_type' };
  const key = p.obj.rope_type !== undefined && p.obj.rope_type !== null ? 'rope_type' : 'type';
  const t = p.string(key);
  return { type: t ?? 'default', field: p.name(key) };
}

/** What the RoPE of one layer type needs from the rest of the config. */
export interface RopeContext {
  /** The language-model config and the file's top level (Phi-3 keeps original_max_position_embeddings there). */
  c: Fields;
  top: Fields;
  modelType: string;
  /** Lanes per head of this layer type (DeepSeek: qk_rope_head_dim; Gemma 4 full layers: global_head_dim). */
  headDim: number;
  /** The field headDim came from, for errors. */
  headDimField: string;
  /** The base when the dictionary has no rope_theta (v4 top-level keys, model defaults). */
  base: number;
  /** Where the partial rotary factor is read when the dictionary has none (v4 top level). */
  partial?: { value: number; field: string };
}

/** Reads one RoPE parameter dictionary (undefined: the unscaled RoPE) into a spec and a form. */
export function readRope(ctx: RopeContext, p: Fields | undefined, notes: string[]): { spec: RopeModelSpec; form: RopeForm } {
  const { c, modelType, headDim } = ctx;
  const { type: typeName, field: typeField } = ropeTypeOf(p);
  const type = ROPE_TYPES.get(typeName);
  if (type === undefined) {
    throw c.invalid(`${typeField} '${typeName}' is not a RoPE type posenc knows (${[...ROPE_TYPES.keys()].join(', ')})`);
  }
  if (p) {
    for (const key of Object.keys(p.obj)) {
      if (!ALL_KEYS.has(key)) throw p.invalid(`${p.name(key)} is a RoPE parameter posenc does not know (rope type '${typeName}')`);
    }
    if (p.obj.type !== undefined && p.obj.rope_type === undefined) notes.push(`${p.name('type')} is the older spelling of rope_type`);
  }
  const base = p?.number('rope_theta') ?? ctx.base;
  const interleaved = pairsAdjacentLanes(modelType) && !(modelType.startsWith('deepseek') && c.boolean('rope_interleave') === false);
  const pairing = interleaved ? 'interleaved' : 'half';

  // Partial rotary: v5 keeps partial_rotary_factor in the dictionary, v4 at the top (GPT-NeoX: rotary_pct).
  const partialField = p?.has('partial_rotary_factor') ? p.name('partial_rotary_factor') : ctx.partial?.field;
  const partial = p?.number('partial_rotary_factor') ?? ctx.partial?.value ?? 1;
  if (partial > 1) throw c.invalid(`${partialField} must be in (0, 1], got ${partial}`);

  if (type === 'proportional') {
    // HF _compute_proportional_rope_parameters: rope_angles = int(partial * head_dim // 2) pairs rotate
    // with base^(-2i/head_dim), the other head_dim/2 - rope_angles pairs get frequency 0.
    const rotatedPairs = Math.floor((partial * headDim) / 2);
    if (headDim % 2 !== 0) throw c.invalid(`${ctx.headDimField} ${headDim} must be even for proportional RoPE`);
    const factor = p?.number('factor') ?? 1;
    const spec: RopeModelSpec = { headDim, rotaryDim: headDim, base, pairing };
    if (factor !== 1) spec.scaling = { type: 'linear', factor };
    return { spec, form: { kind: 'proportional', rotatedPairs } };
  }

  let rotaryDim: number;
  let rotaryField: string;
  const rd = c.from('rotary_dim');
  if ((modelType === 'gptj' || modelType === 'codegen') && rd.has('rotary_dim')) {
    rotaryDim = rd.integer('rotary_dim')!;
    rotaryField = rd.name('rotary_dim');
    if (rd !== c) notes.push(`${c.name('rotary_dim')} is absent: ${rotaryDim} (the ${c.family!.configClass} default)`);
  } else {
    rotaryDim = Math.trunc(headDim * partial); // Python int(): truncation, as HF does
    rotaryField = partialField ?? ctx.headDimField;
  }
  if (rotaryDim < 2 || rotaryDim % 2 !== 0 || rotaryDim > headDim) {
    throw c.invalid(`${rotaryField} gives rotary_dim ${rotaryDim}, which must be an even number from 2 to the head size ${headDim}`);
  }
  const spec: RopeModelSpec = { headDim, rotaryDim, base, pairing };
  if (p) {
    const scaling = scalingOf(type, p, ctx, rotaryDim, typeField, notes);
    if (scaling) spec.scaling = scaling;
  }
  let form: RopeForm = { kind: 'standard' };
  if (p?.has('mrope_section')) {
    const section = p.integers('mrope_section', 0)!;
    const sum = section.reduce((a, b) => a + b, 0);
    if (sum !== rotaryDim / 2) throw p.invalid(`${p.name('mrope_section')} sums to ${sum}, but rotary_dim/2 is ${rotaryDim / 2}`);
    const interleavedMrope = INTERLEAVED_MROPE_MODELS.has(modelType);
    const flag = p.boolean('mrope_interleaved');
    if (flag !== undefined && flag !== interleavedMrope) {
      throw p.invalid(`${p.name('mrope_interleaved')} is ${flag}, but model_type '${modelType}' ${interleavedMrope ? 'always interleaves' : 'never interleaves'} its M-RoPE sections`);
    }
    spec.mropeSection = section.slice();
    form = { kind: 'mrope', section, interleaved: interleavedMrope };
  } else if (p?.has('mrope_interleaved')) {
    throw p.invalid(`${p.name('mrope_interleaved')} is given without mrope_section`);
  }
  return { spec, form };
}

function scalingOf(type: RopeScaling['type'], p: Fields, ctx: RopeContext, rotaryDim: number, typeField: string, notes: string[]): RopeScaling | undefined {
  const { c, top } = ctx;
  const why = `for rope type '${p.obj.rope_type ?? p.obj.type}' (${typeField})`;
  const maxPos = c.integer('max_position_embeddings') ?? c.integer('n_positions');
  switch (type) {
    case 'default':
      return undefined;
    case 'linear':
      return { type, factor: p.required('factor', why) };
    case 'dynamic': {
      if (maxPos === undefined) throw c.invalid(`${c.name('max_position_embeddings')} is required ${why}`);
      const alpha = p.number('alpha');
      if (alpha === undefined) return { type, factor: p.required('factor', why), maxPositionEmbeddings: maxPos };
      // HF reads alpha only in HunYuanDenseV1RotaryEmbedding (and the MoE one): base * alpha^(d/(d-2))
      // with d = head_dim at model load; dynamic_rope_update recomputes from factor past max_position_embeddings.
      if (!ALPHA_MODELS.has(ctx.modelType)) {
        throw p.invalid(`${p.name('alpha')} is read by transformers only for HunYuan models (HunYuanDenseV1RotaryEmbedding); ` +
          `model_type '${ctx.modelType}' would compute dynamic NTK from factor alone`);
      }
      if (rotaryDim !== ctx.headDim) throw p.invalid(`${p.name('alpha')} with partial rotary: HF's alpha base uses the whole head_dim ${ctx.headDim}`);
      const factor = p.number('factor');
      notes.push(`${p.name('alpha')}: base * alpha^(d/(d-2)) up to max_position_embeddings ${maxPos}, then HF's dynamic NTK from ` +
        `${factor === undefined ? 'factor (absent: longer contexts are refused)' : `factor ${factor}`}; vLLM keeps the alpha base at every length (scaling type 'ntk')`);
      return { type, alpha, ...(factor === undefined ? {} : { factor }), maxPositionEmbeddings: maxPos };
    }
    case 'yarn': {
      const original = p.number('original_max_position_embeddings') ?? maxPos;
      if (original === undefined) throw c.invalid(`${p.name('original_max_position_embeddings')} or ${c.name('max_position_embeddings')} is required ${why}`);
      const given = p.number('factor');
      const factor = given ?? (maxPos !== undefined && p.has('original_max_position_embeddings') ? maxPos / original : undefined);
      if (factor === undefined) throw c.invalid(`${p.name('factor')} is required ${why}`);
      if (given === undefined) notes.push(`${p.name('factor')} is absent: max_position_embeddings / original_max_position_embeddings = ${factor} (HF v5)`);
      const s: YarnRopeScaling = {
        type, factor, originalMaxPositionEmbeddings: original,
        betaFast: p.number('beta_fast', 'nonnegative') || 32, // HF: `get(...) or default`
        betaSlow: p.number('beta_slow', 'nonnegative') || 1,
        truncate: p.boolean('truncate') ?? true,
      };
      const mscale = p.number('mscale', 'any');
      const mscaleAllDim = p.number('mscale_all_dim', 'any');
      const attentionFactor = p.number('attention_factor');
      if (mscale !== undefined) s.mscale = mscale;
      if (mscaleAllDim !== undefined) s.mscaleAllDim = mscaleAllDim;
      if (attentionFactor !== undefined) s.attentionFactor = attentionFactor;
      return s;
    }
    case 'llama3': {
      const low = p.required('low_freq_factor', why);
      const high = p.required('high_freq_factor', why);
      // HF _validate_llama3_parameters only warns when high <= low; equal factors (Llama 4 Scout)
      // leave the blended band empty. high < low has no meaning: refuse it.
      if (high < low) throw p.invalid(`${p.name('high_freq_factor')} (${high}) must be at least ${p.name('low_freq_factor')} (${low})`);
      return {
        type, factor: p.required('factor', why), lowFreqFactor: low, highFreqFactor: high,
        originalMaxPositionEmbeddings: p.required('original_max_position_embeddings', why),
      };
    }
    case 'longrope': {
      const pairs = rotaryDim / 2;
      const shortFactor = p.list('short_factor', pairs, why);
      const longFactor = p.list('long_factor', pairs, why);
      // Phi-3 keeps original_max_position_embeddings at the top level (HF standardize_rope_params moves it in).
      const original = p.number('original_max_position_embeddings') ?? c.number('original_max_position_embeddings') ?? top.number('original_max_position_embeddings') ?? maxPos;
      if (original === undefined) throw c.invalid(`${c.name('original_max_position_embeddings')} or ${c.name('max_position_embeddings')} is required ${why}`);
      const s: LongRopeScaling = { type, shortFactor, longFactor, originalMaxPositionEmbeddings: original };
      // HF v5 _compute_longrope_parameters: a given factor, else max_position_embeddings / original
      // (only the default attention factor reads it).
      const factor = p.number('factor') ?? (maxPos !== undefined ? maxPos / original : undefined);
      const attentionFactor = p.number('attention_factor');
      if (factor === undefined && attentionFactor === undefined) throw c.invalid(`${p.name('factor')} or ${c.name('max_position_embeddings')} is required ${why}`);
      if (factor !== undefined) s.factor = factor;
      if (attentionFactor !== undefined) s.attentionFactor = attentionFactor;
      return s;
    }
    default:
      return undefined;
  }
}
