// Attention biases generated on the GPU: ALiBi from posenc's slopes (pe.alibi.slopes, float64,
// rounded once to float32) and T5 from posenc's buckets (pe.t5.bucket, per relative position:
// the bucket of every distance beyond maxDistance is the last one, so a table of 2 maxDistance + 1
// entries covers all) gathering a [numBuckets, heads] weight. One invocation per output element.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { PosEnc } from '../posenc.js';
import type { AlibiForm } from '../families/alibi.js';
import { tensor, upload, USAGE, workgroups } from './gpu-args.js';
import type { GpuTensor } from './gpu-args.js';
import { dispatch, encoderOf } from './rope-kernel.js';
import type { PipelineCache } from './rope-kernel.js';

/** Arguments of `gpu.alibiBias`: those of `pe.alibi.bias` (attentionMask aside) and where to write. */
export interface GpuAlibiBiasArgs {
  /** Heads (any count >= 1). */
  numHeads: number;
  /** The 8 of 2^(-8h/n) (default 8). */
  maxBias?: number;
  /** Queries (rows). */
  qLen: number;
  /** Keys (columns), at positions 0..kLen-1. */
  kLen: number;
  /** Absolute position of query 0 (default 0). */
  queryOffset?: number;
  /** `'causal'` (default), `'symmetric'` or `'bloom'` (see pe.alibi.bias). */
  form?: AlibiForm;
  /** Keys after the query hold -Infinity (default true for 'causal', false otherwise). */
  maskFuture?: boolean;
  /** Where to write `[numHeads, qLen, kLen]` float32. */
  out: GpuTensor;
  /** Record into this encoder (the caller submits); default: posenc submits. */
  encoder?: GPUCommandEncoder;
}

/** Arguments of `gpu.t5Bias` and `gpu.t5Buckets`: those of `pe.t5.bias`/`buckets` and where to write. */
export interface GpuT5Args {
  /** Buckets (default 32). */
  numBuckets?: number;
  /** Distance at which the last bucket starts (default 128). */
  maxDistance?: number;
  /** Both directions get buckets (default true). */
  bidirectional?: boolean;
  /** Queries (rows). */
  qLen: number;
  /** Keys (columns). */
  kLen: number;
  /** Absolute position of query 0 (default 0). */
  queryOffset?: number;
  /** t5Bias: `[numHeads, qLen, kLen]` float32; t5Buckets: `[qLen, kLen]` int32. */
  out: GpuTensor;
  /** Record into this encoder (the caller submits); default: posenc submits. */
  encoder?: GPUCommandEncoder;
}

const FORMS: readonly AlibiForm[] = ['causal', 'symmetric', 'bloom'];

const ALIBI_SHADER = `struct Params { heads: u32, q_len: u32, k_len: u32, query_offset: u32, form: u32, mask_future: u32, out_base: u32, inf_bits: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> slopes: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let e = gid.y * groups.x * 64u + gid.x;
  if (e >= params.heads * params.q_len * params.k_len) { return; }
  let j = e % params.k_len;
  let i = (e / params.k_len) % params.q_len;
  let h = e / (params.k_len * params.q_len);
  let query = params.query_offset + i;
  let m = slopes[h];
  var v: f32;
  if (params.mask_future != 0u && j > query) {
    v = -bitcast<f32>(params.inf_bits);
  } else if (params.form == 2u) {
    v = m * f32(j);
  } else if (params.form == 1u) {
    v = -(m * f32(max(query, j) - min(query, j)));
  } else {
    v = -(m * (f32(query) - f32(j)));
  }
  out[params.out_base + e] = v;
}
`;

/** gpu.alibiSlopes: pe.alibi.slopes rounded once to float32, in a new buffer (STORAGE | COPY_SRC). */
export function alibiSlopes(pe: PosEnc, device: GPUDevice, options: unknown): GPUBuffer {
  const opts = args.options('gpu.alibiSlopes', options, ['numHeads', 'maxBias']);
  return upload(device, Float32Array.from(pe.alibi.slopes(opts as { numHeads: number })), USAGE.STORAGE | USAGE.COPY_SRC, 'posenc alibi slopes');
}

/** An output tensor of exactly `want` dims. */
function output(fn: string, device: GPUDevice, value: unknown, want: number[]) {
  const out = tensor(fn, 'out', value, device);
  if (out.dims.join() !== want.join()) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: out.dims must be [${want.join(', ')}], got [${out.dims.join(', ')}]`);
  }
  return out;
}

/** gpu.alibiBias: the bias of pe.alibi.bias, written on the GPU (slope times distance in float32). */
export function alibiBias(pe: PosEnc, device: GPUDevice, pipelines: PipelineCache, given: unknown): void {
  const fn = 'gpu.alibiBias';
  const opts = args.options(fn, given, ['numHeads', 'maxBias', 'qLen', 'kLen', 'queryOffset', 'form', 'maskFuture', 'out', 'encoder']);
  const encoder = encoderOf(fn, opts.encoder);
  const numHeads = args.integer(fn, 'numHeads', args.required(fn, opts, 'numHeads'));
  const qLen = args.integer(fn, 'qLen', args.required(fn, opts, 'qLen'));
  const kLen = args.integer(fn, 'kLen', args.required(fn, opts, 'kLen'));
  const queryOffset = opts.queryOffset === undefined ? 0 : args.integer(fn, 'queryOffset', opts.queryOffset, 0);
  const form = opts.form === undefined ? 0 : args.choice(fn, 'form', opts.form, FORMS);
  if (opts.maskFuture !== undefined && typeof opts.maskFuture !== 'boolean') {
    throw new PosEncError('INVALID_TYPE', `${fn}: maskFuture must be true or false, got ${args.describe(opts.maskFuture)}`);
  }
  const maskFuture = opts.maskFuture ?? form === 0;
  if (queryOffset + qLen > 2 ** 24 || kLen > 2 ** 24) {
    throw new PosEncError('OUT_OF_RANGE', `${fn}: positions reach ${Math.max(queryOffset + qLen, kLen)}, beyond 2^24, where float32 distances stop being exact`);
  }
  const out = output(fn, device, args.required(fn, opts, 'out'), [numHeads, qLen, kLen]);
  const slopes = alibiSlopes(pe, device, { numHeads, maxBias: opts.maxBias });
  const words = Uint32Array.of(numHeads, qLen, kLen, queryOffset, form, maskFuture ? 1 : 0, out.first, 0x7f800000);
  dispatch(device, pipelines.get(ALIBI_SHADER, 'posenc alibi'), [
    { binding: 0, resource: { buffer: upload(device, words, USAGE.UNIFORM, 'posenc alibi params') } },
    { binding: 1, resource: { buffer: slopes } },
    { binding: 2, resource: { buffer: out.buffer } },
  ], workgroups(fn, device, out.size, 64), encoder, 'posenc alibi');
}

const T5_SHADER = (bias: boolean) => `struct Params { heads: u32, q_len: u32, k_len: u32, query_offset: u32, max_distance: i32, out_base: u32, w_base: u32, _pad: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> buckets: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<${bias ? 'f32' : 'i32'}>;
${bias ? '@group(0) @binding(3) var<storage, read> weights: array<f32>;\n' : ''}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let e = gid.y * groups.x * 64u + gid.x;
  if (e >= params.heads * params.q_len * params.k_len) { return; }
  let j = e % params.k_len;
  let i = (e / params.k_len) % params.q_len;
  // key - query; beyond maxDistance every distance has the last bucket of its direction
  let rel = clamp(i32(j) - i32(params.query_offset + i), -params.max_distance, params.max_distance);
  let bucket = buckets[rel + params.max_distance];
  ${bias ? 'let h = e / (params.k_len * params.q_len);\n  out[params.out_base + e] = weights[params.w_base + u32(bucket) * params.heads + h];' : 'out[params.out_base + e] = bucket;'}
}
`;

/** The buckets of relative positions -maxDistance..maxDistance, from pe.t5.bucket. */
function bucketTable(pe: PosEnc, fn: string, opts: Record<string, unknown>) {
  const numBuckets = opts.numBuckets === undefined ? 32 : args.integer(fn, 'numBuckets', opts.numBuckets);
  const maxDistance = opts.maxDistance === undefined ? 128 : args.integer(fn, 'maxDistance', opts.maxDistance);
  const bucketOptions = { numBuckets, maxDistance, bidirectional: opts.bidirectional as boolean | undefined };
  const table = new Int32Array(2 * maxDistance + 1);
  for (let r = -maxDistance; r <= maxDistance; r++) table[r + maxDistance] = pe.t5.bucket(r, bucketOptions);
  return { numBuckets, maxDistance, table };
}

/** gpu.t5Bias (weights given) and gpu.t5Buckets (weights null). */
export function t5OnGpu(pe: PosEnc, device: GPUDevice, pipelines: PipelineCache, weights: unknown, given: unknown, bias: boolean): void {
  const fn = bias ? 'gpu.t5Bias' : 'gpu.t5Buckets';
  const opts = args.options(fn, given, ['numBuckets', 'maxDistance', 'bidirectional', 'qLen', 'kLen', 'queryOffset', 'out', 'encoder']);
  const encoder = encoderOf(fn, opts.encoder);
  const qLen = args.integer(fn, 'qLen', args.required(fn, opts, 'qLen'));
  const kLen = args.integer(fn, 'kLen', args.required(fn, opts, 'kLen'));
  const queryOffset = opts.queryOffset === undefined ? 0 : args.integer(fn, 'queryOffset', opts.queryOffset, 0);
  if (queryOffset + qLen > 2 ** 31 - 1 || kLen > 2 ** 31 - 1) throw new PosEncError('OUT_OF_RANGE', `${fn}: positions reach past 2^31 - 1`);
  const { numBuckets, maxDistance, table } = bucketTable(pe, fn, opts);
  let heads = 1;
  let w: ReturnType<typeof tensor> | undefined;
  if (bias) {
    w = tensor(fn, 'weights', weights, device, [2]);
    if (w.dims[0] !== numBuckets) throw new PosEncError('SHAPE_MISMATCH', `${fn}: weights must be [numBuckets = ${numBuckets}, heads], got [${w.dims.join(', ')}]`);
    heads = w.dims[1]!;
  }
  const out = output(fn, device, args.required(fn, opts, 'out'), bias ? [heads, qLen, kLen] : [qLen, kLen]);
  if (w && w.buffer === out.buffer) throw new PosEncError('INVALID_ARGUMENT', `${fn}: out must not share the weights' buffer`);
  const words = Uint32Array.of(heads, qLen, kLen, queryOffset, maxDistance, out.first, w?.first ?? 0, 0);
  const entries: GPUBindGroupEntry[] = [
    { binding: 0, resource: { buffer: upload(device, words, USAGE.UNIFORM, 'posenc t5 params') } },
    { binding: 1, resource: { buffer: upload(device, table, USAGE.STORAGE, 'posenc t5 buckets') } },
    { binding: 2, resource: { buffer: out.buffer } },
  ];
  if (w) entries.push({ binding: 3, resource: { buffer: w.buffer } });
  dispatch(device, pipelines.get(T5_SHADER(bias), 'posenc t5'), entries, workgroups(fn, device, out.size, 64), encoder, 'posenc t5');
}
