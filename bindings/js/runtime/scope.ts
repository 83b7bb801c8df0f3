// HeapScope: the allocations of one API call, freed together in `finally`, and the one place that
// decides how a tensor argument reaches the heap (copied in, or used where a WasmTensor lives).
// A scope is the act phase of a call: its arguments were read before (args.ts). Each typed array
// is measured again at the moment it is copied, with nothing in between that can run caller code,
// so a block is never shorter than what the kernel is told, whatever happened to the array.
import { PosEncError, describe } from './errors.js';
import { attachedLength, bufferOf, byteOffsetOf, tagOf, typedSet } from './typed.js';
import { MAX_ALLOCATION_BYTES } from './heap.js';
import type { Heap } from './heap.js';
import type { Ptr } from './raw-module.js';
import { isWasmTensor, placementOf } from './wasm-tensor.js';
import type { WasmTensor } from './wasm-tensor.js';

/** A tensor argument resolved by args.tensor(): its float32 data and element count. */
interface TensorData {
  readonly data: Float32Array;
  size: number;
  /** Set when the argument is a WasmTensor: the tensor, and the function and argument names for errors. */
  wasm?: { tensor: WasmTensor; fn: string; name: string } | undefined;
  /** Set for other tensors: the function and argument names for errors, and where `data` started in its buffer when read. */
  read?: { fn: string; name: string; byteOffset: number } | undefined;
}

/** A caller's Float64Array `out`, as {@link HeapScope.float64Out} checked it. */
export interface Float64Target {
  readonly array: Float64Array;
  readonly byteOffset: number;
}

/** Allocations for one API call, released together by `release()` (call it in `finally`). */
export class HeapScope {
  private readonly ptrs: Ptr[] = [];
  /**
   * WebAssembly memory's buffer when the call began: a caller's Float32Array on it is a view of
   * WebAssembly memory (`WasmTensor.view()`), which the scope's own allocations may detach by
   * growing the memory. Such views are followed to the same bytes of the grown memory.
   */
  readonly #startBuffer: ArrayBufferLike;

  constructor(readonly heap: Heap) {
    this.#startBuffer = heap.raw.HEAPU8.buffer;
  }

  /**
   * The current view of a caller's Float32Array of `size` elements starting at `byteOffset` (as
   * read with the arguments): itself, or, for a view of WebAssembly memory that growth detached
   * since the call began, a view of the same bytes in the grown memory. Measured here, with no
   * caller code before the copy that follows: DETACHED_BUFFER or SHAPE_MISMATCH if it has changed.
   */
  current(array: Float32Array, byteOffset: number, size: number, fn: string, name: string): Float32Array {
    let view = array;
    if (bufferOf.call(array) === this.#startBuffer && this.heap.raw.HEAPU8.buffer !== this.#startBuffer) {
      view = new Float32Array(this.heap.raw.HEAPU8.buffer, byteOffset, size);
    }
    const length = attachedLength(fn, name, view);
    if (length !== size) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} has ${length} elements now, but ${size} when the call read it ` +
        '(its buffer was resized during the call)');
    }
    return view;
  }

  alloc(bytes: number, what: string): Ptr {
    const ptr = this.heap.alloc(bytes, what);
    this.ptrs.push(ptr);
    return ptr;
  }

  /**
   * Copies a tensor argument's data into a new block of `t.size` floats (the size the call read,
   * never the array's length now: see {@link HeapScope.current}).
   */
  #copyIn(t: TensorData, what: string): Ptr {
    const ptr = this.alloc(t.size * 4, what); // may grow memory, detaching views of it
    typedSet.call(this.heap.raw.HEAPF32, this.#data(t), ptr >>> 2); // the glue's view, fresh after any growth
    return ptr;
  }

  /** A plain tensor argument's data as it is now (a view of WebAssembly memory followed through growth), measured. */
  #data(t: TensorData): Float32Array {
    const read = t.read ?? { fn: 'posenc', name: 'a tensor', byteOffset: byteOffsetOf.call(t.data) };
    const view = this.current(t.data, read.byteOffset, t.size, read.fn, read.name);
    if (view !== t.data) (t as { data: Float32Array }).data = view; // the call returns the live view
    return view;
  }

  /**
   * The heap address of a tensor argument's data for the duration of the call. Every family goes
   * through this and {@link HeapScope.tensorOut}, so how tensors reach the heap is decided here:
   * a WasmTensor of this instance is used where it lives (zero-copy, and a call that writes at the
   * address updates it in place); anything else is copied into a block freed by release().
   */
  tensorIn(t: TensorData, what: string): Ptr {
    if (t.wasm !== undefined) return this.#resident(t.wasm);
    return this.#copyIn(t, what);
  }

  /** Makes the tensor's data reflect what the call wrote at `ptr` (the pointer tensorIn gave). */
  tensorOut(t: TensorData, ptr: Ptr): void {
    if (t.wasm !== undefined) return; // written in place
    typedSet.call(this.#data(t), this.heap.raw.HEAPF32.subarray(ptr >>> 2, (ptr >>> 2) + t.size));
  }

  /**
   * Copies floats [from, from + count) of a plain (not WasmTensor) tensor argument to `ptr`, a
   * block the caller holds (a piece of the scratch block: see {@link Heap.scratch}).
   */
  copyRange(t: TensorData, ptr: Ptr, from: number, count: number): void {
    typedSet.call(this.heap.raw.HEAPF32, rangeOf(this.#data(t), from, count, t.size), ptr >>> 2);
  }

  /** Copies `count` floats at `ptr` back into floats [from, from + count) of a plain tensor argument. */
  returnRange(t: TensorData, ptr: Ptr, from: number, count: number): void {
    typedSet.call(this.#data(t), this.heap.view(ptr, count), from);
  }

  /**
   * A private copy of a tensor argument that the call may overwrite without touching the caller's
   * tensor (for operations that return a new tensor), whatever kind of tensor it is.
   */
  tensorCopy(t: TensorData, what: string): Ptr {
    if (t.wasm === undefined) return this.#copyIn(t, what);
    const src = this.#resident(t.wasm);
    const ptr = this.alloc(t.size * 4, what);
    this.heap.raw.HEAPU8.copyWithin(ptr, src, src + t.size * 4); // after the allocation: growth-safe
    return ptr;
  }

  #resident(w: { tensor: WasmTensor; fn: string; name: string }): Ptr {
    const placement = placementOf(w.tensor, w.fn);
    if (placement.heap !== this.heap) {
      throw new PosEncError('INVALID_ARGUMENT', `${w.fn}: ${w.name} is a WasmTensor of another posenc instance`);
    }
    return placement.ptr;
  }

  /**
   * Computes a generated result of `dims` and hands it back. With a WasmTensor `out` the kernel
   * writes where the tensor lives (no copy; the returned data is a fresh view of it). Otherwise the
   * result is a new Float32Array, or the caller's Float32Array `out`, filled from a heap block of at
   * most {@link GENERATE_CHUNK_BYTES}: `compute(ptr, start, count)` writes indices
   * [start, start + count) of axis `rows.axis` (for every index of the axes before it) at `ptr`, and
   * each piece is copied out before the next is computed. So WebAssembly memory does not grow to
   * the result's size, results larger than it can hold (2 GiB) can still be returned, and the
   * pieces are copied from cache. What remains of a big call's extra cost over `out` is the new
   * array itself: the first write to each of its fresh pages (`npm run bench` sets it beside a bare
   * `new Float32Array(n)` plus `set()`).
   */
  generate(fn: string, out: unknown, dims: number[], what: string, rows: RowPieces,
    compute: (ptr: Ptr, start: number, count: number) => void, inputs: readonly TensorData[] = []): { data: Float32Array; dims: number[] } {
    const size = dims.reduce((a, b) => a * b, 1);
    const mismatch = (have: string) =>
      new PosEncError('SHAPE_MISMATCH', `${fn}: out ${have}, but ${what} is [${dims.join(', ')}]`);
    let target: Float32Array;
    if (out === undefined) {
      target = newResult(fn, what, dims, size);
    } else if (isWasmTensor(out)) {
      if (out.dims.join() !== dims.join()) throw mismatch(`has dims [${out.dims.join(', ')}]`);
      const ptr = this.#resident({ tensor: out, fn, name: 'out' });
      this.#disjoint(fn, this.heap.raw.HEAPU8.buffer, ptr, size * 4, inputs);
      compute(ptr, 0, dims[rows.axis]!);
      return { data: out.view(), dims };
    } else if (ArrayBuffer.isView(out) && tagOf(out) === '[object Float32Array]') {
      target = out as Float32Array;
      const length = attachedLength(fn, 'out', target);
      if (length !== size) throw mismatch(`has ${length} elements`);
      this.#disjoint(fn, bufferOf.call(target), byteOffsetOf.call(target), size * 4, inputs);
    } else {
      throw new PosEncError('INVALID_TYPE', `${fn}: out must be a Float32Array or a WasmTensor (pe.memory.tensor), got ${describe(out)}`);
    }
    const pieces = piecesOf(dims, rows);
    const byteOffset = byteOffsetOf.call(target);
    const ptr = this.alloc(pieces.rows * pieces.inner * pieces.outer * 4, what);
    // The last piece first: a kernel error that depends on the positions (the far end of the range)
    // then comes before anything is written into the caller's array.
    for (const [start, count] of pieces.order) {
      compute(ptr, start, count);
      const heap = this.heap.raw.HEAPF32; // the glue's view, fresh after any growth
      target = this.current(target, byteOffset, size, fn, 'out'); // an `out` on WebAssembly memory: followed through growth
      const block = count * pieces.inner;
      for (let o = 0; o < pieces.outer; o++) {
        const from = (ptr >>> 2) + o * block;
        typedSet.call(target, heap.subarray(from, from + block), (o * pieces.total + start) * pieces.inner);
      }
    }
    return { data: target, dims };
  }

  /**
   * INVALID_ARGUMENT when `out` (`bytes` at `byteOffset` of `buffer`) shares memory with one of a
   * call's tensor arguments: the kernel would read what it has already written (a WasmTensor out),
   * or a piece copied out would overwrite input that later pieces read.
   */
  #disjoint(fn: string, buffer: ArrayBufferLike, byteOffset: number, bytes: number, inputs: readonly TensorData[]): void {
    for (const t of inputs) {
      let at: { buffer: ArrayBufferLike; byteOffset: number };
      if (t.wasm !== undefined) at = { buffer: this.heap.raw.HEAPU8.buffer, byteOffset: this.#resident(t.wasm) };
      else at = { buffer: bufferOf.call(t.data), byteOffset: t.read?.byteOffset ?? byteOffsetOf.call(t.data) };
      if (at.buffer === buffer && at.byteOffset < byteOffset + bytes && byteOffset < at.byteOffset + t.size * 4) {
        const name = t.wasm?.name ?? t.read?.name ?? 'an input';
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: out overlaps ${name} in memory; pass an array of its own`);
      }
    }
  }

  /**
   * A caller's Float64Array `out` for a float64 result of `n` values, checked (INVALID_TYPE,
   * DETACHED_BUFFER, SHAPE_MISMATCH) where the call reads its arguments; undefined without one.
   * {@link HeapScope.float64Result} writes into it.
   */
  static float64Out(fn: string, out: unknown, n: number, what: string): Float64Target | undefined {
    if (out === undefined) return undefined;
    if (!ArrayBuffer.isView(out) || tagOf(out) !== '[object Float64Array]') {
      throw new PosEncError('INVALID_TYPE', `${fn}: out must be a Float64Array of ${n} values (${what}), got ${describe(out)}`);
    }
    const length = attachedLength(fn, 'out', out);
    if (length !== n) throw new PosEncError('SHAPE_MISMATCH', `${fn}: out has ${length} elements, but ${what} has ${n}`);
    return { array: out as Float64Array, byteOffset: byteOffsetOf.call(out) };
  }

  /**
   * The `n` doubles at `ptr` (from this scope) as the call's result: a new Float64Array, or copied
   * into the caller's `out` (followed to the same bytes if it is a view of WebAssembly memory that
   * the call's allocations grew).
   */
  float64Result(target: Float64Target | undefined, ptr: Ptr, n: number, fn: string): Float64Array {
    const values = this.heap.f64(ptr, n);
    if (target === undefined) return values.slice();
    let view = target.array;
    if (bufferOf.call(view) === this.#startBuffer && this.heap.raw.HEAPU8.buffer !== this.#startBuffer) {
      view = new Float64Array(this.heap.raw.HEAPU8.buffer, target.byteOffset, n);
    }
    if (attachedLength(fn, 'out', view) !== n) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: out has changed length during the call`);
    }
    typedSet.call(view, this.heap.f64(ptr, n)); // a fresh view: growth above cannot have detached it
    return view;
  }

  /** Copies a Float64Array into a new heap block; 0 for `undefined`. */
  f64In(src: Float64Array | undefined, what: string): Ptr {
    if (src === undefined) return 0;
    const ptr = this.alloc(src.length * 8, what); // src is posenc's own array: nothing can have resized it
    this.heap.f64(ptr, src.length).set(src);
    return ptr;
  }

  /**
   * Hands the block at `ptr` (from this scope) to an object that outlives the call (a cache, a table,
   * a WasmTensor): release() then leaves it. Call it last, once the object exists: every block of a
   * call that throws before, however it throws, is freed with the others.
   */
  keep(ptr: Ptr): void {
    const at = this.ptrs.lastIndexOf(ptr);
    if (at >= 0) this.ptrs.splice(at, 1);
  }

  release(): void {
    if (this.ptrs.length === 0) return; // zero-copy calls allocate nothing; setting length is not free
    for (const ptr of this.ptrs) this.heap.free(ptr);
    this.ptrs.length = 0;
  }
}

/** Floats [from, from + count) of `data` (of `size` floats): itself, or a view made with the intrinsic constructor (no caller code). */
function rangeOf(data: Float32Array, from: number, count: number, size: number): Float32Array {
  if (from === 0 && count === size) return data;
  return new Float32Array(bufferOf.call(data), byteOffsetOf.call(data) + from * 4, count);
}

/** Bytes of the heap block a generated result is computed in, piece by piece (a few MiB: cache-sized). */
export const GENERATE_CHUNK_BYTES = 4 << 20;

/**
 * How a generator can compute its result in pieces: indices of axis `axis` can be computed on their
 * own (rows of a table from an offset, query rows of a bias from a query offset). `align`: every
 * piece but the last starts at a multiple of it; `minLast`: the last piece has at least that many
 * indices (or is the whole axis), for kernels whose results depend on where a range starts and how
 * long it is (the 'fast' sinusoidal rows: anchors every 32 rows, short ranges computed exactly).
 * Pass `{ axis, whole: true }` when the positions cannot be split without changing values.
 */
export interface RowPieces {
  axis: number;
  align?: number;
  minLast?: number;
  whole?: boolean;
}

/**
 * Splits `total` indices into pieces of `step` (raised to at least `align` and `minLast`, and to a
 * multiple of `align`); a remainder shorter than `minLast` joins the piece before it. Returns
 * [start, count] pairs in ascending order.
 */
export function planPieces(total: number, step: number, align = 1, minLast = 1): [number, number][] {
  const size = Math.max(Math.floor(step / align), Math.ceil(minLast / align), 1) * align;
  const pieces: [number, number][] = [];
  let start = 0;
  while (total - start > size && total - start - size >= minLast) {
    pieces.push([start, size]);
    start += size;
  }
  pieces.push([start, total - start]);
  return pieces;
}

/** The pieces of `dims` along rows.axis: [start, count] in the order to compute them (the last first). */
function piecesOf(dims: readonly number[], rows: RowPieces) {
  const total = dims[rows.axis]!;
  const outer = dims.slice(0, rows.axis).reduce((a, b) => a * b, 1);
  const inner = dims.slice(rows.axis + 1).reduce((a, b) => a * b, 1);
  const step = Math.floor(GENERATE_CHUNK_BYTES / 4 / Math.max(1, outer * inner));
  const pieces = rows.whole ? [[0, total] as [number, number]] : planPieces(total, step, rows.align, rows.minLast);
  const largest = Math.max(...pieces.map((p) => p[1]));
  return { total, outer, inner, rows: largest, order: [pieces[pieces.length - 1]!, ...pieces.slice(0, -1)] };
}

/**
 * A new zeroed Float32Array for a result. Results stay under the size of one WebAssembly
 * allocation (2 GiB), as with an `out` WasmTensor: a larger one is SIZE_OVERFLOW, not many
 * gigabytes allocated by a typo.
 */
function newResult(fn: string, what: string, dims: readonly number[], size: number): Float32Array {
  if (size * 4 > MAX_ALLOCATION_BYTES) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${what} [${dims.join(', ')}] needs ${size * 4} bytes, more than one result may hold (2 GiB); ` +
      'compute it in parts with the offset options, or write it to a file with the posenc CLI');
  }
  return new Float32Array(size);
}

/**
 * Runs `body` with a new HeapScope over `heap` and releases the scope's blocks when it returns or
 * throws: the one shape every API call's allocations take. Blocks the body hands to an object that
 * outlives the call (`scope.keep`) stay.
 */
export function withHeap<T>(heap: Heap, body: (scope: HeapScope) => T): T {
  const scope = new HeapScope(heap);
  try {
    return body(scope);
  } finally {
    scope.release();
  }
}
