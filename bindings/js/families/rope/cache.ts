// RopeCache: cos/sin rows for positions 0..maxPositions-1 kept in WebAssembly memory, so repeated
// rotations (a decoding loop) skip the trigonometry.
import * as args from '../../runtime/args.js';
import type { Tensor, TensorInput } from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import { HeapObject } from '../../runtime/disposable.js';
import type { Heap } from '../../runtime/heap.js';
import type { Ptr } from '../../runtime/raw-module.js';
import { positionsOf } from '../../runtime/positions.js';
import { withHeap } from '../../runtime/scope.js';
import type { WasmTensor } from '../../runtime/wasm-tensor.js';
import { qkOf, rotateInPlace, rotateTokenPieces } from './shapes.js';
import type { RopeTensorOptions } from './shapes.js';
import { keysOf, movePositions, SHIFT_MOVE_KEYS } from './shift.js';
import type { RopeShiftMoveOptions } from './shift.js';

/**
 * Options of {@link RopeCache.apply}: the tensors' shapes and positions, as for `rope.apply`
 * (positions must be integers inside the cache).
 */
export type RopeCacheApplyOptions = RopeTensorOptions;

/** Options of {@link RopeCache.toTensors}. */
export interface RopeCacheCopyOptions {
  /**
   * Where to write the rows (either or both; the other is a new Float32Array): Float32Arrays of
   * `maxPositions * rotaryDim/2` values (reused from call to call) or WasmTensors of dims `[maxPositions, rotaryDim/2]`.
   */
  out?: { cos?: Float32Array | WasmTensor; sin?: Float32Array | WasmTensor };
}

/** @internal */
export interface RopeCacheState {
  table: Ptr;
  cos: Ptr;
  sin: Ptr;
  /** Expanded rows for the interleaved pairing (0 for half). */
  cos2: Ptr;
  sin2: Ptr;
  rows: number;
  pairs: number;
  rotaryDim: number;
  headDim: number | undefined;
  pairing: number;
  /** The frequencies the rows were made from (float64), for shift(). */
  invFreq: Float64Array;
}


/**
 * Precomputed RoPE cos/sin for positions 0..maxPositions-1 (attention factor included).
 * Positions passed to {@link RopeCache.apply} must be integers in that range (`OUT_OF_RANGE`
 * otherwise). Call {@link RopeCache.dispose} when done.
 */
export class RopeCache extends HeapObject {
  /** Number of cached positions. */
  readonly maxPositions: number;
  /** Rotated lanes per head. */
  readonly rotaryDim: number;
  #s: RopeCacheState;

  /** @internal Use `pe.rope.createCache`. */
  constructor(heap: Heap, state: RopeCacheState) {
    super(heap, state.table, 'the cache');
    this.#s = state;
    this.maxPositions = state.rows;
    this.rotaryDim = state.rotaryDim;
  }

  /**
   * Bytes of WebAssembly memory the cache holds (0 once disposed): `maxPositions * rotaryDim * 4`
   * for the half pairing, three times that for the interleaved one (which also keeps its rows
   * expanded).
   */
  get bytes(): number {
    const s = this.#s;  // the block at s.table: cos and sin rows, then cos2 and sin2 at twice the width
    return this.disposed ? 0 : s.rows * s.pairs * 4 * (s.cos2 === 0 ? 2 : 6);
  }

  /** Rotates q and (unless null) k in place using the cached rows. */
  apply(q: TensorInput, k: TensorInput | null | undefined, options: RopeCacheApplyOptions): void {
    const fn = 'RopeCache.apply';
    const opts = args.options(fn, options, ['layout', 'dims', 'kDims', 'numHeads', 'offset', 'positionIds']);
    const s = this.#live(fn);
    const heap = this.heap;
    // The cache's rows are located again in the call itself (#live), after every option and tensor
    // was read: a getter of the caller's may have disposed the cache meanwhile.
    const qk = qkOf(fn, q, k, opts);
    const { qh, kh } = qk;
    if (s.headDim !== undefined && s.headDim !== qh.headDim) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: the cache was built for headDim ${s.headDim}, q has head size ${qh.headDim}`);
    }
    const pos = positionsOf(fn, opts, qh.batch, qh.seq);
    // Consecutive positions inside the table: no piece can fail on its rows (shapes.ts, rotateTokenPieces).
    if (pos.ids === undefined && Number.isInteger(pos.offset) && pos.offset >= 0 && pos.offset + qh.seq <= s.rows &&
      rotateTokenPieces(heap, fn, qk, false, (qPtr, kPtr, piece) => {
        const t = this.#live(fn);
        return heap.call.ropeApplyTable({
          cos: t.cos, sin: t.sin, cos2: t.cos2, sin2: t.sin2, rows: t.rows, pairs: t.pairs, pairing: t.pairing,
          rotaryDim: t.rotaryDim, q: qPtr, qHeads: qh.heads, k: kPtr, kHeads: kh?.heads ?? 0, batch: 1, seq: piece.seq,
          headDim: qh.headDim, layout: qh.layout, offset: pos.offset + piece.start, ids: 0, perBatch: false,
        });
      })) return;
    rotateInPlace(heap, fn, qk, pos.ids, (qPtr, kPtr, idsPtr) => {
      const t = this.#live(fn);
      return heap.call.ropeApplyTable({
        cos: t.cos, sin: t.sin, cos2: t.cos2, sin2: t.sin2, rows: t.rows, pairs: t.pairs, pairing: t.pairing,
        rotaryDim: t.rotaryDim, q: qPtr, qHeads: qh.heads, k: kPtr, kHeads: kh?.heads ?? 0, batch: qh.batch, seq: qh.seq,
        headDim: qh.headDim, layout: qh.layout, offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch,
      });
    });
  }

  /**
   * Moves keys rotated with this cache (by `apply`) from their positions to new ones, in place, as
   * `rope.shift` does: each pair turns by (new - old) * w_i with the cache's float64 frequencies
   * (not its float32 rows), evaluated in float64 and rounded once. Positions need not lie inside the
   * cache. The cache's attention factor is not applied again.
   */
  shift(k: TensorInput, options: RopeShiftMoveOptions): void {
    const fn = 'RopeCache.shift';
    const opts = args.options(fn, options, SHIFT_MOVE_KEYS);
    const s = this.#live(fn);
    const heap = this.heap;
    const keys = keysOf(fn, k, opts);
    const { qh } = keys;
    if (s.headDim !== undefined && s.headDim !== qh.headDim) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: the cache was built for headDim ${s.headDim}, k has head size ${qh.headDim}`);
    }
    const { from, to } = movePositions(fn, opts, qh.batch, qh.seq);
    rotateInPlace(heap, fn, keys, from.ids, (kPtr, _none, idsPtr, scope) => {
      const t = this.#live(fn); // not disposed by a getter of the caller's meanwhile
      return heap.call.ropeShiftRotation({
        q: kPtr, qHeads: qh.heads, k: 0, kHeads: 0, batch: qh.batch, seq: qh.seq, headDim: qh.headDim, layout: qh.layout,
        pairing: t.pairing, rotaryDim: t.rotaryDim, invFreq: scope.f64In(t.invFreq, 'invFreq'), offset: from.offset, ids: idsPtr,
        perBatch: from.perBatch, toOffset: to.offset, toIds: scope.f64In(to.ids, 'newPositionIds'), toPerBatch: to.perBatch,
      });
    });
  }

  /**
   * Copies of the cached rows, `[maxPositions, rotaryDim/2]` each: exactly the `cos_cache` and
   * `sin_cache` inputs of the ONNX RotaryEmbedding operator; into `out.cos` / `out.sin` when given.
   */
  toTensors(options?: RopeCacheCopyOptions): { cos: Tensor; sin: Tensor } {
    const fn = 'RopeCache.toTensors';
    const opts = args.options(fn, options, ['out'], true);
    const out = opts.out === undefined ? {} : args.options(fn, opts.out, ['cos', 'sin']);
    const s = this.#live(fn); // after the caller's getters, which may have disposed the cache
    const heap = this.heap;
    const dims = [s.rows, s.pairs];
    const bytes = s.rows * s.pairs * 4;
    return withHeap(heap, (scope) => {
      const copy = (target: unknown, rows: Ptr, what: string) => scope.generate(fn, target, dims.slice(), what, { axis: 0, whole: true },
        (ptr) => heap.raw.HEAPU8.copyWithin(ptr, rows, rows + bytes));
      return { cos: copy(out.cos, s.cos, 'the cos rows'), sin: copy(out.sin, s.sin, 'the sin rows') };
    });
  }

  #live(fn: string): RopeCacheState {
    this.live(fn); // DISPOSED once disposed
    return this.#s;
  }
}
