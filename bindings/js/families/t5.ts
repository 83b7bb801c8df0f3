// T5 relative position buckets (Raffel et al. 2020; Hugging Face T5Attention): relative position
// key minus query, exact buckets for short distances, log buckets up to maxDistance, and the bias
// [heads, qLen, kLen] gathered from a learned [numBuckets, heads] table. Maths in src/encodings/t5.cpp.
import * as args from '../runtime/args.js';
import type { Tensor, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { WasmTensor } from '../runtime/wasm-tensor.js';
import { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import { bytes, checkResultSize, flag, int32Copy, integerOr, lengthsOf, relativePosition } from './relative-args.js';
import type { IndexTensor } from './relative-args.js';

/** The bucket parameters (Hugging Face config names in parentheses). */
export interface T5BucketOptions {
  /** Number of buckets (`relative_attention_num_buckets`, default 32). */
  numBuckets?: number;
  /** Distance at which the last bucket starts (`relative_attention_max_distance`, default 128). */
  maxDistance?: number;
  /** Both directions get their own buckets (default true: encoder; false for decoder self-attention). */
  bidirectional?: boolean;
}

/** Options of {@link T5Api.buckets}. */
export interface T5MatrixOptions extends T5BucketOptions {
  /** Number of queries (rows). */
  qLen: number;
  /** Number of keys (columns); keys sit at positions 0..kLen-1. */
  kLen: number;
  /** Absolute position of query 0 (default 0), e.g. the cache length when decoding. */
  queryOffset?: number;
}

/** Options of {@link T5Api.bias}. */
export interface T5BiasOptions extends T5MatrixOptions {
  /** Shape `[numBuckets, heads]` of `table` when it is a bare Float32Array (else inferred from its length). */
  tableDims?: readonly number[];
  /** The model's head count (`num_heads`); if given, the table must have this many columns. */
  numHeads?: number;
  /**
   * Where to write the result: a Float32Array of the result's size, or a WasmTensor of its dims
   * (`pe.memory.tensor`), written in place with no copy. Default: a new Float32Array.
   */
  out?: Float32Array | WasmTensor;
}

/** T5 relative position buckets: `pe.t5`. */
export interface T5Api {
  /** The bucket of one relative position `key - query` (an integer). */
  bucket(relativePosition: number, options?: T5BucketOptions): number;
  /** Buckets `[qLen, kLen]` (int32) for query i at queryOffset + i and key j at j. */
  buckets(options: T5MatrixOptions): IndexTensor;
  /**
   * The position bias `[heads, qLen, kLen]`: `bias[h, i, j] = table[bucket(j - (queryOffset + i)), h]`,
   * with `table` the `[numBuckets, heads]` weight of Hugging Face's `relative_attention_bias`.
   */
  bias(table: TensorInput, options: T5BiasOptions): Tensor;
}

const BUCKET_OPTIONS = ['numBuckets', 'maxDistance', 'bidirectional'];
const MATRIX_OPTIONS = [...BUCKET_OPTIONS, 'qLen', 'kLen', 'queryOffset'];

function bucketParams(fn: string, opts: Record<string, unknown>) {
  return {
    numBuckets: integerOr(fn, opts, 'numBuckets', 32),
    maxDistance: integerOr(fn, opts, 'maxDistance', 128),
    bidirectional: flag(fn, opts, 'bidirectional', true),
  };
}

export function t5Api(heap: Heap): T5Api {
  const call = heap.call;

  function bucket(rel: number, options?: T5BucketOptions): number {
    const fn = 't5.bucket';
    const opts = args.options(fn, options, BUCKET_OPTIONS, true);
    const value = relativePosition(fn, rel);
    const p = bucketParams(fn, opts);
    return withHeap(heap, (scope) => {
      const out = scope.alloc(4, 'the bucket');
      heap.check(call.t5Bucket({ relativePosition: value, ...p, out }), fn);
      return int32Copy(heap, out, 1)[0]!;
    });
  }

  function buckets(options: T5MatrixOptions): IndexTensor {
    const fn = 't5.buckets';
    const opts = args.options(fn, options, MATRIX_OPTIONS);
    const p = bucketParams(fn, opts);
    const l = lengthsOf(fn, opts);
    return withHeap(heap, (scope) => {
      const out = scope.alloc(bytes(l.qLen, l.kLen), 'the buckets');
      heap.check(call.t5BucketMatrix({ out, ...l, ...p }), fn);
      return { data: int32Copy(heap, out, l.qLen * l.kLen), dims: [l.qLen, l.kLen] };
    });
  }

  function bias(table: TensorInput, options: T5BiasOptions): Tensor {
    const fn = 't5.bias';
    const opts = args.options(fn, options, [...MATRIX_OPTIONS, 'tableDims', 'numHeads', 'out']);
    const p = bucketParams(fn, opts);
    const l = lengthsOf(fn, opts);
    const numHeads = opts.numHeads === undefined ? undefined : args.integer(fn, 'numHeads', opts.numHeads);
    const t = tableOf(fn, table, opts.tableDims, p.numBuckets);
    if (numHeads !== undefined && t.heads !== numHeads) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: table has ${t.heads} columns ([numBuckets, heads]) but numHeads is ${numHeads}`);
    }
    const dims = [t.heads, l.qLen, l.kLen];
    checkResultSize(fn, 'the bias', dims);
    const out = opts.out; // read before the table is placed: a getter of the caller's may dispose it
    return withHeap(heap, (scope) => {
      const tablePtr = scope.tensorIn(t.tensor, 'table');
      // Query rows from `start` on are the bias of queryOffset + start.
      return scope.generate(fn, out, dims, 'the bias', { axis: 1 }, (ptr, start, n) => heap.check(
        call.t5Bias({ table: tablePtr, rows: t.rows, heads: t.heads, out: ptr, ...l, qLen: n, queryOffset: l.queryOffset + start, ...p }),
        fn,
      ), [t.tensor]);
    });
  }

  return { bucket, buckets, bias };
}

/** The table as `[rows, heads]`; a bare Float32Array without tableDims is `[numBuckets, length / numBuckets]`. */
function tableOf(fn: string, table: unknown, tableDims: unknown, numBuckets: number) {
  let dims = tableDims;
  if (args.isFloat32Array(table) && dims === undefined) {
    if (table.length === 0 || table.length % numBuckets !== 0) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: table has ${table.length} values, not a multiple of numBuckets (${numBuckets}); it must be [numBuckets, heads]`);
    }
    dims = [numBuckets, table.length / numBuckets];
  }
  const t = args.tensor(fn, 'table', table, dims, 'tableDims');
  if (t.dims.length !== 2) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: table must be [numBuckets, heads], got [${t.dims.join(', ')}]`);
  }
  // The tensor itself is kept (not spread into a new object): spreading cost ~1.5 us per call in
  // V8 11.3 and would drop a WasmTensor argument's data getter.
  return { tensor: t, rows: t.dims[0]!, heads: t.dims[1]! };
}
