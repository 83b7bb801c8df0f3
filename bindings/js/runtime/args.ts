// Argument checking for the public API: option objects, numbers, tensors and position ids.
// Everything here throws PosEncError with a message that starts with the function name and names
// the argument. Semantic checks that C++ also needs (rotaryDim parity, ids inside a table...) stay
// in C++; this file checks what only JS can get wrong (types, integer-ness, shapes vs lengths).
// Read, then act: options and other caller values are read once, first (caller.ts); HeapScope
// (scope.ts) measures each typed array again when it copies it.
import { PosEncError, callerError, describe } from './errors.js';
import type { PosEncErrorCode } from './errors.js';

export { describe };
export { camelCaseFor, options, readingCallerValue, snapshot } from './caller.js';
export { attachedLength, detached, tagOf, typedLength } from './typed.js';
import { MAX_ALLOCATION_BYTES } from './heap.js';
import { attachedLength, byteOffsetOf, detached, tagOf, typedLength } from './typed.js';
import { isWasmTensor, placementOf } from './wasm-tensor.js';
import type { WasmTensor } from './wasm-tensor.js';

/**
 * A tensor as onnxruntime-web, transformers.js and posenc's own {@link WasmTensor} carry one:
 * row-major `data` plus `dims` (and, from those libraries, its element `type`). Matched by shape,
 * so a real `ort.Tensor` from a session or a transformers.js `Tensor` type-checks as it is.
 *
 * posenc computes in float32: `data` must be a Float32Array at run time (functions that update
 * their input do so in place, in that array). A tensor of another type (`'float16'`, `'int64'`...),
 * a tensor that is not on the CPU, or a TensorFlow.js tensor is an `INVALID_TYPE` error that says
 * how to convert it: `pe.tensors.from(t)` makes a float32 copy.
 */
export interface TensorLike {
  /** The values, row-major (a Float32Array; other element types are refused with a how-to). */
  readonly data: ArrayLike<unknown>;
  /** The shape. */
  readonly dims: readonly number[];
  /** The element type name, as onnxruntime-web and transformers.js tensors carry it (`'float32'`). */
  readonly type?: string;
}

/**
 * A tensor argument: a Float32Array (with its shape given in the options) or a {@link TensorLike}
 * (an onnxruntime-web or transformers.js tensor, a `{ data, dims }` object, or a {@link WasmTensor},
 * whose data already lives in WebAssembly memory: no copies).
 */
export type TensorInput = Float32Array | TensorLike;

/** A float32 result: row-major data and its dims (pass it to `new ort.Tensor('float32', data, dims)`). */
export interface Tensor {
  /** The values, row-major. */
  data: Float32Array;
  /** The shape. */
  dims: number[];
}

/**
 * Position ids: one per token (`[seq]`, shared by every batch row) or one per token of each row
 * (`[batch, seq]`, row-major). Any numeric array works, including the `BigInt64Array` of an int64
 * onnxruntime tensor, or a tensor-like `{ data, dims }` of one.
 */
export type PositionIdsInput =
  | readonly number[]
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | BigInt64Array
  | { readonly data: PositionIdsInput; readonly dims?: readonly number[] };

import type { Options } from './caller.js';
import { readingCallerValue, snapshot } from './caller.js';

/** The option `name`, which must be present. */
export function required(fn: string, opts: Options, name: string): unknown {
  const value = opts[name];
  if (value === undefined) throw new PosEncError('MISSING_OPTION', `${fn}: option '${name}' is required`);
  return value;
}

/** An integer >= `min` (and small enough to be a wasm size). */
export function integer(fn: string, name: string, value: unknown, min = 1): number {
  if (typeof value !== 'number') {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be a number, got ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > 2 ** 31 - 1) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name} must be an integer >= ${min}, got ${value}`);
  }
  return value;
}

/** A finite number (optionally > 0). */
export function finite(fn: string, name: string, value: unknown, positive = false): number {
  if (typeof value !== 'number') {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be a number, got ${describe(value)}`);
  }
  if (!Number.isFinite(value) || (positive && !(value > 0))) {
    throw new PosEncError(
      'INVALID_ARGUMENT',
      `${fn}: ${name} must be a finite number${positive ? ' > 0' : ''}, got ${value}`,
    );
  }
  return value;
}

/** One of the allowed strings; returns its index. */
export function choice<T extends string>(fn: string, name: string, value: unknown, allowed: readonly T[]): number {
  const index = allowed.indexOf(value as T);
  if (index < 0) {
    throw new PosEncError(
      typeof value === 'string' ? 'INVALID_ARGUMENT' : 'INVALID_TYPE',
      `${fn}: ${name} must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${describe(value)}`,
    );
  }
  return index;
}

export function isFloat32Array(value: unknown): value is Float32Array {
  // isView refuses a Proxy of a Float32Array (which passes instanceof, and would run caller code and
  // report any length while being copied); the tag check accepts arrays from other realms (iframes, vm).
  return ArrayBuffer.isView(value) && (value instanceof Float32Array || tagOf(value) === '[object Float32Array]');
}

/**
 * The elements of a list from options or a config, each checked by `check(element, 'name[i]')`:
 * the one reader of such lists. A plain array must be dense (a hole, as in `[2, , 2]`, is an error
 * naming its index: never skipped, never read as undefined); a typed array is accepted when `typed`
 * (DETACHED_BUFFER if its buffer is gone). `code` is the error code for a wrong container
 * (INVALID_TYPE for options, INVALID_CONFIG for config files).
 */
export function listOf<T>(fn: string, name: string, value: unknown, check: (element: unknown, name: string) => T,
  { typed = false, code = 'INVALID_TYPE' as PosEncErrorCode } = {}): T[] {
  if (typed && ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const n = attachedLength(fn, name, value);
    const list = value as unknown as ArrayLike<unknown>;
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = check(list[i], `${name}[${i}]`);
    return out;
  }
  if (!Array.isArray(value)) {
    throw new PosEncError(code, `${fn}: ${name} must be ${typed ? 'an array or a typed array' : 'a list'}, got ${describe(value)}`);
  }
  const out = new Array<T>(value.length);
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) {
      throw new PosEncError(code === 'INVALID_TYPE' ? 'INVALID_ARGUMENT' : code, `${fn}: ${name}[${i}] is missing (a hole in a sparse array)`);
    }
    out[i] = check(value[i], `${name}[${i}]`);
  }
  return out;
}

/** A resolved tensor argument. */
export interface TensorArg {
  /** The values (for a WasmTensor, a getter that re-derives the view, so it survives memory growth). */
  readonly data: Float32Array;
  dims: number[];
  size: number;
  /** Set for a WasmTensor: heap.ts then uses it where it lives. */
  wasm?: { tensor: WasmTensor; fn: string; name: string } | undefined;
  /** Set for other tensors: names for errors, and where `data` started in its buffer when read (scope.ts follows views of WebAssembly memory through growth). */
  read?: { fn: string; name: string; byteOffset: number } | undefined;
}

/**
 * Resolves a tensor argument: a TensorLike carries its dims; a bare Float32Array takes `dims` from
 * the options. Checks that the dims are positive integers whose product equals the data length.
 */
export function tensor(fn: string, name: string, value: unknown, dims: unknown, dimsName = 'dims'): TensorArg {
  return readingCallerValue(fn, name, () => tensorOf(fn, name, value, dims, dimsName));
}

function tensorOf(fn: string, name: string, value: unknown, dims: unknown, dimsName: string): TensorArg {
  if (isWasmTensor(value)) return wasmTensor(fn, name, value, dims, dimsName);
  let data: unknown;
  let shape: unknown;
  if (isFloat32Array(value)) {
    if (dims === undefined) {
      throw new PosEncError('MISSING_OPTION', `${fn}: option '${dimsName}' is required when ${name} is a Float32Array`);
    }
    data = value;
    shape = dims;
  } else if (value !== null && typeof value === 'object' && 'data' in value && 'dims' in value) {
    // Each field read once (a tensor class may compute them in getters), before anything is measured.
    let where: unknown;
    try {
      where = (value as { location?: unknown }).location; // onnxruntime-web: 'cpu', 'gpu-buffer', 'texture'...
    } catch (error) {
      throw callerError(fn, `${name}.location`, error);
    }
    if (typeof where === 'string' && where !== 'cpu' && where !== 'cpu-pinned') { // before data, whose getter would throw
      throw new PosEncError('INVALID_TYPE', `${fn}: ${name} is not on the CPU (its location is '${where}'); ` +
        `download it first (await ${name}.getData()) and pass a float32 tensor of that data`);
    }
    try {
      data = (value as TensorLike).data;
      shape = snapshot(fn, (value as TensorLike).dims, `${name}.dims`, 1);
    } catch (error) {
      throw callerError(fn, name, error);
    }
    if (!isFloat32Array(data)) throw new PosEncError('INVALID_TYPE', notFloat32(fn, name, value as TensorLike, data));
    if (dims !== undefined && !sameDims(dims, shape)) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: option '${dimsName}' [${String(dims)}] disagrees with ${name}.dims [${String(shape)}]`);
    }
  } else if (readsAsTfjsTensor(fn, name, value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} is a TensorFlow.js tensor; pass pe.tensors.from(${name}) ` +
      `(a float32 { data, dims } copy), and turn results back into tensors with tf.tensor(result.data, result.dims)`);
  } else {
    const hint = ArrayBuffer.isView(value) ? `; convert it first: new Float32Array(${name})` : '';
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be a Float32Array or a { data, dims } tensor, got ${describe(value)}${hint}`);
  }
  const resolved = shapeOf(fn, isFloat32Array(value) ? dimsName : `${name}.dims`, shape);
  const size = resolved.reduce((a, b) => a * b, 1);
  if (size * 4 > MAX_ALLOCATION_BYTES) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${name} of dims [${resolved.join(', ')}] has ${size} elements, too many for WebAssembly memory`);
  }
  const array = data as Float32Array;
  const length = attachedLength(fn, isFloat32Array(value) ? name : `${name}.data`, array);
  if (length !== size) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} has ${length} elements, but dims [${resolved.join(', ')}] need ${size}`);
  }
  return { data: array, dims: resolved, size, read: { fn, name, byteOffset: byteOffsetOf.call(array) } };
}

/** isTfjsTensor of a caller's value: what its getters throw is a PosEncError naming the argument. */
function readsAsTfjsTensor(fn: string, name: string, value: unknown): boolean {
  try {
    return isTfjsTensor(value);
  } catch (error) {
    throw callerError(fn, name, error);
  }
}

/** Whether `value` looks like a TensorFlow.js tensor (shape, dtype and dataSync; no dims). */
export function isTfjsTensor(value: unknown): value is { shape: number[]; dtype: string; dataSync(): ArrayLike<number> } {
  return value !== null && typeof value === 'object' && Array.isArray((value as { shape?: unknown }).shape)
    && typeof (value as { dtype?: unknown }).dtype === 'string' && typeof (value as { dataSync?: unknown }).dataSync === 'function';
}

/** The INVALID_TYPE message for a tensor whose data is not float32: what it is and how to convert it. */
function notFloat32(fn: string, name: string, value: TensorLike, data: unknown): string {
  let type: string | undefined;
  try {
    type = typeof value.type === 'string' ? value.type : undefined;
  } catch (error) {
    throw callerError(fn, `${name}.type`, error);
  }
  const tag = tagOf(data);
  const half = type === 'float16' || tag === '[object Float16Array]';
  const float = half || type === 'float64' || tag === '[object Float64Array]' || (type === undefined && Array.isArray(data));
  const what = half ? 'a float16 tensor' : type ? `a '${type}' tensor` : `a tensor of ${describe(data)}`;
  return `${fn}: ${name} is ${what}, and posenc computes in float32 (${name}.data must be a Float32Array)` +
    (float ? `: pass pe.tensors.from(${name}), a float32 copy${half ? ' (float16 values convert exactly)' : ''}` : '');
}

/** A TensorArg for a WasmTensor: `data` re-derives the view on each read, so it survives memory growth. */
class WasmTensorArg implements TensorArg {
  readonly dims: number[];
  readonly size: number;
  readonly wasm: { tensor: WasmTensor; fn: string; name: string };
  constructor(tensor: WasmTensor, fn: string, name: string) {
    this.dims = [...tensor.dims]; // not slice(): V8 slices a frozen array far more slowly
    this.size = tensor.size;
    this.wasm = { tensor, fn, name };
  }
  get data(): Float32Array {
    return this.wasm.tensor.view();
  }
}

function wasmTensor(fn: string, name: string, value: WasmTensor, dims: unknown, dimsName: string): TensorArg {
  placementOf(value, fn); // DISPOSED if it was disposed
  if (dims !== undefined && !sameDims(dims, value.dims)) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: option '${dimsName}' [${String(dims)}] disagrees with ${name}.dims [${value.dims.join(', ')}]`);
  }
  return new WasmTensorArg(value, fn, name);
}

/** Checks a dims array: positive integers. */
export function shapeOf(fn: string, name: string, value: unknown): number[] {
  return readingCallerValue(fn, name, () => shapeFrom(fn, name, value));
}

function shapeFrom(fn: string, name: string, value: unknown): number[] {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be an array of sizes, got ${describe(value)}`);
  }
  const source = value as ArrayLike<unknown>;
  const length = Array.isArray(value) ? value.length : attachedLength(fn, name, value as ArrayBufferView);
  const dims = new Array<number>(length);
  let product = 1;
  for (let i = 0; i < length; i++) { // a plain loop: this runs on every call of every function
    const v = source[i]; // numbers (or the bigints of an int64 shape): no valueOf, no caller code
    const d = typeof v === 'bigint' ? Number(v) : v as number;
    if (!(typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= 2 ** 31 - 1)) integer(fn, `${name}[${i}]`, d, 1); // throws
    dims[i] = d;
    product *= d;
  }
  if (product > Number.MAX_SAFE_INTEGER) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${name} [${dims.join(', ')}] has too many elements`);
  }
  return dims;
}

function sameDims(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) && !ArrayBuffer.isView(a)) return false;
  const x = Array.from(a as ArrayLike<number>);
  const y = Array.from(b as ArrayLike<number>);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Resolved position ids: float64 values and whether there is one list per batch row. */
export interface PositionIds {
  ids: Float64Array;
  perBatch: boolean;
}

/**
 * Converts position ids for `batch` rows of `seq` tokens: `seq` values are shared by all rows,
 * `batch * seq` values give each row its own (with batch 1 both mean the same).
 */
export function positionIds(fn: string, value: unknown, batch: number, seq: number, name = 'positionIds'): PositionIds {
  return readingCallerValue(fn, name, () => positionIdsOf(fn, value, batch, seq, name));
}

function positionIdsOf(fn: string, value: unknown, batch: number, seq: number, name: string): PositionIds {
  let data: unknown = value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) && 'data' in value) {
    data = (value as { data: unknown }).data;
  }
  let ids: Float64Array;
  if (Array.isArray(data)) {
    ids = new Float64Array(data.length);
    for (let i = 0; i < data.length; i++) { // not forEach, which skips the holes of [1, , 3]
      const v: unknown = data[i];
      if (typeof v !== 'number') {
        throw new PosEncError('INVALID_TYPE', `${fn}: ${name}[${i}] must be a number, got ${i in data ? describe(v) : 'a hole (a sparse array)'}`);
      }
      ids[i] = v;
    }
  } else if (ArrayBuffer.isView(data) && typedLength(data) < 0) {
    throw detached(fn, name);
  } else if (data instanceof BigInt64Array || tagOf(data) === '[object BigInt64Array]') {
    const big = data as BigInt64Array;
    ids = new Float64Array(big.length);
    for (let i = 0; i < big.length; i++) {
      const v = big[i]!;
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new PosEncError('OUT_OF_RANGE', `${fn}: ${name}[${i}] is ${v}, beyond the exactly representable positions (2^53)`);
      }
      ids[i] = Number(v);
    }
  } else if (ArrayBuffer.isView(data) && !(data instanceof DataView) && !(data instanceof BigUint64Array)) {
    ids = new Float64Array(data as unknown as ArrayLike<number>); // the engine's copy: no iterator, no caller code
  } else {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be an array of numbers or a typed array, got ${describe(value)}`);
  }
  if (ids.length === 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name} must hold at least one id`);
  if (ids.length === seq) return { ids, perBatch: false };
  if (ids.length === batch * seq) return { ids, perBatch: true };
  throw new PosEncError(
    'SHAPE_MISMATCH',
    `${fn}: ${name} has ${ids.length} values; expected ${seq} (one per token)` +
      (batch > 1 ? ` or ${batch * seq} (one per token of each of ${batch} rows)` : ''),
  );
}

