// Sinusoidal absolute encoding (Vaswani et al. 2017, sec. 3.5): PE[p, 2i] = sin(p w_i),
// PE[p, 2i+1] = cos(p w_i), w_i = base^(-2i/dim). The C++ core does the maths (src/encodings/sinusoidal.cpp).
import * as args from '../runtime/args.js';
import type { PositionIdsInput, Tensor, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { WasmTensor } from '../runtime/wasm-tensor.js';
import { Heap } from '../runtime/heap.js';
import { HeapScope, withHeap } from '../runtime/scope.js';
import { batchSeqDim, positionsOf, rowRequest } from '../runtime/positions.js';
import { SINUSOID_LAYOUTS, SINUSOID_PRECISIONS } from '../generated/boundary.js';
import { PositionTable } from './position-table.js';

/**
 * Column order of a row. `'interleaved'` is the paper's `[sin, cos, sin, cos, ...]`; `'half'` puts
 * all sines first, then all cosines (Transformer-XL, GPT-J). Both hold the same columns.
 */
export type SinusoidLayout = (typeof SINUSOID_LAYOUTS)[number];

/**
 * How values are computed from the angles, which are always formed in double precision.
 * `'exact'` (default): sin and cos in double, rounded once to float32 (error <= half an ulp).
 * `'fast'`: every 32nd row and the first 32 rows are computed that way and the rows between
 * combine them by the angle-addition identities in float32 arithmetic: absolute error at most
 * 3.2e-7, nothing accumulates along the table, faster (docs/performance.md). It applies to
 * consecutive positions (`length`/`offset`, `addTo` without `positionIds`); explicit
 * `positionIds` are always exact.
 */
export type SinusoidPrecision = (typeof SINUSOID_PRECISIONS)[number];

/** The parameters that define a sinusoidal table. */
export interface SinusoidalParams {
  /** Width of a row (>= 1; odd widths end with a sine column). */
  dim: number;
  /** Frequency base (default 10000): w_i = base^(-2i/dim). */
  base?: number;
  /** Column order (default `'interleaved'`, the paper's). */
  layout?: SinusoidLayout;
  /** `'exact'` (default) or `'fast'` (at most 3.2e-7 off, faster); see {@link SinusoidPrecision}. */
  precision?: SinusoidPrecision;
}

/** Options of {@link SinusoidalApi.table}: `length` positions from `offset`, or explicit `positionIds`. */
export interface SinusoidalTableOptions extends SinusoidalParams {
  /** Number of rows (consecutive positions from `offset`). */
  length?: number;
  /** First position (default 0). */
  offset?: number;
  /** Explicit positions (any finite numbers, negative and fractional included), one row each. */
  positionIds?: PositionIdsInput;
  /**
   * Where to write the table: a Float32Array of `n * dim` values, or a WasmTensor of dims `[n, dim]`
   * (`pe.memory.tensor`), written in place with no copy. Default: a new Float32Array.
   */
  out?: Float32Array | WasmTensor;
}

/** Options of {@link SinusoidalApi.frequencies}. */
export interface SinusoidalFrequencyOptions {
  /** Width of a row (>= 1). */
  dim: number;
  /** Frequency base (default 10000). */
  base?: number;
  /** A Float64Array of `ceil(dim/2)` values to write the frequencies into (reused from call to call). Default: a new one. */
  out?: Float64Array;
}

/** Options of {@link SinusoidalApi.addTo}. */
export interface SinusoidalAddOptions {
  /** Shape of `x` when it is a bare Float32Array: `[seq, dim]` or `[batch, seq, dim]`. */
  dims?: readonly number[];
  /** Frequency base (default 10000). */
  base?: number;
  /** Column order (default `'interleaved'`). */
  layout?: SinusoidLayout;
  /** `'exact'` (default) or `'fast'`; see {@link SinusoidPrecision}. */
  precision?: SinusoidPrecision;
  /** Position of the first token (default 0), e.g. the past length when decoding with a cache. */
  offset?: number;
  /** Explicit positions: `[seq]` for all rows or `[batch, seq]`. */
  positionIds?: PositionIdsInput;
}

/**
 * How a cached `precision: 'fast'` table keeps its rows (an exact table always keeps full rows):
 * `'rows'`: every row, `maxPositions * dim * 4` bytes; `addTo` is a plain add, the fastest.
 * `'anchored'`: only the anchor and offset rows the fast values are made of
 * (`2 * dim * (ceil(maxPositions / 32) + 32)` floats, about 1/14 of the rows at 8192 positions);
 * `addTo` combines four small operands per value, slower than adding full rows (docs/performance.md
 * has the figures); `maxPositions` must be at least 64. `'auto'` (default): full
 * rows up to 256 MiB, anchored beyond. Both give the same bits; {@link PositionTable.storage} says
 * which a table keeps.
 */
export type TableStorageChoice = (typeof TABLE_STORAGES)[number];

/** The values of {@link TableStorageChoice}. */
const TABLE_STORAGES = ['auto', 'rows', 'anchored'] as const;

/** A `'fast'` table with `storage: 'auto'` keeps full rows up to this many bytes (256 MiB), anchored rows beyond. */
const FULL_ROWS_BUDGET_BYTES = 256 * 2 ** 20;

/** Options of {@link SinusoidalApi.createTable}. */
export interface SinusoidalCreateTableOptions extends SinusoidalParams {
  /** Number of positions to precompute (0..maxPositions-1), as for `pe.rope.createCache`. */
  maxPositions: number;
  /** Full or anchored rows for a `precision: 'fast'` table (default `'auto'`); see {@link TableStorageChoice}. */
  storage?: TableStorageChoice;
}

/** Sinusoidal encodings: `pe.sinusoidal`. */
export interface SinusoidalApi {
  /** The table `[n, dim]`, computed in double precision and rounded once to float32 (or `precision: 'fast'`). */
  table(options: SinusoidalTableOptions): Tensor;
  /** Adds the encoding to token embeddings `x` (`[seq, dim]` or `[batch, seq, dim]`) in place; returns `x`'s data. */
  addTo(x: TensorInput, options?: SinusoidalAddOptions): Float32Array;
  /** The angular frequencies w_i = base^(-2i/dim), one per sine column (`ceil(dim/2)` values). */
  frequencies(options: SinusoidalFrequencyOptions): Float64Array;
  /**
   * Precomputes positions 0..maxPositions-1 into WebAssembly memory for repeated `addTo`/`lookup`.
   * A `precision: 'fast'` table holds the values of `table({ precision: 'fast' })`, as full rows up
   * to 256 MiB (the fastest adds) and beyond that as its anchor rows and 32 offset rows only (about
   * 2/32 of the memory); `storage` chooses either ({@link TableStorageChoice}).
   */
  createTable(options: SinusoidalCreateTableOptions): PositionTable;
}

function params(fn: string, opts: Record<string, unknown>, dim?: number) {
  return {
    dim: dim ?? args.integer(fn, 'dim', args.required(fn, opts, 'dim')),
    base: opts.base === undefined ? 10000 : args.finite(fn, 'base', opts.base, true),
    layout: opts.layout === undefined ? 0 : args.choice(fn, 'layout', opts.layout, SINUSOID_LAYOUTS),
    precision: opts.precision === undefined ? 0 : args.choice(fn, 'precision', opts.precision, SINUSOID_PRECISIONS),
  };
}

/**
 * Whether a table keeps anchored rows (posenc/sinusoidal.hpp): the same values as full rows, a
 * fraction of the memory, but addTo computes each value from four operands where full rows are a
 * plain add. 'auto' keeps full rows while they fit the budget, and anchored rows only where they
 * are smaller (from ~70 rows on; under 64 rows a fast table is exact, which anchors do not give).
 */
function anchoredStorage(
  fn: string, storage: TableStorageChoice, fast: boolean, rows: number, dim: number,
  anchoredFloats: (rows: number, dim: number) => number,
): boolean {
  if (storage === 'rows') return false;
  if (storage === 'anchored') {
    if (!fast) throw new PosEncError('INVALID_ARGUMENT', `${fn}: storage 'anchored' needs precision 'fast' (an exact table keeps full rows)`);
    if (rows < 64) throw new PosEncError('INVALID_ARGUMENT', `${fn}: storage 'anchored' needs maxPositions >= 64 (a shorter fast table is exact), got ${rows}`);
    return true;
  }
  if (!fast || rows * dim * 4 <= FULL_ROWS_BUDGET_BYTES) return false;
  const floats = anchoredFloats(rows, dim);
  return floats > 0 && floats < rows * dim;
}

export function sinusoidalApi(heap: Heap): SinusoidalApi {
  const call = heap.call;

  function table(options: SinusoidalTableOptions): Tensor {
    const fn = 'sinusoidal.table';
    const opts = args.options(fn, options, ['dim', 'base', 'layout', 'precision', 'length', 'offset', 'positionIds', 'out']);
    const p = params(fn, opts);
    const { count, ids, offset } = rowRequest(fn, opts);
    return withHeap(heap, (scope) => {
      const idsPtr = scope.f64In(ids, 'positionIds');
      // Rows from row `start` on are the table of offset + start: the same doubles while positions
      // are integers well inside 2^53 (anchors of 'fast' rows are position / 32). 'fast' rows hang
      // off anchors every 32 rows, and a range under 64 rows is computed exactly.
      const exactSplit = Number.isInteger(offset) && Math.abs(offset) + count <= 2 ** 47;
      const rows = { axis: 0, whole: ids === undefined && !exactSplit, align: 32, minLast: 64 };
      return scope.generate(fn, opts.out, [count, p.dim], 'the table', rows, (ptr, start, n) =>
        heap.check(call.sinusoidalTable({ out: ptr, count: n, ...p, offset: offset + start, ids: idsPtr && idsPtr + start * 8 }), fn));
    });
  }

  function addTo(x: TensorInput, options?: SinusoidalAddOptions): Float32Array {
    const fn = 'sinusoidal.addTo';
    const opts = args.options(fn, options, ['dims', 'base', 'layout', 'precision', 'offset', 'positionIds'], true);
    const t = args.tensor(fn, 'x', x, opts.dims);
    const [batch, seq, dim] = batchSeqDim(fn, t.dims);
    const p = params(fn, opts, dim);
    const pos = positionsOf(fn, opts, batch, seq);
    return withHeap(heap, (scope) => {
      const xPtr = scope.tensorIn(t, 'x');
      const idsPtr = scope.f64In(pos.ids, 'positionIds');
      heap.check(call.sinusoidalAdd({ x: xPtr, batch, seq, ...p, offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch }), fn);
      scope.tensorOut(t, xPtr);
      return t.data;
    });
  }

  function frequencies(options: SinusoidalFrequencyOptions): Float64Array {
    const fn = 'sinusoidal.frequencies';
    const opts = args.options(fn, options, ['dim', 'base', 'out']);
    const p = params(fn, opts);
    const n = Math.ceil(p.dim / 2);
    const target = HeapScope.float64Out(fn, opts.out, n, 'the frequencies');
    return withHeap(heap, (scope) => {
      const out = scope.alloc(n * 8, 'frequencies');
      heap.check(call.sinusoidalFrequencies({ out, dim: p.dim, base: p.base }), fn);
      return scope.float64Result(target, out, n, fn);
    });
  }

  function createTable(options: SinusoidalCreateTableOptions): PositionTable {
    const fn = 'sinusoidal.createTable';
    const opts = args.options(fn, options, ['dim', 'base', 'layout', 'precision', 'maxPositions', 'storage']);
    const p = params(fn, opts);
    const rows = args.integer(fn, 'maxPositions', args.required(fn, opts, 'maxPositions'));
    const storage = opts.storage === undefined ? 'auto' : TABLE_STORAGES[args.choice(fn, 'storage', opts.storage, TABLE_STORAGES)]!;
    const anchored = anchoredStorage(fn, storage, SINUSOID_PRECISIONS[p.precision] === 'fast', rows, p.dim,
      (r, d) => call.anchoredTableFloats({ rows: r, dim: d }));
    const floats = anchored ? call.anchoredTableFloats({ rows, dim: p.dim }) : rows * p.dim;
    if (floats < 0) throw new PosEncError('SIZE_OVERFLOW', `${fn}: anchored rows for ${rows} x ${p.dim} do not fit WebAssembly memory`);
    return withHeap(heap, (scope) => {
      const ptr = scope.alloc(floats * 4, 'the sinusoidal table');
      heap.check(anchored
        ? call.anchoredTableBuild({ storage: ptr, rows, dim: p.dim, base: p.base, layout: p.layout })
        : call.sinusoidalTable({ out: ptr, count: rows, ...p, offset: 0, ids: 0 }), fn);
      const table = new PositionTable(heap, ptr, rows, p.dim, 'sinusoidal table', anchored ? 'anchored' : 'rows');
      scope.keep(ptr);
      return table;
    });
  }

  return { table, addTo, frequencies, createTable };
}
