// pe.model: a model's per-layer position plan from its Hugging Face config.json or GGUF header,
// written back in either dialect, the numbers each layer uses (RoPE frequencies and cos/sin,
// ALiBi slopes, query scales) computed by pe.rope / pe.alibi in float64, and each layer applied
// to q and k (pe.model.apply, or a cache of its rows).
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { TensorInput } from '../runtime/args.js';
import type { Heap } from '../runtime/heap.js';
import type { AlibiApi } from '../families/alibi.js';
import type { RopeApi } from '../families/rope/rope.js';
import type { RopeFrequencies } from '../families/rope/spec.js';
import { planFromConfig } from './hf-config.js';
import type { ModelConfigOptions } from './hf-config.js';
import { ggufOptions, planFromGguf, planOfGguf, planToGguf } from './gguf-plan.js';
import { readGgufSource } from './gguf-source.js';
import type { GgufSource } from './gguf-source.js';
import type { Host } from '../runtime/host.js';
import type { GgufMetadata, GgufReadOptions } from './gguf-plan.js';
import { planToConfig } from './hf-writer.js';
import { summarizePlan } from './summary.js';
import { applyLayer, laneOrderOf } from './layer-apply.js';
import type { ModelApplyOptions } from './layer-apply.js';
import { createLayerCache, LayerRopeCache } from './layer-cache.js';
import type { ModelCacheOptions } from './layer-cache.js';
import { layerSeqLen } from './layer-form.js';
import type { LayerPlan, ModelPlan } from './plan.js';
import { issuePlan, readPlan } from './plan-check.js';

export type { ModelConfigOptions } from './hf-config.js';
export type { GgufMetadata, GgufReadOptions, GgufType, GgufValue } from './gguf-plan.js';
export type { GgufSource } from './gguf-source.js';
export type { ModelApplyOptions } from './layer-apply.js';
export type { LayerCacheApplyOptions, ModelCacheOptions } from './layer-cache.js';
export type { LaneOrder } from './layer-form.js';
export { LayerRopeCache };
export type * from './plan.js';

/** Options of the per-layer computations. */
export interface ModelLengthOptions {
  /** The current sequence length (dynamic NTK, LongRoPE with the HF rule). Default: as at model load. */
  seqLen?: number;
}

/** Cos and sin of a layer's RoPE at given positions, float64, `[positions, pairs]`, attention factor included. */
export interface LayerCosSin {
  /** cos(position * w_i) * attention factor, row-major. */
  cos: Float64Array;
  /** sin(position * w_i) * attention factor, row-major. */
  sin: Float64Array;
  /** `[positions, pairs]`. */
  dims: [number, number];
}

/** Per-layer position plans: `pe.model`. */
export interface ModelApi {
  /** The plan of a Hugging Face config.json (object or JSON text). Throws INVALID_CONFIG naming a key posenc does not understand. */
  fromConfig(config: object | string, options?: ModelConfigOptions): ModelPlan;
  /**
   * The plan of a GGUF file's metadata, from its bytes: the whole file, or its first bytes up to the
   * end of the tensor list (and of the RoPE factor tensors, when it has them).
   */
  fromGguf(bytes: ArrayBuffer | Uint8Array, options?: GgufReadOptions): ModelPlan;
  /**
   * The plan of a GGUF file read without its weights: only the header (at most 64 MiB) and the RoPE
   * factor tensors are read, so memory stays bounded whatever the file's size. `source`: a `Blob` or
   * `File`, a `ReadableStream` or async iterable of byte chunks (a Node stream, which is read up to
   * the factor tensors and then closed), in Node a path or `file:` URL (regular files only), or the bytes.
   */
  fromGgufFile(source: GgufSource, options?: GgufReadOptions): Promise<ModelPlan>;
  /** The plan written as a Hugging Face config.json fragment (the position keys only). */
  toConfig(plan: ModelPlan): Record<string, unknown>;
  /** The plan written as GGUF key/values (llama.cpp names) with their GGUF types. */
  toGguf(plan: ModelPlan): GgufMetadata;
  /**
   * The RoPE frequencies of layer `layer` (null without RoPE); proportional RoPE's non-rotated pairs
   * are 0. Pixtral's 2-D layers: the head's f_j in order (HF's `freqs`); pair i < headDim/4 turns
   * with f_2i by the row, pair headDim/4 + i with f_(2i+1) by the column.
   */
  frequencies(plan: ModelPlan, layer: number, options?: ModelLengthOptions): RopeFrequencies | null;
  /** cos/sin of layer `layer` at one-axis `positions` (null without RoPE; M-RoPE: text), float64; 2-D layers refuse (they take row and column ids). */
  cosSin(plan: ModelPlan, layer: number, positions: ArrayLike<number>, options?: ModelLengthOptions): LayerCosSin | null;
  /** The ALiBi slopes of layer `layer` (null without ALiBi). */
  alibiSlopes(plan: ModelPlan, layer: number): Float64Array | null;
  /** The query multipliers of layer `layer` at `positions` (null when the layer does not scale queries). */
  queryScales(plan: ModelPlan, layer: number, positions: ArrayLike<number>): Float64Array | null;
  /** Which LongRoPE list the model uses at `seqLen` under its switch rule (null without LongRoPE). */
  longRopeList(plan: ModelPlan, seqLen: number): 'short' | 'long' | null;
  /** A readable summary, identical layers grouped ("layers 0-4, 6-10: ..."). */
  summarize(plan: ModelPlan, options?: ModelLengthOptions): string[];
  /**
   * Does to q and (unless null) k, in place, what layer `layer` of the model does to positions:
   * its RoPE form (docs/encodings.md#812-proportional-rope-gemma-4 to #817-which-models-pair-adjacent-lanes) with its scaling and attention factor, or nothing,
   * and its query scale. Shapes and positions as for `pe.rope.apply` (see {@link ModelApplyOptions}).
   */
  apply(plan: ModelPlan, layer: number, q: TensorInput, k: TensorInput | null | undefined, options: ModelApplyOptions): void;
  /** A cache of layer `layer`'s rows for positions 0..maxPositions-1 whose `apply` does what `pe.model.apply` does (one-axis forms). */
  createCache(plan: ModelPlan, layer: number, options: ModelCacheOptions): LayerRopeCache;
  /**
   * What layer `layer` multiplies its softmax scale by because of its position scaling (1 for most
   * layers): DeepSeek-V3's mscale(factor, mscale_all_dim)² (HF DeepseekV3Attention).
   */
  softmaxScaleFactor(plan: ModelPlan, layer: number): number;
}

/**
 * A plan as a call uses it, checked against the plan schema and read once (plan-check.ts), and
 * the one layer the call asks for.
 */
function layerOf(fn: string, given: unknown, layer: unknown): { plan: ModelPlan; layer: LayerPlan } {
  const plan = readPlan(fn, given);
  const index = args.integer(fn, 'layer', layer, 0);
  const count = plan.layers.length;
  if (index >= count) throw new PosEncError('OUT_OF_RANGE', `${fn}: layer ${index} is outside the model's ${count} layers`);
  return { plan, layer: plan.layers[index]! };
}

/**
 * A plan a reader built, checked against the schema before it is returned: a value the reader let
 * through that no plan may hold (a head count of 0 from a file) is the input's fault, reported
 * with the input's code (INVALID_CONFIG, INVALID_FILE) and the plan field it would have filled.
 */
function readOwnPlan(fn: string, plan: ModelPlan, code: 'INVALID_CONFIG' | 'INVALID_FILE', what: string): ModelPlan {
  try {
    return readPlan(fn, plan);
  } catch (error) {
    if (!(error instanceof PosEncError) || error.code !== 'INVALID_ARGUMENT') throw error;
    const said = error.message.slice(fn.length + 2).replace(/ \(a plan is what pe\.model\.fromConfig or fromGguf returns\)$/, '');
    throw new PosEncError(code, `${fn}: the ${what} gives a plan where ${said}`, { cause: error });
  }
}

/** The largest float32. */
const FLT_MAX = 3.4028234663852886e38;

function positionList(fn: string, positions: unknown): Float64Array {
  return Float64Array.from(args.listOf(fn, 'positions', positions, (element, name) => {
    const v = typeof element === 'bigint' ? Number(element) : element;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name} must be an integer >= 0, got ${args.describe(element)}`);
    }
    return v;
  }, { typed: true }));
}

export function modelApi(heap: Heap, rope: RopeApi, alibi: AlibiApi, host: Host = {}): ModelApi {
  function longRopeList(plan: ModelPlan, seqLen: number): 'short' | 'long' | null {
    const s = plan.longRope;
    if (!s) return null;
    const length = s.rule === 'hf' ? seqLen : s.length!;
    return length > s.originalMaxPositionEmbeddings ? 'long' : 'short';
  }

  /** The frequencies of a layer already read (layerOf), at the options' seqLen. */
  function frequenciesOf(fn: string, plan: ModelPlan, l: LayerPlan, options: unknown): RopeFrequencies | null {
    const opts = args.options(fn, options, ['seqLen'], true);
    if (!l.rope) return null;
    const { mropeSection: _sections, headDim: _headDim, ...spec } = l.rope.spec;
    // The switch rule picks the LongRoPE list; HF's per-call rule reads the length that gives the same list.
    const seqLen = layerSeqLen(plan, l.rope, opts.seqLen === undefined ? undefined : args.integer(fn, 'seqLen', opts.seqLen));
    const f = rope.frequencies(spec, seqLen === undefined ? undefined : { seqLen });
    if (l.rope.form.kind === 'proportional') f.invFreq.fill(0, l.rope.form.rotatedPairs);
    return f;
  }

  function frequencies(given: ModelPlan, layer: number, options?: ModelLengthOptions): RopeFrequencies | null {
    const fn = 'model.frequencies';
    const { plan, layer: l } = layerOf(fn, given, layer);
    return frequenciesOf(fn, plan, l, options);
  }

  /** Every layer's model-load frequencies and attention factor are finite (the core checks them where they are formed). */
  function checkFrequencies(fn: string, plan: ModelPlan): void {
    const checked = new Set<string>(); // layers share specs: each distinct one once (a plan may hold 65536 layers)
    plan.layers.forEach((layer, index) => {
      if (!layer.rope) return;
      const key = JSON.stringify(layer.rope.spec);
      if (checked.has(key)) return;
      checked.add(key);
      try {
        frequenciesOf(fn, plan, layer, undefined);
      } catch (error) {
        if (!(error instanceof PosEncError)) throw error;
        throw new PosEncError(error.code, `${fn}: layer ${index}: ${error.message.replace(/^rope\.frequencies: /, '')}`, { cause: error });
      }
    });
  }

  function cosSin(plan: ModelPlan, layer: number, positions: ArrayLike<number>, options?: ModelLengthOptions): LayerCosSin | null {
    const fn = 'model.cosSin';
    const ids = positionList(fn, positions);
    const { plan: read, layer: l } = layerOf(fn, plan, layer);
    if (l.rope?.form.kind === '2d') {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer}'s 2-D RoPE takes row and column ids: use pe.model.apply`);
    }
    const f = frequenciesOf(fn, read, l, options);
    if (!f) return null;
    const pairs = f.invFreq.length;
    // Rounding is monotonic: the largest position times the largest frequency bounds every angle.
    const reach = ids.reduce((m, p) => Math.max(m, p), 0);
    const widest = f.invFreq.reduce((m, w) => Math.max(m, Math.abs(w)), 0);
    if (!Number.isFinite(reach * widest)) {
      throw new PosEncError('OUT_OF_RANGE', `${fn}: positions reach ${reach}, where the angle position * frequency (${widest}) overflows to Infinity`);
    }
    const cos = new Float64Array(ids.length * pairs);
    const sin = new Float64Array(ids.length * pairs);
    ids.forEach((p, r) => {
      for (let i = 0; i < pairs; i++) {
        const angle = p * f.invFreq[i]!;
        cos[r * pairs + i] = Math.cos(angle) * f.attentionFactor;
        sin[r * pairs + i] = Math.sin(angle) * f.attentionFactor;
      }
    });
    return { cos, sin, dims: [ids.length, pairs] };
  }

  function alibiSlopes(plan: ModelPlan, layer: number): Float64Array | null {
    const { layer: l } = layerOf('model.alibiSlopes', plan, layer);
    return l.alibi ? alibi.slopes({ numHeads: l.alibi.numHeads, maxBias: l.alibi.maxBias }) : null;
  }

  function queryScales(plan: ModelPlan, layer: number, positions: ArrayLike<number>): Float64Array | null {
    const fn = 'model.queryScales';
    const { layer: l } = layerOf(fn, plan, layer);
    const ids = positionList(fn, positions);
    const q = l.queryScaling;
    if (!q) return null;
    // HF multiplies float32 queries by these (Llama4TextAttention._get_attn_scale): like pe.model.apply,
    // a scale that is not finite or beyond float32's range is refused, naming what made it so.
    return ids.map((p) => {
      const v = 1 + q.scale * Math.log1p(Math.floor((p + q.positionOffset) / q.floorScale));
      if (!Number.isFinite(v) || Math.abs(v) > FLT_MAX) {
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: plan.layers[${l.index}].queryScaling (scale ${q.scale}, floorScale ${q.floorScale}, ` +
          `positionOffset ${q.positionOffset}) makes the query scale at position ${p} ${v}: it multiplies float32 queries, so it must be finite and at most 3.4028235e+38 in magnitude`);
      }
      return v;
    });
  }

  return {
    fromConfig: (config, options) => {
      const opts = args.options('model.fromConfig', options, ['longRope', 'contextLength', 'softmaxScale'], true);
      if (opts.longRope !== undefined) args.choice('model.fromConfig', 'longRope', opts.longRope, ['hf', 'vllm', 'llama.cpp']);
      if (opts.softmaxScale !== undefined) args.choice('model.fromConfig', 'softmaxScale', opts.softmaxScale, ['hf', 'deepseek']);
      if (opts.contextLength !== undefined) args.integer('model.fromConfig', 'contextLength', opts.contextLength);
      const plan = readOwnPlan('model.fromConfig', planFromConfig('model.fromConfig', config, opts as ModelConfigOptions), 'INVALID_CONFIG', 'config');
      checkFrequencies('model.fromConfig', plan);
      return issuePlan(plan);
    },
    fromGguf: (bytes, options) => issuePlan(readOwnPlan('model.fromGguf', planFromGguf('model.fromGguf', bytes, options), 'INVALID_FILE', 'header')),
    fromGgufFile: async (source, options) => {
      const fn = 'model.fromGgufFile';
      const opts = ggufOptions(fn, options);
      return issuePlan(readOwnPlan(fn, planOfGguf(fn, await readGgufSource(fn, source, host), opts), 'INVALID_FILE', 'header'));
    },
    toConfig: (plan) => planToConfig('model.toConfig', readPlan('model.toConfig', plan)),
    toGguf: (plan) => planToGguf('model.toGguf', readPlan('model.toGguf', plan)),
    frequencies,
    cosSin,
    alibiSlopes,
    queryScales,
    longRopeList: (given, seqLen) => {
      const { plan } = layerOf('model.longRopeList', given, 0);
      return longRopeList(plan, args.integer('model.longRopeList', 'seqLen', seqLen));
    },
    apply: (given, layer, q, k, options) => {
      const { plan, layer: l } = layerOf('model.apply', given, layer);
      return applyLayer(heap, plan, l, q, k, options);
    },
    createCache: (given, layer, options) => {
      const fn = 'model.createCache';
      const { plan, layer: l } = layerOf(fn, given, layer);
      const opts = args.options(fn, options, ['maxPositions', 'seqLen', 'laneOrder']);
      const rows = args.integer(fn, 'maxPositions', args.required(fn, opts, 'maxPositions'));
      const seqLen = opts.seqLen === undefined ? undefined : args.integer(fn, 'seqLen', opts.seqLen);
      return createLayerCache(heap, plan, l, rows, seqLen, laneOrderOf(fn, opts.laneOrder));
    },
    softmaxScaleFactor: (plan, layer) => {
      const form = layerOf('model.softmaxScaleFactor', plan, layer).layer.rope?.form;
      return form?.kind === 'decoupled' ? form.softmaxScaleFactor : 1;
    },
    summarize: (given, options) => {
      const fn = 'model.summarize';
      const plan = readPlan(fn, given);
      const opts = args.options(fn, options, ['seqLen'], true);
      return summarizePlan(plan, (l) => frequenciesOf(fn, plan, l, opts), opts.seqLen as number | undefined);
    },
  };
}
