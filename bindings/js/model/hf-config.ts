// A model's position plan from its Hugging Face config.json (v4 and v5 generations), layer by
// layer, following transformers' configuration_*.py (defaults, layer types) and modeling_*.py
// (which layers rotate, with which parameters). Unknown position keys are INVALID_CONFIG errors.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { Fields, isObject } from './config-fields.js';
import type { Obj } from './config-fields.js';
import { pairsAdjacentLanes, readRope, ropeTypeOf, usesMrope } from './hf-rope.js';
import type { RopeContext } from './hf-rope.js';
import { LAYER_TYPES, hybridSchedule, layerTypes, ropeLayers, windowOf } from './hf-layers.js';
import { decideKeys } from './config-keys.js';
import { classDefault, classDefines, familyFacts, subConfigType } from './family-table.js';
import type { FamilyFacts } from './family-table.js';
import { NO_POSITION_LAYERS, readByHand, routeOf } from './family-route.js';
import type { AbsolutePositions, LayerAlibi, LayerPlan, LayerRope, LongRopeSwitch, ModelPlan, QueryScaling } from './plan.js';
import { MAX_HEAD_DIM, MAX_LAYERS } from './plan.js';

/** Options of `pe.model.fromConfig`. */
export interface ModelConfigOptions {
  /** Which LongRoPE list is used (default `'hf'`: per call). See {@link LongRopeSwitch}. */
  longRope?: LongRopeSwitch['rule'];
  /** vLLM `max_model_len` or llama.cpp context size, for `longRope: 'vllm' | 'llama.cpp'` (default max_position_embeddings). */
  contextLength?: number;
  /**
   * DeepSeek-V2's softmax scale with YaRN: `'hf'` (default) keeps transformers' `qk_head_dim^-0.5`
   * (DeepseekV2Attention); `'deepseek'` multiplies it by mscale(factor, mscale_all_dim)², as
   * DeepSeek's own modeling_deepseek.py and vLLM do (DeepSeek-V3 does so in every source).
   */
  softmaxScale?: 'hf' | 'deepseek';
}

/** Internal: pe.rope.fromConfig reads configs that do not say how many layers there are. */
export interface PlanReadOptions extends ModelConfigOptions {
  layersOptional?: boolean;
}

/** The language-model part of a config: multimodal wrappers keep it in `text_config` (the class's sub-config). */
function languageModel(top: Fields, topFamily: FamilyFacts | undefined): Fields {
  const shaped = (o: Fields) => ['num_attention_heads', 'n_head', 'n_heads', 'head_dim', 'qk_rope_head_dim'].some((k) => o.get(k) !== undefined);
  const text = top.get('text_config');
  const subType = topFamily ? subConfigType(topFamily, 'text_config') : undefined;
  if (isObject(text) && (!shaped(top) || subType !== undefined)) return new Fields(text, 'text_config', top.fn);
  // A wrapper whose text_config is absent: transformers builds the sub-config from its class defaults.
  if (text === undefined && subType !== undefined && !shaped(top)) return new Fields({}, 'text_config', top.fn);
  return top;
}

function firstInteger(c: Fields, keys: readonly string[]): { value: number; key: string } | undefined {
  for (const key of keys) if (c.has(key)) return { value: c.integer(key)!, key };
  return undefined;
}

/** A count read from the config, else the class default (with a note), else undefined. */
function countOf(c: Fields, keys: readonly string[], notes: string[]): { value: number; key: string; from: Fields } | undefined {
  const given = firstInteger(c, keys);
  if (given) return { ...given, from: c };
  const d = c.from(keys[0]!);
  if (d === c) return undefined;
  const value = d.integer(keys[0]!)!;
  notes.push(`${c.name(keys[0]!)} is absent: ${value} (the ${c.family!.configClass} default)`);
  return { value, key: keys[0]!, from: d };
}

/**
 * A default of the class that __post_init__ may derive from other fields (head_dim from
 * hidden_size / num_attention_heads, num_key_value_heads from num_attention_heads): taken only
 * where the default instance's value differs from that derivation, so it is the class's own.
 */
function ownDefault(family: FamilyFacts | undefined, key: string, derived: (d: Readonly<Record<string, unknown>>) => unknown): number | undefined {
  if (!family) return undefined;
  const v = classDefault(family, key);
  if (typeof v !== 'number') return undefined;
  return v === derived(family.defaults) ? undefined : v;
}

/** Reads the config text or object. */
export function parseConfig(fn: string, config: unknown): Obj {
  let parsed = config;
  if (typeof config === 'string') {
    try {
      parsed = JSON.parse(config);
    } catch (error) {
      throw new PosEncError('INVALID_CONFIG', `${fn}: the config is not valid JSON (${(error as Error).message})`);
    }
  }
  if (!isObject(parsed)) throw new PosEncError('INVALID_TYPE', `${fn}: config must be a config.json object or its JSON text, got ${args.describe(parsed)}`);
  return args.snapshot(fn, parsed, 'config') as Obj; // read once: getters run here, and every later read is of plain data
}

/** Builds the position plan of a Hugging Face config. */
export function planFromConfig(fn: string, config: unknown, options: PlanReadOptions = {}): ModelPlan {
  const raw = new Fields(parseConfig(fn, config), '', fn);
  const topType = raw.string('model_type') ?? '';
  const topFamily = topType === '' ? undefined : familyFacts(topType);
  const top = raw.as(topFamily);
  const lm = languageModel(top, topFamily);
  const notes: string[] = [];
  // The class the language model is read as: its own model_type's, else the wrapper's text sub-config's.
  const subType = lm !== top && topFamily ? subConfigType(topFamily, 'text_config') : undefined;
  const modelType = lm.string('model_type') ?? (subType !== undefined && !readByHand(topType) ? subType : topType);
  const family = lm === top ? topFamily : familyFacts(lm.string('model_type') ?? subType ?? '') ?? topFamily;
  const c = lm === top ? top : lm.as(family);
  const route = routeOf(c, modelType, family, topFamily, topType);
  if (modelType === '') notes.push('model_type is absent: read as a Llama-style model (RoPE on every layer, half pairing)');
  const keyContext = { modelType, family, interleaved: pairsAdjacentLanes(modelType), mrope: usesMrope(modelType), notes };
  decideKeys(c, keyContext, modelType === 'mpt' ? ['attn_config'] : []);
  if (c !== top) decideKeys(top, { ...keyContext, family: topFamily });

  const layersKey = countOf(c, ['num_hidden_layers', 'n_layer', 'n_layers', 'num_layers'], notes);
  if (!layersKey && !options.layersOptional) throw c.invalid(`${c.name('num_hidden_layers')} is required to plan every layer`);
  let numLayers = layersKey?.value ?? 1;
  if (modelType === 'nemotron_h') {
    // NemotronHConfig: the layer list decides the count (num_hidden_layers is kept only for old configs).
    const list = c.strings('layer_types') ?? hybridSchedule(c, modelType, numLayers)!;
    if (list.length !== numLayers && layersKey?.from === c) notes.push(`${c.name('num_hidden_layers')} ${numLayers} differs from the ${list.length} layers of its layer list: NemotronHConfig uses the list`);
    numLayers = list.length;
  }
  if (numLayers > MAX_LAYERS) throw c.invalid(`${c.name(layersKey!.key)} is ${numLayers}; a plan holds at most ${MAX_LAYERS} layers`);
  const heads = countOf(c, ['num_attention_heads', 'n_head', 'n_heads'], notes);
  if (!heads) throw c.invalid(`${c.name('num_attention_heads')} is required`);
  const numHeads = heads.value;
  const hidden = firstInteger(c, ['hidden_size', 'n_embd', 'd_model']) ?? countOf(c, ['hidden_size'], []);
  let headDim = c.integer('head_dim');
  if (headDim === undefined && modelType.startsWith('gemma4')) {
    headDim = 256; // Gemma4TextConfig head_dim
    notes.push(`${c.name('head_dim')} is absent: 256 (the Gemma4TextConfig default)`);
  }
  if (headDim === undefined && modelType === 'zamba2' && hidden) {
    headDim = Math.floor((2 * hidden.value) / numHeads); // Zamba2Config: attention_head_dim = 2 * hidden_size // num_attention_heads
    notes.push(`${c.name('attention_head_dim')} is absent: 2 * hidden_size / num_attention_heads = ${headDim} (Zamba2Config)`);
  }
  if (headDim === undefined) {
    headDim = ownDefault(family, 'head_dim', (d) => (typeof d.hidden_size === 'number' && typeof d.num_attention_heads === 'number' ? Math.floor(d.hidden_size / d.num_attention_heads) : undefined));
    if (headDim !== undefined) notes.push(`${c.name('head_dim')} is absent: ${headDim} (the ${family!.configClass} default, not hidden_size / num_attention_heads)`);
  }
  if (headDim === undefined) {
    if (!hidden) throw c.invalid(`${c.name('head_dim')} or ${c.name('hidden_size')} is required`);
    if (hidden.value % numHeads !== 0) throw c.invalid(`${c.name(hidden.key)} ${hidden.value} is not divisible by ${c.name(heads.key)} ${numHeads}`);
    headDim = hidden.value / numHeads;
  }
  if (headDim > MAX_HEAD_DIM) {
    throw c.invalid(`the head size is ${headDim} lanes (${c.has('head_dim') ? c.name('head_dim') : `${c.name(hidden!.key)} / ${c.name(heads.key)}`}); posenc plans heads of at most ${MAX_HEAD_DIM}`);
  }
  let numKeyValueHeads = c.integer('num_key_value_heads') ?? c.integer('num_kv_heads') ?? (c.boolean('multi_query') === true ? 1 : undefined);
  if (numKeyValueHeads === undefined) {
    numKeyValueHeads = ownDefault(family, 'num_key_value_heads', (d) => d.num_attention_heads);
    if (numKeyValueHeads !== undefined) notes.push(`${c.name('num_key_value_heads')} is absent: ${numKeyValueHeads} (the ${family!.configClass} default)`);
  }
  numKeyValueHeads ??= numHeads;
  const maxPositionEmbeddings = c.integer('max_position_embeddings') ?? c.integer('n_positions') ?? c.integer('max_seq_len') ??
    (c.from('max_position_embeddings') !== c ? c.from('max_position_embeddings').integer('max_position_embeddings') : undefined);
  const plan: ModelPlan = {
    source: 'hf-config', modelType, numLayers, numHeads, numKeyValueHeads, headDim, absolute: null, layers: [], notes,
  };
  if (maxPositionEmbeddings !== undefined) plan.maxPositionEmbeddings = maxPositionEmbeddings;

  const kind = route;
  if (kind !== 'rope' && kind !== 'falcon' && kind !== 'none') {
    plan.absolute = absoluteOf(c, modelType);
    const alibi = alibiOf(c, modelType, numHeads);
    plan.layers = Array.from({ length: numLayers }, (_, index) => ({ index, attention: 'full_attention', rope: null, alibi, window: null, queryScaling: null }));
    return plan;
  }
  if (kind === 'falcon' && c.boolean('alibi') === true) {
    plan.layers = Array.from({ length: numLayers }, (_, index) => ({
      index, attention: 'full_attention', rope: null, alibi: { numHeads, maxBias: 8, form: 'bloom' }, window: null, queryScaling: null,
    }));
    return plan;
  }
  for (const key of ['use_alibi', 'alibi']) {
    if (c.obj[key] === true) throw c.invalid(`${c.name(key)} is true, but model_type '${modelType}' uses RoPE in transformers`);
  }
  // A class that defines position_embedding_type switches positions with it (a key of another
  // dialect's spelling, such as TensorRT-LLM's 'rope_gptj', is decided in config-keys.ts).
  const pet = family && classDefines(family, 'position_embedding_type') ? c.from('position_embedding_type').string('position_embedding_type') : undefined;
  if (pet !== undefined && pet !== 'rope' && pet !== 'rotary') {
    throw c.invalid(`${c.name('position_embedding_type')} is '${pet}': posenc plans model_type '${modelType}' only with RoPE ('rotary')`);
  }

  const ropeFlags = ropeLayers(c, modelType, numLayers);
  // Jamba and Nemotron-H attention layers apply no RoPE (their modeling files define apply_rotary_pos_emb
  // and never call it); Zamba2's shared attention rotates only with use_mem_rope (Zamba2Attention.forward).
  const noPositions = route === 'none' || (modelType === 'zamba2' && c.from('use_mem_rope').boolean('use_mem_rope') !== true);
  if (noPositions) notes.push(modelType === 'zamba2' ? `${c.name('use_mem_rope')} is not true: Zamba2's attention uses no RoPE` : `model_type '${modelType}': its attention layers use no positions (NoPE)`);
  const types = layerTypes(c, modelType, numLayers, ropeFlags, notes);
  const ropeByType = new Map<string, { rope: LayerRope; query: QueryScaling | null }>();
  const ropeOf = (type: string) => {
    if (!ropeByType.has(type)) ropeByType.set(type, ropeForType(c, top, modelType, headDim!, type, notes, options));
    return ropeByType.get(type)!;
  };
  const temperature = temperatureTuning(c, modelType);
  for (let index = 0; index < numLayers; index++) {
    const type = types[index]!;
    const read = NO_POSITION_LAYERS.has(type) || noPositions ? null : ropeOf(type);
    let rope: LayerRope | null = read ? read.rope : null;
    if (ropeFlags && ropeFlags[index] === 0) rope = null;
    if (modelType === 'cohere2' && type === 'full_attention') rope = null; // Cohere2Attention: RoPE only with a sliding window
    const layer: LayerPlan = { index, attention: type, rope, alibi: null, window: windowOf(c, modelType, type), queryScaling: null };
    if (rope === null && temperature) layer.queryScaling = temperature;
    if (rope !== null && read?.query) layer.queryScaling = read.query;
    plan.layers.push(layer);
  }
  const longrope = plan.layers.find((l) => l.rope?.spec.scaling?.type === 'longrope');
  if (longrope) plan.longRope = longRopeSwitch(fn, options, longrope.rope!, maxPositionEmbeddings, notes);
  if (modelType.startsWith('gemma4')) plan.headDim = c.integer('head_dim') ?? 256;
  // DeepSeek MLA: q and k heads are qk_nope_head_dim + qk_rope_head_dim lanes (HF qk_head_dim), not hidden / heads.
  const mla = plan.layers.find((l) => l.rope?.form.kind === 'decoupled')?.rope?.form;
  if (mla?.kind === 'decoupled') plan.headDim = mla.nopeHeadDim + mla.ropeHeadDim;
  return plan;
}

/** The class's default rope_parameters for `type` (after standardisation), read as config fields. */
function defaultRopeParameters(family: FamilyFacts | undefined, type: string, fn: string): Fields | undefined {
  if (!family) return undefined;
  const rp = classDefault(family, 'rope_parameters');
  if (!isObject(rp)) return undefined;
  const name = `(${family.configClass} default rope_parameters)`;
  const entry = Object.hasOwn(rp, type) ? rp[type] : undefined;
  if (isObject(entry)) return new Fields(entry, `${name}.${type}`, fn);
  if (typeof rp.rope_type === 'string' || typeof rp.rope_theta === 'number') return new Fields(rp, name, fn);
  return undefined;
}

/** Whether a default rope_parameters dictionary is the unscaled RoPE (only rope_type 'default', rope_theta, partial_rotary_factor). */
function plainDefault(d: Fields): boolean {
  return (d.get('rope_type') ?? 'default') === 'default' && Object.keys(d.obj).every((k) => ['rope_type', 'rope_theta', 'partial_rotary_factor'].includes(k));
}

/** The RoPE dictionary of a layer type: v5 per-type or flat `rope_parameters`, or v4 `rope_scaling`. */
function parametersFor(c: Fields, type: string): Fields | undefined {
  const rp = c.child('rope_parameters');
  if (rp) {
    const perType = Object.keys(rp.obj).filter((k) => (LAYER_TYPES as readonly string[]).includes(k) && isObject(rp.obj[k]));
    if (perType.length === 0) return rp;
    for (const key of Object.keys(rp.obj)) {
      // standardize_rope_params leaves rope_type 'default' beside per-type entries (LagunaConfig, MellumConfig): the entries are read.
      if (key === 'rope_type' && rp.obj[key] === 'default') continue;
      if (!perType.includes(key) && rp.obj[key] !== null) throw rp.invalid(`${rp.name(key)} sits beside per-layer-type entries (${perType.join(', ')}); posenc cannot tell which layers it applies to`);
    }
    const entry = rp.child(type);
    if (!entry) throw rp.invalid(`${rp.name(type)} is missing: layers of type ${type} need their RoPE parameters`);
    return entry;
  }
  return c.child('rope_scaling');
}

function ropeForType(c: Fields, top: Fields, modelType: string, headDim: number, type: string, notes: string[],
  options: ModelConfigOptions): { rope: LayerRope; query: QueryScaling | null } {
  const v5 = c.has('rope_parameters');
  let p = parametersFor(c, type);
  let source = p ? p.path : 'rope_theta';
  const ctx: RopeContext = { c, top, modelType, headDim, headDimField: c.name('head_dim'), base: 10000 };
  // The class's standardised default rope_parameters (flat, or this layer type's entry).
  const dict = defaultRopeParameters(c.family, type, c.fn);
  const cls = c.family?.configClass ?? 'default';
  const theta = c.number('rope_theta') ?? c.number('rotary_emb_base');
  const dictTheta = typeof dict?.get('rope_theta') === 'number' ? dict.number('rope_theta') : undefined;
  ctx.base = theta ?? dictTheta ?? 10000;
  const partialKey = c.has('partial_rotary_factor') ? 'partial_rotary_factor' : c.has('rotary_pct') ? 'rotary_pct' : undefined;
  if (partialKey) ctx.partial = { value: c.number(partialKey)!, field: c.name(partialKey) };
  else if (dict?.has('partial_rotary_factor')) ctx.partial = { value: dict.number('partial_rotary_factor')!, field: dict.name('partial_rotary_factor') };
  if (!p && dict && !plainDefault(dict)) {
    // The class's default is a scaled or partial RoPE (Gemma 4's proportional full layers): transformers uses it as it is.
    p = dict;
    source = p.path;
    notes.push(`rope_parameters is absent: ${cls}'s default for ${type}`);
  } else if (theta === undefined && !(p?.has('rope_theta'))) {
    notes.push(`rope_theta is absent: ${ctx.base} (the ${cls} default)`);
  }

  if (modelType === 'deepseek_v2' || modelType === 'deepseek_v3') {
    const rope = c.from('qk_rope_head_dim').integer('qk_rope_head_dim');
    if (rope === undefined) throw c.invalid(`${c.name('qk_rope_head_dim')} is required for model_type '${modelType}'`);
    ctx.headDim = rope;
    ctx.headDimField = c.name('qk_rope_head_dim');
  }
  if (modelType.startsWith('gemma4') && type === 'full_attention') {
    ctx.headDim = c.integer('global_head_dim') ?? 512; // Gemma4TextConfig default; HF passes head_dim_key="global_head_dim"
    ctx.headDimField = c.name('global_head_dim');
  }
  if (ctx.headDim > MAX_HEAD_DIM) throw c.invalid(`${ctx.headDimField} is ${ctx.headDim}; posenc plans heads of at most ${MAX_HEAD_DIM} lanes`);
  if (!v5 && (modelType === 'gemma3' || modelType === 'gemma3_text') && type === 'sliding_attention') {
    // Gemma3 v4: sliding layers use rope_local_base_freq (default 10000) and no scaling (HF Gemma3Model.rotary_emb_local).
    ctx.base = c.number('rope_local_base_freq') ?? 10000;
    if (!c.has('rope_local_base_freq')) notes.push('rope_local_base_freq is absent: 10000 (Gemma3TextConfig default)');
    p = undefined;
    source = c.name('rope_local_base_freq');
  }
  if (!v5 && modelType === 'modernbert') {
    // ModernBERT v4: global_rope_theta (default 160000) on full layers, local_rope_theta (default 10000) on sliding ones.
    const key = type === 'full_attention' ? 'global_rope_theta' : 'local_rope_theta';
    ctx.base = c.number(key) ?? (type === 'full_attention' ? 160000 : 10000);
    source = c.name(key);
  }
  const { spec, form } = readRope(ctx, p, notes);
  const query = p ? ministralScaling(p) : null;
  if (ropeTypeOf(p).type === 'mrope') notes.push(`${p!.name('type')} 'mrope' is the default RoPE with M-RoPE sections (HF reads it as 'default')`);
  if (modelType === 'deepseek_v2' || modelType === 'deepseek_v3') {
    return { rope: { spec, source, form: deepseekForm(c, spec, modelType, notes, options.softmaxScale ?? 'hf') }, query };
  }
  if (modelType === 'pixtral') {
    const image = c.from('image_size').integer('image_size');
    const patch = c.from('patch_size').integer('patch_size');
    if (image === undefined || patch === undefined) throw c.invalid(`${c.name('image_size')} and ${c.name('patch_size')} are required for Pixtral's 2-D RoPE`);
    return { rope: { spec, source, form: { kind: '2d', maxPatchesPerSide: Math.floor(image / patch) } }, query };
  }
  return { rope: { spec, source, form }, query };
}

/**
 * DeepSeek MLA: the rotary part follows qk_nope_head_dim content lanes (DeepseekV2Config /
 * DeepseekV3Config default 128). DeepseekV3Attention multiplies its softmax scale by
 * mscale(factor, mscale_all_dim)² when the RoPE is scaled and mscale_all_dim is non-zero, and with
 * rope_interleave (default true) rotates through apply_rotary_pos_emb_interleave (deinterleave);
 * DeepseekV2Attention keeps qk_head_dim^-0.5 and multiplies complex pairs in place, while
 * DeepSeek's modeling_deepseek.py and vLLM scale V2's softmax too (`softmaxScale: 'deepseek'`).
 */
function deepseekForm(c: Fields, spec: LayerRope['spec'], modelType: string, notes: string[], softmaxScale: 'hf' | 'deepseek') {
  let nope = c.integer('qk_nope_head_dim', 'nonnegative');
  if (nope === undefined) {
    nope = 128;
    notes.push('qk_nope_head_dim is absent: 128 (the DeepSeek configuration class default)');
  }
  let mscale2 = 1;
  const s = spec.scaling;
  if (s && s.type === 'yarn' && s.mscaleAllDim && s.factor !== undefined) {
    const m = s.factor <= 1 ? 1 : 0.1 * s.mscaleAllDim * Math.log(s.factor) + 1;
    mscale2 = m * m;
  }
  const v3 = modelType === 'deepseek_v3';
  const scaled = v3 || softmaxScale === 'deepseek';
  if (!v3 && mscale2 !== 1) {
    notes.push(scaled
      ? `deepseek_v2 with softmaxScale 'deepseek': the softmax scale is multiplied by mscale(factor, mscale_all_dim)^2 = ${mscale2}, ` +
        "as DeepSeek's modeling_deepseek.py and vLLM do (transformers' DeepseekV2Attention keeps qk_head_dim^-0.5)"
      : `deepseek_v2: transformers' DeepseekV2Attention keeps the softmax scale qk_head_dim^-0.5; DeepSeek's own ` +
        `modeling_deepseek.py and vLLM multiply it by mscale(factor, mscale_all_dim)^2 = ${mscale2} (softmaxScale: 'deepseek')`);
  }
  return {
    kind: 'decoupled' as const, nopeHeadDim: nope, ropeHeadDim: spec.headDim, softmaxScaleFactor: scaled ? mscale2 : 1,
    deinterleave: v3 && spec.pairing === 'interleaved',
  };
}

/** Llama 4 attention temperature tuning on its no-RoPE layers (Llama4TextAttention.forward). */
function temperatureTuning(c: Fields, modelType: string): QueryScaling | null {
  if (modelType !== 'llama4' && modelType !== 'llama4_text') return null;
  const on = c.obj.attn_temperature_tuning;
  if (on === false || on === 0) return null; // Llama4TextConfig default: True
  return {
    kind: 'log-floor', scale: c.number('attn_scale') ?? 0.1, floorScale: c.number('floor_scale') ?? 8192, positionOffset: 1,
    source: `${c.name('attn_temperature_tuning')}, ${c.name('attn_scale')}, ${c.name('floor_scale')}`,
  };
}

/** Ministral 3's `llama_4_scaling_beta` (modeling_ministral3.py get_llama_4_attn_scale), on every RoPE layer. */
function ministralScaling(p: Fields): QueryScaling | null {
  if (!p.has('llama_4_scaling_beta')) return null;
  const beta = p.number('llama_4_scaling_beta', 'nonnegative')!;
  const floorScale = p.number('original_max_position_embeddings');
  if (floorScale === undefined) throw p.invalid(`${p.name('original_max_position_embeddings')} is required with llama_4_scaling_beta (its floor scale)`);
  return { kind: 'log-floor', scale: beta, floorScale, positionOffset: 0, source: p.name('llama_4_scaling_beta') };
}

function longRopeSwitch(fn: string, options: ModelConfigOptions, rope: LayerRope, maxPos: number | undefined, notes: string[]): LongRopeSwitch {
  const s = rope.spec.scaling as { originalMaxPositionEmbeddings: number };
  const rule = options.longRope ?? 'hf';
  const result: LongRopeSwitch = { rule, originalMaxPositionEmbeddings: s.originalMaxPositionEmbeddings };
  if (rule !== 'hf') {
    const length = options.contextLength ?? maxPos;
    if (length === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: option 'contextLength' is required for longRope '${rule}'`);
    if (options.contextLength === undefined) notes.push(`longRope '${rule}': the length is max_position_embeddings (${length}) unless contextLength is given`);
    result.length = length;
  }
  return result;
}

function absoluteOf(c: Fields, modelType: string): AbsolutePositions | null {
  if (modelType === 'gpt2') return { kind: 'learned', size: c.integer('n_positions') ?? 1024, offset: 0, tensor: 'wpe.weight' };
  if (modelType === 'opt') {
    // OPTLearnedPositionalEmbedding: num_embeddings + 2 rows, position p at row p + 2.
    return { kind: 'learned', size: (c.integer('max_position_embeddings') ?? 2048) + 2, offset: 2, tensor: 'decoder.embed_positions.weight' };
  }
  if (modelType === 'bert' || modelType === 'roberta' || modelType === 'xlm-roberta') {
    const pet = c.string('position_embedding_type') ?? 'absolute';
    if (pet !== 'absolute') throw c.invalid(`${c.name('position_embedding_type')} '${pet}' is not supported in a plan (only 'absolute')`);
    // RoBERTa: create_position_ids_from_input_ids numbers tokens from padding_idx + 1.
    const offset = modelType === 'bert' ? 0 : (c.integer('pad_token_id', 'nonnegative') ?? 1) + 1;
    return { kind: 'learned', size: c.integer('max_position_embeddings') ?? 512, offset, tensor: 'embeddings.position_embeddings.weight' };
  }
  return null;
}

function alibiOf(c: Fields, modelType: string, numHeads: number): LayerAlibi | null {
  if (modelType === 'bloom') return { numHeads, maxBias: 8, form: 'bloom' };
  if (modelType !== 'mpt') return null;
  const a = c.child('attn_config') ?? new Fields({}, c.name('attn_config'), c.fn);
  const known = ['alibi', 'alibi_bias_max', 'attn_impl', 'attn_pdrop', 'attn_type', 'clip_qkv', 'prefix_lm', 'qk_ln', 'softmax_scale',
    'attn_uses_sequence_id', 'sliding_window_size', 'rope', 'rope_theta', 'rope_impl', 'rope_dail_config', 'rope_hf_config', 'kv_n_heads', 'qk_gn'];
  for (const key of Object.keys(a.obj)) if (!known.includes(key)) throw a.invalid(`${a.name(key)} is an MPT attention setting posenc does not know`);
  if (a.obj.rope === true) throw a.invalid(`${a.name('rope')} is true: transformers' MptModel has no RoPE`);
  if (typeof a.obj.sliding_window_size === 'number' && a.obj.sliding_window_size !== -1) throw a.invalid(`${a.name('sliding_window_size')} is not supported by transformers' MptModel`);
  if (a.obj.alibi === false) throw a.invalid(`${a.name('alibi')} is false: transformers' MptModel always adds ALiBi`);
  return { numHeads, maxBias: a.number('alibi_bias_max') ?? 8, form: 'causal' };
}
