// pe.tensors: between posenc's float32 `{ data, dims }` and other libraries' tensors. `from` makes a
// float32 copy of an onnxruntime-web or transformers.js tensor (float32, float16 or float64 data)
// or of a TensorFlow.js tensor; `wrap` turns a result into the caller's tensor class.
import { PLATFORM_LITTLE_ENDIAN, decodeFloats, float32Value } from './dtypes.js';
import * as args from '../runtime/args.js';
import type { Tensor, TensorLike } from '../runtime/args.js';
import { PosEncError, describe } from '../runtime/errors.js';
import { isWasmTensor } from '../runtime/wasm-tensor.js';

/** What TensorFlow.js tensors carry, as far as {@link TensorsApi.from} needs it. */
export interface TfjsTensorLike {
  /** The shape (tfjs says `shape` where onnxruntime-web says `dims`). */
  readonly shape: readonly number[];
  /** The element type (`'float32'`, `'int32'`, ...). */
  readonly dtype: string;
  /** The values, downloaded synchronously from the tensor's backend. */
  dataSync(): ArrayLike<number>;
}

/** A tensor {@link TensorsApi.from} converts. */
export type ForeignTensor = TensorLike | TfjsTensorLike;

/**
 * A tensor class constructed as `new Tensor('float32', data, dims)`: onnxruntime-web's `Tensor`
 * and transformers.js's `Tensor` both are.
 */
export type TensorClass<T> = new (type: 'float32', data: Float32Array, dims: number[]) => T;

/** Tensor conversions: `pe.tensors`. Plain JavaScript, no WebAssembly. */
export interface TensorsApi {
  /**
   * A float32 copy `{ data, dims }` of another library's tensor, for posenc calls that need float32
   * data: an onnxruntime-web or transformers.js tensor of type `'float32'`, `'float16'` (its
   * Uint16Array of binary16 bits; every value converts exactly) or `'float64'` (rounded to
   * float32), a `{ data: Float16Array, dims }` tensor, or a TensorFlow.js `float32` tensor (read
   * with `dataSync()`). Integer tensors are refused: they are ids, not values (pass them as
   * `positionIds`).
   *
   * @example
   * const q = pe.tensors.from(outputs.query);          // an ORT float16 tensor
   * pe.rope.apply(q, null, { layout: 'bhsd' });
   * const back = pe.tensors.wrap(ort.Tensor, q);        // an ort.Tensor again (float32)
   */
  from(tensor: ForeignTensor): Tensor;
  /**
   * `result` as an instance of `TensorClass`: `new TensorClass('float32', result.data, result.dims)`,
   * sharing `result.data` (no copy). A {@link WasmTensor} is copied out of WebAssembly memory first.
   *
   * @example
   * import * as ort from 'onnxruntime-web';
   * const table = pe.tensors.wrap(ort.Tensor, pe.sinusoidal.table({ length: 128, dim: 64 }));
   * const feeds = { position_embeddings: table };
   */
  wrap<T>(TensorClass: TensorClass<T>, result: TensorLike): T;
}

const FN_FROM = 'tensors.from';

/** The float32 values of `data` (a float tensor's data of element type `type`), always a new array. */
function floatValues(data: ArrayLike<unknown>, type: string | undefined, what: string): Float32Array {
  const tag = args.tagOf(data);
  if (args.isFloat32Array(data)) return data.slice();
  if (tag === '[object Float16Array]') return Float32Array.from(data as ArrayLike<number>);
  if (type === 'float16' && tag === '[object Uint16Array]') {
    const bits = data as Uint16Array;
    return decodeFloats(FN_FROM, what, new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength), 0, bits.length, 'float16', PLATFORM_LITTLE_ENDIAN);
  }
  if (Array.isArray(data) && (type === undefined || type.startsWith('float'))) {
    return Float32Array.from(data, (v, i) => float32Value(FN_FROM, `${what}.data[${i}]`, args.finite(FN_FROM, `${what}.data[${i}]`, v)));
  }
  if (tag === '[object Float64Array]') {
    const wide = data as Float64Array;
    return decodeFloats(FN_FROM, what, new Uint8Array(wide.buffer, wide.byteOffset, wide.byteLength), 0, wide.length, 'float64', PLATFORM_LITTLE_ENDIAN);
  }
  throw new PosEncError('INVALID_TYPE', `${FN_FROM}: ${what} holds ${type ? `'${type}' values` : describe(data)}; posenc converts ` +
    "float tensors only ('float32', 'float16', 'float64'); integer tensors are position ids: pass them as positionIds");
}

function from(tensor: ForeignTensor): Tensor {
  if (args.isTfjsTensor(tensor)) {
    if (tensor.dtype !== 'float32') {
      throw new PosEncError('INVALID_TYPE', `${FN_FROM}: the TensorFlow.js tensor has dtype '${tensor.dtype}'; cast it first: t.toFloat()`);
    }
    let values: ArrayLike<number>;
    try {
      values = tensor.dataSync();
    } catch (error) {
      throw new PosEncError('INVALID_ARGUMENT', `${FN_FROM}: cannot read the TensorFlow.js tensor (${String(error)})`, { cause: error });
    }
    return checked({ data: Float32Array.from(values), dims: [...tensor.shape] }, 'the tensor');
  }
  if (tensor === null || typeof tensor !== 'object' || !('data' in tensor) || !('dims' in tensor)) {
    throw new PosEncError('INVALID_TYPE', `${FN_FROM}: tensor must be an onnxruntime-web, transformers.js or TensorFlow.js tensor, or { data, dims }, got ${describe(tensor)}`);
  }
  if (isWasmTensor(tensor)) return tensor.toTensor();
  const where = (tensor as { location?: unknown }).location;
  if (typeof where === 'string' && where !== 'cpu' && where !== 'cpu-pinned') {
    throw new PosEncError('INVALID_TYPE', `${FN_FROM}: the tensor is not on the CPU (location '${where}'); download it first: await tensor.getData()`);
  }
  const type = typeof tensor.type === 'string' ? tensor.type : undefined;
  return checked({ data: floatValues(tensor.data, type, 'the tensor'), dims: args.shapeOf(FN_FROM, 'tensor.dims', tensor.dims) }, 'the tensor');
}

/** Checks that dims describe data; returns the tensor. */
function checked(t: Tensor, what: string): Tensor {
  const dims = args.shapeOf(FN_FROM, `${what}'s dims`, t.dims);
  const size = dims.reduce((a, b) => a * b, 1);
  if (size !== t.data.length) {
    throw new PosEncError('SHAPE_MISMATCH', `${FN_FROM}: ${what} has ${t.data.length} values, but its dims [${dims.join(', ')}] need ${size}`);
  }
  return { data: t.data, dims };
}

function wrap<T>(TensorClass: TensorClass<T>, result: TensorLike): T {
  const fn = 'tensors.wrap';
  if (typeof TensorClass !== 'function') {
    throw new PosEncError('INVALID_TYPE', `${fn}: TensorClass must be a tensor class such as ort.Tensor, got ${describe(TensorClass)}`);
  }
  const plain = isWasmTensor(result) ? result.toTensor() : result;
  const t = args.tensor(fn, 'result', plain, undefined);
  return new TensorClass('float32', t.data, [...t.dims]);
}

export function tensorsApi(): TensorsApi {
  return { from, wrap };
}
