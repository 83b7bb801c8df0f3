// Rotary position embedding (Su et al. 2021, RoFormer): in-place rotation of q/k lane pairs by
// position * frequency. Angles and their cos/sin are evaluated in double precision in the C++
// core (src/encodings/rope.cpp); this file resolves shapes and options and moves the data.
import * as args from './args.js';
import type { PositionIdsInput, Tensor, TensorInput } from './args.js';
import { PosEncError } from './errors.js';
import { Heap, HeapScope } from './heap.js';
import { positionsOf } from './position-table.js';
import { RopeCache } from './rope-cache.js';
import { checkDisjoint, kHeads, qHeads } from './rope-shapes.js';
import type { HeadLayout, Heads } from './rope-shapes.js';

export type { HeadLayout } from './rope-shapes.js';
export { RopeCache } from './rope-cache.js';
export type { RopeCacheApplyOptions } from './rope-cache.js';

/**
 * Which lanes form a rotated pair. `'half'` pairs lane i with lane i + rotaryDim/2 (GPT-NeoX,
 * HF Llama `rotate_half`, ggml NEOX); `'interleaved'` pairs lanes 2i and 2i+1 (GPT-J, Meta Llama,
 * RoFormer, ggml NORMAL).
 */
export type RopePairing = 'half' | 'interleaved';
export const PAIRINGS: readonly RopePairing[] = ['half', 'interleaved'];

/** What defines a RoPE: its width, base and pairing. */
export interface RopeSpec {
  /** Lanes per head. Taken from the tensors when omitted; if given, it must match them. */
  headDim?: number;
  /** Leading lanes that rotate (even, 2..headDim; default headDim). The rest pass through. */
  rotaryDim?: number;
  /** Frequency base θ (default 10000): w_i = base^(-2i/rotaryDim). */
  base?: number;
  /** Lane pairing (default `'half'`). */
  pairing?: RopePairing;
}

/** Options of {@link RopeApi.apply}. */
export interface RopeApplyOptions extends RopeSpec {
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

/** The frequencies of a RoPE. */
export interface RopeFrequencies {
  /** rotaryDim/2 angular frequencies (radians per position), float64. */
  invFreq: Float64Array;
  /** Multiplies cos and sin of rotated lanes (1 for the unscaled RoPE). */
  attentionFactor: number;
}

/** Options of {@link RopeApi.createCache}. */
export interface RopeCacheOptions extends RopeSpec {
  /** Positions to precompute: 0..maxPositions-1. */
  maxPositions: number;
}

/** Options of {@link RopeApi.rotaryEmbedding}, named after the ONNX RotaryEmbedding attributes. */
export interface RotaryEmbeddingOptions {
  /** `[batch, seq]` row ids into the caches; without them the caches are `[batch, seq, rotaryDim/2]`. */
  positionIds?: PositionIdsInput;
  /** Adjacent-pair rotation (ONNX `interleaved = 1`); default false (half pairing). */
  interleaved?: boolean | 0 | 1;
  /** Rotated lanes per head; 0 or absent means the whole head. */
  rotaryEmbeddingDim?: number;
  /** Heads in a 3-D `[batch, seq, hidden]` input (required for it). */
  numHeads?: number;
  /** Shapes when the arguments are bare Float32Arrays. */
  dims?: readonly number[];
  cosDims?: readonly number[];
  sinDims?: readonly number[];
}

/** Rotary position embedding: `pe.rope`. */
export interface RopeApi {
  /** Rotates q and (unless null) k in place, in one call. Both keep their shapes. */
  apply(q: TensorInput, k: TensorInput | null | undefined, options: RopeApplyOptions): void;
  /** The inverse frequencies and attention factor the options define. */
  frequencies(options: RopeSpec): RopeFrequencies;
  /** Precomputes cos/sin for positions 0..maxPositions-1 in WebAssembly memory, for repeated calls. */
  createCache(options: RopeCacheOptions): RopeCache;
  /**
   * The ONNX RotaryEmbedding operator (opset 23): rotates `x` with the given cos/sin caches (used
   * as given) and returns a new tensor. 4-D `x` is `[batch, heads, seq, headDim]`; 3-D is `[batch, seq, hidden]` with `numHeads`.
   */
  rotaryEmbedding(x: TensorInput, cosCache: TensorInput, sinCache: TensorInput, options?: RotaryEmbeddingOptions): Tensor;
}

const APPLY_OPTIONS = ['headDim', 'rotaryDim', 'base', 'pairing', 'layout', 'dims', 'kDims', 'numHeads', 'offset', 'positionIds'];
const SPEC_OPTIONS = ['headDim', 'rotaryDim', 'base', 'pairing'];

/** rotaryDim (default headDim), checked against an explicit headDim option. */
function rotaryDimOf(fn: string, opts: Record<string, unknown>, headDim: number | undefined): number {
  if (opts.headDim !== undefined) {
    const given = args.integer(fn, 'headDim', opts.headDim);
    if (headDim !== undefined && given !== headDim) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: headDim ${given} disagrees with the tensors' head size ${headDim}`);
    }
    headDim = given;
  }
  if (opts.rotaryDim !== undefined) return args.integer(fn, 'rotaryDim', opts.rotaryDim);
  if (headDim === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: option 'rotaryDim' (or 'headDim') is required`);
  return headDim;
}

function baseOf(fn: string, opts: Record<string, unknown>): number {
  return opts.base === undefined ? 10000 : args.finite(fn, 'base', opts.base, true);
}

export function ropeApi(heap: Heap): RopeApi {
  const raw = heap.raw;

  /** Writes the inverse frequencies into the scope; returns their address and the attention factor. */
  function frequencyBlock(fn: string, opts: Record<string, unknown>, rotaryDim: number, scope: HeapScope) {
    const pairs = Math.floor(rotaryDim / 2);
    const ptr = scope.alloc((pairs + 1) * 8, 'inverse frequencies');
    heap.check(raw.ropeFrequencies(rotaryDim, baseOf(fn, opts), ptr), fn);
    return { ptr, attentionFactor: heap.f64(ptr + pairs * 8, 1)[0]! };
  }

  function apply(q: TensorInput, k: TensorInput | null | undefined, options: RopeApplyOptions): void {
    const fn = 'rope.apply';
    const opts = args.options(fn, options, APPLY_OPTIONS);
    const qt = args.tensor(fn, 'q', q, opts.dims);
    const qh = qHeads(fn, qt, opts.layout, opts.numHeads);
    const kt = k === null || k === undefined ? undefined : args.tensor(fn, 'k', k, opts.kDims ?? opts.dims, opts.kDims === undefined ? 'dims' : 'kDims');
    const kh: Heads | undefined = kt && kHeads(fn, kt, qt, qh);
    if (kt) checkDisjoint(fn, qt.data, kt.data);
    const rotaryDim = rotaryDimOf(fn, opts, qh.headDim);
    const pairing = opts.pairing === undefined ? 0 : args.choice(fn, 'pairing', opts.pairing, PAIRINGS);
    const pos = positionsOf(fn, opts, qh.batch, qh.seq);
    const base = baseOf(fn, opts);
    const scope = new HeapScope(heap);
    try {
      const qPtr = scope.tensorIn(qt, 'q');
      const kPtr = kt ? scope.tensorIn(kt, 'k') : 0;
      const idsPtr = scope.f64In(pos.ids, 'positionIds');
      heap.check(
        raw.ropeApply(qPtr, qh.heads, kPtr, kh?.heads ?? 0, qh.batch, qh.seq, qh.headDim, qh.layout, pairing, rotaryDim,
          base, pos.offset, idsPtr, pos.perBatch),
        fn,
      );
      scope.tensorOut(qt, qPtr);
      if (kt) scope.tensorOut(kt, kPtr);
    } finally {
      scope.release();
    }
  }

  function frequencies(options: RopeSpec): RopeFrequencies {
    const fn = 'rope.frequencies';
    const opts = args.options(fn, options, SPEC_OPTIONS);
    const rotaryDim = rotaryDimOf(fn, opts, undefined);
    const scope = new HeapScope(heap);
    try {
      const freq = frequencyBlock(fn, opts, rotaryDim, scope);
      return { invFreq: heap.f64(freq.ptr, rotaryDim / 2).slice(), attentionFactor: freq.attentionFactor };
    } finally {
      scope.release();
    }
  }

  function createCache(options: RopeCacheOptions): RopeCache {
    const fn = 'rope.createCache';
    const opts = args.options(fn, options, [...SPEC_OPTIONS, 'maxPositions']);
    const rotaryDim = rotaryDimOf(fn, opts, undefined);
    const headDim = opts.headDim === undefined ? undefined : args.integer(fn, 'headDim', opts.headDim);
    const pairing = opts.pairing === undefined ? 0 : args.choice(fn, 'pairing', opts.pairing, PAIRINGS);
    const rows = args.integer(fn, 'maxPositions', args.required(fn, opts, 'maxPositions'));
    const scope = new HeapScope(heap);
    try {
      const freq = frequencyBlock(fn, opts, rotaryDim, scope);
      const pairs = rotaryDim / 2;
      const table = heap.alloc(2 * rows * pairs * 4, 'the cos/sin cache');
      const cos = table;
      const sin = table + rows * pairs * 4;
      try {
        heap.check(raw.ropeFillTable(rotaryDim, freq.ptr, freq.attentionFactor, rows, cos, sin), fn);
      } catch (error) {
        heap.free(table);
        throw error;
      }
      return new RopeCache(heap, { table, cos, sin, rows, pairs, rotaryDim, headDim, pairing });
    } finally {
      scope.release();
    }
  }

  function rotaryEmbedding(x: TensorInput, cosCache: TensorInput, sinCache: TensorInput, options?: RotaryEmbeddingOptions): Tensor {
    const fn = 'rope.rotaryEmbedding';
    const opts = args.options(fn, options, ['positionIds', 'interleaved', 'rotaryEmbeddingDim', 'numHeads', 'dims', 'cosDims', 'sinDims'], true);
    const xt = args.tensor(fn, 'x', x, opts.dims);
    const cos = args.tensor(fn, 'cosCache', cosCache, opts.cosDims, 'cosDims');
    const sin = args.tensor(fn, 'sinCache', sinCache, opts.sinDims, 'sinDims');
    if (xt.dims.length !== 3 && xt.dims.length !== 4) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: x must be 4-D [batch, heads, seq, headDim] or 3-D [batch, seq, hidden], got [${xt.dims.join(', ')}]`);
    }
    const h = qHeads(fn, xt, xt.dims.length === 4 ? 'bhsd' : undefined, opts.numHeads);
    const interleaved = opts.interleaved === undefined ? 0 : interleavedFlag(fn, opts.interleaved);
    const r = opts.rotaryEmbeddingDim === undefined ? 0 : args.integer(fn, 'rotaryEmbeddingDim', opts.rotaryEmbeddingDim, 0);
    const rotaryDim = r === 0 ? h.headDim : r;
    if (cos.dims.join() !== sin.dims.join()) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: cosCache dims [${cos.dims.join(', ')}] and sinCache dims [${sin.dims.join(', ')}] differ`);
    }
    const pairs = cos.dims[cos.dims.length - 1]!;
    let rows: number;
    let pos: { offset: number; ids: Float64Array | undefined; perBatch: boolean };
    if (opts.positionIds !== undefined) {
      if (cos.dims.length !== 2) {
        throw new PosEncError('SHAPE_MISMATCH', `${fn}: with positionIds the caches must be [maxPositions, rotaryDim/2], got [${cos.dims.join(', ')}]`);
      }
      rows = cos.dims[0]!;
      pos = positionsOf(fn, { positionIds: opts.positionIds }, h.batch, h.seq);
    } else {
      if (cos.dims.length !== 3 || cos.dims[0] !== h.batch || cos.dims[1] !== h.seq) {
        throw new PosEncError('SHAPE_MISMATCH', `${fn}: without positionIds the caches must be [batch, seq, rotaryDim/2] = [${h.batch}, ${h.seq}, ${rotaryDim / 2}], got [${cos.dims.join(', ')}]`);
      }
      rows = h.batch * h.seq;
      pos = { offset: 0, ids: Float64Array.from({ length: rows }, (_, i) => i), perBatch: true };
    }
    const scope = new HeapScope(heap);
    try {
      const xPtr = scope.tensorCopy(xt, 'x'); // returns a new tensor: x itself stays as it is
      const cosPtr = scope.tensorIn(cos, 'cosCache');
      const sinPtr = scope.tensorIn(sin, 'sinCache');
      const idsPtr = scope.f64In(pos.ids, 'positionIds');
      heap.check(
        raw.ropeApplyTable(cosPtr, sinPtr, rows, pairs, interleaved, rotaryDim, xPtr, h.heads, 0, 0, h.batch, h.seq,
          h.headDim, h.layout, pos.offset, idsPtr, pos.perBatch),
        fn,
      );
      return { data: heap.f32(xPtr, xt.size).slice(), dims: xt.dims.slice() };
    } finally {
      scope.release();
    }
  }

  return { apply, frequencies, createCache, rotaryEmbedding };
}

function interleavedFlag(fn: string, value: unknown): number {
  if (value === true || value === 1) return 1;
  if (value === false || value === 0) return 0;
  throw new PosEncError('INVALID_ARGUMENT', `${fn}: interleaved must be true/false or 1/0, got ${args.describe(value)}`);
}
