// Heap helpers: allocation with clear errors, fresh views, and per-call scopes that free in `finally`.
// Views are re-derived from the module after every allocation and call: when WebAssembly memory
// grows, every older view is detached (TOOLCHAIN.md section 6).
import { PosEncError, statusError } from './errors.js';
import type { Ptr, RawModule } from './raw-module.js';

/** A tensor argument resolved by args.tensor(): its float32 data and element count. */
interface TensorData {
  data: Float32Array;
  size: number;
}

/** The largest block one allocation may request (wasm32 memory is capped at 2 GiB here). */
export const MAX_ALLOCATION_BYTES = 2 ** 31 - 1;

export class Heap {
  constructor(readonly raw: RawModule) {}

  /** Allocates `bytes` (8-byte aligned), naming `what` if it cannot. */
  alloc(bytes: number, what: string): Ptr {
    if (bytes > MAX_ALLOCATION_BYTES) {
      throw new PosEncError(
        'SIZE_OVERFLOW',
        `${what} needs ${bytes} bytes, more than WebAssembly memory can hold (2 GiB)`,
      );
    }
    const ptr = this.raw._malloc(Math.max(bytes, 8));
    if (ptr === 0) {
      throw new PosEncError('OUT_OF_MEMORY', `out of WebAssembly memory allocating ${bytes} bytes for ${what}`);
    }
    return ptr;
  }

  free(ptr: Ptr): void {
    if (ptr !== 0) this.raw._free(ptr);
  }

  /** A fresh Float32Array view of `n` floats at `ptr`; valid until the next call into wasm. */
  f32(ptr: Ptr, n: number): Float32Array {
    return new Float32Array(this.raw.HEAPU8.buffer, ptr, n);
  }

  /** A fresh Float64Array view of `n` doubles at `ptr`; valid until the next call into wasm. */
  f64(ptr: Ptr, n: number): Float64Array {
    return new Float64Array(this.raw.HEAPU8.buffer, ptr, n);
  }

  /** Throws the PosEncError for a non-zero status returned by a bound function. */
  check(status: number, context: string): void {
    if (status !== 0) throw statusError(status, `${context}: ${this.raw.lastErrorMessage()}`);
  }
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
    this.heap.f32(ptr, src.length).set(src);
    return ptr;
  }

  /**
   * The heap address of a tensor argument's data for the duration of the call (today: a copy).
   * Every family goes through this and {@link HeapScope.tensorOut}, so how tensors reach the heap
   * is decided in one place.
   */
  tensorIn(t: TensorData, what: string): Ptr {
    return this.f32In(t.data, what);
  }

  /** Makes the tensor's data reflect what the call wrote at `ptr` (the pointer tensorIn gave). */
  tensorOut(t: TensorData, ptr: Ptr): void {
    t.data.set(this.heap.f32(ptr, t.size));
  }

  /** Copies a Float64Array into a new heap block; 0 for `undefined`. */
  f64In(src: Float64Array | undefined, what: string): Ptr {
    if (src === undefined) return 0;
    const ptr = this.alloc(src.length * 8, what);
    this.heap.f64(ptr, src.length).set(src);
    return ptr;
  }

  release(): void {
    for (const ptr of this.ptrs) this.heap.free(ptr);
    this.ptrs.length = 0;
  }
}
