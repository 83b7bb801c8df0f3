// Position arguments shared by every family: an offset or explicit ids over [batch, seq] tokens.
import * as args from './args.js';
import { PosEncError } from './errors.js';

/** [seq, dim] or [batch, seq, dim] -> [batch, seq, dim]. */
export function batchSeqDim(fn: string, dims: number[]): [number, number, number] {
  if (dims.length === 2) return [1, dims[0]!, dims[1]!];
  if (dims.length === 3) return [dims[0]!, dims[1]!, dims[2]!];
  throw new PosEncError('SHAPE_MISMATCH', `${fn}: x must have dims [seq, dim] or [batch, seq, dim], got [${dims.join(', ')}]`);
}

/** The offset / positionIds options of a call over [batch, seq] tokens. */
export function positionsOf(
  fn: string, opts: Record<string, unknown>, batch: number, seq: number,
): { offset: number; ids: Float64Array | undefined; perBatch: boolean } {
  if (opts.positionIds !== undefined) {
    if (opts.offset !== undefined) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: give either offset or positionIds, not both`);
    }
    const p = args.positionIds(fn, opts.positionIds, batch, seq);
    return { offset: 0, ids: p.ids, perBatch: p.perBatch };
  }
  const offset = opts.offset === undefined ? 0 : args.finite(fn, 'offset', opts.offset);
  return { offset, ids: undefined, perBatch: false };
}

/** Number of ids in a position-id argument (before full validation). */
export function positionCount(value: unknown): number {
  try {
    return countOf(value);
  } catch {
    return 0; // a caller's trap or getter that throws: args.positionIds reads it again and names it
  }
}

function countOf(value: unknown): number {
  const data = value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) && 'data' in value
    ? (value as { data: unknown }).data
    : value;
  return Array.isArray(data) || ArrayBuffer.isView(data) ? (data as ArrayLike<unknown>).length : 0;
}

/** The rows a table call asks for: `length` rows from `offset` (default 0), or the rows at `positionIds`. */
export interface RowRequest {
  count: number;
  ids: Float64Array | undefined;
  offset: number;
}

/** Reads a table call's rows from its options: length with offset, or positionIds, never both. */
export function rowRequest(fn: string, opts: Record<string, unknown>): RowRequest {
  if (opts.positionIds !== undefined) {
    if (opts.length !== undefined || opts.offset !== undefined) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: give either length (with offset) or positionIds, not both`);
    }
    const ids = args.positionIds(fn, opts.positionIds, 1, positionCount(opts.positionIds)).ids;
    return { count: ids.length, ids, offset: 0 };
  }
  const count = args.integer(fn, 'length', args.required(fn, opts, 'length'));
  return { count, ids: undefined, offset: opts.offset === undefined ? 0 : args.finite(fn, 'offset', opts.offset) };
}
