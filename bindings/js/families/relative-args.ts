// Argument helpers shared by the relative-position families and the attention helpers:
// qLen/kLen/queryOffset, booleans, head-major tensors ([len, width] or [heads, len, width]),
// and int32 results.
import * as args from '../runtime/args.js';
import type { TensorArg } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { MAX_ALLOCATION_BYTES } from '../runtime/heap.js';
import type { Heap } from '../runtime/heap.js';
import type { Ptr } from '../runtime/raw-module.js';

/** An int32 result (relative indices, buckets): row-major data and its dims. */
export interface IndexTensor {
  /** The indices, row-major. */
  data: Int32Array;
  /** The shape, e.g. `[qLen, kLen]`. */
  dims: number[];
}

/** Options shared by every q/k/v attention computation (`pe.attention`, `pe.shaw.logits`/`attention`). */
export interface HeadsAttentionOptions {
  /** Shape of q when it is a bare Float32Array: `[qLen, d]` or `[heads, qLen, d]`. */
  dims?: readonly number[];
  /** Shape of k (default: `dims`): `[kLen, d]` or `[kvHeads, kLen, d]` (heads a multiple of kvHeads: grouped-query attention). */
  kDims?: readonly number[];
  /** Shape of v (default: `kDims`): `[kLen, dv]` or `[kvHeads, kLen, dv]`; only where v is taken. */
  vDims?: readonly number[];
  /** Logit scale (default 1/sqrt(d)). */
  scale?: number;
  /** Mask keys after the query, `j > queryOffset + i` (default false). */
  causal?: boolean;
  /** Absolute position of query 0 (default 0): keys sit at 0..kLen-1, query i at queryOffset + i. */
  queryOffset?: number;
}

/** The query/key lengths of a relative-position matrix. */
export interface Lengths {
  qLen: number;
  kLen: number;
  queryOffset: number;
}

/** qLen and kLen (required, >= 1) and queryOffset (default 0, >= 0). */
export function lengthsOf(fn: string, opts: Record<string, unknown>): Lengths {
  return {
    qLen: args.integer(fn, 'qLen', args.required(fn, opts, 'qLen')),
    kLen: args.integer(fn, 'kLen', args.required(fn, opts, 'kLen')),
    queryOffset: offsetOf(fn, opts),
  };
}

/** queryOffset: the absolute position of query 0 (default 0), an integer >= 0. */
export function offsetOf(fn: string, opts: Record<string, unknown>): number {
  return opts.queryOffset === undefined ? 0 : args.integer(fn, 'queryOffset', opts.queryOffset, 0);
}

/** An optional integer option with a default. */
export function integerOr(fn: string, opts: Record<string, unknown>, name: string, fallback: number, min = 1): number {
  return opts[name] === undefined ? fallback : args.integer(fn, name, opts[name], min);
}

/** A boolean option (default `fallback`). */
export function flag(fn: string, opts: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = opts[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be true or false, got ${args.describe(value)}`);
  }
  return value;
}

/** The optional `scale` option as the bindings take it: (hasScale, scale). */
export function scaleOf(fn: string, opts: Record<string, unknown>): { hasScale: boolean; scale: number } {
  if (opts.scale === undefined) return { hasScale: false, scale: 0 };
  return { hasScale: true, scale: args.finite(fn, 'scale', opts.scale) };
}

/** A relative position: an integer number with |value| <= 2^53. */
export function relativePosition(fn: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new PosEncError('INVALID_TYPE', `${fn}: relativePosition must be a number, got ${args.describe(value)}`);
  }
  if (!Number.isSafeInteger(value)) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: relativePosition must be an integer with |value| <= 2^53, got ${value}`);
  }
  return value;
}

/** A head-major tensor: `[len, width]` (one head) or `[heads, len, width]`. */
export interface HeadTensor extends TensorArg {
  heads: number;
  len: number;
  width: number;
  rank: 2 | 3;
}

/** Resolves `value` as a head-major tensor (bare Float32Arrays take `dims`, named `dimsName`). */
export function headTensor(fn: string, name: string, value: unknown, dims: unknown, dimsName: string): HeadTensor {
  const t = args.tensor(fn, name, value, dims, dimsName);
  // Fields are added to the resolved tensor itself: an object spread cost microseconds per call in
  // V8 11.3 and would drop a WasmTensor argument's data getter.
  if (t.dims.length === 2) return Object.assign(t, { heads: 1, len: t.dims[0]!, width: t.dims[1]!, rank: 2 as const });
  if (t.dims.length === 3) return Object.assign(t, { heads: t.dims[0]!, len: t.dims[1]!, width: t.dims[2]!, rank: 3 as const });
  throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} must be [len, width] or [heads, len, width], got [${t.dims.join(', ')}]`);
}

/** Checks that `other` fits `q`: same rank, and the given dimension checks. */
export function sameRank(fn: string, q: HeadTensor, name: string, other: HeadTensor): void {
  if (other.rank !== q.rank) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} dims [${other.dims.join(', ')}] and q dims [${q.dims.join(', ')}] must have the same rank`);
  }
}

/** Throws SHAPE_MISMATCH unless `actual === expected`. */
export function expectSize(fn: string, what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${what} must be ${expected}, got ${actual}`);
}

/**
 * q, k (and, when `needV`, v) of an attention computation as head-major tensors that fit together
 * (the options of {@link HeadsAttentionOptions}: `dims`, `kDims` defaulting to `dims`, `vDims` to
 * `kDims`). Without `needV`, a `vDims` option is refused as belonging to `vFunction`.
 */
export function qkvTensors(fn: string, opts: Record<string, unknown>, q: unknown, k: unknown, needV: boolean, v: unknown, vFunction: string) {
  if (!needV && opts.vDims !== undefined) throw new PosEncError('UNKNOWN_OPTION', `${fn}: option 'vDims' is only for ${vFunction}`);
  const qt = headTensor(fn, 'q', q, opts.dims, 'dims');
  const kDims = opts.kDims ?? opts.dims;
  const kt = headTensor(fn, 'k', k, kDims, opts.kDims === undefined ? 'dims' : 'kDims');
  sameRank(fn, qt, 'k', kt);
  expectSize(fn, 'the width of k (headDim)', kt.width, qt.width);
  let vt: HeadTensor | undefined;
  if (needV) { // a missing v is an INVALID_TYPE naming it
    vt = headTensor(fn, 'v', v, opts.vDims ?? kDims, opts.vDims === undefined ? 'kDims' : 'vDims');
    sameRank(fn, qt, 'v', vt);
    expectSize(fn, 'the heads of v', vt.heads, kt.heads);
    expectSize(fn, 'the length of v (kLen)', vt.len, kt.len);
  }
  return { qt, kt, vt };
}

/** Output dims of a per-head matrix: `[rows, cols]` for 2-D inputs, `[heads, rows, cols]` for 3-D ones. */
export function headDims(q: HeadTensor, rows: number, cols: number): number[] {
  return q.rank === 2 ? [rows, cols] : [q.heads, rows, cols];
}

/** A copy of `n` int32 values at `ptr`. */
export function int32Copy(heap: Heap, ptr: Ptr, n: number): Int32Array {
  return new Int32Array(heap.raw.HEAPU8.buffer, ptr, n).slice();
}

/** Bytes of an int32 or float32 [a, b, c...] result, checked against wasm32 limits by Heap.alloc. */
export function bytes(...dims: number[]): number {
  return dims.reduce((a, b) => a * b, 4);
}

/** A float32 result built in JS must fit the same limit as a WebAssembly allocation (2 GiB). */
export function checkResultSize(fn: string, what: string, dims: number[]): void {
  const total = bytes(...dims);
  if (total > MAX_ALLOCATION_BYTES) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${what} [${dims.join(', ')}] needs ${total} bytes, more than WebAssembly memory can hold (2 GiB)`);
  }
}
