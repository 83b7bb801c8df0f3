/// <reference lib="esnext.disposable" preserve="true" />
// HeapObject: the one base of every posenc object that owns a block of WebAssembly memory
// (WasmTensor, RopeCache, PositionTable). `dispose()` frees the block and is the documented way;
// a FinalizationRegistry frees the blocks of objects a caller forgot, once they are collected.
// The lib reference above is kept in the published typings, so `using x = ...` type-checks for
// consumers whose TypeScript lib setting lacks esnext.disposable (it declares Symbol.dispose).
import { PosEncError } from './errors.js';
import type { Heap } from './heap.js';
import type { Ptr } from './raw-module.js';

/** What the registry needs to free a block: never the object itself, or it would never be collected. */
interface Held {
  heap: Heap;
  ptr: Ptr;
}

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry<Held>((held) => held.heap.free(held.ptr))
  : undefined;

/** `Symbol.dispose` where the engine has it (explicit resource management, `using`), else a stand-in. */
export const disposeSymbol: symbol = (Symbol as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');

/**
 * A JS object owning one block of WebAssembly memory. Disposable: `using t = pe.memory.tensor(...)`
 * disposes of it at the end of the block.
 */
export interface HeapObject extends Disposable {}

/** A JS object owning one block of WebAssembly memory. */
export abstract class HeapObject {
  #heap: Heap;
  #ptr: Ptr;
  /** What the object is, for DISPOSED messages ("the cache", "the tensor"...). */
  readonly #what: string;

  /** @internal */
  protected constructor(heap: Heap, ptr: Ptr, what: string) {
    this.#heap = heap;
    this.#ptr = ptr;
    this.#what = what;
    registry?.register(this, { heap, ptr }, this);
  }

  /** Whether {@link HeapObject.dispose} has been called. */
  get disposed(): boolean {
    return this.#ptr === 0;
  }

  /** Frees the object's WebAssembly memory. Safe to call twice. */
  dispose(): void {
    if (this.#ptr === 0) return;
    registry?.unregister(this);
    this.#heap.free(this.#ptr);
    this.#ptr = 0;
  }

  /** @internal The heap the block lives in. */
  protected get heap(): Heap {
    return this.#heap;
  }

  /** @internal The block's address; throws DISPOSED, naming `fn`, once disposed. */
  protected live(fn: string): Ptr {
    if (this.#ptr === 0) throw new PosEncError('DISPOSED', `${fn}: ${this.#what} was disposed`);
    return this.#ptr;
  }

  /** @internal Where a live object's block is (heap and address). */
  static placement(o: HeapObject, fn: string): { heap: Heap; ptr: Ptr } {
    return { heap: o.#heap, ptr: o.live(fn) };
  }
}

// `using` support: `[Symbol.dispose]()` calls dispose().
Object.defineProperty(HeapObject.prototype, disposeSymbol, {
  value(this: HeapObject) {
    this.dispose();
  },
});
