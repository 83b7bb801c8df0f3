// PositionTable: a [rows, dim] table kept in WebAssembly memory for repeated lookups and adds.
// Used for uploaded learned tables and for cached sinusoidal tables. Its storage is either the full
// rows or, for fast sinusoidal tables, the compact anchored form (posenc/sinusoidal.hpp); both
// answer the same calls through bindings of the same shape.
import * as args from './args.js';
import type { PositionIdsInput, Tensor, TensorInput } from './args.js';
import { PosEncError } from './errors.js';
import { Heap, HeapScope } from './heap.js';
import type { Ptr, RawModule } from './raw-module.js';

/** @internal How a table's storage is read: full rows (tableLookup/tableAdd) or anchored rows. */
export type TableStorage = 'rows' | 'anchored';

function storageOps(raw: RawModule, storage: TableStorage) {
  return storage === 'rows'
    ? { lookup: raw.tableLookup, add: raw.tableAdd }
    : { lookup: raw.anchoredTableLookup, add: raw.anchoredTableAdd };
}
type StorageOps = ReturnType<typeof storageOps>;

/** Options that select positions: a contiguous range starting at `offset`, or explicit ids. */
export interface TablePositionOptions {
  /** Position of the first token (default 0). Ignored when `positionIds` is given. */
  offset?: number;
  /** One id per token (`[seq]`) or per token of each batch row (`[batch, seq]`). */
  positionIds?: PositionIdsInput;
}

/** Options of {@link PositionTable.lookup}. */
export interface TableLookupOptions extends TablePositionOptions {
  /** Number of consecutive positions to gather from `offset` (not with `positionIds`). */
  length?: number;
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
export class PositionTable {
  /** Number of positions (rows). */
  readonly rows: number;
  /** Width of each row. */
  readonly dim: number;
  #heap: Heap;
  #ptr: Ptr;
  #name: string;
  #storage: TableStorage;
  #ops: StorageOps;
  #bytes: number;

  /** @internal Use `pe.learned.createTable` or `pe.sinusoidal.createTable`. */
  constructor(heap: Heap, ptr: Ptr, rows: number, dim: number, name: string, storage: TableStorage = 'rows') {
    this.#heap = heap;
    this.#ptr = ptr;
    this.rows = rows;
    this.dim = dim;
    this.#name = name;
    this.#bytes = (storage === 'rows' ? rows * dim : heap.raw.anchoredTableFloats(rows, dim)) * 4;
    this.#storage = storage;
    this.#ops = storageOps(heap.raw, storage);
  }

  /** Whether {@link PositionTable.dispose} has been called. */
  get disposed(): boolean {
    return this.#ptr === 0;
  }

  /**
   * Bytes of WebAssembly memory the table holds (0 once disposed): `rows * dim * 4` for full rows,
   * much less for a `precision: 'fast'` sinusoidal table, which keeps anchor and offset rows only.
   */
  get bytes(): number {
    return this.#ptr === 0 ? 0 : this.#bytes;
  }

  /** Gathers rows: `[n, dim]` for `length` positions from `offset`, or for `positionIds`. */
  lookup(options: TableLookupOptions): Tensor {
    const fn = `${this.#name}.lookup`;
    const opts = args.options(fn, options, ['length', 'offset', 'positionIds']);
    const table = this.#live(fn);
    return lookupRows(this.#heap, fn, opts, table, this.rows, this.dim, this.#ops.lookup);
  }

  /** Adds rows to `x` (`[seq, dim]` or `[batch, seq, dim]`) in place and returns `x`'s data. */
  addTo(x: TensorInput, options?: TableAddOptions): Float32Array {
    const fn = `${this.#name}.addTo`;
    const opts = args.options(fn, options, ['dims', 'offset', 'positionIds'], true);
    const table = this.#live(fn);
    return addRows(this.#heap, fn, x, opts, table, this.rows, this.dim, this.#ops.add);
  }

  /** A copy of the whole table, `[rows, dim]`. */
  toTensor(): Tensor {
    const fn = `${this.#name}.toTensor`;
    const table = this.#live(fn);
    if (this.#storage === 'anchored') return lookupRows(this.#heap, fn, { length: this.rows }, table, this.rows, this.dim, this.#ops.lookup);
    return { data: this.#heap.f32(table, this.rows * this.dim).slice(), dims: [this.rows, this.dim] };
  }

  /** Frees the table's WebAssembly memory. Safe to call twice. */
  dispose(): void {
    this.#heap.free(this.#ptr);
    this.#ptr = 0;
  }

  #live(fn: string): Ptr {
    if (this.#ptr === 0) throw new PosEncError('DISPOSED', `${fn}: the table was disposed`);
    return this.#ptr;
  }
}

// `Symbol.dispose`, so `using` works where engines support explicit resource management. Kept out
// of the typings: declaring it would break consumers whose TypeScript lib lacks Symbol.dispose.
const disposeSymbol = (Symbol as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');
Object.defineProperty(PositionTable.prototype, disposeSymbol, {
  value(this: PositionTable) {
    this.dispose();
  },
});

/** Gathers table rows already in wasm memory. */
export function lookupRows(
  heap: Heap, fn: string, opts: Record<string, unknown>, table: Ptr, rows: number, dim: number,
  lookup: RawModule['tableLookup'] = heap.raw.tableLookup,
): Tensor {
  const scope = new HeapScope(heap);
  try {
    let count: number;
    let ids: Float64Array | undefined;
    let offset = 0;
    if (opts.positionIds !== undefined) {
      if (opts.length !== undefined) {
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: give either length (with offset) or positionIds, not both`);
      }
      ids = args.positionIds(fn, opts.positionIds, 1, positionCount(opts.positionIds)).ids;
      count = ids.length;
    } else {
      count = args.integer(fn, 'length', args.required(fn, opts, 'length'));
      offset = opts.offset === undefined ? 0 : args.finite(fn, 'offset', opts.offset);
    }
    const out = scope.alloc(count * dim * 4, `${fn} output`);
    const idsPtr = scope.f64In(ids, 'positionIds');
    heap.check(lookup(table, rows, dim, out, count, offset, idsPtr), fn);
    return { data: heap.f32(out, count * dim).slice(), dims: [count, dim] };
  } finally {
    scope.release();
  }
}

/** Adds table rows (already in wasm memory) to x in place. */
export function addRows(
  heap: Heap, fn: string, x: TensorInput, opts: Record<string, unknown>, table: Ptr, rows: number, dim: number,
  add: RawModule['tableAdd'] = heap.raw.tableAdd,
): Float32Array {
  const t = args.tensor(fn, 'x', x, opts.dims);
  const [batch, seq, width] = batchSeqDim(fn, t.dims);
  if (width !== dim) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: x has rows of ${width} values but the table has dim ${dim}`);
  }
  const scope = new HeapScope(heap);
  try {
    const pos = positionsOf(fn, opts, batch, seq);
    const xPtr = scope.tensorIn(t, 'x');
    const idsPtr = scope.f64In(pos.ids, 'positionIds');
    heap.check(add(table, rows, dim, xPtr, batch, seq, pos.offset, idsPtr, pos.perBatch), fn);
    scope.tensorOut(t, xPtr);
    return t.data;
  } finally {
    scope.release();
  }
}

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
  const data = value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) && 'data' in value
    ? (value as { data: unknown }).data
    : value;
  return Array.isArray(data) || ArrayBuffer.isView(data) ? (data as ArrayLike<unknown>).length : 0;
}
