// pe.precision: the precision oracle. For a RoPE (a spec, or a layer of a model's plan) and a context
// length, the error per position of computing RoPE the way Hugging Face's and ggml's float32,
// float16 and bfloat16 pipelines do, against float64. The pipelines' float32 parameters come from
// precision-recipes.ts; the per-position emulation runs in C++ (src/encodings/rope_precision.cpp).
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import type { RopeApi } from '../families/rope/rope.js';
import type { RopeSpec } from '../families/rope/spec.js';
import type { ModelApi, ModelPlan } from '../model/model-api.js';
import { readPlan } from '../model/plan-check.js';
import { MAX_HEAD_DIM } from '../model/plan.js';
import { ANGLE_RECIPES } from '../generated/boundary.js';
import { ggmlRecipe, ggmlRefusal, hfInvFreq } from './precision-recipes.js';
import type { OracleSpec } from './precision-recipes.js';

/** The pipelines the oracle emulates. */
export const PRECISION_PIPELINES = ['hf-float32', 'hf-float16', 'hf-bfloat16', 'ggml-float32', 'ggml-float16'] as const;
/** A pipeline the oracle models: whose code (`hf`: transformers, `ggml`: llama.cpp) and in which format. */
export type PrecisionPipeline = (typeof PRECISION_PIPELINES)[number];

/** Options of {@link PrecisionApi.oracle}. */
export interface PrecisionOptions {
  /** Positions 0 .. contextLength - 1 are evaluated; LongRoPE and dynamic NTK take their frequencies at this length. */
  contextLength: number;
  /** Which pipelines (default: every one that can run the RoPE). */
  pipelines?: readonly PrecisionPipeline[];
  /** Positions per bucket (default 1: one value per position); each value is the bucket's maximum. */
  bucket?: number;
  /** With a plan: the layer (default: the first layer with RoPE). */
  layer?: number;
}

/** One pipeline's errors. */
export interface PrecisionPipelineReport {
  /** The pipeline. */
  name: PrecisionPipeline;
  /** Which step runs in which precision, and where upstream does it. */
  steps: string[];
  /** Per bucket: max |cos - cos64|, |sin - sin64| over the pairs, of the rows the pipeline rotates with. */
  cosSinError: number[];
  /** Per bucket: max error of a rotated unit vector (pair i: (cos(0.5 + i), sin(0.5 + i)) in the pipeline's format). */
  rotationError: number[];
  /** The largest of `cosSinError`. */
  maxCosSinError: number;
  /** The largest of `rotationError`. */
  maxRotationError: number;
  /** First position of the bucket where the rotation error is largest. */
  maxRotationErrorPosition: number;
}

/** What {@link PrecisionApi.oracle} returns: plain arrays, one value per bucket. */
export interface PrecisionReport {
  /** Positions 0 .. contextLength - 1 were evaluated. */
  contextLength: number;
  /** Positions per bucket. */
  bucket: number;
  /** First position of each bucket. */
  positions: number[];
  /** The RoPE evaluated. */
  spec: { rotaryDim: number; base: number; scalingType: string; attentionFactor: number };
  /** How the float64 reference is formed. */
  reference: string;
  /** One report per pipeline, in the order asked for. */
  pipelines: PrecisionPipelineReport[];
  /** Pipelines left out and why, and other remarks. */
  notes: string[];
}

/** The precision oracle: `pe.precision`. */
export interface PrecisionApi {
  /**
   * The error per position (or bucket of positions) of RoPE computed the way each upstream
   * pipeline computes it, against float64: a spec (`rotaryDim`/`headDim`, `base`, `scaling`) or a
   * plan from pe.model (one layer).
   */
  oracle(planOrSpec: RopeSpec | ModelPlan, options: PrecisionOptions): PrecisionReport;
}

const REFERENCE = 'float64: w_i are the float64 frequencies of pe.rope.frequencies (at contextLength), theta = p * w_i, ' +
  'cos and sin in float64, times the attention factor; the rotated unit vector is rotated in float64 from the same rounded input';

function hfSteps(format: string): string[] {
  const steps = [
    'inv_freq: float32, 1 / base^(arange(0, r, 2).float() / r) and the rope_type\'s own steps, each rounded to float32 (modeling_rope_utils.py _compute_*_parameters)',
    'angles: float32, inv_freq * position_ids.float() (LlamaRotaryEmbedding.forward, autocast disabled)',
    'cos/sin: float32, emb.cos() and emb.sin() times attention_scaling',
  ];
  if (format !== 'float32') steps.push(`cast: cos and sin to ${format} (.to(x.dtype), round to nearest even)`);
  steps.push(`rotation: ${format}, q * cos + rotate_half(q) * sin (apply_rotary_pos_emb), each product and the sum computed in float32 and rounded to ${format}`);
  return steps;
}

function ggmlSteps(format: string): string[] {
  const steps = [
    'theta_scale: float32, powf(freq_base, -2.0f / n_dims) (ggml-cpu ops.cpp ggml_compute_forward_rope_flt)',
    'angles: float32, theta = (float) pos, then theta *= theta_scale pair after pair (ggml_rope_cache_init); theta / freq_factors, freq_scale and the YaRN ramp in float32 (rope_yarn)',
    'cos/sin: float32, cosf(theta) and sinf(theta) times mscale (rope_yarn), kept in float32',
    'rotation: float32, x0 * cos - x1 * sin (rotate_pairs), no fused multiply-add',
  ];
  if (format === 'float16') steps.push('storage: float16, the result written to the float16 KV cache (round to nearest even)');
  return steps;
}

/** A plan (checked by the plan schema) rather than a spec: an object with `layers`. */
function isPlan(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && (value as { layers?: unknown }).layers !== undefined;
}

/**
 * The most work one oracle call does: positions times pairs (each emulated in five pipelines).
 * 2^26 is a 2^20-token context at head 128 (docs/reliability.md gives its time and memory).
 */
export const MAX_ORACLE_WORK = 2 ** 26;

/** Refuses, before anything is allocated, a call past {@link MAX_ORACLE_WORK}. */
function checkWork(fn: string, contextLength: number, rotaryDim: number): void {
  const work = contextLength * Math.floor(rotaryDim / 2);
  if (rotaryDim > MAX_HEAD_DIM || work > MAX_ORACLE_WORK) {
    throw new PosEncError('OUT_OF_RANGE', `${fn}: contextLength ${contextLength} with rotaryDim ${rotaryDim} is ${work} position-pairs; ` +
      `the oracle evaluates at most 2^26 (and at most ${MAX_HEAD_DIM} lanes): use a shorter contextLength`);
  }
}

export function precisionApi(heap: Heap, rope: RopeApi, model: ModelApi): PrecisionApi {
  /** The spec and its float64 frequencies at the context length. */
  function oracleSpec(fn: string, planOrSpec: unknown, contextLength: number, layer: unknown, notes: string[]): OracleSpec {
    if (isPlan(planOrSpec)) {
      const plan = readPlan(fn, planOrSpec);
      const index = layer === undefined ? plan.layers.findIndex((l) => l.rope !== null) : args.integer(fn, 'layer', layer, 0);
      if (index < 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: no layer of this ${plan.modelType} plan uses RoPE`);
      const l = plan.layers[index];
      if (!l) throw new PosEncError('OUT_OF_RANGE', `${fn}: layer ${index} is outside the model's ${plan.layers.length} layers`);
      if (!l.rope) throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${index} has no RoPE (${l.attention})`);
      if (l.rope.form.kind === 'proportional' || l.rope.form.kind === '2d') {
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${index} uses ${l.rope.form.kind} RoPE; the oracle covers RoPE on consecutive pairs of one position axis`);
      }
      if (layer === undefined) notes.push(`layer ${index} (${l.attention}), the first with RoPE`);
      checkWork(fn, contextLength, l.rope.spec.rotaryDim);
      const freq = model.frequencies(plan, index, { seqLen: contextLength })!;
      const { rotaryDim, base, scaling } = l.rope.spec;
      return { rotaryDim, base, scaling: scaling ?? undefined, freq };
    }
    if (planOrSpec === null || typeof planOrSpec !== 'object') {
      throw new PosEncError('INVALID_TYPE', `${fn}: planOrSpec must be a RoPE spec or a plan from pe.model, got ${args.describe(planOrSpec)}`);
    }
    if (layer !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: option 'layer' needs a plan, not a spec`);
    const { mropeSection: _sections, ...spec } = planOrSpec as RopeSpec & { mropeSection?: unknown };
    const width = spec.rotaryDim ?? spec.headDim; // checked by rope.frequencies; bounded here before it allocates
    if (typeof width === 'number' && Number.isFinite(width)) checkWork(fn, contextLength, width);
    const freq = rope.frequencies({ ...spec }, { seqLen: contextLength });
    const rotaryDim = freq.invFreq.length * 2;
    const s = spec as RopeSpec;
    return { rotaryDim, base: s.base ?? (freq.scalingType === 'llama3' ? 500000 : 10000), scaling: s.scaling ?? undefined, freq };
  }

  function oracle(planOrSpec: RopeSpec | ModelPlan, options: PrecisionOptions): PrecisionReport {
    const fn = 'precision.oracle';
    const opts = args.options(fn, options, ['contextLength', 'pipelines', 'bucket', 'layer']);
    const contextLength = args.integer(fn, 'contextLength', args.required(fn, opts, 'contextLength'));
    if (contextLength > 2 ** 24) {
      throw new PosEncError('OUT_OF_RANGE', `${fn}: contextLength ${contextLength} is beyond 2^24, where float32 positions stop being exact integers`);
    }
    const bucket = opts.bucket === undefined ? 1 : args.integer(fn, 'bucket', opts.bucket);
    const notes: string[] = [];
    // the spec or plan read once into a plain copy: a caller's getter or Proxy runs here, or not at all
    const s = oracleSpec(fn, args.snapshot(fn, planOrSpec, 'planOrSpec'), contextLength, opts.layer, notes);
    const refusal = ggmlRefusal(s);
    let names: PrecisionPipeline[];
    if (opts.pipelines === undefined) {
      names = PRECISION_PIPELINES.filter((n) => !(n.startsWith('ggml') && refusal));
      if (refusal) notes.push(`ggml pipelines left out: ${refusal}`);
    } else {
      if (!Array.isArray(opts.pipelines) || opts.pipelines.length === 0) {
        throw new PosEncError('INVALID_TYPE', `${fn}: pipelines must be a non-empty array of ${PRECISION_PIPELINES.join(', ')}`);
      }
      names = opts.pipelines.map((p, i) => PRECISION_PIPELINES[args.choice(fn, `pipelines[${i}]`, p, PRECISION_PIPELINES)]!);
      const ggml = names.find((n) => n.startsWith('ggml'));
      if (ggml && refusal) throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${ggml} cannot run this RoPE: ${refusal}`);
    }
    const pairs = s.rotaryDim / 2;
    const buckets = Math.ceil(contextLength / bucket);
    const results = new Map<string, { rows: number[]; rotation: number[] }>();
    withHeap(heap, (scope) => {
      const invFreq = scope.f64In(s.freq.invFreq, 'the frequencies');
      for (const recipe of ANGLE_RECIPES) {
        const wanted = names.filter((n) => n.startsWith(`${recipe}-`));
        if (wanted.length === 0) continue;
        const formats = recipe === 'hf' ? ['float32', 'float16', 'bfloat16'] : ['float32', 'float16'];
        const ggml = recipe === 'ggml' ? ggmlRecipe(s) : undefined;
        const pipelineFreq = recipe === 'hf' ? hfInvFreq(fn, s) : ggml!.freqFactors;
        const out = scope.alloc(2 * formats.length * buckets * 8, 'the errors');
        heap.check(heap.call.ropePrecision({
          invFreq, pairs, attentionFactor: s.freq.attentionFactor, recipe: ANGLE_RECIPES.indexOf(recipe),
          pipelineFreq: scope.f64In(pipelineFreq, 'the pipeline frequencies'), attention: ggml ? ggml.attention : Math.fround(s.freq.attentionFactor),
          thetaScale: ggml?.thetaScale ?? 1, freqScale: ggml?.freqScale ?? 1, extFactor: ggml?.extFactor ?? 0, corrLow: ggml?.corrLow ?? 0,
          corrHigh: ggml?.corrHigh ?? 0, start: 0, count: contextLength, bucket, out,
        }), fn);
        const values = heap.f64(out, 2 * formats.length * buckets);
        formats.forEach((format, v) => results.set(`${recipe}-${format}`, {
          rows: Array.from(values.subarray(2 * v * buckets, (2 * v + 1) * buckets)),
          rotation: Array.from(values.subarray((2 * v + 1) * buckets, (2 * v + 2) * buckets)),
        }));
      }
    });
    const pipelines = names.map((name): PrecisionPipelineReport => {
      const r = results.get(name)!;
      const format = name.slice(name.indexOf('-') + 1);
      let worst = 0;
      let maxRows = 0;
      for (let b = 0; b < buckets; b++) { // loops, not Math.max(...): 128k arguments overflow the stack
        if (r.rotation[b]! > r.rotation[worst]!) worst = b;
        maxRows = Math.max(maxRows, r.rows[b]!);
      }
      return {
        name, steps: name.startsWith('hf') ? hfSteps(format) : ggmlSteps(format), cosSinError: r.rows, rotationError: r.rotation,
        maxCosSinError: maxRows, maxRotationError: r.rotation[worst]!, maxRotationErrorPosition: worst * bucket,
      };
    });
    return {
      contextLength, bucket, positions: Array.from({ length: buckets }, (_, b) => b * bucket),
      spec: { rotaryDim: s.rotaryDim, base: s.base, scalingType: s.freq.scalingType, attentionFactor: s.freq.attentionFactor },
      reference: REFERENCE, pipelines, notes,
    };
  }

  return { oracle };
}
