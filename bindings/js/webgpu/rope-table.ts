// RoPE cos/sin tables on the GPU: posenc's float64 values for positions 0..maxPositions-1
// (attention factor included) rounded once to float32 or float16, and where their pairs sit on a
// head (the layout the kernels and the WGSL emitter read). From a RoPE spec (every scaling type,
// through pe.rope) or from one layer of a model plan (its form: standard, proportional, M-RoPE,
// decoupled; through pe.model).
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { PosEnc } from '../posenc.js';
import type { ModelPlan } from '../model/plan.js';
import type { RopeSpec } from '../families/rope/spec.js';
import { SPEC_KEYS } from '../families/rope/spec.js';
import { LANE_ORDERS } from '../model/layer-form.js';
import type { LaneOrder } from '../model/layer-form.js';
import { toFloat16 } from './half.js';
import { upload, USAGE } from './gpu-args.js';

/** The element type of an uploaded table: `'float32'`, or `'float16'` (the device needs the `'shader-f16'` feature). */
export type GpuTableType = 'float32' | 'float16';
export const TABLE_TYPES: readonly GpuTableType[] = ['float32', 'float16'];

/**
 * Which position id each pair reads, for M-RoPE (Qwen2-VL and Qwen2.5-VL: `'sections'`, consecutive
 * blocks of `section[a]` pairs read axis a; Qwen3-VL: `'interleaved'`, pair i reads the height id if
 * i % 3 == 1 and i < 3 section[1], the width id if i % 3 == 2 and i < 3 section[2], else the temporal id).
 */
export interface RopeAxes {
  kind: 'sections' | 'interleaved';
  section: number[];
}

/**
 * Where a table's pairs sit on a head, and the table's shape: what the kernels and `ropeWgsl` need.
 * Pair i rotates lanes (first + i, first + i + span) in the half pairing and (first + 2i, first + 2i + 1)
 * in the interleaved one, `first` being the rotary block's first lane in the head (0, or DeepSeek's
 * `qk_nope_head_dim` for a whole query head).
 */
export interface RopeTableLayout {
  /** Positions 0..rows-1. */
  rows: number;
  /** Values per row: the rotated pairs of a head. */
  pairs: number;
  /** `'half'` (lanes i and i + span) or `'interleaved'` (lanes 2i and 2i + 1). */
  pairing: 'half' | 'interleaved';
  /** The half pairing's distance between the two lanes of a pair (pairs, or half the head for proportional RoPE). */
  span: number;
  /** M-RoPE's position axes, or null (one position id per token). */
  axes: RopeAxes | null;
  /** The element type of the cos and sin buffers. */
  dtype: GpuTableType;
  /** Lanes of a head the rotation spans (`2 * pairs`, or `2 * span`): the rotary block. */
  width: number;
  /** DeepSeek MLA: the lanes of content that precede the rotary block in a whole query head (0 for other forms). */
  nopeHeadDim: number;
  /** The head size the table was made for, when the spec or plan fixes it. */
  headDim: number | undefined;
}

/**
 * A RoPE cos/sin table in two GPUBuffers, `[rows, pairs]` row-major each: row p holds
 * cos(p w_i) * attentionFactor (and sin) rounded once from float64. They are exactly the
 * `cos_cache`/`sin_cache` inputs of the ONNX RotaryEmbedding operator. Call {@link GpuRopeTable.destroy}
 * when done (it destroys both buffers).
 */
export class GpuRopeTable {
  /** cos values, `[rows, pairs]`; usage STORAGE | COPY_SRC. */
  readonly cos: GPUBuffer;
  /** sin values, `[rows, pairs]`; usage STORAGE | COPY_SRC. */
  readonly sin: GPUBuffer;
  /** The table's shape and where its pairs sit on a head. */
  readonly layout: Readonly<RopeTableLayout>;
  /** @internal */
  readonly device: GPUDevice;
  #destroyed = false;

  /** @internal Use `gpu.ropeTable` or `gpu.layerTable`. */
  constructor(device: GPUDevice, layout: RopeTableLayout, cos: ArrayBufferView, sin: ArrayBufferView) {
    this.device = device;
    this.layout = Object.freeze({ ...layout, axes: layout.axes && Object.freeze({ ...layout.axes, section: layout.axes.section.slice() }) });
    const usage = USAGE.STORAGE | USAGE.COPY_SRC;
    this.cos = upload(device, cos, usage, 'posenc rope cos');
    this.sin = upload(device, sin, usage, 'posenc rope sin');
  }

  /** Whether {@link GpuRopeTable.destroy} was called. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Destroys both buffers; later use is a `DISPOSED` error. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.cos.destroy();
    this.sin.destroy();
  }

  /** @internal The table, refused once destroyed. */
  live(fn: string): this {
    if (this.#destroyed) throw new PosEncError('DISPOSED', `${fn}: the RoPE table was destroyed`);
    return this;
  }
}

/** Options of `gpu.ropeTable`: a RoPE spec plus the positions to hold. */
export interface GpuRopeTableOptions extends RopeSpec {
  /** Positions 0..maxPositions-1. */
  maxPositions: number;
  /** The current length `dynamic` and `longrope` scaling read (default maxPositions), as for `pe.rope.createCache`. */
  seqLen?: number;
  /** `'float32'` (default) or `'float16'`. */
  dtype?: GpuTableType;
}

/** Options of `gpu.layerTable`. */
export interface GpuLayerTableOptions {
  /** Positions 0..maxPositions-1. */
  maxPositions: number;
  /** The current length for `dynamic`/`longrope` scaling (default maxPositions; a LongRoPE switch rule of the plan wins). */
  seqLen?: number;
  /** `'float32'` (default) or `'float16'`. */
  dtype?: GpuTableType;
  /**
   * DeepSeek-V3 `rope_interleave` layers: `'vllm'` rotates the adjacent pairs in place (the GPU kernels'
   * way); `'hf'` (the default, as in `pe.model.apply`) is refused, its de-interleaved lane order
   * being no in-place rotation. No effect on other layers.
   */
  laneOrder?: LaneOrder;
}

/** cos and sin rows of `freq` (times `factor`) for positions 0..rows-1, each value rounded once from float64 to `dtype`. */
function rowsOf(freq: ArrayLike<number>, factor: number, rows: number, dtype: GpuTableType): { cos: ArrayBufferView; sin: ArrayBufferView } {
  const pairs = freq.length;
  const cos = new Float64Array(pairs);
  const sin = new Float64Array(pairs);
  const out32 = dtype === 'float32' ? [new Float32Array(rows * pairs), new Float32Array(rows * pairs)] : undefined;
  const out16 = dtype === 'float16' ? [new Uint16Array(rows * pairs), new Uint16Array(rows * pairs)] : undefined;
  for (let p = 0; p < rows; p++) {
    for (let i = 0; i < pairs; i++) {
      const angle = p * freq[i]!;
      cos[i] = Math.cos(angle) * factor;
      sin[i] = Math.sin(angle) * factor;
    }
    if (out32) {
      out32[0]!.set(cos, p * pairs);
      out32[1]!.set(sin, p * pairs);
    } else {
      out16![0]!.set(toFloat16(cos), p * pairs);
      out16![1]!.set(toFloat16(sin), p * pairs);
    }
  }
  const [c, s] = out32 ?? out16!;
  return { cos: c!, sin: s! };
}

/** The dtype option: float16 only on a device with 'shader-f16'. */
export function tableType(fn: string, device: GPUDevice, value: unknown): GpuTableType {
  const dtype = value === undefined ? 'float32' : TABLE_TYPES[args.choice(fn, 'dtype', value, TABLE_TYPES)]!;
  if (dtype === 'float16' && !device.features.has('shader-f16')) {
    throw new PosEncError('UNSUPPORTED', `${fn}: dtype 'float16' needs a device with the 'shader-f16' feature ` +
      `(request it: adapter.requestDevice({ requiredFeatures: ['shader-f16'] })); this device lacks it`);
  }
  return dtype;
}

/** The rows option: 1..2^31-1, and a table the device can bind. */
function rowsOption(fn: string, device: GPUDevice, value: unknown, pairs: number, dtype: GpuTableType): number {
  const rows = args.integer(fn, 'maxPositions', value);
  const bytes = rows * pairs * (dtype === 'float32' ? 4 : 2);
  if (bytes > device.limits.maxStorageBufferBindingSize) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${rows} positions x ${pairs} pairs of ${dtype} are ${bytes} bytes a table, more than this ` +
      `device binds as storage (limits.maxStorageBufferBindingSize = ${device.limits.maxStorageBufferBindingSize})`);
  }
  return rows;
}

/** gpu.ropeTable: a spec's table. float32 rows are pe.rope.createCache's own, copied; float16 ones round the float64 values once. */
export function specTable(pe: PosEnc, device: GPUDevice, options: unknown): GpuRopeTable {
  const fn = 'gpu.ropeTable';
  const opts = args.options(fn, options, [...SPEC_KEYS, 'maxPositions', 'seqLen', 'dtype']);
  const { maxPositions, seqLen, dtype: given, ...spec } = opts;
  const dtype = tableType(fn, device, given);
  const rows = args.integer(fn, 'maxPositions', args.required(fn, opts, 'maxPositions'));
  const length = seqLen === undefined ? rows : seqLen;
  const f = pe.rope.frequencies(spec as RopeSpec, { seqLen: length as number });
  const pairs = f.invFreq.length;
  rowsOption(fn, device, maxPositions, pairs, dtype);
  const pairing = (spec.pairing ?? 'half') as 'half' | 'interleaved';
  const layout: RopeTableLayout = {
    rows, pairs, pairing, span: pairs, axes: null, dtype, width: 2 * pairs, nopeHeadDim: 0,
    headDim: spec.headDim as number | undefined,
  };
  if (layout.headDim !== undefined && layout.headDim < layout.width) {
    throw new PosEncError('OUT_OF_RANGE', `${fn}: rotaryDim ${layout.width} is larger than headDim ${layout.headDim}`);
  }
  if (dtype === 'float16') {
    const { cos, sin } = rowsOf(f.invFreq, f.attentionFactor, rows, dtype);
    return new GpuRopeTable(device, layout, cos, sin);
  }
  const cache = pe.rope.createCache({ ...(spec as RopeSpec), maxPositions: rows, seqLen: length as number });
  try {
    const { cos, sin } = cache.toTensors();
    return new GpuRopeTable(device, layout, cos.data, sin.data);
  } finally {
    cache.dispose();
  }
}

/** gpu.layerTable: one plan layer's table, on the lanes its form rotates. */
export function layerTable(pe: PosEnc, device: GPUDevice, plan: ModelPlan, layer: number, options: unknown): GpuRopeTable {
  const fn = 'gpu.layerTable';
  const opts = args.options(fn, options, ['maxPositions', 'seqLen', 'dtype', 'laneOrder']);
  const dtype = tableType(fn, device, opts.dtype);
  const laneOrder = opts.laneOrder === undefined ? 'hf' : LANE_ORDERS[args.choice(fn, 'laneOrder', opts.laneOrder, LANE_ORDERS)]!;
  const rows = args.integer(fn, 'maxPositions', args.required(fn, opts, 'maxPositions'));
  const seqLen = opts.seqLen === undefined ? rows : args.integer(fn, 'seqLen', opts.seqLen);
  const f = pe.model.frequencies(plan, layer, { seqLen }); // validates plan and layer
  const l = plan.layers[layer]!;
  const rope = l.rope;
  if (!f || !rope) throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer} has no RoPE: there is no table to make`);
  if (l.queryScaling) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer} also scales its queries by position (${l.queryScaling.source}), ` +
      'which the GPU kernels do not do: use pe.model.apply or pe.model.createCache');
  }
  const form = rope.form;
  const half = f.invFreq.length;
  let freq: ArrayLike<number> = f.invFreq;
  const layout: RopeTableLayout = {
    rows, pairs: half, pairing: rope.spec.pairing ?? 'half', span: half, axes: null, dtype, width: 2 * half, nopeHeadDim: 0,
    headDim: rope.spec.headDim,
  };
  switch (form.kind) {
    case 'standard':
      break;
    case 'proportional':
      freq = f.invFreq.subarray(0, form.rotatedPairs);
      layout.pairs = form.rotatedPairs;
      if (layout.pairing === 'interleaved') layout.width = 2 * form.rotatedPairs;
      break;
    case 'mrope':
      layout.axes = { kind: form.interleaved ? 'interleaved' : 'sections', section: form.section.slice() };
      break;
    case 'decoupled':
      if (form.deinterleave && laneOrder === 'hf') {
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer} (DeepSeek-V3 rope_interleave) leaves its rotary block in ` +
          "Hugging Face's de-interleaved lane order, which an in-place GPU kernel does not produce: pass laneOrder 'vllm' " +
          '(the adjacent pairs rotated in place, as vLLM does: the same q·k)');
      }
      layout.nopeHeadDim = form.nopeHeadDim;
      layout.headDim = form.nopeHeadDim + form.ropeHeadDim;
      break;
    case '2d':
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer}'s 2-D RoPE (Pixtral) reads row and column ids, which the GPU kernels ` +
        'do not take: use pe.model.apply');
  }
  rowsOption(fn, device, rows, layout.pairs, dtype);
  const reach = (rows - 1) * Math.max(0, ...Array.from(freq, Math.abs));
  if (!Number.isFinite(reach)) throw new PosEncError('OUT_OF_RANGE', `${fn}: the angles of ${rows} positions overflow to Infinity`);
  if (layout.pairs === 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer} rotates no pairs: there is no table to make`);
  const { cos, sin } = rowsOf(freq, f.attentionFactor, rows, dtype);
  return new GpuRopeTable(device, layout, cos, sin);
}
