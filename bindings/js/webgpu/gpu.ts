// The PosEncGpu object: posenc's exact tables and memory-bound kernels on one GPUDevice.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { guarded, guardMethods } from '../runtime/guard.js';
import type { PosEnc } from '../posenc.js';
import type { ModelPlan } from '../model/plan.js';
import type { TensorInput } from '../runtime/args.js';
import { checkDevice } from './gpu-args.js';
import type { GpuTensor } from './gpu-args.js';
import { GpuRopeTable, layerTable, specTable } from './rope-table.js';
import type { GpuLayerTableOptions, GpuRopeTableOptions } from './rope-table.js';
import { PipelineCache, ropeOnGpu } from './rope-kernel.js';
import type { GpuRopeArgs } from './rope-kernel.js';
import { addPositions, GpuPositionTable, positionTable, sinusoidalTable } from './tables.js';
import type { GpuAddPositionsArgs, GpuSinusoidalTableOptions } from './tables.js';
import { alibiBias, alibiSlopes, t5OnGpu } from './bias.js';
import type { GpuAlibiBiasArgs, GpuT5Args } from './bias.js';

/** posenc on one GPUDevice: `createPosEncGpu(pe, device)` or `requestPosEncGpu(pe)`. */
export interface PosEncGpu {
  /** The device every table and kernel lives on. */
  readonly device: GPUDevice;
  /** Whether float16 tables can be made (the device has `'shader-f16'`). */
  readonly float16: boolean;
  /** A RoPE spec's cos/sin table for positions 0..maxPositions-1 (every scaling type), float32 (pe.rope.createCache's rows) or float16. */
  ropeTable(options: GpuRopeTableOptions): GpuRopeTable;
  /** One plan layer's table (forms standard, proportional, M-RoPE, decoupled), on the lanes its form rotates. */
  layerTable(plan: ModelPlan, layer: number, options: GpuLayerTableOptions): GpuRopeTable;
  /** Rotates q and k (or a packed qkv) in place with `table`: one dispatch for every head of both. */
  rope(table: GpuRopeTable, args: GpuRopeArgs): void;
  /** pe.sinusoidal.table's rows 0..maxPositions-1 as a GPU table. */
  sinusoidalTable(options: GpuSinusoidalTableOptions): GpuPositionTable;
  /** A learned (or any) `[rows, dim]` float32 table uploaded (`dims` when `table` is a bare Float32Array). */
  positionTable(table: TensorInput, options?: { dims?: readonly number[] }): GpuPositionTable;
  /** x[b, s, :] += table[position, :] in place (embeddings `[seq, dim]` or `[batch, seq, dim]`). */
  addPositions(table: GpuPositionTable, args: GpuAddPositionsArgs): void;
  /** pe.alibi.slopes rounded once to float32, in a new buffer (usage STORAGE | COPY_SRC). */
  alibiSlopes(options: { numHeads: number; maxBias?: number }): GPUBuffer;
  /** pe.alibi.bias `[numHeads, qLen, kLen]` written into `out` on the GPU. */
  alibiBias(args: GpuAlibiBiasArgs): void;
  /** pe.t5.bias `[heads, qLen, kLen]` gathered on the GPU from `weights` `[numBuckets, heads]` (float32). */
  t5Bias(weights: GpuTensor, args: GpuT5Args): void;
  /** pe.t5.buckets `[qLen, kLen]` (int32) written into `out` on the GPU. */
  t5Buckets(args: GpuT5Args): void;
}

guardMethods('GpuRopeTable', GpuRopeTable.prototype);
guardMethods('GpuPositionTable', GpuPositionTable.prototype);

/** `pe` as a posenc API object. */
function checkPosEnc(fn: string, pe: unknown): PosEnc {
  const p = pe as PosEnc | null;
  if (p === null || typeof p !== 'object' || typeof p.rope?.createCache !== 'function' || typeof p.version !== 'string') {
    throw new PosEncError('INVALID_TYPE', `${fn}: pe must be the object createPosEnc() resolves to, got ${args.describe(pe)}`);
  }
  return p;
}

/**
 * posenc on `device`: tables from `pe` (the WebAssembly module's float64 values) and kernels
 * compiled for this device. Nothing runs on the GPU until a kernel is called.
 */
export function createPosEncGpu(pe: PosEnc, device: GPUDevice): PosEncGpu {
  const fn = 'createPosEncGpu';
  const p = checkPosEnc(fn, pe);
  const d = checkDevice(fn, device);
  const pipelines = new PipelineCache(d);
  return guarded('gpu', {
    device: d,
    float16: d.features.has('shader-f16'),
    ropeTable: (options: GpuRopeTableOptions) => specTable(p, d, options),
    layerTable: (plan: ModelPlan, layer: number, options: GpuLayerTableOptions) => layerTable(p, d, plan, layer, options),
    rope: (table: GpuRopeTable, a: GpuRopeArgs) => ropeOnGpu(d, pipelines, tableOf('gpu.rope', table), a),
    sinusoidalTable: (options: GpuSinusoidalTableOptions) => sinusoidalTable(p, d, options),
    positionTable: (table: TensorInput, options?: { dims?: readonly number[] }) => positionTable(d, table, options),
    addPositions: (table: GpuPositionTable, a: GpuAddPositionsArgs) => {
      if (!(table instanceof GpuPositionTable)) {
        throw new PosEncError('INVALID_TYPE', `gpu.addPositions: table must come from gpu.sinusoidalTable or gpu.positionTable, got ${args.describe(table)}`);
      }
      addPositions(d, pipelines, table, a);
    },
    alibiSlopes: (options: { numHeads: number; maxBias?: number }) => alibiSlopes(p, d, options),
    alibiBias: (a: GpuAlibiBiasArgs) => alibiBias(p, d, pipelines, a),
    t5Bias: (weights: GpuTensor, a: GpuT5Args) => t5OnGpu(p, d, pipelines, weights, a, true),
    t5Buckets: (a: GpuT5Args) => t5OnGpu(p, d, pipelines, null, a, false),
  });
}

function tableOf(fn: string, table: unknown): GpuRopeTable {
  if (!(table instanceof GpuRopeTable)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: table must come from gpu.ropeTable or gpu.layerTable, got ${args.describe(table)}`);
  }
  return table;
}

/** Options of {@link requestPosEncGpu}. */
export interface RequestPosEncGpuOptions {
  /** Passed to `navigator.gpu.requestAdapter` (e.g. `{ powerPreference: 'high-performance' }`). */
  adapter?: GPURequestAdapterOptions;
  /** Ask for `'shader-f16'` where the adapter has it, for float16 tables (default true). */
  float16?: boolean;
  /** The `navigator.gpu` to use (default `globalThis.navigator.gpu`; in Node, the `webgpu` package's `create([])`). */
  gpu?: GPU;
}

/**
 * Requests an adapter and a device from WebGPU and returns {@link createPosEncGpu} on it.
 *
 * @throws PosEncError `UNSUPPORTED` when WebGPU is missing (`navigator.gpu` undefined: the browser
 * lacks it, it is disabled, or the page is not a secure context) or gives no adapter (no usable GPU
 * or software adapter), saying which.
 */
export async function requestPosEncGpu(pe: PosEnc, options?: RequestPosEncGpuOptions): Promise<PosEncGpu> {
  const fn = 'requestPosEncGpu';
  checkPosEnc(fn, pe);
  const opts = args.options(fn, options, ['adapter', 'float16', 'gpu'], true);
  if (opts.float16 !== undefined && typeof opts.float16 !== 'boolean') {
    throw new PosEncError('INVALID_TYPE', `${fn}: float16 must be true or false, got ${args.describe(opts.float16)}`);
  }
  const gpu = (opts.gpu ?? (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu) as GPU | undefined;
  if (gpu === undefined || gpu === null) {
    const secure = (globalThis as { isSecureContext?: boolean }).isSecureContext;
    throw new PosEncError('UNSUPPORTED', `${fn}: WebGPU is not available here: navigator.gpu is undefined (` +
      (secure === false ? 'this page is not a secure context: serve it over https or from localhost' :
        typeof (globalThis as { window?: unknown }).window === 'undefined' ? 'not a browser: in Node, pass options.gpu from the webgpu package' :
          'this browser lacks WebGPU or has it disabled; see docs/install.md for browsers and flags') + ')');
  }
  if (typeof gpu.requestAdapter !== 'function') throw new PosEncError('INVALID_TYPE', `${fn}: options.gpu must be a GPU (navigator.gpu), got ${args.describe(gpu)}`);
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter(opts.adapter as GPURequestAdapterOptions | undefined);
  } catch (error) {
    throw new PosEncError('UNSUPPORTED', `${fn}: navigator.gpu.requestAdapter() failed: ${String(error)}`, { cause: error });
  }
  if (!adapter) {
    throw new PosEncError('UNSUPPORTED', `${fn}: WebGPU gave no adapter (navigator.gpu.requestAdapter() returned null): no usable GPU, ` +
      'or the browser blocks it (in headless Chromium without a GPU: --enable-unsafe-webgpu --enable-unsafe-swiftshader; see docs/install.md)');
  }
  const features: GPUFeatureName[] = opts.float16 !== false && adapter.features.has('shader-f16') ? ['shader-f16'] : [];
  const limits = {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  };
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ requiredFeatures: features, requiredLimits: limits });
  } catch (error) {
    throw new PosEncError('UNSUPPORTED', `${fn}: the adapter refused a device: ${String(error)}`, { cause: error });
  }
  return createPosEncGpu(pe, device);
}
