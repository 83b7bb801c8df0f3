// GGUF (llama.cpp) position metadata <-> plan: `<arch>.rope.*`, `<arch>.attention.*` and
// `<arch>.context_length` read into the same plan as a Hugging Face config, following llama.cpp's
// src/llama-model.cpp (`llm_load_hparams`, `llama_model_rope_type`, `set_swa_pattern`) and
// convert_hf_to_gguf.py; and a plan written back as those keys.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { RopeModelSpec } from '../families/rope/spec.js';
import type { LongRopeScaling, RopeScaling } from '../families/rope/spec.js';
import { asBytes, readGgufHeader } from './gguf-header.js';
import { factorRanges, FACTOR_TENSORS, rangesFrom, readF32Tensor } from './gguf-tensors.js';
import type { GgufFile } from './gguf-tensors.js';
import type { GgufHeader, GgufValue } from './gguf-header.js';
import { MAX_CONFIG_INTEGER } from './config-fields.js';
import type { LayerPlan, ModelPlan, QueryScaling } from './plan.js';
import { MAX_HEAD_DIM, MAX_LAYERS } from './plan.js';

export type { GgufType, GgufValue } from './gguf-header.js';
/** GGUF key/values, by key. */
export type GgufMetadata = Record<string, GgufValue>;
/** The key/values of a header as the planner reads them (a Map: the keys are the file's strings). */
type HeaderMetadata = GgufHeader['metadata'];
/** Options of `pe.model.fromGguf`. */
export interface GgufReadOptions {
  /** llama.cpp's context size `n_ctx`, which picks a LongRoPE model's factor list once (default: `<arch>.context_length`). */
  contextLength?: number;
}

/**
 * llama.cpp architectures posenc reads: their RoPE pairing, as llama.cpp src/llama-model.cpp
 * `llama_model_rope_type` decides it (checked at ggml-org/llama.cpp 00342301: NORM = adjacent lanes
 * = 'interleaved', NEOX = lanes i and i + n_rot/2 = 'half'), or ALiBi (LLAMA_ROPE_TYPE_NONE with
 * `attention.max_alibi_bias`); the SWA pattern `set_swa_pattern` gives them, and
 * `n_no_rope_layer_step` (llama.cpp `llama_model::load_hparams`: hard-coded 4 for smollm3 and llama4).
 */
const ARCHS = new Map<string, { pairing?: 'half' | 'interleaved'; alibi?: true; swaPattern?: number; noRopeStep?: number; hf: string }>(Object.entries({
  llama: { pairing: 'interleaved', hf: 'llama' }, llama4: { pairing: 'interleaved', noRopeStep: 4, hf: 'llama4_text' },
  smollm3: { pairing: 'interleaved', noRopeStep: 4, hf: 'smollm3' }, glm4: { pairing: 'interleaved', hf: 'glm4' },
  'command-r': { pairing: 'interleaved', hf: 'cohere' }, cohere2: { pairing: 'interleaved', swaPattern: 4, hf: 'cohere2' },
  qwen2: { pairing: 'half', hf: 'qwen2' }, qwen2moe: { pairing: 'half', hf: 'qwen2_moe' }, qwen3: { pairing: 'half', hf: 'qwen3' },
  qwen3moe: { pairing: 'half', hf: 'qwen3_moe' }, phi2: { pairing: 'half', hf: 'phi' }, phi3: { pairing: 'half', hf: 'phi3' },
  gemma: { pairing: 'half', hf: 'gemma' }, gemma2: { pairing: 'half', swaPattern: 2, hf: 'gemma2' },
  gemma3: { pairing: 'half', swaPattern: 6, hf: 'gemma3_text' }, stablelm: { pairing: 'half', hf: 'stablelm' },
  starcoder2: { pairing: 'half', hf: 'starcoder2' }, gptneox: { pairing: 'half', hf: 'gpt_neox' }, falcon: { pairing: 'half', hf: 'falcon' },
  olmo2: { pairing: 'half', hf: 'olmo2' }, 'gpt-oss': { pairing: 'half', swaPattern: 2, hf: 'gpt_oss' },
  bloom: { alibi: true, hf: 'bloom' }, mpt: { alibi: true, hf: 'mpt' },
}));

/** llama.cpp llama4 (load_hparams, chunked branch): 8192-token chunks, NoPE query temperature 0.1 / floor 8192 / offset 1. */
const LLAMA4_CHUNK = 8192;
const LLAMA4_TEMPERATURE: QueryScaling = { kind: 'log-floor', scale: 0.1, floorScale: 8192, positionOffset: 1, source: 'llama.cpp llama4 defaults (f_attn_temp_scale, n_attn_temp_floor_scale, f_attn_temp_offset)' };
/** A plan's model_type -> the llama.cpp architecture its keys are written under. */
const HF_TO_ARCH = new Map<unknown, string>([...[...ARCHS].map(([arch, a]): [string, string] => [a.hf, arch]),
  ['gemma3', 'gemma3'], ['mistral', 'llama'], ['mixtral', 'llama']]);

/** Keys under `<arch>.` that posenc reads; any other key there that names positions is refused. */
const READ_KEYS = ['context_length', 'block_count', 'embedding_length', 'attention.head_count', 'attention.head_count_kv',
  'attention.key_length', 'rope.dimension_count', 'rope.freq_base', 'rope.freq_base_swa', 'rope.scaling.type',
  'rope.scaling.factor', 'rope.scale_linear', 'rope.scaling.original_context_length', 'rope.scaling.attn_factor',
  'rope.scaling.yarn_beta_fast', 'rope.scaling.yarn_beta_slow', 'rope.scaling.finetuned', 'attention.sliding_window',
  'attention.sliding_window_pattern', 'attention.max_alibi_bias'];
const POSITION_WORDS = /rope|rotary|position|alibi|window|swa|chunk|temperature|context|freq|scal/;

function invalid(fn: string, message: string): PosEncError {
  return new PosEncError('INVALID_FILE', `${fn}: ${message}`);
}

/** The options of fromGguf / fromGgufFile, read once. */
export function ggufOptions(fn: string, options: unknown): { contextLength?: number } {
  const opts = args.options(fn, options, ['contextLength'], true);
  return opts.contextLength === undefined ? {} : { contextLength: args.integer(fn, 'contextLength', opts.contextLength) };
}

/** Reads the plan of a GGUF file's bytes (the whole file, or its first bytes up to the end of the tensor list and factor tensors). */
export function planFromGguf(fn: string, bytes: unknown, options?: unknown): ModelPlan {
  const opts = ggufOptions(fn, options);
  const data = asBytes(fn, bytes);
  const header = readGgufHeader(fn, data);
  return planOfGguf(fn, { header, tensorBytes: rangesFrom(data, factorRanges(header)) }, opts);
}

/** Kinds of numeric key: counts and sizes are integers from 1 (or 0) to 2^31 - 1, as config.json's reader has them. */
type NumberKind = 'count' | 'count0' | 'positive' | 'nonnegative';

/** The plan of a GGUF file read (its header, and the bytes of its factor tensors). */
export function planOfGguf(fn: string, file: GgufFile, opts: { contextLength?: number }): ModelPlan {
  const { header } = file;
  const { contextLength } = opts;
  const m = header.metadata;
  const archEntry = m.get('general.architecture');
  if (!archEntry || typeof archEntry.value !== 'string') throw invalid(fn, 'general.architecture (a string) is required');
  const arch = archEntry.value;
  const info = ARCHS.get(arch);
  if (!info) throw invalid(fn, `general.architecture '${arch}' is not one posenc knows the positions of (known: ${[...ARCHS.keys()].join(', ')})`);
  for (const key of m.keys()) {
    if (!key.startsWith(`${arch}.`)) continue;
    const rest = key.slice(arch.length + 1);
    if (!READ_KEYS.includes(rest) && POSITION_WORDS.test(rest)) throw invalid(fn, `${key} may change how the model uses positions, and posenc does not know it`);
  }
  const num = (key: string, kind: NumberKind, required = false): number | undefined => {
    const name = `${arch}.${key}`;
    const e = m.get(name);
    if (e === undefined) {
      if (required) throw invalid(fn, `${name} is required`);
      return undefined;
    }
    if (e.type === 'array') throw invalid(fn, `${name} differs per layer (a list), which posenc does not read`);
    const v = e.value;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(fn, `${name} must be a number, got ${args.describe(v)}`);
    if ((kind === 'positive' || kind === 'count') && !(v > 0)) throw invalid(fn, `${name} must be > 0, got ${v}`);
    if ((kind === 'nonnegative' || kind === 'count0') && v < 0) throw invalid(fn, `${name} must be >= 0, got ${v}`);
    if (kind === 'count' || kind === 'count0') {
      if (!Number.isInteger(v)) throw invalid(fn, `${name} must be an integer, got ${v}`);
      if (v > MAX_CONFIG_INTEGER) throw invalid(fn, `${name} is ${v}, more than any size posenc can address (at most ${MAX_CONFIG_INTEGER})`);
    }
    return v;
  };
  const numLayers = num('block_count', 'count', true)!;
  if (numLayers > MAX_LAYERS) throw invalid(fn, `${arch}.block_count is ${numLayers}; a plan holds at most ${MAX_LAYERS} layers`);
  const numHeads = num('attention.head_count', 'count', true)!;
  const embedding = num('embedding_length', 'count', true)!;
  const headDim = num('attention.key_length', 'count') ?? embedding / numHeads;
  if (!Number.isInteger(headDim)) throw invalid(fn, `${arch}.embedding_length ${embedding} is not divisible by ${numHeads} heads`);
  if (headDim > MAX_HEAD_DIM) throw invalid(fn, `the head size is ${headDim} lanes (${arch}.attention.key_length or embedding_length / head_count); posenc plans heads of at most ${MAX_HEAD_DIM}`);
  const notes: string[] = [];
  const plan: ModelPlan = {
    source: 'gguf', modelType: info.hf, numLayers, numHeads, numKeyValueHeads: num('attention.head_count_kv', 'count') ?? numHeads, headDim,
    absolute: null, layers: [], notes,
  };
  const ctx = num('context_length', 'count');
  if (ctx !== undefined) plan.maxPositionEmbeddings = ctx;
  if (info.alibi) {
    const factors = FACTOR_TENSORS.find((name) => header.tensors.has(name));
    if (factors) throw invalid(fn, `tensor ${factors} holds RoPE factors, but ${arch} uses ALiBi in llama.cpp`);
    const maxBias = num('attention.max_alibi_bias', 'positive') ?? 8;
    plan.layers = Array.from({ length: numLayers }, (_, index) => ({
      index, attention: 'full_attention', rope: null, alibi: { numHeads, maxBias, form: arch === 'mpt' ? 'causal' : 'bloom' }, window: null, queryScaling: null,
    }));
    return plan;
  }
  if ((num('attention.max_alibi_bias', 'nonnegative') ?? 0) > 0) throw invalid(fn, `${arch}.attention.max_alibi_bias is set, but ${arch} uses RoPE in llama.cpp`);

  const rotaryDim = num('rope.dimension_count', 'count') ?? headDim;
  if (rotaryDim < 2 || rotaryDim % 2 !== 0 || rotaryDim > headDim) {
    throw invalid(fn, `${arch}.rope.dimension_count is ${rotaryDim}; it must be an even number from 2 to the head size ${headDim}`);
  }
  const base = num('rope.freq_base', 'positive') ?? 10000;
  if (!m.has(`${arch}.rope.freq_base`)) notes.push(`${arch}.rope.freq_base is absent: 10000 (llama.cpp default)`);
  const spec: RopeModelSpec = { headDim, rotaryDim, base, pairing: info.pairing! };
  const scaling = scalingOf(fn, arch, m, num, ctx);
  if (scaling) spec.scaling = scaling;
  const tensorScaling = factorScaling(fn, arch, file, rotaryDim, num, ctx, notes);
  if (tensorScaling) {
    if (scaling) throw invalid(fn, `${arch}.rope.scaling.type '${scaling.type}' is set and the file also holds per-pair RoPE factor tensors; posenc does not combine them`);
    spec.scaling = tensorScaling.scaling;
    if (tensorScaling.switched) {
      const length = contextLength ?? ctx;
      if (length === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: option 'contextLength' is required: the file has no ${arch}.context_length and llama.cpp picks the LongRoPE list from the context size`);
      plan.longRope = { rule: 'llama.cpp', originalMaxPositionEmbeddings: tensorScaling.scaling.originalMaxPositionEmbeddings!, length };
    }
  }
  if (arch === 'llama4' && m.get('llama4.attention.sliding_window')?.value === 0) throw invalid(fn, 'llama4.attention.sliding_window is 0 (llama.cpp then drops chunking and NoPE layers), which posenc does not read');
  const window = num('attention.sliding_window', 'count');
  const swa = arch === 'llama4' ? [] : swaLayers(fn, arch, m, numLayers, info.swaPattern, window);
  plan.layers = Array.from({ length: numLayers }, (_, index): LayerPlan => {
    const nope = info.noRopeStep !== undefined && (index + 1) % info.noRopeStep === 0; // llama.cpp: use_rope = (il + 1) % step != 0
    if (arch === 'llama4') {
      // llama.cpp llama4: set_swa_pattern(4) with LLAMA_SWA_TYPE_CHUNKED: the RoPE layers are chunked, the NoPE ones full with the temperature.
      return { index, attention: nope ? 'full_attention' : 'chunked_attention', alibi: null,
        rope: nope ? null : { spec: structuredClone(spec), form: { kind: 'standard' }, source: `${arch}.rope` },
        window: nope ? null : { kind: 'chunked', size: LLAMA4_CHUNK }, queryScaling: nope ? { ...LLAMA4_TEMPERATURE } : null };
    }
    const sliding = swa[index]!;
    let rope: LayerPlan['rope'] = nope ? null : { spec: structuredClone(spec), form: { kind: 'standard' }, source: `${arch}.rope` };
    if (sliding && arch === 'gemma3') {
      // llama.cpp gemma3: sliding layers use rope_freq_base_train_swa (default 10000) and no frequency scaling.
      rope = { spec: { headDim, rotaryDim, base: num('rope.freq_base_swa', 'positive') ?? 10000, pairing: 'half' }, form: { kind: 'standard' }, source: `${arch}.rope.freq_base_swa` };
    }
    if (!sliding && arch === 'cohere2') rope = null; // llama.cpp cohere2: RoPE only on the SWA layers
    return { index, attention: sliding ? 'sliding_attention' : 'full_attention', rope, alibi: null,
      window: sliding ? { kind: 'sliding', size: window!, bidirectional: false } : null, queryScaling: null };
  });
  return plan;
}

/**
 * The per-pair divisors llama.cpp reads from tensors (ggml rope: theta_i / freq_factor_i): `rope_freqs`
 * (llama3 scaling, convert_hf_to_gguf.py LlamaModel.generate_extra_tensors) as LongRoPE lists that are
 * the same at every length, attention factor 1; `rope_factors_long` / `_short` (Phi-3
 * Phi3MiniModel.generate_extra_tensors) as LongRoPE switched once by llama.cpp's context size, with
 * the attention factor `rope.scaling.attn_factor` convert_hf_to_gguf.py writes.
 */
function factorScaling(fn: string, arch: string, file: GgufFile, rotaryDim: number,
  num: (k: string, kind: NumberKind) => number | undefined, ctx: number | undefined, notes: string[]): { scaling: LongRopeScaling; switched: boolean } | undefined {
  const pairs = rotaryDim / 2;
  const freqs = readF32Tensor(fn, file, 'rope_freqs.weight', pairs);
  const long = readF32Tensor(fn, file, 'rope_factors_long.weight', pairs);
  const short = readF32Tensor(fn, file, 'rope_factors_short.weight', pairs);
  if (freqs) {
    if (long || short) throw invalid(fn, 'the file holds both rope_freqs.weight and rope_factors_* tensors; posenc does not combine them');
    if (ctx === undefined) throw invalid(fn, `${arch}.context_length is required with rope_freqs.weight`);
    notes.push('rope_freqs.weight: per-pair divisors (llama3 scaling as convert_hf_to_gguf.py stores it), written as LongRoPE with the same short and long lists and attention factor 1');
    return { scaling: { type: 'longrope', shortFactor: Array.from(freqs), longFactor: Array.from(freqs), originalMaxPositionEmbeddings: ctx, attentionFactor: 1 }, switched: false };
  }
  if (!long && !short) return undefined;
  if (!long || !short) throw invalid(fn, `tensor ${long ? 'rope_factors_short' : 'rope_factors_long'}.weight is missing: LongRoPE needs both lists`);
  const original = num('rope.scaling.original_context_length', 'count');
  if (original === undefined) throw invalid(fn, `${arch}.rope.scaling.original_context_length is required with rope_factors_long/short (the length that switches the lists)`);
  const attention = num('rope.scaling.attn_factor', 'positive');
  if (attention === undefined) notes.push(`${arch}.rope.scaling.attn_factor is absent: attention factor 1 (llama.cpp default)`);
  return { scaling: { type: 'longrope', shortFactor: Array.from(short), longFactor: Array.from(long), originalMaxPositionEmbeddings: original, attentionFactor: attention ?? 1 }, switched: true };
}

function swaLayers(fn: string, arch: string, m: HeaderMetadata, numLayers: number, defaultPattern: number | undefined, window: number | undefined): boolean[] {
  const key = `${arch}.attention.sliding_window_pattern`;
  const e = m.get(key);
  let flags: boolean[];
  if (e && Array.isArray(e.value)) {
    const list = e.value;
    if ((e.count ?? list.length) !== numLayers || list.some((v) => typeof v !== 'boolean')) throw invalid(fn, `${key} must hold ${numLayers} booleans`);
    flags = list as boolean[];
  } else {
    const pattern = e ? (typeof e.value === 'number' ? e.value : NaN) : window !== undefined ? defaultPattern ?? 1 : 0;
    if (!Number.isInteger(pattern) || pattern < 0) throw invalid(fn, `${key} must be a layer count or a list of booleans`);
    // llama.cpp set_swa_pattern(n): layer il slides when n == 0 ... il % n < n - 1; pattern 1 = every layer.
    flags = Array.from({ length: numLayers }, (_, il) => pattern === 1 || (pattern > 1 && il % pattern < pattern - 1));
  }
  if (flags.some(Boolean) && window === undefined) throw invalid(fn, `${arch}.attention.sliding_window is required: some layers slide`);
  return flags;
}

function scalingOf(fn: string, arch: string, m: HeaderMetadata, num: (k: string, kind: NumberKind) => number | undefined, ctx: number | undefined): RopeScaling | undefined {
  const typeEntry = m.get(`${arch}.rope.scaling.type`);
  if (typeEntry && typeof typeEntry.value !== 'string') throw invalid(fn, `${arch}.rope.scaling.type must be a string, got ${args.describe(typeEntry.value)}`);
  const type = typeEntry ? typeEntry.value as string : num('rope.scale_linear', 'positive') !== undefined ? 'linear' : 'none';
  const factor = num('rope.scaling.factor', 'positive') ?? num('rope.scale_linear', 'positive');
  const original = num('rope.scaling.original_context_length', 'count');
  switch (type) {
    case 'none':
      return undefined;
    case 'linear':
      if (factor === undefined) throw invalid(fn, `${arch}.rope.scaling.factor is required for linear scaling`);
      return { type: 'linear', factor };
    case 'yarn': {
      if (factor === undefined) throw invalid(fn, `${arch}.rope.scaling.factor is required for yarn scaling`);
      const o = original ?? ctx;
      if (o === undefined) throw invalid(fn, `${arch}.rope.scaling.original_context_length is required for yarn scaling`);
      // ggml: mscale = attn_factor * (1 + 0.1 ln factor) (docs/encodings.md#86-yarn); betas default 32/1 in llama.cpp.
      const s: RopeScaling = { type: 'yarn', factor, originalMaxPositionEmbeddings: o, betaFast: num('rope.scaling.yarn_beta_fast', 'nonnegative') ?? 32, betaSlow: num('rope.scaling.yarn_beta_slow', 'nonnegative') ?? 1 };
      const attn = num('rope.scaling.attn_factor', 'positive');
      if (attn !== undefined) s.ggmlAttnFactor = attn;
      return s;
    }
    default:
      throw invalid(fn, `${arch}.rope.scaling.type '${type}' is not one posenc reads from GGUF (none, linear, yarn)`);
  }
}

/** Writes a plan's position facts as GGUF key/values (llama.cpp key names). */
export function planToGguf(fn: string, plan: ModelPlan): GgufMetadata {
  if (plan === null || typeof plan !== 'object' || !Array.isArray(plan.layers)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: plan must be a plan from pe.model.fromConfig or fromGguf, got ${args.describe(plan)}`);
  }
  const arch = HF_TO_ARCH.get(plan.modelType);
  if (!arch) throw new PosEncError('INVALID_ARGUMENT', `${fn}: model_type ${args.describe(plan.modelType)} has no llama.cpp architecture posenc knows`);
  const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
  const f32 = (value: number): GgufValue => ({ type: 'float32', value });
  const out: GgufMetadata = {
    'general.architecture': { type: 'string', value: arch },
    [`${arch}.block_count`]: u32(plan.numLayers),
    [`${arch}.embedding_length`]: u32(plan.numHeads * plan.headDim),
    [`${arch}.attention.head_count`]: u32(plan.numHeads),
    [`${arch}.attention.head_count_kv`]: u32(plan.numKeyValueHeads),
    [`${arch}.attention.key_length`]: u32(plan.headDim),
  };
  if (plan.maxPositionEmbeddings !== undefined) out[`${arch}.context_length`] = u32(plan.maxPositionEmbeddings);
  const alibi = plan.layers.find((l) => l.alibi)?.alibi;
  if (alibi) {
    out[`${arch}.attention.max_alibi_bias`] = f32(alibi.maxBias);
    return out;
  }
  const full = plan.layers.find((l) => l.rope && l.attention !== 'sliding_attention')?.rope ?? plan.layers.find((l) => l.rope)?.rope;
  if (!full) return out;
  const forms = new Set(plan.layers.map((l) => l.rope?.form.kind).filter(Boolean));
  if ([...forms].some((k) => k !== 'standard')) throw new PosEncError('INVALID_ARGUMENT', `${fn}: RoPE form ${[...forms].join(', ')} has no GGUF keys posenc writes`);
  out[`${arch}.rope.dimension_count`] = u32(full.spec.rotaryDim);
  out[`${arch}.rope.freq_base`] = f32(full.spec.base);
  const s = full.spec.scaling;
  if (s && s.type !== 'default') {
    if (s.type === 'linear') {
      out[`${arch}.rope.scaling.type`] = { type: 'string', value: 'linear' };
      out[`${arch}.rope.scaling.factor`] = f32(s.factor);
    } else if (s.type === 'yarn') {
      out[`${arch}.rope.scaling.type`] = { type: 'string', value: 'yarn' };
      out[`${arch}.rope.scaling.factor`] = f32(s.factor!);
      out[`${arch}.rope.scaling.original_context_length`] = u32(s.originalMaxPositionEmbeddings!);
      if (s.betaFast !== undefined) out[`${arch}.rope.scaling.yarn_beta_fast`] = f32(s.betaFast);
      if (s.betaSlow !== undefined) out[`${arch}.rope.scaling.yarn_beta_slow`] = f32(s.betaSlow);
    } else {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: '${s.type}' scaling is stored in GGUF tensors (rope_freqs / rope_factors_*), not keys; posenc writes keys only`);
    }
  }
  const sliding = plan.layers.filter((l) => l.window?.kind === 'sliding');
  if (sliding.length > 0) {
    out[`${arch}.attention.sliding_window`] = u32((sliding[0]!.window as { size: number }).size);
    out[`${arch}.attention.sliding_window_pattern`] = { type: 'array', itemType: 'bool', value: plan.layers.map((l) => l.window?.kind === 'sliding') };
    const swaRope = sliding.find((l) => l.rope)?.rope;
    if (swaRope && swaRope.spec.base !== full.spec.base) out[`${arch}.rope.freq_base_swa`] = f32(swaRope.spec.base);
  }
  return out;
}
