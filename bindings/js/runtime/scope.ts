// HeapScope: the allocations of one API call, freed together in `finally`, and the one place that
// decides how a tensor argument reaches the heap (copied in, or used where a WasmTensor lives).
import { PosEncError, describe } from './errors.js';
import type { Heap } from './heap.js';
import type { Ptr } from './raw-module.js';
import { isWasmTensor, placementOf } from './wasm-tensor.js';
import type { WasmTensor } from './wasm-tensor.js';

/** A tensor argument resolved by args.tensor(): its float32 data and element count. */
interface TensorData {
  data: Float32Array;
  size: number;
  /** Set when the argument is a WasmTensor: the tensor, and the function and argument names for errors. */
  wasm?: { tensor: WasmTensor; fn: string; name: string } | undefined;
}

/** Allocations for one API call, released together by `release()` (call it in `finally`). */
export class HeapScope {
  private readonly ptrs: Ptr[] = [];

  constructor(readonly heap: Heap) {}

  alloc(bytes: number, what: string): Ptr {
    const ptr = this.heap.alloc(bytes, what);
    this.ptrs.push(ptr);
    return ptr;
  }

  /** Copies a Float32Array into a new heap block. */
  f32In(src: Float32Array, what: string): Ptr {
    const ptr = this.alloc(src.length * 4, what);
    this.heap.raw.HEAPF32.set(src, ptr >>> 2); // the glue's view, fresh after any growth
    return ptr;
  }

  /**
   * The heap address of a tensor argument's data for the duration of the call. Every family goes
   * through this and {@link HeapScope.tensorOut}, so how tensors reach the heap is decided here:
   * a WasmTensor of this instance is used where it lives (zero-copy, and a call that writes at the
   * address updates it in place); anything else is copied into a block freed by release().
   */
  tensorIn(t: TensorData, what: string): Ptr {
    if (t.wasm !== undefined) return this.#resident(t.wasm);
    return this.f32In(t.data, what);
  }

  /** Makes the tensor's data reflect what the call wrote at `ptr` (the pointer tensorIn gave). */
  tensorOut(t: TensorData, ptr: Ptr): void {
    if (t.wasm !== undefined) return; // written in place
    t.data.set(this.heap.raw.HEAPF32.subarray(ptr >>> 2, (ptr >>> 2) + t.size));
  }

  /**
   * A private copy of a tensor argument that the call may overwrite without touching the caller's
   * tensor (for operations that return a new tensor), whatever kind of tensor it is.
   */
  tensorCopy(t: TensorData, what: string): Ptr {
    if (t.wasm === undefined) return this.f32In(t.data, what);
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
   * Space for a generated result of `dims`, and how to hand it back. Without `out` the result is a
   * new Float32Array (copied out of the heap); with a Float32Array `out` it is written into that
   * array; with a WasmTensor `out` it is written where the tensor lives (no copy at all), and the
   * returned data is a fresh view of it.
   */
  output(fn: string, out: unknown, dims: number[], what: string): { ptr: Ptr; finish(): { data: Float32Array; dims: number[] } } {
    const size = dims.reduce((a, b) => a * b, 1);
    const mismatch = (have: string) =>
      new PosEncError('SHAPE_MISMATCH', `${fn}: out ${have}, but ${what} is [${dims.join(', ')}]`);
    if (out === undefined) {
      const ptr = this.alloc(size * 4, what);
      return { ptr, finish: () => ({ data: this.heap.raw.HEAPF32.slice(ptr >>> 2, (ptr >>> 2) + size), dims }) };
    }
    if (isWasmTensor(out)) {
      if (out.dims.join() !== dims.join()) throw mismatch(`has dims [${out.dims.join(', ')}]`);
      const ptr = this.#resident({ tensor: out, fn, name: 'out' });
      return { ptr, finish: () => ({ data: out.view(), dims }) };
    }
    if (ArrayBuffer.isView(out) && Object.prototype.toString.call(out) === '[object Float32Array]') {
      const target = out as Float32Array;
      if (target.length !== size) throw mismatch(`has ${target.length} elements`);
      const ptr = this.alloc(size * 4, what);
      return {
        ptr,
        finish: () => {
          target.set(this.heap.raw.HEAPF32.subarray(ptr >>> 2, (ptr >>> 2) + size));
          return { data: target, dims };
        },
      };
    }
    throw new PosEncError('INVALID_TYPE', `${fn}: out must be a Float32Array or a WasmTensor (pe.memory.tensor), got ${describe(out)}`);
  }

  /** Copies a Float64Array into a new heap block; 0 for `undefined`. */
  f64In(src: Float64Array | undefined, what: string): Ptr {
    if (src === undefined) return 0;
    const ptr = this.alloc(src.length * 8, what);
    this.heap.f64(ptr, src.length).set(src);
    return ptr;
  }

  release(): void {
    if (this.ptrs.length === 0) return; // zero-copy calls allocate nothing; setting length is not free
    for (const ptr of this.ptrs) this.heap.free(ptr);
    this.ptrs.length = 0;
  }
}
