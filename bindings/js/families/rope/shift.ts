// KV-cache context shift: keys rotated by RoPE for some positions, re-rotated in place for new ones
// (a span dropped from a cache, llama.cpp's K-shift). The C++ core (src/encodings/rope_shift.cpp)
// rotates each pair by (new - old) * w_i, formed in float64 from the absolute positions of the call
// and evaluated in float64, so each call rounds each value once; this file resolves the shapes and
// both sets of positions.
import * as args from '../../runtime/args.js';
import type { PositionIdsInput, TensorInput } from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import type { Heap } from '../../runtime/heap.js';
import { positionsOf } from '../../runtime/positions.js';
import { qHeads, rotateInPlace } from './shapes.js';
import type { Heads, QK, RopeTensorOptions } from './shapes.js';
import { resolveSpec, SPEC_KEYS, seqLenOf, specArgs } from './spec.js';
import type { RopeSpec } from './spec.js';

/**
 * Where the keys are and where they go. The keys' current positions are `offset` (first token,
 * default 0) or `positionIds`, as for `rope.apply`; give exactly one of `delta`, `newOffset` and
 * `newPositionIds` for their new positions.
 */
export interface RopeShiftMoveOptions extends Omit<RopeTensorOptions, 'kDims'> {
  /** How far the keys move: one number for every token, or one per token (`[seq]` or `[batch, seq]`), e.g. `-n` for the tokens after a dropped span of n. */
  delta?: number | PositionIdsInput;
  /** The new position of the first token; the tokens keep consecutive positions. */
  newOffset?: number;
  /** The new position of every token (`[seq]` or `[batch, seq]`). */
  newPositionIds?: PositionIdsInput;
}

/** Options of {@link RopeApi.shift}: the RoPE the keys were rotated with, and the move. */
export interface RopeShiftOptions extends RopeSpec, RopeShiftMoveOptions {
  /**
   * LongRoPE: a length that fixes the factor list for the keys' old and new positions alike.
   * Without it the list at max(old) + 1 must equal the one at max(new) + 1.
   */
  seqLen?: number;
}

/** Option names of a move, for args.options. */
export const SHIFT_MOVE_KEYS = ['layout', 'dims', 'numHeads', 'offset', 'positionIds', 'delta', 'newOffset', 'newPositionIds'];

/** Positions as the shift bindings take them: a range (ids undefined) or ids, shared or per batch row. */
export interface ShiftPositions {
  offset: number;
  ids: Float64Array | undefined;
  perBatch: boolean;
}

/** The keys' tensor and its heads. */
export function keysOf(fn: string, k: TensorInput, opts: Record<string, unknown>): QK {
  const kt = args.tensor(fn, 'k', k, opts.dims);
  const kh: Heads = qHeads(fn, kt, opts.layout, opts.numHeads, 'k');
  return { qt: kt, qh: kh, kt: undefined, kh: undefined };
}

/** The old and new positions of a move over [batch, seq] tokens, new ones in float64 from the old ones. */
export function movePositions(fn: string, opts: Record<string, unknown>, batch: number, seq: number): { from: ShiftPositions; to: ShiftPositions } {
  const from = positionsOf(fn, opts, batch, seq);
  const given = ['delta', 'newOffset', 'newPositionIds'].filter((k) => opts[k] !== undefined);
  if (given.length === 0) {
    throw new PosEncError('MISSING_OPTION', `${fn}: say where the keys go: option 'delta', 'newOffset' or 'newPositionIds' is required`);
  }
  if (given.length > 1) throw new PosEncError('INVALID_ARGUMENT', `${fn}: give one of ${given.join(' and ')}, not both`);
  if (opts.newOffset !== undefined) return { from, to: { offset: args.finite(fn, 'newOffset', opts.newOffset), ids: undefined, perBatch: false } };
  if (opts.newPositionIds !== undefined) {
    const p = args.positionIds(fn, opts.newPositionIds, batch, seq, 'newPositionIds');
    return { from, to: { offset: 0, ids: p.ids, perBatch: p.perBatch } };
  }
  const oldAt = (b: number, s: number) => (from.ids === undefined ? from.offset + s : from.ids[from.perBatch ? b * seq + s : s]!);
  if (typeof opts.delta === 'number') {
    const delta = args.finite(fn, 'delta', opts.delta);
    if (from.ids === undefined) return { from, to: { offset: from.offset + delta, ids: undefined, perBatch: false } };
    return { from, to: { offset: 0, ids: from.ids.map((p) => p + delta), perBatch: from.perBatch } };
  }
  const d = args.positionIds(fn, opts.delta, batch, seq, 'delta');
  const perBatch = from.perBatch || d.perBatch;
  const ids = new Float64Array(perBatch ? batch * seq : seq);
  for (let b = 0; b < (perBatch ? batch : 1); b++) {
    for (let s = 0; s < seq; s++) ids[b * seq + s] = oldAt(b, s) + d.ids[d.perBatch ? b * seq + s : s]!;
  }
  return { from, to: { offset: 0, ids, perBatch } };
}

/** `rope.shift`, merged into pe.rope. */
export function ropeShiftApi(heap: Heap) {
  /**
   * Re-rotates keys already rotated by RoPE (with the spec given) from their positions to new ones,
   * in place. `dynamic` scaling and a LongRoPE list switch are refused (`INVALID_ARGUMENT`).
   */
  function shift(k: TensorInput, options: RopeShiftOptions): void {
    const fn = 'rope.shift';
    const opts = args.options(fn, options, [...SPEC_KEYS, ...SHIFT_MOVE_KEYS, 'seqLen']);
    const keys = keysOf(fn, k, opts);
    const { qh } = keys;
    const spec = resolveSpec(fn, opts, qh.headDim);
    const seqLen = seqLenOf(fn, opts.seqLen);
    const { from, to } = movePositions(fn, opts, qh.batch, qh.seq);
    rotateInPlace(heap, fn, keys, from.ids, (kPtr, _none, idsPtr, scope) => heap.call.ropeShift({
      q: kPtr, qHeads: qh.heads, k: 0, kHeads: 0, batch: qh.batch, seq: qh.seq, headDim: qh.headDim, layout: qh.layout,
      ...specArgs(spec, scope), seqLen, offset: from.offset, ids: idsPtr, perBatch: from.perBatch, toOffset: to.offset,
      toIds: scope.f64In(to.ids, 'newPositionIds'), toPerBatch: to.perBatch,
    }));
  }
  return { shift };
}
