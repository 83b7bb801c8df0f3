// Argument checking for the public API: option objects, numbers, tensors and position ids.
// Everything here throws PosEncError with a message that starts with the function name and names
// the argument. Semantic checks that C++ also needs (rotaryDim parity, ids inside a table...) stay
// in C++; this file checks what only JS can get wrong (types, integer-ness, shapes vs lengths).
import { PosEncError, describe } from './errors.js';

export { describe };
import { MAX_ALLOCATION_BYTES } from './heap.js';
import { isWasmTensor, placementOf } from './wasm-tensor.js';
import type { WasmTensor } from './wasm-tensor.js';

/** A float32 tensor as onnxruntime-web and transformers.js produce it: data plus dims. */
export interface TensorLike {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

/**
 * A tensor argument: a Float32Array (with its shape given in the options), a {@link TensorLike},
 * or a {@link WasmTensor} (data already in WebAssembly memory: no copies).
 */
export type TensorInput = Float32Array | TensorLike | WasmTensor;

/** A float32 result: row-major data and its dims (pass it to `new ort.Tensor('float32', data, dims)`). */
export interface Tensor {
  data: Float32Array;
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

type Options = Record<string, unknown>;

/** Validates an option object: a plain object whose keys are all in `known`. `undefined` values count as absent. */
export function options(fn: string, value: unknown, known: readonly string[], optional = false): Options {
  if (value === undefined && optional) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: options must be an object, got ${describe(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
      throw new PosEncError(
        'UNKNOWN_OPTION',
        `${fn}: unknown option '${key}'` + (near ? ` (did you mean '${near}'?)` : `; known options: ${known.join(', ')}`),
      );
    }
  }
  return value as Options;
}

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
  // instanceof is the fast path; the tag check also accepts arrays from other realms (iframes, vm).
  return value instanceof Float32Array || (ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Float32Array]');
}

/** A resolved tensor argument. */
export interface TensorArg {
  /** The values (for a WasmTensor, a getter that re-derives the view, so it survives memory growth). */
  readonly data: Float32Array;
  dims: number[];
  size: number;
  /** Set for a WasmTensor: heap.ts then uses it where it lives. */
  wasm?: { tensor: WasmTensor; fn: string; name: string } | undefined;
}

/**
 * Resolves a tensor argument: a TensorLike carries its dims; a bare Float32Array takes `dims` from
 * the options. Checks that the dims are positive integers whose product equals the data length.
 */
export function tensor(fn: string, name: string, value: unknown, dims: unknown, dimsName = 'dims'): TensorArg {
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
    data = (value as TensorLike).data;
    shape = (value as TensorLike).dims;
    if (!isFloat32Array(data)) {
      throw new PosEncError('INVALID_TYPE', `${fn}: ${name}.data must be a Float32Array (a float32 tensor), got ${describe(data)}`);
    }
    if (dims !== undefined && !sameDims(dims, shape)) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: option '${dimsName}' [${String(dims)}] disagrees with ${name}.dims [${String(shape)}]`);
    }
  } else {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be a Float32Array or a { data, dims } tensor, got ${describe(value)}`);
  }
  const resolved = shapeOf(fn, isFloat32Array(value) ? dimsName : `${name}.dims`, shape);
  const size = resolved.reduce((a, b) => a * b, 1);
  if (size * 4 > MAX_ALLOCATION_BYTES) {
    throw new PosEncError('SIZE_OVERFLOW', `${fn}: ${name} of dims [${resolved.join(', ')}] has ${size} elements, too many for WebAssembly memory`);
  }
  const array = data as Float32Array;
  if (array.length !== size) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} has ${array.length} elements, but dims [${resolved.join(', ')}] need ${size}`);
  }
  return { data: array, dims: resolved, size };
}

/** A TensorArg for a WasmTensor: `data` re-derives the view on each read, so it survives memory growth. */
class WasmTensorArg implements TensorArg {
  readonly dims: number[];
  readonly size: number;
  readonly wasm: { tensor: WasmTensor; fn: string; name: string };
  constructor(tensor: WasmTensor, fn: string, name: string) {
    this.dims = [...tensor.dims]; // not slice(): V8 slices a frozen array ~20x slower (measured, ~230 ns)
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
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: ${name} must be an array of sizes, got ${describe(value)}`);
  }
  const source = value as ArrayLike<number>;
  const dims = new Array<number>(source.length);
  let product = 1;
  for (let i = 0; i < source.length; i++) { // a plain loop: this runs on every call of every function
    const d = Number(source[i]);
    if (!(Number.isInteger(d) && d >= 1 && d <= 2 ** 31 - 1)) integer(fn, `${name}[${i}]`, d, 1); // throws
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
  let data: unknown = value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) && 'data' in value) {
    data = (value as { data: unknown }).data;
  }
  let ids: Float64Array;
  if (Array.isArray(data)) {
    ids = new Float64Array(data.length);
    data.forEach((v, i) => {
      if (typeof v !== 'number') {
        throw new PosEncError('INVALID_TYPE', `${fn}: ${name}[${i}] must be a number, got ${describe(v)}`);
      }
      ids[i] = v;
    });
  } else if (data instanceof BigInt64Array || Object.prototype.toString.call(data) === '[object BigInt64Array]') {
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
    ids = Float64Array.from(data as unknown as ArrayLike<number>);
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

