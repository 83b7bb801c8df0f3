// Typed arrays a caller hands posenc, read through the engine's own accessors: a subclass, an own
// property or a Proxy cannot run code or report another length, and a detached or shrunk buffer is
// a DETACHED_BUFFER error instead of the engine's TypeError.
import { PosEncError, callerError, describe } from './errors.js';

/** %TypedArray%.prototype, whose intrinsic getters and methods a subclass cannot replace. */
const TYPED_ARRAY = Object.getPrototypeOf(Uint8Array.prototype) as object;
const accessor = (key: string) => Object.getOwnPropertyDescriptor(TYPED_ARRAY, key)!.get! as (this: ArrayBufferView) => never;
const lengthOf = accessor('length') as (this: ArrayBufferView) => number;
const entriesOf = (TYPED_ARRAY as { entries: (this: ArrayBufferView) => unknown }).entries;

const nameOf = Object.getOwnPropertyDescriptor(TYPED_ARRAY, Symbol.toStringTag)!.get! as (this: unknown) => string | undefined;

/**
 * The engine's name of a typed array's class ('Float32Array', 'Uint8Array' for a Node Buffer...),
 * read from its internal slot: undefined for anything else. A subclass or Proxy cannot change it,
 * and no caller code runs.
 */
export function typedArrayName(value: unknown): string | undefined {
  return nameOf.call(value);
}

/** The buffer of a typed array (still the same object after it is detached). */
export const bufferOf = accessor('buffer') as (this: ArrayBufferView) => ArrayBufferLike;
/** Where a typed array starts in its buffer. */
export const byteOffsetOf = accessor('byteOffset') as (this: ArrayBufferView) => number;
/** %TypedArray%.prototype.set: copies without calling a method the array's class may override. */
export const typedSet = (TYPED_ARRAY as { set: (this: ArrayBufferView, src: ArrayLike<number>, offset?: number) => void }).set;

/**
 * Object.prototype.toString of a caller's value ('[object Float32Array]'...), or '' when reading its
 * tag runs caller code that throws (a Proxy's get trap, a Symbol.toStringTag getter): such a value
 * is then none of the types the tag would name.
 */
export function tagOf(value: unknown): string {
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return '';
  }
}

/**
 * The element count of a typed array, or -1 when its buffer is detached or was shrunk below the
 * array's end (it then has no elements to read, and the engine throws TypeError on most uses).
 */
export function typedLength(view: ArrayBufferView): number {
  const length = lengthOf.call(view); // 0 when detached or out of bounds
  if (length > 0) return length;
  try {
    entriesOf.call(view); // throws a TypeError exactly when the array is detached or out of bounds
  } catch {
    return -1;
  }
  return 0;
}

/** The DETACHED_BUFFER error for argument `name` of `fn`. */
export function detached(fn: string, name: string): PosEncError {
  return new PosEncError('DETACHED_BUFFER', `${fn}: ${name} is a typed array whose buffer was detached (transferred, or a view of ` +
    'WebAssembly memory taken before it grew: take a fresh WasmTensor.view()) or resized below its end');
}

/** The length of typed array `name`, which must still have its buffer (else DETACHED_BUFFER). */
export function attachedLength(fn: string, name: string, view: ArrayBufferView): number {
  const length = typedLength(view);
  if (length < 0) throw detached(fn, name);
  return length;
}

/**
 * `values` (an array of numbers or a non-bigint typed array of exactly `size` elements) as float32,
 * read completely before anything is allocated: a Float32Array as it is, anything else converted
 * by the engine. `heapBuffer` is WebAssembly memory's buffer: a view of it is copied, since the
 * allocation that follows may grow the memory and detach it.
 */
export function float32Values(fn: string, values: unknown, size: number, dims: readonly number[], heapBuffer: ArrayBufferLike): Float32Array {
  const tag = ArrayBuffer.isView(values) ? tagOf(values) : '';
  let out: Float32Array;
  if (tag !== '' && tag !== '[object DataView]' && !tag.includes('Big')) {
    attachedLength(fn, 'values', values as ArrayBufferView);
    out = tag === '[object Float32Array]' ? values as Float32Array : new Float32Array(values as unknown as ArrayLike<number>);
    if (out === values && bufferOf.call(out) === heapBuffer) out = new Float32Array(out); // a view of WebAssembly memory
  } else if (Array.isArray(values)) {
    out = new Float32Array(values.length);
    for (let i = 0; i < values.length; i++) {
      let v: unknown;
      try {
        v = values[i];
      } catch (error) {
        throw callerError(fn, `values[${i}]`, error);
      }
      if (typeof v !== 'number') {
        throw new PosEncError('INVALID_TYPE', `${fn}: values[${i}] must be a number, got ${i in values ? describe(v) : 'a hole (a sparse array)'}`);
      }
      out[i] = v;
    }
  } else {
    throw new PosEncError('INVALID_TYPE', `${fn}: values must be an array of numbers or a (non-bigint) typed array, got ${describe(values)}`);
  }
  if (lengthOf.call(out) !== size) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: values has ${lengthOf.call(out)} elements, but dims [${dims.join(', ')}] need ${size}`);
  }
  return out;
}
