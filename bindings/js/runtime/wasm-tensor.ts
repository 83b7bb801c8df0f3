// WasmTensor: a float32 tensor whose data lives in WebAssembly memory, for hot loops that call
// posenc repeatedly on the same buffers (fill q and k once, rotate them step after step) without
// copying them in and out on every call. Accepted anywhere a tensor is; the copy path stays the
// default for plain Float32Arrays and { data, dims } tensors.
//
// WebAssembly memory can grow during any call into wasm, and growth detaches every view of the old
// buffer. So a WasmTensor never hands out a long-lived view: view() (and the `data` getter)
// re-derive it from the current buffer whenever the memory has grown.
import { HeapObject } from './disposable.js';
import { float32Values, typedSet } from './typed.js';
import type { Heap } from './heap.js';
import type { Ptr } from './raw-module.js';

/** A float32 result: row-major data and its dims. (Same shape as args.Tensor; repeated to avoid an import cycle.) */
interface TensorCopy {
  data: Float32Array;
  dims: number[];
}

/**
 * A float32 tensor in WebAssembly memory (`pe.memory.tensor(dims)`). Pass it wherever posenc takes
 * a tensor: in-place operations (`rope.apply`, `RopeCache.apply`, `addTo`) then update it where it
 * lives, with no copy in or out, and read-only inputs (tables, caches) are used where they are.
 *
 * Read and write its values through {@link WasmTensor.view} (or `data`), and take a new view after
 * any posenc call: a view taken before WebAssembly memory grew is detached (length 0).
 * Call {@link WasmTensor.dispose} when done.
 */
export class WasmTensor extends HeapObject {
  /** The tensor's shape. */
  readonly dims: readonly number[];
  /** Number of elements (the product of `dims`). */
  readonly size: number;
  #view: Float32Array | undefined = undefined;

  /** @internal Use `pe.memory.tensor`. */
  constructor(heap: Heap, ptr: Ptr, dims: readonly number[]) {
    super(heap, ptr, 'the tensor');
    this.dims = Object.freeze(dims.slice());
    this.size = dims.reduce((a, b) => a * b, 1);
  }

  /**
   * A Float32Array over the tensor's WebAssembly memory: writes to it are the tensor's new values.
   * Valid until WebAssembly memory next grows (any posenc call may grow it): take a fresh one after
   * each call rather than keeping it.
   */
  view(): Float32Array {
    const ptr = this.live('WasmTensor.view');
    const buffer = this.heap.raw.HEAPU8.buffer;
    if (this.#view === undefined || this.#view.buffer !== buffer) this.#view = new Float32Array(buffer, ptr, this.size);
    return this.#view;
  }

  /** The same as {@link WasmTensor.view}, so a WasmTensor is also a `{ data, dims }` tensor. */
  get data(): Float32Array {
    return this.view();
  }

  /** Copies `values` (exactly `size` numbers) into the tensor; returns the tensor. */
  set(values: ArrayLike<number>): this {
    const fn = 'WasmTensor.set';
    this.live(fn);
    const copy = float32Values(fn, values, this.size, this.dims, this.heap.raw.HEAPU8.buffer);
    typedSet.call(this.view(), copy);
    return this;
  }

  /** A copy of the data as a plain `{ data, dims }` tensor, independent of WebAssembly memory. */
  toTensor(): TensorCopy {
    this.live('WasmTensor.toTensor');
    return { data: this.view().slice(), dims: [...this.dims] };
  }

  /** Frees the tensor's WebAssembly memory. Safe to call twice. */
  override dispose(): void {
    super.dispose();
    this.#view = undefined;
  }
}

/** @internal Where a live WasmTensor lives (throws DISPOSED, naming `fn`, if it was disposed). */
export function placementOf(t: WasmTensor, fn: string): { heap: Heap; ptr: Ptr } {
  return HeapObject.placement(t, fn);
}

/** @internal Whether `value` is a WasmTensor (of any posenc instance loaded from this copy of the package). */
export function isWasmTensor(value: unknown): value is WasmTensor {
  return value instanceof WasmTensor;
}
