// pe.rope.fromConfig: the RoPE spec of a model from its Hugging Face config.json, resolved the way
// transformers resolves it (modeling_rope_utils.py and each model's configuration/modeling file):
// `rope_theta`, `rope_scaling` (`type` or `rope_type`) or v5 `rope_parameters`,
// `partial_rotary_factor`, `head_dim` or hidden_size / num_attention_heads, and the models whose
// pairing or rotary width differs (GPT-J, CodeGen, Cohere, GLM, DeepSeek, GPT-NeoX). Every problem
// is an INVALID_CONFIG error naming the config field.
import * as args from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import type { LongRopeScaling, RopePairing, RopeScaling, YarnRopeScaling } from './spec.js';

/** The RoPE of a model: pass it (spread) to apply, createCache, frequencies, applyMultimodal... */
export interface RopeModelSpec {
  /** Lanes per head that the spec applies to (DeepSeek: `qk_rope_head_dim`, the rotary part of a head). */
  headDim: number;
  /** Rotated lanes: int(headDim * partial_rotary_factor), or GPT-J/CodeGen `rotary_dim`. */
  rotaryDim: number;
  /** `rope_theta` (default 10000; GPT-NeoX `rotary_emb_base`). */
  base: number;
  /** `'interleaved'` for GPT-J, CodeGen, Cohere, GLM and DeepSeek (`rope_interleave`); `'half'` otherwise. */
  pairing: RopePairing;
  /** The scaling variant with every default made explicit; absent for the unscaled RoPE. */
  scaling?: RopeScaling;
  /** Qwen2-VL-style M-RoPE sections (`mrope_section`): use {@link RopeApi.applyMultimodal}. */
  mropeSection?: number[];
}

/** Options of {@link RopeApi.fromConfig}. */
export interface RopeConfigOptions {
  /** For configs whose `rope_parameters` hold one entry per layer type (e.g. `'full_attention'`, `'sliding_attention'`). */
  layerType?: string;
}

type Obj = Record<string, unknown>;

/** Models that pair adjacent lanes (their HF modeling code rotates `x[..., ::2]` with `x[..., 1::2]`). */
const INTERLEAVED_MODELS = new Set(['gptj', 'codegen', 'cohere', 'cohere2', 'glm', 'glm4', 'deepseek_v2', 'deepseek_v3']);
/** Models whose position encoding is not RoPE. */
const NON_ROPE_MODELS = new Set(['gpt2', 'bert', 'roberta', 'distilbert', 'bloom', 'mpt', 't5', 'bart', 'opt', 'vit', 'deberta', 'deberta-v2', 'xlm-roberta']);
/** HF rope types (and the older names configs still carry) -> posenc scaling types. */
const ROPE_TYPES: Record<string, RopeScaling['type']> = {
  default: 'default', mrope: 'default', linear: 'linear', dynamic: 'dynamic', yarn: 'yarn', llama3: 'llama3',
  longrope: 'longrope', su: 'longrope',
};

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

function invalid(message: string): PosEncError {
  return new PosEncError('INVALID_CONFIG', `rope.fromConfig: ${message}`);
}

/** Reads config fields, naming them (with their path) in errors. */
class Fields {
  constructor(readonly obj: Obj, readonly path: string) {}

  name(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  /** A number field (absent or null: undefined), checked finite and, unless `allowZero`/`any`, > 0. */
  number(key: string, kind: 'positive' | 'nonnegative' | 'any' = 'positive'): number | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw invalid(`${this.name(key)} must be a number, got ${args.describe(v)}`);
    }
    if ((kind === 'positive' && !(v > 0)) || (kind === 'nonnegative' && v < 0)) {
      throw invalid(`${this.name(key)} must be ${kind === 'positive' ? '> 0' : '>= 0'}, got ${v}`);
    }
    return v;
  }

  required(key: string, why: string): number {
    const v = this.number(key);
    if (v === undefined) throw invalid(`${this.name(key)} is required ${why}`);
    return v;
  }

  integer(key: string): number | undefined {
    const v = this.number(key);
    if (v !== undefined && !Number.isInteger(v)) throw invalid(`${this.name(key)} must be an integer, got ${v}`);
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw invalid(`${this.name(key)} must be true or false, got ${args.describe(v)}`);
    return v;
  }

  list(key: string, length: number, what: string): number[] {
    const v = this.obj[key];
    if (v === undefined || v === null) throw invalid(`${this.name(key)} is required ${what}`);
    if (!Array.isArray(v)) throw invalid(`${this.name(key)} must be a list of numbers, got ${args.describe(v)}`);
    v.forEach((x, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x) || !(x > 0)) {
        throw invalid(`${this.name(key)}[${i}] must be a number > 0, got ${args.describe(x)}`);
      }
    });
    if (v.length !== length) throw invalid(`${this.name(key)} must have rotary_dim/2 = ${length} entries, got ${v.length}`);
    return v.slice() as number[];
  }
}

/** The language-model part of a config: multimodal wrappers keep it in `text_config`. */
function languageModel(config: Obj): { c: Fields; top: Fields } {
  const top = new Fields(config, '');
  const shaped = (o: Obj) => ['num_attention_heads', 'n_head', 'n_heads', 'head_dim', 'qk_rope_head_dim'].some((k) => o[k] !== undefined);
  if (isObject(config.text_config) && !shaped(config)) return { c: new Fields(config.text_config, 'text_config'), top };
  return { c: top, top };
}

/** The RoPE parameter dictionary: v5 `rope_parameters` (possibly per layer type) or `rope_scaling`. */
function ropeParameters(c: Fields, layerType: string | undefined): Fields | undefined {
  const rp = c.obj.rope_parameters;
  const perLayer = isObject(rp) && Object.keys(rp).length > 0 && Object.keys(rp).every((k) => isObject(rp[k]));
  if (layerType !== undefined && !perLayer) {
    throw new PosEncError('INVALID_ARGUMENT', `rope.fromConfig: layerType '${layerType}' was given, but the config has no per-layer-type rope_parameters`);
  }
  if (rp !== undefined && rp !== null) {
    if (!isObject(rp)) throw invalid(`${c.name('rope_parameters')} must be an object, got ${args.describe(rp)}`);
    const keys = Object.keys(rp);
    if (!perLayer) return new Fields(rp, c.name('rope_parameters'));
    if (layerType === undefined) {
      if (keys.length !== 1) {
        throw invalid(`${c.name('rope_parameters')} has one entry per layer type (${keys.join(', ')}): pass { layerType }`);
      }
      layerType = keys[0]!;
    }
    if (!isObject(rp[layerType])) {
      throw invalid(`${c.name('rope_parameters')} has no entry for layer type '${layerType}' (it has ${keys.join(', ')})`);
    }
    return new Fields(rp[layerType] as Obj, c.name(`rope_parameters.${layerType}`));
  }
  const rs = c.obj.rope_scaling;
  if (rs === undefined || rs === null) return undefined;
  if (!isObject(rs)) throw invalid(`${c.name('rope_scaling')} must be an object or null, got ${args.describe(rs)}`);
  return new Fields(rs, c.name('rope_scaling'));
}

function headDimOf(c: Fields, modelType: string): number {
  if (modelType === 'deepseek_v2' || modelType === 'deepseek_v3') {
    return c.integer('qk_rope_head_dim') ?? (() => { throw invalid(`${c.name('qk_rope_head_dim')} is required for model_type '${modelType}'`); })();
  }
  const headDim = c.integer('head_dim');
  if (headDim !== undefined) return headDim;
  const hiddenKey = ['hidden_size', 'n_embd', 'd_model'].find((k) => c.has(k)) ?? 'hidden_size';
  const headsKey = ['num_attention_heads', 'n_head', 'n_heads'].find((k) => c.has(k)) ?? 'num_attention_heads';
  const hidden = c.integer(hiddenKey);
  const heads = c.integer(headsKey);
  if (hidden === undefined) throw invalid(`${c.name('head_dim')} or ${c.name(hiddenKey)} is required`);
  if (heads === undefined) throw invalid(`${c.name(headsKey)} is required to derive the head size from ${c.name(hiddenKey)}`);
  if (hidden % heads !== 0) throw invalid(`${c.name(hiddenKey)} ${hidden} is not divisible by ${c.name(headsKey)} ${heads}`);
  return hidden / heads;
}

function rotaryDimOf(c: Fields, p: Fields | undefined, modelType: string, headDim: number): number {
  let rotaryDim: number;
  let field: string;
  if ((modelType === 'gptj' || modelType === 'codegen') && c.has('rotary_dim')) {
    rotaryDim = c.integer('rotary_dim')!;
    field = c.name('rotary_dim');
  } else {
    // v5 keeps partial_rotary_factor in rope_parameters; older configs at the top (GPT-NeoX: rotary_pct).
    const source = p?.has('partial_rotary_factor') ? p : c.has('partial_rotary_factor') ? c : c.has('rotary_pct') ? c : undefined;
    const key = source === c && !c.has('partial_rotary_factor') ? 'rotary_pct' : 'partial_rotary_factor';
    const factor = source?.number(key) ?? 1;
    field = (source ?? c).name(key);
    if (factor > 1) throw invalid(`${field} must be in (0, 1], got ${factor}`);
    rotaryDim = Math.trunc(headDim * factor);  // Python int(): truncation, as HF does
  }
  if (rotaryDim < 2 || rotaryDim % 2 !== 0 || rotaryDim > headDim) {
    throw invalid(`${field} gives rotary_dim ${rotaryDim}, which must be an even number from 2 to the head size ${headDim}`);
  }
  return rotaryDim;
}

function scalingOf(type: RopeScaling['type'], p: Fields, c: Fields, top: Fields, pairs: number, typeField: string): RopeScaling | undefined {
  const why = `for rope type '${type}' (${typeField})`;
  const maxPos = c.integer('max_position_embeddings') ?? c.integer('n_positions');
  switch (type) {
    case 'default':
      return undefined;
    case 'linear':
      return { type, factor: p.required('factor', why) };
    case 'dynamic':
      if (maxPos === undefined) throw invalid(`${c.name('max_position_embeddings')} is required ${why}`);
      return { type, factor: p.required('factor', why), maxPositionEmbeddings: maxPos };
    case 'yarn': {
      const original = p.number('original_max_position_embeddings') ?? maxPos;
      if (original === undefined) throw invalid(`${p.name('original_max_position_embeddings')} or ${c.name('max_position_embeddings')} is required ${why}`);
      const given = p.number('factor');
      const factor = given ?? (maxPos !== undefined && p.has('original_max_position_embeddings') ? maxPos / original : undefined);
      if (factor === undefined) throw invalid(`${p.name('factor')} is required ${why}`);
      const s: YarnRopeScaling = {
        type, factor, originalMaxPositionEmbeddings: original,
        betaFast: p.number('beta_fast', 'nonnegative') || 32,  // HF: `get(...) or default`
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
      if (!(high > low)) throw invalid(`${p.name('high_freq_factor')} (${high}) must be greater than ${p.name('low_freq_factor')} (${low})`);
      return {
        type, factor: p.required('factor', why), lowFreqFactor: low, highFreqFactor: high,
        originalMaxPositionEmbeddings: p.required('original_max_position_embeddings', why),
      };
    }
    case 'longrope': {
      const shortFactor = p.list('short_factor', pairs, why);
      const longFactor = p.list('long_factor', pairs, why);
      // Phi-3 keeps original_max_position_embeddings at the top level of the config.
      const original = p.number('original_max_position_embeddings') ?? c.number('original_max_position_embeddings') ?? top.number('original_max_position_embeddings') ?? maxPos;
      if (original === undefined) throw invalid(`${c.name('original_max_position_embeddings')} or ${c.name('max_position_embeddings')} is required ${why}`);
      const s: LongRopeScaling = { type, shortFactor, longFactor, originalMaxPositionEmbeddings: original };
      const factor = p.number('factor') ?? (maxPos !== undefined ? maxPos / original : undefined);
      const attentionFactor = p.number('attention_factor');
      if (factor === undefined && attentionFactor === undefined) throw invalid(`${p.name('factor')} or ${c.name('max_position_embeddings')} is required ${why}`);
      if (factor !== undefined) s.factor = factor;
      if (attentionFactor !== undefined) s.attentionFactor = attentionFactor;
      return s;
    }
    default:
      return undefined;
  }
}

/** Builds the RoPE spec of a model from its Hugging Face config (parsed object or JSON text). */
export function fromConfig(config: object | string, options?: RopeConfigOptions): RopeModelSpec {
  const fn = 'rope.fromConfig';
  const opts = args.options(fn, options, ['layerType'], true);
  if (opts.layerType !== undefined && typeof opts.layerType !== 'string') {
    throw new PosEncError('INVALID_TYPE', `${fn}: layerType must be a string, got ${args.describe(opts.layerType)}`);
  }
  const layerType = opts.layerType as string | undefined;
  let parsed: unknown = config;
  if (typeof config === 'string') {
    try {
      parsed = JSON.parse(config);
    } catch (error) {
      throw invalid(`the config is not valid JSON (${(error as Error).message})`);
    }
  }
  if (!isObject(parsed)) throw new PosEncError('INVALID_TYPE', `${fn}: config must be a config.json object or its JSON text, got ${args.describe(parsed)}`);
  const { c, top } = languageModel(parsed);
  const typeValue = c.obj.model_type ?? top.obj.model_type;
  const modelType = typeof typeValue === 'string' ? typeValue : '';
  if (NON_ROPE_MODELS.has(modelType)) throw invalid(`model_type '${modelType}' does not use RoPE`);
  if (c.obj.alibi === true) throw invalid(`${c.name('alibi')} is true: this model uses ALiBi, not RoPE`);
  const pe = c.obj.position_embedding_type;
  if (typeof pe === 'string' && ['absolute', 'relative_key', 'relative_key_query', 'alibi'].includes(pe)) {
    throw invalid(`${c.name('position_embedding_type')} is '${pe}': this model does not use RoPE`);
  }

  const p = ropeParameters(c, layerType);
  let typeName = 'default';
  let typeField = p ? p.name('rope_type') : 'rope_type';
  if (p) {
    const t = p.obj.rope_type ?? p.obj.type;
    if (p.obj.rope_type === undefined && p.obj.type !== undefined) typeField = p.name('type');
    if (t !== undefined && t !== null) {
      if (typeof t !== 'string') throw invalid(`${typeField} must be a string, got ${args.describe(t)}`);
      typeName = t;
    }
  }
  const type = ROPE_TYPES[typeName];
  if (type === undefined) {
    throw invalid(`${typeField} '${typeName}' is not a RoPE type posenc knows (${Object.keys(ROPE_TYPES).join(', ')})`);
  }

  const headDim = headDimOf(c, modelType);
  const rotaryDim = rotaryDimOf(c, p, modelType, headDim);
  const base = p?.number('rope_theta') ?? c.number('rope_theta') ?? c.number('rotary_emb_base') ?? 10000;
  const interleaved = INTERLEAVED_MODELS.has(modelType) && !(modelType.startsWith('deepseek') && c.boolean('rope_interleave') === false);
  const spec: RopeModelSpec = { headDim, rotaryDim, base, pairing: interleaved ? 'interleaved' : 'half' };
  const scaling = p && scalingOf(type, p, c, top, rotaryDim / 2, typeField);
  if (scaling) spec.scaling = scaling;

  if (p?.has('mrope_section')) {
    if (p.boolean('mrope_interleaved') === true) {
      throw invalid(`${p.name('mrope_interleaved')} (Qwen3-VL's interleaved M-RoPE layout) is not supported; posenc implements Qwen2-VL's sectioned layout`);
    }
    const v = p.obj.mrope_section;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isInteger(x) || x < 0)) {
      throw invalid(`${p.name('mrope_section')} must be a list of non-negative integers, got ${args.describe(v)}`);
    }
    const sum = (v as number[]).reduce((a, b) => a + b, 0);
    if (sum !== rotaryDim / 2) throw invalid(`${p.name('mrope_section')} sums to ${sum}, but rotary_dim/2 is ${rotaryDim / 2}`);
    spec.mropeSection = (v as number[]).slice();
  }
  return spec;
}
