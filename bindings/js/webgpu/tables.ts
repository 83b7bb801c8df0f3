// Absolute position tables on the GPU (sinusoidal from pe.sinusoidal, learned weights as given)
// and adding their rows to token embeddings in place: one invocation per element, each element of
// x read and written once, plain float32 adds (the WASM tableAdd's).
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { PosEnc } from '../posenc.js';
import type { SinusoidalCreateTableOptions } from '../families/sinusoidal.js';
import { buffer, dims as dimsOf, tensor, upload, USAGE, workgroups } from './gpu-args.js';
import type { GpuTensor } from './gpu-args.js';
import { dispatch, encoderOf } from './rope-kernel.js';
import type { PipelineCache } from './rope-kernel.js';

/** A `[rows, dim]` float32 position table in a GPUBuffer (usage STORAGE | COPY_SRC). Call {@link GpuPositionTable.destroy} when done. */
export class GpuPositionTable {
  /** The rows, row-major. */
  readonly buffer: GPUBuffer;
  /** Positions 0..rows-1. */
  readonly rows: number;
  /** Values per row. */
  readonly dim: number;
  /** @internal */
  readonly device: GPUDevice;
  #destroyed = false;

  /** @internal Use `gpu.sinusoidalTable` or `gpu.positionTable`. */
  constructor(device: GPUDevice, data: Float32Array, rows: number, dim: number) {
    this.device = device;
    this.rows = rows;
    this.dim = dim;
    this.buffer = upload(device, data, USAGE.STORAGE | USAGE.COPY_SRC, 'posenc position table');
  }

  /** Whether {@link GpuPositionTable.destroy} was called. */
  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Destroys the buffer; later use is a `DISPOSED` error. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.buffer.destroy();
  }

  /** @internal */
  live(fn: string): this {
    if (this.#destroyed) throw new PosEncError('DISPOSED', `${fn}: the position table was destroyed`);
    return this;
  }
}

/** Options of `gpu.sinusoidalTable`: those of `pe.sinusoidal.createTable` (`storage` aside). */
export type GpuSinusoidalTableOptions = Omit<SinusoidalCreateTableOptions, 'storage'>;

/** gpu.sinusoidalTable: pe.sinusoidal.table's rows 0..maxPositions-1, uploaded as they are. */
export function sinusoidalTable(pe: PosEnc, device: GPUDevice, options: unknown): GpuPositionTable {
  const fn = 'gpu.sinusoidalTable';
  const opts = args.options(fn, options, ['maxPositions', 'dim', 'base', 'layout', 'precision']);
  const rows = args.integer(fn, 'maxPositions', args.required(fn, opts, 'maxPositions'));
  const { maxPositions: _rows, ...params } = opts;
  const dim = args.integer(fn, 'dim', args.required(fn, opts, 'dim'));
  checkTableBytes(fn, device, rows, dim);
  const t = pe.sinusoidal.table({ ...(params as { dim: number }), length: rows });
  return new GpuPositionTable(device, t.data, rows, dim);
}

function checkTableBytes(fn: string, device: GPUDevice, rows: number, dim: number): void {
  if (rows * dim * 4 > device.limits.maxStorageBufferBindingSize) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: a [${rows}, ${dim}] float32 table is ${rows * dim * 4} bytes, more than this device binds ` +
      `as storage (limits.maxStorageBufferBindingSize = ${device.limits.maxStorageBufferBindingSize})`);
  }
}

/** gpu.positionTable: a learned (or any) `[rows, dim]` float32 table, uploaded. */
export function positionTable(device: GPUDevice, table: unknown, options: unknown): GpuPositionTable {
  const fn = 'gpu.positionTable';
  const opts = args.options(fn, options, ['dims'], true);
  const t = args.tensor(fn, 'table', table, opts.dims);
  if (t.dims.length !== 2) throw new PosEncError('SHAPE_MISMATCH', `${fn}: table must be 2-D [rows, dim], got [${t.dims.join(', ')}]`);
  const [rows, dim] = t.dims as [number, number];
  checkTableBytes(fn, device, rows, dim);
  return new GpuPositionTable(device, Float32Array.from(t.data as ArrayLike<number>), rows, dim);
}

/** Arguments of `gpu.addPositions`. */
export interface GpuAddPositionsArgs {
  /** Token embeddings `[seq, dim]` or `[batch, seq, dim]`, updated in place. */
  x: GpuTensor;
  /** Position of the first token (default 0). Not with positionIds. */
  offset?: number;
  /** int32 (or uint32) row ids `[seq]` or `[batch, seq]` in a buffer of their own; ids outside the table make their row NaN. */
  positionIds?: { buffer: GPUBuffer; dims: readonly number[]; offset?: number };
  /** Record into this encoder (the caller submits); default: posenc submits. */
  encoder?: GPUCommandEncoder;
}

const ADD_SHADER = (ids: boolean) => `struct Params { total: u32, dim: u32, seq: u32, offset: u32, rows: u32, ids_base: u32, ids_batch_stride: u32, nan_bits: u32, x_base: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read> table: array<f32>;
${ids ? '@group(0) @binding(3) var<storage, read> ids: array<u32>;\n' : ''}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let e = gid.y * groups.x * 64u + gid.x;
  if (e >= params.total) { return; }
  let token = e / params.dim;
  let column = e % params.dim;
  let s = token % params.seq;
  ${ids ? 'let row = ids[params.ids_base + (token / params.seq) * params.ids_batch_stride + s];' : 'let row = params.offset + s;'}
  if (row >= params.rows) {
    x[params.x_base + e] = bitcast<f32>(params.nan_bits);
    return;
  }
  x[params.x_base + e] = x[params.x_base + e] + table[row * params.dim + column];
}
`;

/** gpu.addPositions: x[b, s, :] += table[position(b, s), :], in place. */
export function addPositions(device: GPUDevice, pipelines: PipelineCache, table: GpuPositionTable, given: unknown): void {
  const fn = 'gpu.addPositions';
  const opts = args.options(fn, given, ['x', 'offset', 'positionIds', 'encoder']);
  table.live(fn);
  if (table.device !== device) throw new PosEncError('INVALID_ARGUMENT', `${fn}: the table was made on another GPUDevice`);
  const encoder = encoderOf(fn, opts.encoder);
  const x = tensor(fn, 'x', args.required(fn, opts, 'x'), device, [2, 3]);
  const [batch, seq, dim] = x.dims.length === 2 ? [1, x.dims[0]!, x.dims[1]!] : (x.dims as [number, number, number]);
  if (dim !== table.dim) throw new PosEncError('SHAPE_MISMATCH', `${fn}: x's rows have ${dim} values, the table's ${table.dim}`);
  if (opts.positionIds !== undefined && opts.offset !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: give offset or positionIds, not both`);
  let ids: GPUBuffer | undefined;
  let idsBase = 0;
  let idsBatchStride = 0;
  let offset = 0;
  if (opts.positionIds !== undefined) {
    const p = args.options(fn, opts.positionIds, ['buffer', 'dims', 'offset']);
    ids = buffer(fn, 'positionIds.buffer', args.required(fn, p, 'buffer'), USAGE.STORAGE, device);
    const shape = dimsOf(fn, 'positionIds.dims', args.required(fn, p, 'dims'));
    const perBatch = shape.length === 2 && shape[0] === batch && shape[1] === seq;
    if (!perBatch && !(shape.length === 1 && shape[0] === seq)) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: positionIds.dims [${shape.join(', ')}] must be [${seq}] or [${batch}, ${seq}]`);
    }
    const byteOffset = p.offset === undefined ? 0 : args.integer(fn, 'positionIds.offset', p.offset, 0);
    if (byteOffset % 4 !== 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: positionIds.offset must be a multiple of 4 bytes, got ${byteOffset}`);
    if (byteOffset + (perBatch ? batch * seq : seq) * 4 > ids.size) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: positionIds [${shape.join(', ')}] from byte ${byteOffset} do not fit their buffer of ${ids.size} bytes`);
    }
    if (ids === x.buffer) throw new PosEncError('INVALID_ARGUMENT', `${fn}: positionIds must be in a buffer of their own, not in x's`);
    idsBase = byteOffset / 4;
    idsBatchStride = perBatch ? seq : 0;
  } else {
    offset = opts.offset === undefined ? 0 : args.integer(fn, 'offset', opts.offset, 0);
    if (offset + seq > table.rows) {
      throw new PosEncError('OUT_OF_RANGE', `${fn}: positions ${offset}..${offset + seq - 1} reach past the table's ${table.rows} positions`);
    }
  }
  const total = batch * seq * dim;
  const words = Uint32Array.of(total, dim, seq, offset, table.rows, idsBase, idsBatchStride, 0x7fc00000, x.first, 0, 0, 0);
  const entries: GPUBindGroupEntry[] = [
    { binding: 0, resource: { buffer: upload(device, words, USAGE.UNIFORM, 'posenc add params') } },
    { binding: 1, resource: { buffer: x.buffer } },
    { binding: 2, resource: { buffer: table.buffer } },
  ];
  if (ids) entries.push({ binding: 3, resource: { buffer: ids } });
  dispatch(device, pipelines.get(ADD_SHADER(ids !== undefined), 'posenc add positions'), entries, workgroups(fn, device, total, 64), encoder,
    'posenc add positions');
}
