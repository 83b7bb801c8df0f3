// Learned absolute position tables (BERT, GPT-2, ViT): rows of a trained [maxPositions, dim]
// matrix gathered by position id. Ids outside the table are errors (OUT_OF_RANGE), never clamped.
import * as args from '../runtime/args.js';
import type { Tensor, TensorArg, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import { PositionTable, addRows, lookupRows } from './position-table.js';
import type { TableAt } from './position-table.js';
import type { TableAddOptions, TableLookupOptions } from './position-table.js';
import { interpolateTable } from './vit.js';
import type { LearnedInterpolateOptions } from './vit.js';

/** Options of {@link LearnedApi.lookup}. */
export interface LearnedLookupOptions extends TableLookupOptions {
  /** Shape `[rows, dim]` of `table` when it is a bare Float32Array. */
  tableDims?: readonly number[];
}

/** Options of {@link LearnedApi.addTo}. */
export interface LearnedAddOptions extends TableAddOptions {
  /** Shape `[rows, dim]` of `table` when it is a bare Float32Array. */
  tableDims?: readonly number[];
}

/** Learned position tables: `pe.learned`. */
export interface LearnedApi {
  /** Gathers `table` rows `[n, dim]` for `length` positions from `offset`, or for `positionIds`. */
  lookup(table: TensorInput, options: LearnedLookupOptions): Tensor;
  /** Adds `table` rows to `x` (`[seq, dim]` or `[batch, seq, dim]`) in place; returns `x`'s data. */
  addTo(x: TensorInput, table: TensorInput, options?: LearnedAddOptions): Float32Array;
  /** Copies `table` into WebAssembly memory once, for repeated lookups and adds. */
  createTable(table: TensorInput, options?: { tableDims?: readonly number[] }): PositionTable;
  /**
   * RoBERTa-style position ids from token ids: real tokens count up from `paddingIdx + 1`, padding
   * tokens get `paddingIdx` (docs/encodings.md section 2). Returns one id per token, row by row.
   */
  robertaPositionIds(inputIds: ArrayLike<number | bigint>, options: { paddingIdx: number; dims?: readonly number[] }): Float64Array;
  /**
   * A ViT table `[numPrefixTokens + h * w, dim]` (prefix rows, then the patch grid row-major) resized
   * to `newGridSize`: `[numPrefixTokens + H * W, dim]`. The grid goes through PyTorch's bicubic
   * interpolation (align_corners false, a = -0.75), as Hugging Face's `interpolate_pos_encoding`
   * with a target size; prefix rows are copied unchanged; equal grids give an exact copy.
   */
  interpolate(table: TensorInput, options: LearnedInterpolateOptions): Tensor;
}

function tableArg(fn: string, table: TensorInput, tableDims: unknown) {
  const t = args.tensor(fn, 'table', table, tableDims, 'tableDims');
  if (t.dims.length !== 2) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: table must have dims [rows, dim], got [${t.dims.join(', ')}]`);
  }
  // The TensorArg itself, not a copy of its fields: a WasmTensor's is located (and checked live)
  // where it is used, and its data getter gives a fresh view.
  return { tensor: t, rows: t.dims[0]!, dim: t.dims[1]! };
}

export function learnedApi(heap: Heap): LearnedApi {
  /** Runs `body` with the table's place in the heap asked for last (copied in then, or where a WasmTensor lives). */
  function withTable<T>(fn: string, table: TensorInput, tableDims: unknown, body: (at: TableAt, rows: number, dim: number, tensor: TensorArg) => T): T {
    const t = tableArg(fn, table, tableDims);
    return withHeap(heap, (scope) => {
      return body(() => scope.tensorIn(t.tensor, 'table'), t.rows, t.dim, t.tensor);
    });
  }

  function lookup(table: TensorInput, options: LearnedLookupOptions): Tensor {
    const fn = 'learned.lookup';
    const opts = args.options(fn, options, ['tableDims', 'length', 'offset', 'positionIds', 'out']);
    return withTable(fn, table, opts.tableDims, (ptr, rows, dim, tensor) => lookupRows(heap, fn, opts, ptr, rows, dim, undefined, [tensor]));
  }

  function addTo(x: TensorInput, table: TensorInput, options?: LearnedAddOptions): Float32Array {
    const fn = 'learned.addTo';
    const opts = args.options(fn, options, ['dims', 'tableDims', 'offset', 'positionIds'], true);
    return withTable(fn, table, opts.tableDims, (ptr, rows, dim) => addRows(heap, fn, x, opts, ptr, rows, dim));
  }

  function createTable(table: TensorInput, options?: { tableDims?: readonly number[] }): PositionTable {
    const fn = 'learned.createTable';
    const opts = args.options(fn, options, ['tableDims'], true);
    const t = tableArg(fn, table, opts.tableDims);
    return withHeap(heap, (scope) => {
      const ptr = scope.tensorCopy(t.tensor, 'the table'); // measured as it is copied; growth-safe
      const created = new PositionTable(heap, ptr, t.rows, t.dim, 'learned table');
      scope.keep(ptr);
      return created;
    });
  }

  function robertaPositionIds(inputIds: ArrayLike<number | bigint>, options: { paddingIdx: number; dims?: readonly number[] }): Float64Array {
    const fn = 'learned.robertaPositionIds';
    const opts = args.options(fn, options, ['paddingIdx', 'dims']);
    const pad = args.integer(fn, 'paddingIdx', args.required(fn, opts, 'paddingIdx'), 0);
    // inputIds is the caller's array-like, read as it is: its getters or traps name it when they throw
    return args.readingCallerValue(fn, 'inputIds', () => {
      if (inputIds === null || typeof inputIds !== 'object' || typeof inputIds.length !== 'number') {
        throw new PosEncError('INVALID_TYPE', `${fn}: inputIds must be an array of token ids, got ${args.describe(inputIds)}`);
      }
      const n = ArrayBuffer.isView(inputIds) ? args.attachedLength(fn, 'inputIds', inputIds) : inputIds.length;
      if (!Number.isSafeInteger(n) || n < 0 || n > 2 ** 31 - 1) { // an array-like's length is the caller's: it sizes the output
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: inputIds.length must be an integer in [0, 2^31 - 1], got ${n}`);
      }
      const dims = opts.dims === undefined ? [1, n] : args.shapeOf(fn, 'dims', opts.dims);
      const seq = dims[dims.length - 1]!;
      if (dims.length !== 2 || dims[0]! * seq !== n) {
        throw new PosEncError('SHAPE_MISMATCH', `${fn}: dims must be [batch, seq] with batch * seq = ${n}, got [${dims.join(', ')}]`);
      }
      const out = new Float64Array(n);
      for (let row = 0; row < n; row += seq) {
        let count = 0;
        for (let s = 0; s < seq; s++) {
          const id = inputIds[row + s];
          const token = typeof id === 'symbol' ? NaN : Number(id); // Number(symbol) would throw a TypeError
          if (!Number.isInteger(token)) {
            throw new PosEncError('INVALID_ARGUMENT', `${fn}: inputIds[${row + s}] must be an integer token id, got ${token}`);
          }
          if (token !== pad) count += 1;
          out[row + s] = token !== pad ? count + pad : pad;
        }
      }
      return out;
    });
  }

  function interpolate(table: TensorInput, options: LearnedInterpolateOptions): Tensor {
    return interpolateTable(heap, table, options);
  }

  return { lookup, addTo, createTable, robertaPositionIds, interpolate };
}
