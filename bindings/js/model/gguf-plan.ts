// GGUF (llama.cpp) position metadata <-> plan: `<arch>.rope.*`, `<arch>.attention.*` and
// `<arch>.context_length` read into the same plan as a Hugging Face config, following llama.cpp's
// src/llama-model.cpp (`llm_load_hparams`, `llama_model_rope_type`, `set_swa_pattern`) and
// convert_hf_to_gguf.py; and a plan written back as those keys.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { RopeModelSpec } from '../families/rope/config.js';
import type { RopeScaling } from '../families/rope/spec.js';
import { readGgufHeader } from './gguf-header.js';
import type { GgufValue } from './gguf-header.js';
import type { LayerPlan, ModelPlan } from './plan.js';

export type { GgufValue } from './gguf-header.js';
/** GGUF key/values, by key. */
export type GgufMetadata = Record<string, GgufValue>;
/** Options of `pe.model.fromGguf` (none yet; an object is accepted for symmetry with fromConfig). */
export type GgufReadOptions = Record<string, never>;

/** llama.cpp architectures posenc reads: their RoPE pairing (llama_model_rope_type: NORM = interleaved, NEOX = half) or ALiBi. */
const ARCHS: Record<string, { pairing?: 'half' | 'interleaved'; alibi?: true; swaPattern?: number; hf: string }> = {
  llama: { pairing: 'interleaved', hf: 'llama' },
  'command-r': { pairing: 'interleaved', hf: 'cohere' }, cohere2: { pairing: 'interleaved', swaPattern: 4, hf: 'cohere2' },
  qwen2: { pairing: 'half', hf: 'qwen2' }, qwen2moe: { pairing: 'half', hf: 'qwen2_moe' }, qwen3: { pairing: 'half', hf: 'qwen3' },
  qwen3moe: { pairing: 'half', hf: 'qwen3_moe' }, phi2: { pairing: 'half', hf: 'phi' }, phi3: { pairing: 'half', hf: 'phi3' },
  gemma: { pairing: 'half', hf: 'gemma' }, gemma2: { pairing: 'half', swaPattern: 2, hf: 'gemma2' },
  gemma3: { pairing: 'half', swaPattern: 6, hf: 'gemma3_text' }, stablelm: { pairing: 'half', hf: 'stablelm' },
  starcoder2: { pairing: 'half', hf: 'starcoder2' }, gptneox: { pairing: 'half', hf: 'gpt_neox' }, falcon: { pairing: 'half', hf: 'falcon' },
  bloom: { alibi: true, hf: 'bloom' }, mpt: { alibi: true, hf: 'mpt' },
};
const HF_TO_ARCH: Record<string, string> = Object.fromEntries(Object.entries(ARCHS).map(([arch, a]) => [a.hf, arch]));
Object.assign(HF_TO_ARCH, { gemma3: 'gemma3', mistral: 'llama', mixtral: 'llama' });

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

/** Reads the plan of a GGUF file's metadata. */
export function planFromGguf(fn: string, bytes: unknown, options?: unknown): ModelPlan {
  args.options(fn, options, [], true);
  const header = readGgufHeader(fn, bytes);
  const m = header.metadata;
  const archEntry = m['general.architecture'];
  if (!archEntry || typeof archEntry.value !== 'string') throw invalid(fn, "general.architecture (a string) is required");
  const arch = archEntry.value;
  const info = ARCHS[arch];
  if (!info) throw invalid(fn, `general.architecture '${arch}' is not one posenc knows the positions of (known: ${Object.keys(ARCHS).join(', ')})`);
  for (const key of Object.keys(m)) {
    if (!key.startsWith(`${arch}.`)) continue;
    const rest = key.slice(arch.length + 1);
    if (!READ_KEYS.includes(rest) && POSITION_WORDS.test(rest)) throw invalid(fn, `${key} may change how the model uses positions, and posenc does not know it`);
  }
  const num = (key: string, required = false): number | undefined => {
    const e = m[`${arch}.${key}`];
    if (e === undefined) {
      if (required) throw invalid(fn, `${arch}.${key} is required`);
      return undefined;
    }
    if (typeof e.value !== 'number' || !Number.isFinite(e.value)) throw invalid(fn, `${arch}.${key} must be a number, got ${args.describe(e.value)}`);
    return e.value;
  };
  const numLayers = num('block_count', true)!;
  const headCount = m[`${arch}.attention.head_count`];
  if (headCount === undefined) throw invalid(fn, `${arch}.attention.head_count is required`);
  if (Array.isArray(headCount.value)) throw invalid(fn, `${arch}.attention.head_count differs per layer, which posenc does not read`);
  const numHeads = num('attention.head_count', true)!;
  const embedding = num('embedding_length', true)!;
  const headDim = num('attention.key_length') ?? embedding / numHeads;
  if (!Number.isInteger(headDim)) throw invalid(fn, `${arch}.embedding_length ${embedding} is not divisible by ${numHeads} heads`);
  const notes: string[] = [];
  const plan: ModelPlan = {
    source: 'gguf', modelType: info.hf, numLayers, numHeads, numKeyValueHeads: num('attention.head_count_kv') ?? numHeads, headDim,
    absolute: null, layers: [], notes,
  };
  const ctx = num('context_length');
  if (ctx !== undefined) plan.maxPositionEmbeddings = ctx;
  for (const t of header.tensors) {
    if (/^rope_(freqs|factors_long|factors_short)\.weight$/.test(t.name)) {
      throw invalid(fn, `tensor ${t.name} holds per-pair RoPE frequency factors (llama3 or LongRoPE scaling), which posenc does not read from GGUF tensor data yet`);
    }
  }
  if (info.alibi) {
    const maxBias = num('attention.max_alibi_bias') ?? 8;
    plan.layers = Array.from({ length: numLayers }, (_, index) => ({
      index, attention: 'full_attention', rope: null, alibi: { numHeads, maxBias, form: arch === 'mpt' ? 'causal' : 'bloom' }, window: null, queryScaling: null,
    }));
    return plan;
  }
  if ((num('attention.max_alibi_bias') ?? 0) > 0) throw invalid(fn, `${arch}.attention.max_alibi_bias is set, but ${arch} uses RoPE in llama.cpp`);

  const rotaryDim = num('rope.dimension_count') ?? headDim;
  const base = num('rope.freq_base') ?? 10000;
  if (m[`${arch}.rope.freq_base`] === undefined) notes.push(`${arch}.rope.freq_base is absent: 10000 (llama.cpp default)`);
  const spec: RopeModelSpec = { headDim, rotaryDim, base, pairing: info.pairing! };
  const scaling = scalingOf(fn, arch, m, num, ctx);
  if (scaling) spec.scaling = scaling;
  const window = num('attention.sliding_window');
  const swa = swaLayers(fn, arch, m, numLayers, info.swaPattern, window);
  plan.layers = Array.from({ length: numLayers }, (_, index): LayerPlan => {
    const sliding = swa[index]!;
    let rope: LayerPlan['rope'] = { spec: structuredClone(spec), form: { kind: 'standard' }, source: `${arch}.rope` };
    if (sliding && arch === 'gemma3') {
      // llama.cpp gemma3: sliding layers use rope_freq_base_train_swa (default 10000) and no frequency scaling.
      rope = { spec: { headDim, rotaryDim, base: num('rope.freq_base_swa') ?? 10000, pairing: 'half' }, form: { kind: 'standard' }, source: `${arch}.rope.freq_base_swa` };
    }
    if (!sliding && arch === 'cohere2') rope = null; // llama.cpp cohere2: RoPE only on the SWA layers
    return { index, attention: sliding ? 'sliding_attention' : 'full_attention', rope, alibi: null,
      window: sliding ? { kind: 'sliding', size: window!, bidirectional: false } : null, queryScaling: null };
  });
  return plan;
}

function swaLayers(fn: string, arch: string, m: GgufMetadata, numLayers: number, defaultPattern: number | undefined, window: number | undefined): boolean[] {
  const key = `${arch}.attention.sliding_window_pattern`;
  const e = m[key];
  let flags: boolean[];
  if (e && Array.isArray(e.value)) {
    if (e.value.length !== numLayers || e.value.some((v) => typeof v !== 'boolean')) throw invalid(fn, `${key} must hold ${numLayers} booleans`);
    flags = e.value as boolean[];
  } else {
    const pattern = e ? (typeof e.value === 'number' ? e.value : NaN) : window !== undefined ? defaultPattern ?? 1 : 0;
    if (!Number.isInteger(pattern) || pattern < 0) throw invalid(fn, `${key} must be a layer count or a list of booleans`);
    // llama.cpp set_swa_pattern(n): layer il slides when n == 0 ... il % n < n - 1; pattern 1 = every layer.
    flags = Array.from({ length: numLayers }, (_, il) => pattern === 1 || (pattern > 1 && il % pattern < pattern - 1));
  }
  if (flags.some(Boolean) && window === undefined) throw invalid(fn, `${arch}.attention.sliding_window is required: some layers slide`);
  return flags;
}

function scalingOf(fn: string, arch: string, m: GgufMetadata, num: (k: string) => number | undefined, ctx: number | undefined): RopeScaling | undefined {
  const typeEntry = m[`${arch}.rope.scaling.type`];
  const type = typeEntry ? String(typeEntry.value) : num('rope.scale_linear') !== undefined ? 'linear' : 'none';
  const factor = num('rope.scaling.factor') ?? num('rope.scale_linear');
  const original = num('rope.scaling.original_context_length');
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
      // ggml: mscale = attn_factor * (1 + 0.1 ln factor) (docs/encodings.md 8.6); betas default 32/1 in llama.cpp.
      const s: RopeScaling = { type: 'yarn', factor, originalMaxPositionEmbeddings: o, betaFast: num('rope.scaling.yarn_beta_fast') ?? 32, betaSlow: num('rope.scaling.yarn_beta_slow') ?? 1 };
      const attn = num('rope.scaling.attn_factor');
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
  const arch = HF_TO_ARCH[plan.modelType];
  if (!arch) throw new PosEncError('INVALID_ARGUMENT', `${fn}: model_type '${plan.modelType}' has no llama.cpp architecture posenc knows`);
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
