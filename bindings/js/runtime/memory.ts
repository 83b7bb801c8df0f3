// pe.memory: tensors that live in WebAssembly memory (the opt-in zero-copy path; see wasm-tensor.ts).
import * as args from './args.js';
import { PosEncError } from './errors.js';
import { MAX_ALLOCATION_BYTES } from './heap.js';
import type { Heap } from './heap.js';
import { withHeap } from './scope.js';
import { float32Values, typedSet } from './typed.js';
import { WasmTensor } from './wasm-tensor.js';

export { WasmTensor } from './wasm-tensor.js';

/** WebAssembly memory management: `pe.memory`. */
export interface MemoryApi {
  /**
   * A float32 tensor of shape `dims` allocated in WebAssembly memory, zero-filled or holding a copy
   * of `values` (exactly as many numbers as `dims` needs). Pass it to any posenc function instead of
   * a Float32Array to skip the copies in and out. Dispose of it when done.
   *
   * @example
   * const q = pe.memory.tensor([1, 32, 1, 128], qValues);
   * for (let step = 0; step < 100; step++) pe.rope.apply(q, null, { layout: 'bhsd', offset: step });
   * const rotated = q.view();   // a fresh view after the calls
   * q.dispose();
   */
  tensor(dims: readonly number[], values?: ArrayLike<number>): WasmTensor;
  /** Current size of WebAssembly memory in bytes (it only grows). */
  readonly bytes: number;
}

export function memoryApi(heap: Heap): MemoryApi {
  function tensor(dims: readonly number[], values?: ArrayLike<number>): WasmTensor {
    const fn = 'memory.tensor';
    const shape = args.shapeOf(fn, 'dims', args.snapshot(fn, dims, 'dims', 1));
    const size = shape.reduce((a, b) => a * b, 1);
    if (size * 4 > MAX_ALLOCATION_BYTES) {
      throw new PosEncError('SIZE_OVERFLOW', `${fn}: dims [${shape.join(', ')}] need ${size * 4} bytes, more than WebAssembly memory can hold (2 GiB)`);
    }
    // Every value is read and checked before the block exists: nothing after the allocation can throw.
    const copy = values === undefined ? undefined : float32Values(fn, values, size, shape, heap.raw.HEAPU8.buffer);
    return withHeap(heap, (scope) => { // frees the block if anything below throws
      const ptr = scope.alloc(size * 4, `${fn}: a tensor of dims [${shape.join(', ')}]`);
      if (copy === undefined) heap.f32(ptr, size).fill(0);
      else typedSet.call(heap.f32(ptr, size), copy);
      const t = new WasmTensor(heap, ptr, shape); // last: the tensor owns the block from here on
      scope.keep(ptr);
      return t;
    });
  }
  return {
    tensor,
    get bytes() {
      return heap.raw.HEAPU8.buffer.byteLength;
    },
  };
}
