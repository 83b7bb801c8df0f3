// RoPE on GPUBuffers, in place: one dispatch rotates q and k (all their heads, grouped-query or
// not, bshd, bhsd or one packed QKV buffer) at an offset or at per-token position ids. One
// invocation per (token, pair): it reads the pair's cos and sin once and rotates that pair in
// every head of q and k, so each element is read and written once and each table value read once
// per token. The WGSL is ropeWgsl's (rope-wgsl.ts) plus the loop over heads.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { buffer, dims as dimsOf, tensor, upload, USAGE, workgroups } from './gpu-args.js';
import type { CheckedTensor, GpuTensor } from './gpu-args.js';
import type { GpuRopeTable, RopeTableLayout } from './rope-table.js';
import { ropeWgsl } from './rope-wgsl.js';

/** The head layout of 4-D q/k: `'bshd'` `[batch, seq, heads, headDim]` or `'bhsd'` `[batch, heads, seq, headDim]`. */
export type GpuHeadLayout = 'bshd' | 'bhsd';
const LAYOUTS: readonly GpuHeadLayout[] = ['bshd', 'bhsd'];

/** The integer type of a position id buffer: int64 ids (onnxruntime's) are read as their low word, with the high word 0. */
export type GpuPositionType = 'int32' | 'uint32' | 'int64';
const POSITION_TYPES: readonly GpuPositionType[] = ['int32', 'uint32', 'int64'];

/**
 * Position ids in a GPUBuffer: `[seq]` (every batch row) or `[batch, seq]`; for an M-RoPE table
 * also axis-major `[axes, seq]` or `[axes, batch, seq]` (one-axis ids then mean text: every axis
 * equal). Ids outside the table (negative ones included) turn their pairs into NaN: never clamped.
 */
export interface GpuPositionIds {
  /** The buffer (usage STORAGE). */
  buffer: GPUBuffer;
  /** The shape (see above). */
  dims: readonly number[];
  /** The element type (default `'int32'`). */
  dtype?: GpuPositionType;
  /** Where the ids start in the buffer, in bytes (a multiple of the element size; default 0). */
  offset?: number;
}

/** Arguments of `gpu.rope`: q and k (or one packed QKV buffer), their layout and positions. */
export interface GpuRopeArgs {
  /** Queries: 4-D in `layout`, or 3-D `[batch, seq, numHeads * headDim]` with `numHeads`. */
  q?: GpuTensor;
  /** Keys (any head count: grouped-query attention), the same rank, layout, batch and seq as q; null or absent: q only. */
  k?: GpuTensor | null;
  /** One buffer `[batch, seq, (numHeads + 2 numKeyValueHeads) * headDim]`: q heads, k heads, v heads (v untouched). Not with q/k. */
  qkv?: GpuTensor;
  /** The layout of 4-D q/k (required for them, as in pe.rope.apply). */
  layout?: GpuHeadLayout;
  /** Query heads of a 3-D q or of qkv. */
  numHeads?: number;
  /** Key heads of a 3-D k or of qkv (default numHeads). */
  numKeyValueHeads?: number;
  /** Position of the first token (default 0): token s is at offset + s. Not with positionIds. */
  offset?: number;
  /** Per-token position ids (see {@link GpuPositionIds}). */
  positionIds?: GpuPositionIds;
  /** Record into this encoder (the caller submits); default: posenc submits one command buffer. */
  encoder?: GPUCommandEncoder;
}

/** A tensor's place in its buffer, as the kernel walks it. */
interface Walk {
  base: number;
  batchStride: number;
  seqStride: number;
  headStride: number;
  heads: number;
  firstLane: number;
}

const NO_WALK: Walk = { base: 0, batchStride: 0, seqStride: 0, headStride: 0, heads: 0, firstLane: 0 };

/** The first lane of the rotary block in a head of `headDim` lanes, checked against the table. */
function firstLane(fn: string, name: string, headDim: number, l: RopeTableLayout): number {
  if (l.nopeHeadDim > 0) {
    if (headDim === l.nopeHeadDim + l.width) return l.nopeHeadDim;
    if (headDim === l.width) return 0;
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name}'s head size ${headDim} is neither qk_nope_head_dim + qk_rope_head_dim ` +
      `(${l.nopeHeadDim} + ${l.width}) nor qk_rope_head_dim (${l.width})`);
  }
  if (l.headDim !== undefined && headDim !== l.headDim) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: the table was made for headDim ${l.headDim}, ${name} has head size ${headDim}`);
  }
  if (headDim < l.width) throw new PosEncError('OUT_OF_RANGE', `${fn}: the table rotates ${l.width} lanes, more than ${name}'s head size ${headDim}`);
  return 0;
}

/** batch, seq, heads, headDim and the walk of a q or k tensor. */
function walkOf(fn: string, name: string, t: CheckedTensor, layout: GpuHeadLayout | undefined, heads3: number | undefined, l: RopeTableLayout) {
  let batch: number, seq: number, heads: number, headDim: number;
  let walk: Omit<Walk, 'firstLane'>;
  if (t.dims.length === 3) {
    if (heads3 === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: a 3-D ${name} [batch, seq, hidden] needs ${name === 'q' ? 'numHeads' : 'numKeyValueHeads (or numHeads)'}`);
    [batch, seq] = t.dims as [number, number];
    heads = heads3;
    if (t.dims[2]! % heads !== 0) throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name}'s hidden size ${t.dims[2]} is not a multiple of its ${heads} heads`);
    headDim = t.dims[2]! / heads;
    walk = { base: t.first, batchStride: seq * heads * headDim, seqStride: heads * headDim, headStride: headDim, heads };
  } else if (layout === undefined) {
    throw new PosEncError('MISSING_OPTION', `${fn}: option 'layout' is required for 4-D tensors: 'bshd' ([batch, seq, heads, headDim]) or 'bhsd' ([batch, heads, seq, headDim])`);
  } else if (layout === 'bshd') {
    [batch, seq, heads, headDim] = t.dims as [number, number, number, number];
    walk = { base: t.first, batchStride: seq * heads * headDim, seqStride: heads * headDim, headStride: headDim, heads };
  } else {
    [batch, heads, seq, headDim] = t.dims as [number, number, number, number];
    walk = { base: t.first, batchStride: heads * seq * headDim, seqStride: headDim, headStride: seq * headDim, heads };
  }
  return { batch, seq, headDim, walk: { ...walk, firstLane: firstLane(fn, name, headDim, l) } };
}

/** The positions of a call: an offset (checked against the table here) or an ids buffer (checked on the GPU: NaN pairs). */
function positionsOf(fn: string, opts: Record<string, unknown>, batch: number, seq: number, l: RopeTableLayout, device: GPUDevice) {
  if (opts.positionIds !== undefined && opts.offset !== undefined) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: give offset or positionIds, not both`);
  }
  if (opts.positionIds === undefined) {
    const offset = opts.offset === undefined ? 0 : args.integer(fn, 'offset', opts.offset, 0);
    if (offset + seq > l.rows) {
      throw new PosEncError('OUT_OF_RANGE', `${fn}: positions ${offset}..${offset + seq - 1} reach past the table's ${l.rows} positions (0..${l.rows - 1})`);
    }
    return { ids: undefined, offset, idsBase: 0, batchStride: 0, axisStride: 0, type: 'int32' as GpuPositionType };
  }
  const p = args.options(fn, opts.positionIds, ['buffer', 'dims', 'dtype', 'offset']);
  const type = p.dtype === undefined ? 'int32' : POSITION_TYPES[args.choice(fn, 'positionIds.dtype', p.dtype, POSITION_TYPES)]!;
  const ids = buffer(fn, 'positionIds.buffer', args.required(fn, p, 'buffer'), USAGE.STORAGE, device);
  const shape = dimsOf(fn, 'positionIds.dims', args.required(fn, p, 'dims'));
  const width = type === 'int64' ? 8 : 4;
  const byteOffset = p.offset === undefined ? 0 : args.integer(fn, 'positionIds.offset', p.offset, 0);
  if (byteOffset % width !== 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: positionIds.offset must be a multiple of ${width} bytes (${type}), got ${byteOffset}`);
  const axes = l.axes ? (l.axes.kind === 'interleaved' ? 3 : l.axes.section.length) : 1;
  const want = [[seq], [batch, seq], ...(l.axes ? [[axes, seq], [axes, batch, seq]] : [])];
  const k = want.findIndex((w) => w.join() === shape.join());
  // [batch, seq] and [axes, seq] read the same when batch == axes: M-RoPE takes the axis-major reading (as pe.model.apply)
  const pick = l.axes && batch === axes && k === 1 ? 2 : k;
  if (pick < 0) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: positionIds.dims [${shape.join(', ')}] must be ${want.map((w) => `[${w.join(', ')}]`).join(' or ')}`);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  if (byteOffset + count * width > ids.size) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: positionIds [${shape.join(', ')}] of ${type} from byte ${byteOffset} need ${byteOffset + count * width} bytes, ` +
      `its buffer has ${ids.size}`);
  }
  const perBatch = pick === 1 || pick === 3;
  return {
    ids, offset: 0, idsBase: byteOffset / width, batchStride: perBatch ? seq : 0,
    axisStride: pick >= 2 ? (perBatch ? batch * seq : seq) : 0, type,
  };
}

/** The compute shader for one table layout and binding shape. */
function shaderOf(l: RopeTableLayout, kMode: 'none' | 'own' | 'shared', idsType: GpuPositionType | 'none'): string {
  const w = ropeWgsl(l, { group: 0, binding: 4 });
  const kArray = kMode === 'shared' ? 'q' : 'k';
  const idWords = idsType === 'int64' ? 2 : 1;
  const idRead = idsType === 'none' ? '' : `
  if (params.use_ids != 0u) {
    let at = params.ids_base + posenc_rope_axis(pair) * params.axis_stride + b * params.ids_batch_stride + s;
    position = ids[${idWords === 2 ? '2u * at' : 'at'}];${idWords === 2 ? `
    if (ids[2u * at + 1u] != 0u) { in_range = false; }` : ''}
  }`;
  const heads = (t: 'q' | 'k', array: string) => `
  for (var h = 0u; h < params.${t}.heads; h++) {
    let at = params.${t}.base + b * params.${t}.batch_stride + s * params.${t}.seq_stride + h * params.${t}.head_stride + params.${t}.first_lane;
    if (in_range) {
      let r = posenc_rope_rotate(vec2<f32>(${array}[at + lanes.x], ${array}[at + lanes.y]), cs);
      ${array}[at + lanes.x] = r.x;
      ${array}[at + lanes.y] = r.y;
    } else {
      ${array}[at + lanes.x] = not_a_number;
      ${array}[at + lanes.y] = not_a_number;
    }
  }`;
  return `${w.enableF16 ? 'enable f16;\n' : ''}struct Walk { base: u32, batch_stride: u32, seq_stride: u32, head_stride: u32, heads: u32, first_lane: u32 }
struct Params { q: Walk, k: Walk, tokens: u32, seq: u32, offset: u32, use_ids: u32, ids_base: u32, ids_batch_stride: u32, axis_stride: u32, nan_bits: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> q: array<f32>;
${kMode === 'own' ? '@group(0) @binding(2) var<storage, read_write> k: array<f32>;\n' : ''}${idsType === 'none' ? '' : '@group(0) @binding(3) var<storage, read> ids: array<u32>;\n'}
${w.code}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let t = gid.y * groups.x * 64u + gid.x;
  if (t >= params.tokens * posenc_rope_pairs) { return; }
  let token = t / posenc_rope_pairs;
  let pair = t % posenc_rope_pairs;
  let b = token / params.seq;
  let s = token % params.seq;
  var position = params.offset + s;
  var in_range = true;${idRead}
  in_range = in_range && posenc_rope_in_range(position);
  let cs = posenc_rope_cos_sin(position, pair);
  let lanes = posenc_rope_lanes(pair);
  let not_a_number = bitcast<f32>(params.nan_bits);${heads('q', 'q')}${kMode === 'none' ? '' : heads('k', kArray)}
}
`;
}

const PARAM_WORDS = 20; // 2 walks of 6 u32, 8 more u32: 80 bytes, a multiple of 16

/** The pipelines of one device, by shader source. */
export class PipelineCache {
  #device: GPUDevice;
  #pipelines = new Map<string, GPUComputePipeline>();
  constructor(device: GPUDevice) {
    this.#device = device;
  }
  get(code: string, label: string): GPUComputePipeline {
    let p = this.#pipelines.get(code);
    if (!p) {
      p = this.#device.createComputePipeline({ label, layout: 'auto', compute: { module: this.#device.createShaderModule({ label, code }), entryPoint: 'main' } });
      this.#pipelines.set(code, p);
    }
    return p;
  }
}

/** Records (or submits) one compute pass of `pipeline` over `groups` with `entries`. */
export function dispatch(device: GPUDevice, pipeline: GPUComputePipeline, entries: GPUBindGroupEntry[], groups: [number, number],
  encoder: GPUCommandEncoder | undefined, label: string): void {
  const bindGroup = device.createBindGroup({ label, layout: pipeline.getBindGroupLayout(0), entries });
  const own = encoder ?? device.createCommandEncoder({ label });
  const pass = own.beginComputePass({ label });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(groups[0], groups[1]);
  pass.end();
  if (!encoder) device.queue.submit([own.finish()]);
}

/** The encoder option: a GPUCommandEncoder or absent. */
export function encoderOf(fn: string, value: unknown): GPUCommandEncoder | undefined {
  if (value === undefined) return undefined;
  const e = value as GPUCommandEncoder | null;
  if (e === null || typeof e !== 'object' || typeof e.beginComputePass !== 'function' || typeof e.finish !== 'function') {
    throw new PosEncError('INVALID_TYPE', `${fn}: encoder must be a GPUCommandEncoder, got ${args.describe(value)}`);
  }
  return e;
}

/** gpu.rope: rotates q and k (or a packed qkv) in place on the GPU with `table`. */
export function ropeOnGpu(device: GPUDevice, pipelines: PipelineCache, table: GpuRopeTable, given: GpuRopeArgs): void {
  const fn = 'gpu.rope';
  const opts = args.options(fn, given, ['q', 'k', 'qkv', 'layout', 'numHeads', 'numKeyValueHeads', 'offset', 'positionIds', 'encoder']);
  const l = table.live(fn).layout;
  if (table.device !== device) throw new PosEncError('INVALID_ARGUMENT', `${fn}: the table was made on another GPUDevice`);
  const encoder = encoderOf(fn, opts.encoder);
  const layout = opts.layout === undefined ? undefined : LAYOUTS[args.choice(fn, 'layout', opts.layout, LAYOUTS)]!;
  const numHeads = opts.numHeads === undefined ? undefined : args.integer(fn, 'numHeads', opts.numHeads);
  const kvHeads = opts.numKeyValueHeads === undefined ? numHeads : args.integer(fn, 'numKeyValueHeads', opts.numKeyValueHeads);
  let qb: GPUBuffer, kb: GPUBuffer | undefined, batch: number, seq: number, qw: Walk, kw: Walk = NO_WALK;
  if (opts.qkv !== undefined) {
    if (opts.q !== undefined || (opts.k !== undefined && opts.k !== null)) throw new PosEncError('INVALID_ARGUMENT', `${fn}: give qkv or q and k, not both`);
    if (opts.layout !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: a packed qkv buffer is [batch, seq, hidden]: layout does not apply`);
    const t = tensor(fn, 'qkv', opts.qkv, device, [3]);
    if (numHeads === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: a packed qkv needs numHeads (and numKeyValueHeads for grouped-query attention)`);
    const total = numHeads + 2 * kvHeads!;
    const hidden = t.dims[2]!;
    if (hidden % total !== 0) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: qkv's hidden size ${hidden} is not a multiple of numHeads + 2 numKeyValueHeads = ${total}`);
    }
    const headDim = hidden / total;
    [batch, seq] = t.dims as [number, number];
    const lane = firstLane(fn, 'qkv', headDim, l);
    qb = t.buffer;
    qw = { base: t.first, batchStride: seq * hidden, seqStride: hidden, headStride: headDim, heads: numHeads, firstLane: lane };
    kw = { ...qw, base: t.first + numHeads * headDim, heads: kvHeads! };
    kb = qb;
  } else {
    const qt = tensor(fn, 'q', args.required(fn, opts, 'q'), device, [3, 4]);
    const qs = walkOf(fn, 'q', qt, layout, numHeads, l);
    ({ batch, seq } = qs);
    qb = qt.buffer;
    qw = qs.walk;
    if (opts.k !== undefined && opts.k !== null) {
      const kt = tensor(fn, 'k', opts.k, device, [qt.dims.length]);
      const ks = walkOf(fn, 'k', kt, layout, kvHeads, l);
      if (ks.batch !== batch || ks.seq !== seq) {
        throw new PosEncError('SHAPE_MISMATCH', `${fn}: k dims [${kt.dims.join(', ')}] do not fit q dims [${qt.dims.join(', ')}]: batch and seq must match`);
      }
      if (kt.buffer === qb && kt.first === qt.first) throw new PosEncError('INVALID_ARGUMENT', `${fn}: q and k are the same tensor: it would be rotated twice`);
      kb = kt.buffer;
      kw = ks.walk;
    }
  }
  const pos = positionsOf(fn, opts, batch, seq, l, device);
  if (pos.ids && (pos.ids === qb || pos.ids === kb)) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: positionIds must be in a buffer of their own, not in q's or k's (a buffer cannot be read and written in one pass)`);
  }
  const kMode = kb === undefined ? 'none' : kb === qb ? 'shared' : 'own';
  const tokens = batch * seq;
  const groups = workgroups(fn, device, tokens * l.pairs, 64);
  const words = new Uint32Array(PARAM_WORDS);
  const put = (at: number, w: Walk) => words.set([w.base, w.batchStride, w.seqStride, w.headStride, w.heads, w.firstLane], at);
  put(0, qw);
  put(6, kw);
  words.set([tokens, seq, pos.offset, pos.ids ? 1 : 0, pos.idsBase, pos.batchStride, pos.axisStride, 0x7fc00000], 12);
  const pipeline = pipelines.get(shaderOf(l, kMode, pos.ids ? pos.type : 'none'), 'posenc rope');
  const params = upload(device, words, USAGE.UNIFORM, 'posenc rope params');
  const entries: GPUBindGroupEntry[] = [
    { binding: 0, resource: { buffer: params } },
    { binding: 1, resource: { buffer: qb } },
    { binding: 4, resource: { buffer: table.cos } },
    { binding: 5, resource: { buffer: table.sin } },
  ];
  if (kMode === 'own') entries.push({ binding: 2, resource: { buffer: kb! } });
  if (pos.ids) entries.push({ binding: 3, resource: { buffer: pos.ids } });
  dispatch(device, pipeline, entries, groups, encoder, 'posenc rope');
}
