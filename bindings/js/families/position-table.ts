// PositionTable: a [rows, dim] table kept in WebAssembly memory for repeated lookups and adds.
// Used for uploaded learned tables and for cached sinusoidal tables. Its storage is either the full
// rows or, for large fast sinusoidal tables, the compact anchored form (posenc/sinusoidal.hpp);
// both answer the same calls through bindings of the same shape.
import * as args from '../runtime/args.js';
import type { PositionIdsInput, Tensor, TensorArg, TensorInput } from '../runtime/args.js';
import type { WasmTensor } from '../runtime/wasm-tensor.js';
import { PosEncError } from '../runtime/errors.js';
import { HeapObject } from '../runtime/disposable.js';
import type { Heap } from '../runtime/heap.js';
import { batchSeqDim, positionsOf, rowRequest } from '../runtime/positions.js';
import { withHeap } from '../runtime/scope.js';
import type { Ptr } from '../runtime/raw-module.js';
import type { TableAddArgs, TableLookupArgs } from '../generated/boundary.js';

/**
 * What a table keeps: `'rows'`, every row (learned tables, exact and most `'fast'` sinusoidal
 * tables), or `'anchored'`, the anchor and offset rows a `precision: 'fast'` sinusoidal table is
 * made of (posenc computes each row from them).
 */
export type TableStorage = 'rows' | 'anchored';

/** The bound lookup and add of a storage (tableLookup/tableAdd or their anchored twins, same arguments). */
interface StorageOps {
  lookup: (a: TableLookupArgs) => number;
  add: (a: TableAddArgs) => number;
}

function storageOps(heap: Heap, storage: TableStorage): StorageOps {
  const call = heap.call;
  return storage === 'rows'
    ? { lookup: (a) => call.tableLookup(a), add: (a) => call.tableAdd(a) }
    : { lookup: (a) => call.anchoredTableLookup(a), add: (a) => call.anchoredTableAdd(a) };
}

/** Options that select positions: a contiguous range starting at `offset`, or explicit ids. */
export interface TablePositionOptions {
  /** Position of the first token (default 0); not with `positionIds`. */
  offset?: number;
  /** One id per token (`[seq]`) or per token of each batch row (`[batch, seq]`). */
  positionIds?: PositionIdsInput;
}

/** Options of {@link PositionTable.lookup}. */
export interface TableLookupOptions extends TablePositionOptions {
  /** Number of consecutive positions to gather from `offset` (not with `positionIds`). */
  length?: number;
  /**
   * Where to write the rows: a Float32Array of `n * dim` values (reused from call to call), or a
   * WasmTensor of dims `[n, dim]` (`pe.memory.tensor`), written in place. Default: a new Float32Array.
   */
  out?: Float32Array | WasmTensor;
}

/** Options of {@link PositionTable.toTensor}. */
export interface TableCopyOptions {
  /** Where to write the table: a Float32Array of `rows * dim` values or a WasmTensor of dims `[rows, dim]`. Default: a new Float32Array. */
  out?: Float32Array | WasmTensor;
}

/** Options of {@link PositionTable.addTo}. */
export interface TableAddOptions extends TablePositionOptions {
  /** Shape of `x` when it is a bare Float32Array: `[seq, dim]` or `[batch, seq, dim]`. */
  dims?: readonly number[];
}

/**
 * A position table held in WebAssembly memory, so repeated calls copy only the tensors they touch.
 * Call {@link PositionTable.dispose} when done; later calls then throw `DISPOSED`.
 */
export class PositionTable extends HeapObject {
  /** Number of positions (rows). */
  readonly rows: number;
  /** Width of each row. */
  readonly dim: number;
  /** Full rows, or a fast sinusoidal table's anchored rows (`sinusoidal.createTable`'s `storage`). */
  readonly storage: TableStorage;
  #name: string;
  #ops: StorageOps;
  #bytes: number;

  /** @internal Use `pe.learned.createTable` or `pe.sinusoidal.createTable`. */
  constructor(heap: Heap, ptr: Ptr, rows: number, dim: number, name: string, storage: TableStorage = 'rows') {
    super(heap, ptr, 'the table');
    this.rows = rows;
    this.dim = dim;
    this.#name = name;
    this.#bytes = (storage === 'rows' ? rows * dim : heap.call.anchoredTableFloats({ rows, dim })) * 4;
    this.storage = storage;
    this.#ops = storageOps(heap, storage);
  }

  /**
   * Bytes of WebAssembly memory the table holds (0 once disposed): `rows * dim * 4` for full rows,
   * much less for a `precision: 'fast'` sinusoidal table, which keeps anchor and offset rows only.
   */
  get bytes(): number {
    return this.disposed ? 0 : this.#bytes;
  }

  /** Gathers rows: `[n, dim]` for `length` positions from `offset`, or for `positionIds`. */
  lookup(options: TableLookupOptions): Tensor {
    const fn = `${this.#name}.lookup`;
    const opts = args.options(fn, options, ['length', 'offset', 'positionIds', 'out']);
    this.live(fn);
    return lookupRows(this.heap, fn, opts, () => this.live(fn), this.rows, this.dim, this.#ops.lookup);
  }

  /** Adds rows to `x` (`[seq, dim]` or `[batch, seq, dim]`) in place and returns `x`'s data. */
  addTo(x: TensorInput, options?: TableAddOptions): Float32Array {
    const fn = `${this.#name}.addTo`;
    const opts = args.options(fn, options, ['dims', 'offset', 'positionIds'], true);
    this.live(fn);
    return addRows(this.heap, fn, x, opts, () => this.live(fn), this.rows, this.dim, this.#ops.add);
  }

  /** A copy of the whole table, `[rows, dim]` (into `out` when given). */
  toTensor(options?: TableCopyOptions): Tensor {
    const fn = `${this.#name}.toTensor`;
    const opts = args.options(fn, options, ['out'], true);
    this.live(fn);
    return lookupRows(this.heap, fn, { length: this.rows, out: opts.out }, () => this.live(fn), this.rows, this.dim, this.#ops.lookup);
  }
}

/** Bytes of x one piece of {@link addRows} holds: small enough to stay in L2 cache between copy-in and copy-out. */
const ADD_PIECE_BYTES = 256 << 10;

/**
 * Where a table's rows are: asked for right before the call into wasm, after every option and
 * tensor of the caller's was read, since a getter among them may have disposed (or freed) the table.
 */
export type TableAt = () => Ptr;

/** Gathers table rows already in wasm memory. */
export function lookupRows(
  heap: Heap, fn: string, opts: Record<string, unknown>, tableAt: TableAt, rows: number, dim: number,
  lookup: StorageOps['lookup'] = (a) => heap.call.tableLookup(a), inputs: readonly TensorArg[] = [],
): Tensor {
  const { count, ids, offset } = rowRequest(fn, opts);
  return withHeap(heap, (scope) => {
    const idsPtr = scope.f64In(ids, 'positionIds');
    return scope.generate(fn, opts.out, [count, dim], 'the rows', { axis: 0, whole: true }, (out) =>
      heap.check(lookup({ table: tableAt(), rows, dim, out, count, offset, ids: idsPtr }), fn), inputs);
  });
}

/** Adds table rows (already in wasm memory) to x in place. */
export function addRows(
  heap: Heap, fn: string, x: TensorInput, opts: Record<string, unknown>, tableAt: TableAt, rows: number, dim: number,
  add: StorageOps['add'] = (a) => heap.call.tableAdd(a),
): Float32Array {
  const t = args.tensor(fn, 'x', x, opts.dims);
  const [batch, seq, width] = batchSeqDim(fn, t.dims);
  if (width !== dim) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: x has rows of ${width} values but the table has dim ${dim}`);
  }
  const pos = positionsOf(fn, opts, batch, seq);
  if (t.wasm === undefined && pos.ids === undefined && t.size * 4 > 2 * ADD_PIECE_BYTES &&
    Number.isInteger(pos.offset) && pos.offset >= 0 && pos.offset + seq <= rows) {
    // Consecutive rows inside the table (no piece can fail on its positions), and each row's values
    // depend on its position alone: x goes through the scratch block a cache-sized piece of rows at
    // a time, each added to and copied back while still in cache, so x is read and written once.
    const pieceRows = Math.min(seq, Math.max(1, Math.floor(ADD_PIECE_BYTES / 4 / dim)));
    return withHeap(heap, (scope) => {
      const ptr = heap.scratch(pieceRows * dim * 4, 'the pieces of x');
      const table = tableAt(); // once: for learned.addTo it copies a plain table in
      for (let b = 0; b < batch; b++) {
        for (let start = 0; start < seq; start += pieceRows) {
          const count = Math.min(pieceRows, seq - start);
          const from = (b * seq + start) * dim;
          scope.copyRange(t, ptr, from, count * dim);
          heap.check(add({ table, rows, dim, x: ptr, batch: 1, seq: count, offset: pos.offset + start, ids: 0, perBatch: false }), fn);
          scope.returnRange(t, ptr, from, count * dim);
        }
      }
      return t.data;
    });
  }
  return withHeap(heap, (scope) => {
    const xPtr = scope.tensorIn(t, 'x');
    const idsPtr = scope.f64In(pos.ids, 'positionIds');
    heap.check(add({ table: tableAt(), rows, dim, x: xPtr, batch, seq, offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch }), fn);
    scope.tensorOut(t, xPtr);
    return t.data;
  });
}
