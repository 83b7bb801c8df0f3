// Shape resolution for RoPE calls: q/k tensors of rank 2, 3 or 4 -> batch, seq, heads, headDim, layout.
import * as args from '../../runtime/args.js';
import type { PositionIdsInput, TensorArg } from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import { Heap } from '../../runtime/heap.js';
import { HeapScope, withHeap } from '../../runtime/scope.js';
import type { Ptr } from '../../runtime/raw-module.js';
import { HEAD_LAYOUTS } from '../../generated/boundary.js';

/** Memory order of a 4-D q/k tensor: `'bshd'` = [batch, seq, heads, headDim], `'bhsd'` = [batch, heads, seq, headDim]. */
export type HeadLayout = (typeof HEAD_LAYOUTS)[number];

/** The shapes and positions of q and k in a RoPE call (`rope.apply`, `RopeCache.apply`, the other forms). */
export interface RopeTensorOptions {
  /** Memory order of 4-D q/k (required for them): `'bshd'` or `'bhsd'`. */
  layout?: HeadLayout;
  /** Shape of q when it is a bare Float32Array: `[batch, seq, heads, headDim]`/`[batch, heads, seq, headDim]`, `[batch, seq, hidden]` (with numHeads) or `[seq, headDim]`. */
  dims?: readonly number[];
  /** Shape of k when it is a bare Float32Array (default: `dims`). */
  kDims?: readonly number[];
  /** Heads of q for 3-D `[batch, seq, hidden]` tensors. */
  numHeads?: number;
  /** Position of the first token (default 0), e.g. the past length when decoding with a KV cache. */
  offset?: number;
  /** Explicit positions: `[seq]` shared by all rows, or `[batch, seq]` (e.g. left-padded batches). */
  positionIds?: PositionIdsInput;
}

export interface Heads {
  batch: number;
  seq: number;
  heads: number;
  headDim: number;
  layout: number; // index into HEAD_LAYOUTS
}

/**
 * Reads q's shape. Rank 4 needs `layout`; rank 3 is `[batch, seq, hidden]` split into `numHeads`
 * heads (the ONNX convention); rank 2 is `[seq, headDim]`, one head. `name` names the tensor in
 * messages (`'k'` for rope.shift, which takes keys alone).
 */
export function qHeads(fn: string, q: TensorArg, layout: unknown, numHeads: unknown, name = 'q'): Heads {
  const d = q.dims;
  if (d.length === 4) {
    if (layout === undefined) {
      throw new PosEncError('MISSING_OPTION', `${fn}: option 'layout' is required for 4-D tensors: 'bshd' ([batch, seq, heads, headDim]) or 'bhsd' ([batch, heads, seq, headDim])`);
    }
    const l = args.choice(fn, 'layout', layout, HEAD_LAYOUTS);
    if (numHeads !== undefined && args.integer(fn, 'numHeads', numHeads) !== (l === 0 ? d[2] : d[1])) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: numHeads ${String(numHeads)} disagrees with ${name}'s dims [${d.join(', ')}]`);
    }
    return l === 0
      ? { batch: d[0]!, seq: d[1]!, heads: d[2]!, headDim: d[3]!, layout: 0 }
      : { batch: d[0]!, heads: d[1]!, seq: d[2]!, headDim: d[3]!, layout: 1 };
  }
  if (layout !== undefined && args.choice(fn, 'layout', layout, HEAD_LAYOUTS) !== 0) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: layout 'bhsd' needs a 4-D tensor; ${name} has dims [${d.join(', ')}]`);
  }
  if (d.length === 3) {
    const heads = args.integer(fn, 'numHeads', args.required(fn, { numHeads }, 'numHeads'));
    if (d[2]! % heads !== 0) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name}'s last dim ${d[2]} is not divisible by numHeads ${heads}`);
    }
    return { batch: d[0]!, seq: d[1]!, heads, headDim: d[2]! / heads, layout: 0 };
  }
  if (d.length === 2) {
    if (numHeads !== undefined && args.integer(fn, 'numHeads', numHeads) !== 1) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: a 2-D ${name} [seq, headDim] holds one head, but numHeads is ${String(numHeads)}`);
    }
    return { batch: 1, seq: d[0]!, heads: 1, headDim: d[1]!, layout: 0 };
  }
  throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} must have 2, 3 or 4 dims, got [${d.join(', ')}]`);
}

/** Reads k's shape, which must agree with q's in batch, seq, headDim and rank; its head count may differ. */
export function kHeads(fn: string, k: TensorArg, q: TensorArg, qh: Heads): Heads {
  const d = k.dims;
  const mismatch = (what: string) =>
    new PosEncError('SHAPE_MISMATCH', `${fn}: k dims [${d.join(', ')}] do not fit q dims [${q.dims.join(', ')}]: ${what}`);
  if (d.length !== q.dims.length) throw mismatch('different rank');
  let heads: number;
  if (d.length === 4) {
    heads = qh.layout === 0 ? d[2]! : d[1]!;
    const seq = qh.layout === 0 ? d[1]! : d[2]!;
    if (d[0] !== qh.batch || seq !== qh.seq || d[3] !== qh.headDim) throw mismatch('batch, seq and headDim must match');
  } else if (d.length === 3) {
    if (d[0] !== qh.batch || d[1] !== qh.seq) throw mismatch('batch and seq must match');
    if (d[2]! % qh.headDim !== 0) throw mismatch(`the last dim must be a multiple of headDim ${qh.headDim}`);
    heads = d[2]! / qh.headDim;
  } else {
    if (d[0] !== qh.seq || d[1] !== qh.headDim) throw mismatch('seq and headDim must match');
    heads = 1;
  }
  return { batch: qh.batch, seq: qh.seq, heads, headDim: qh.headDim, layout: qh.layout };
}

/** q and k are rotated in place from copies; they must not share memory. */
export function checkDisjoint(fn: string, a: Float32Array, b: Float32Array): void {
  if (a.buffer !== b.buffer) return;
  const aEnd = a.byteOffset + a.byteLength;
  const bEnd = b.byteOffset + b.byteLength;
  if (a.byteOffset < bEnd && b.byteOffset < aEnd) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: q and k must not overlap in memory`);
  }
}

/** Resolved q and optional k of a RoPE call. */
export interface QK {
  qt: TensorArg;
  qh: Heads;
  kt: TensorArg | undefined;
  kh: Heads | undefined;
}

/** Resolves q and k (k may be null) from a call's `dims`/`kDims`/`layout`/`numHeads` options. */
export function qkOf(fn: string, q: unknown, k: unknown, opts: Record<string, unknown>): QK {
  const qt = args.tensor(fn, 'q', q, opts.dims);
  const qh = qHeads(fn, qt, opts.layout, opts.numHeads);
  const kt = k === null || k === undefined ? undefined : args.tensor(fn, 'k', k, opts.kDims ?? opts.dims, opts.kDims === undefined ? 'dims' : 'kDims');
  const kh = kt && kHeads(fn, kt, qt, qh);
  if (kt) checkDisjoint(fn, qt.data, kt.data);
  return { qt, qh, kt, kh };
}

/** The q/k fields of a RoPE binding's arguments, for q and k at the given heap addresses. */
export function tensorArgs({ qh, kh }: QK, q: Ptr, k: Ptr) {
  return { q, qHeads: qh.heads, k, kHeads: kh?.heads ?? 0, batch: qh.batch, seq: qh.seq, headDim: qh.headDim, layout: qh.layout };
}

/**
 * Rotates q and k (when given) in place: `rotate` is the binding call, given their heap addresses,
 * the position ids' (0 for a range) and the call's scope for anything else it copies in. Tensors
 * that are not WasmTensors are copied in and back out.
 */
export function rotateInPlace(
  heap: Heap, fn: string, { qt, kt }: QK, ids: Float64Array | undefined,
  rotate: (q: Ptr, k: Ptr, ids: Ptr, scope: HeapScope) => number,
): void {
  withHeap(heap, (scope) => {
    const qPtr = scope.tensorIn(qt, 'q');
    const kPtr = kt ? scope.tensorIn(kt, 'k') : 0;
    heap.check(rotate(qPtr, kPtr, scope.f64In(ids, 'positionIds'), scope), fn);
    scope.tensorOut(qt, qPtr);
    if (kt) scope.tensorOut(kt, kPtr);
  });
}

/**
 * Whether positions offset .. offset + seq - 1 can be processed a piece of tokens at a time: integers small
 * enough that offset + start is exact and that no angle can overflow, so no error can depend on
 * which piece holds a token.
 */
export function inPieceRange(offset: number, seq: number): boolean {
  return Number.isInteger(offset) && Math.abs(offset) + seq <= 2 ** 31;
}

/**
 * Bytes of q and k a piece of {@link rotateTokenPieces} holds: small enough to stay in L2 cache
 * between copy-in and copy-out (a piece that forms angles holds at least 64 tokens, whatever their size).
 */
export const ROTATE_PIECE_BYTES = 256 << 10;

/**
 * The C++ RoPE driver forms each token's cos/sin a chunk of 64 tokens at a time, each chunk from its
 * own first position (src/encodings/detail/rope_driver.hpp, kRopeChunkTokens): pieces start on
 * multiples of it, so every chunk, and so every token, is formed as in one call over all tokens
 * (bit for bit, tests/js/pieces.test.mjs).
 */
const ROPE_CHUNK_TOKENS = 64;

/** The tokens of one piece: `seq` tokens of batch row `row` from token `start`, at positions offset + start on. */
export interface TokenPiece {
  row: number;
  start: number;
  seq: number;
}

/**
 * Rotates plain (not WasmTensor) q and k with the token-major layout ([batch, seq, heads, headDim],
 * [batch, seq, hidden] or [seq, headDim]) a piece of tokens at a time: each piece is copied into
 * the instance's scratch block, rotated there by `rotate` (the binding call for one batch row of
 * `piece.seq` tokens, given their heap addresses) and copied back while it is still in cache. The
 * caller's arrays are read and written once each, which a copy of the whole tensor in, a pass over
 * it and a copy out (three passes through memory) does not.
 *
 * Use it only where no error can depend on which tokens a piece holds (consecutive positions the
 * call has checked can be rotated): every other error comes from the first piece, before anything
 * is written back. `formsAngles`: the binding forms the angles (rope.apply), so pieces start on its
 * chunks; rows from a cos/sin table (RopeCache.apply) depend on the position alone. Returns false,
 * doing nothing, for tensors it does not take (a WasmTensor, the 'bhsd' layout): rotateInPlace's.
 */
export function rotateTokenPieces(
  heap: Heap, fn: string, { qt, kt, qh, kh }: QK, formsAngles: boolean,
  rotate: (q: Ptr, k: Ptr, piece: TokenPiece, scope: HeapScope) => number,
): boolean {
  if (qt.wasm !== undefined || kt?.wasm !== undefined || qh.layout !== 0) return false;
  const qToken = qh.heads * qh.headDim;
  const kToken = kt === undefined ? 0 : kh!.heads * qh.headDim;
  const align = formsAngles ? ROPE_CHUNK_TOKENS : 1;
  const fit = Math.floor(ROTATE_PIECE_BYTES / 4 / (qToken + kToken) / align) * align;
  const tokens = Math.min(qh.seq, Math.max(align, fit));
  const qBytes = Math.ceil((tokens * qToken * 4) / 64) * 64; // k's piece starts on a cache line
  withHeap(heap, (scope) => {
    const q = heap.scratch(qBytes + tokens * kToken * 4, 'the pieces of q and k');
    const k = kt === undefined ? 0 : q + qBytes;
    for (let row = 0; row < qh.batch; row++) {
      for (let start = 0; start < qh.seq; start += tokens) {
        const seq = Math.min(tokens, qh.seq - start);
        const token = row * qh.seq + start;
        scope.copyRange(qt, q, token * qToken, seq * qToken);
        if (kt !== undefined) scope.copyRange(kt, k, token * kToken, seq * kToken);
        heap.check(rotate(q, k, { row, start, seq }, scope), fn);
        scope.returnRange(qt, q, token * qToken, seq * qToken);
        if (kt !== undefined) scope.returnRange(kt, k, token * kToken, seq * kToken);
      }
    }
  });
  return true;
}
