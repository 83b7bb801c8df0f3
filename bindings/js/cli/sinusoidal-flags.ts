// The sinusoidal flags the table and add-in-place commands share, and how their positions are
// split into pieces without changing a value.
import type { Flag, FlagValues } from './flags.js';

export const SINUSOIDAL_FLAGS: Flag[] = [
  { name: 'base', kind: 'number', positive: true, default: '10000', help: 'frequency base: w_i = base^(-2i/dim)' },
  { name: 'layout', kind: 'choice', choices: ['interleaved', 'half'], default: 'interleaved', help: 'interleaved: [sin, cos, sin, cos, ...] (the paper); half: all sines, then all cosines' },
  { name: 'precision', kind: 'choice', choices: ['exact', 'fast'], default: 'exact', help: 'exact: sin and cos in double, rounded once; fast: at most 3.2e-7 off, faster' },
  { name: 'offset', kind: 'number', default: '0', help: 'position of the first row (may be negative or fractional)' },
];

/**
 * Positions offset + p of rows p, as API options for the rows [start, start + count). A piece
 * starting at row `start` is the table of offset + start: the same values as one call while the
 * positions are integers (below 2^47, so that the 'fast' anchors at position / 32 stay exact), if
 * pieces start at multiples of 32 rows and the last has at least 64 ('fast' rows hang off anchors
 * every 32 rows, and a range under 64 rows is computed exactly). A fractional offset with 'exact'
 * passes each row's position as an id (offset + p, the double one call forms); with 'fast', ids
 * would be computed exactly, so pieces keep the fast rows from offset + start: every value is
 * still within the 3.2e-7 that 'fast' allows.
 */
export function sinusoidalPositions(values: FlagValues, rows: number) {
  const offset = (values.offset as number | undefined) ?? 0;
  const exactSplit = Number.isInteger(offset) && Math.abs(offset) + rows <= 2 ** 47;
  const ids = !exactSplit && values.precision !== 'fast';
  return {
    pieces: { align: 32, minLast: 64 },
    /** API options for rows [start, start + count): an offset, or position ids. */
    of(start: number, count: number): { offset: number } | { positionIds: Float64Array } {
      if (ids) return { positionIds: Float64Array.from({ length: count }, (_, i) => offset + (start + i)) };
      return { offset: offset + start };
    },
  };
}
