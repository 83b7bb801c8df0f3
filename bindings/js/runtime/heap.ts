// The heap of one module instance: aligned allocation with clear errors, fresh views, status checks.
// Views are re-derived from the module after every allocation and call: when WebAssembly memory
// grows, every older view is detached (docs/building.md#6-memory).
import { ARG_BLOCK_BYTES } from '../generated/boundary.js';
import { PosEncError, statusError } from './errors.js';
import { BoundCalls } from './raw-module.js';
import type { Ptr, RawModule } from './raw-module.js';

/** The largest block one allocation may request (wasm32 memory is capped at 2 GiB here). */
export const MAX_ALLOCATION_BYTES = 2 ** 31 - 1;

/** Alignment of every block posenc allocates: one cache line. */
const ALIGNMENT = 64;

export class Heap {
  /**
   * The bound functions, called with named arguments (bindings/boundary/functions.mjs). Their
   * arguments go through one block this instance keeps for as long as it lives (calls never nest).
   */
  readonly call: BoundCalls;

  constructor(readonly raw: RawModule) {
    this.call = new BoundCalls(raw, this.alloc(ARG_BLOCK_BYTES, 'the argument block'));
  }

  /**
   * Allocates `bytes`, 64-byte aligned, naming `what` if it cannot. malloc only aligns to 8 bytes,
   * and half of its blocks would start in the middle of a 16-byte SIMD vector: then a quarter of
   * the kernels' vector loads straddle two cache lines, which slows RoPE measurably. So the block
   * is over-allocated by 64 bytes and the address rounded up; malloc's own address is kept in the
   * 4 bytes just below the returned one, for free().
   */
  alloc(bytes: number, what: string): Ptr {
    if (bytes > MAX_ALLOCATION_BYTES) {
      throw new PosEncError(
        'SIZE_OVERFLOW',
        `${what} needs ${bytes} bytes, more than WebAssembly memory can hold (2 GiB)`,
      );
    }
    const base = this.raw._malloc(Math.max(bytes, 8) + ALIGNMENT);
    if (base === 0) {
      throw new PosEncError('OUT_OF_MEMORY', `out of WebAssembly memory allocating ${bytes} bytes for ${what}`);
    }
    const ptr = (base + ALIGNMENT) & -ALIGNMENT; // 8 to 64 bytes above base: room for the base address
    this.raw.HEAPU32[(ptr >>> 2) - 1] = base;
    return ptr;
  }

  /** Frees a block from alloc() (0 is ignored). */
  free(ptr: Ptr): void {
    if (ptr !== 0) this.raw._free(this.raw.HEAPU32[(ptr >>> 2) - 1]!);
  }

  /** The block {@link Heap.scratch} hands out, kept for the instance's life: its address and size. */
  #scratch = { ptr: 0, bytes: 0 };

  /**
   * A block of at least `bytes` that this instance keeps and reuses, for the pieces a call copies
   * in and out (calls never nest): no malloc, no free and no fresh pages per call. It only grows,
   * to the largest piece asked for (a few hundred KiB: callers ask for cache-sized pieces). The
   * block's contents do not outlive the call that wrote them. May grow WebAssembly memory.
   */
  scratch(bytes: number, what: string): Ptr {
    if (bytes > this.#scratch.bytes) {
      const ptr = this.alloc(bytes, what); // first: a failure leaves the old block in place
      this.free(this.#scratch.ptr);
      this.#scratch = { ptr, bytes };
    }
    return this.#scratch.ptr;
  }

  /** Views handed out by {@link Heap.view}, for the memory buffer they were made on. */
  #views: { buffer: ArrayBufferLike; list: Float32Array[] } = { buffer: new ArrayBuffer(0), list: [] };

  /**
   * A Float32Array of `n` floats at `ptr`, reused while WebAssembly memory has not grown (a call
   * that copies the same pieces every time makes no new view objects). Read it at once: it is
   * only valid until the next call into wasm.
   */
  view(ptr: Ptr, n: number): Float32Array {
    const buffer = this.raw.HEAPU8.buffer;
    if (this.#views.buffer !== buffer) this.#views = { buffer, list: [] };
    const list = this.#views.list;
    for (const v of list) if (v.byteOffset === ptr && v.length === n) return v;
    const v = new Float32Array(buffer, ptr, n);
    if (list.length >= 8) list.shift();
    list.push(v);
    return v;
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
    if (status !== 0) throw statusError(status, `${context}: ${this.call.lastErrorMessage()}`);
  }
}
