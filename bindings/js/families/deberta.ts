// DeBERTa-v2/v3 relative positions (He et al. 2021; Hugging Face modeling_deberta_v2.py): relative
// position query minus key, log buckets beyond bucketSize/2 (unclamped), and the clamped c2p/p2c
// indices into the [2 attSpan] relative embedding table. Maths in src/encodings/deberta.cpp.
import { DEBERTA_MATRICES } from '../generated/boundary.js';
import * as args from '../runtime/args.js';
import { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import { bytes, int32Copy, integerOr, relativePosition } from './relative-args.js';
import type { IndexTensor } from './relative-args.js';

/** The bucket parameters (Hugging Face config names in parentheses). */
export interface DebertaBucketOptions {
  /**
   * Log-bucket size (`position_buckets`, default 256 as in DeBERTa-v3); 0 disables bucketing
   * (HF's `position_buckets <= 0`). Must be <= maxPosition.
   */
  bucketSize?: number;
  /** Maximum relative distance (`max_relative_positions`, or `max_position_embeddings` when that is < 1; default 512). */
  maxPosition?: number;
}

/** Options of the DeBERTa matrices. */
export interface DebertaMatrixOptions extends DebertaBucketOptions {
  /** Number of queries (rows), at positions 0..qLen-1. */
  qLen: number;
  /** Number of keys (columns), at positions 0..kLen-1. */
  kLen: number;
}

/** DeBERTa relative positions: `pe.deberta`. */
export interface DebertaApi {
  /** The (unclamped) log bucket of one relative position `query - key` (an integer). */
  bucket(relativePosition: number, options?: DebertaBucketOptions): number;
  /** Buckets of `i - j` as `[qLen, kLen]` int32 (HF `build_relative_position`). */
  relativePositions(options: DebertaMatrixOptions): IndexTensor;
  /** `clamp(bucket + attSpan, 0, 2 attSpan - 1)`: the row of the relative embeddings each c2p logit uses. */
  c2pIndices(options: DebertaMatrixOptions): IndexTensor;
  /** `clamp(-bucket + attSpan, 0, 2 attSpan - 1)` (HF uses the key-by-key matrix when qLen != kLen: pass qLen = kLen). */
  p2cIndices(options: DebertaMatrixOptions): IndexTensor;
  /** attSpan: bucketSize when > 0, else maxPosition. */
  attentionSpan(options?: DebertaBucketOptions): number;
}

const BUCKET_OPTIONS = ['bucketSize', 'maxPosition'];
const MATRIX_OPTIONS = [...BUCKET_OPTIONS, 'qLen', 'kLen'];

function bucketParams(fn: string, opts: Record<string, unknown>) {
  return { bucketSize: integerOr(fn, opts, 'bucketSize', 256, 0), maxPosition: integerOr(fn, opts, 'maxPosition', 512) };
}

type DebertaMatrixKind = (typeof DEBERTA_MATRICES)[number];

export function debertaApi(heap: Heap): DebertaApi {
  const call = heap.call;

  function bucket(rel: number, options?: DebertaBucketOptions): number {
    const fn = 'deberta.bucket';
    const opts = args.options(fn, options, BUCKET_OPTIONS, true);
    const value = relativePosition(fn, rel);
    const p = bucketParams(fn, opts);
    return withHeap(heap, (scope) => {
      const out = scope.alloc(8, 'the bucket');
      heap.check(call.debertaBucket({ relativePosition: value, ...p, out }), fn);
      return heap.f64(out, 1)[0]!;
    });
  }

  function attentionSpan(options?: DebertaBucketOptions): number {
    const fn = 'deberta.attentionSpan';
    const p = bucketParams(fn, args.options(fn, options, BUCKET_OPTIONS, true));
    return withHeap(heap, (scope) => {
      const out = scope.alloc(4, 'attSpan');
      heap.check(call.debertaAttentionSpan({ ...p, out }), fn);
      return int32Copy(heap, out, 1)[0]!;
    });
  }

  /** One of the DEBERTA_MATRICES. */
  function matrix(fn: string, kind: DebertaMatrixKind, options: DebertaMatrixOptions): IndexTensor {
    const opts = args.options(fn, options, MATRIX_OPTIONS);
    const p = bucketParams(fn, opts);
    const qLen = args.integer(fn, 'qLen', args.required(fn, opts, 'qLen'));
    const kLen = args.integer(fn, 'kLen', args.required(fn, opts, 'kLen'));
    return withHeap(heap, (scope) => {
      const out = scope.alloc(bytes(qLen, kLen), 'the matrix');
      heap.check(call.debertaMatrix({ kind: DEBERTA_MATRICES.indexOf(kind), out, qLen, kLen, ...p }), fn);
      return { data: int32Copy(heap, out, qLen * kLen), dims: [qLen, kLen] };
    });
  }

  return {
    bucket,
    relativePositions: (options) => matrix('deberta.relativePositions', 'relativePositions', options),
    c2pIndices: (options) => matrix('deberta.c2pIndices', 'c2p', options),
    p2cIndices: (options) => matrix('deberta.p2cIndices', 'p2c', options),
    attentionSpan,
  };
}
