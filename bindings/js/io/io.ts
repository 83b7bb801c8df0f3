// File readers and writers for position tables: .npy (NumPy) and .safetensors (Hugging Face).
// Plain JavaScript, no WebAssembly: readers check every field and throw PosEncError('INVALID_FILE')
// naming what is wrong; float16, bfloat16 and float64 data are converted to float32; writers store
// float32, or float16/bfloat16 rounded to nearest (ties to even).
import * as args from '../runtime/args.js';
import type { Tensor, TensorInput, TensorLike } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { OUTPUT_DTYPES } from './dtypes.js';
import type { OutputDtype } from './dtypes.js';
import { readNpy, writeNpy } from './npy.js';
import type { ReadNpyOptions } from './npy.js';
import { listSafetensors, readSafetensors, writeSafetensors } from './safetensors.js';
import type { SafetensorsHeader } from './safetensors.js';

export type { OutputDtype } from './dtypes.js';
export type { ReadNpyOptions } from './npy.js';
export type { SafetensorsEntry, SafetensorsHeader } from './safetensors.js';

/** The bytes of a file: a Uint8Array (a Node Buffer is one), an ArrayBuffer, or any other typed array / DataView over them. */
export type BytesInput = ArrayBufferLike | ArrayBufferView;

/** Options of {@link IoApi.readSafetensors}. */
export interface ReadSafetensorsOptions {
  /** The tensors to read (default: all; then every tensor must have a float dtype). */
  names?: readonly string[];
}

/** Options of {@link IoApi.writeNpy}. */
export interface WriteNpyOptions {
  /** Shape of `tensor` when it is a bare Float32Array. */
  dims?: readonly number[];
  /**
   * Element type of the file (default `'float32'`): `'float16'` (`'<f2'`) or `'bfloat16'` round to
   * nearest, ties to even. A bfloat16 file has descr `'<V2'`, as `np.save` writes ml_dtypes'
   * bfloat16; `numpy.load` returns raw 2-byte elements (`.view(ml_dtypes.bfloat16)` restores them).
   */
  dtype?: OutputDtype;
}

/** Options of {@link IoApi.writeSafetensors}. */
export interface WriteSafetensorsOptions {
  /** Element type of every tensor (default `'float32'`; `'float16'` is F16, `'bfloat16'` BF16, rounded to nearest, ties to even). */
  dtype?: OutputDtype;
  /** String metadata stored under `__metadata__`. */
  metadata?: Record<string, string>;
}

/** Reading and writing position tables: `pe.io`. */
export interface IoApi {
  /**
   * Reads an `.npy` file (format 1.0/2.0/3.0, either byte order, C or Fortran order) of float16,
   * float32, float64 or bfloat16 into a float32 tensor in C order.
   */
  readNpy(bytes: BytesInput, options?: ReadNpyOptions): Tensor;
  /** Writes a float32 tensor as an `.npy` file (C order, `'<f4'` or the `dtype` asked for) that `numpy.load` reads. */
  writeNpy(tensor: TensorInput, options?: WriteNpyOptions): Uint8Array;
  /**
   * Writes tensors (keyed by name, in that order) as a `.safetensors` file that Hugging Face's
   * `safetensors.safe_open` / `load_file` reads. Each is a `{ data, dims }` tensor: the file stores
   * its shape, so a bare Float32Array (whose shape no option gives here) is refused.
   */
  writeSafetensors(tensors: Record<string, TensorLike>, options?: WriteSafetensorsOptions): Uint8Array;
  /** Lists the tensors of a `.safetensors` file (names, dtypes, dims, byte ranges) and its metadata. Needs only the header bytes. */
  listSafetensors(bytes: BytesInput): SafetensorsHeader;
  /** Reads tensors of a `.safetensors` file (F32, F64, F16, BF16) into float32, keyed by name. */
  readSafetensors(bytes: BytesInput, options?: ReadSafetensorsOptions): Record<string, Tensor>;
}

function bytesOf(fn: string, value: unknown): Uint8Array {
  const tag = args.tagOf(value);
  if (tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') return new Uint8Array(value as ArrayBufferLike);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new PosEncError('INVALID_TYPE', `${fn}: bytes must be a Uint8Array, Buffer or ArrayBuffer, got ${args.describe(value)}`);
}

export function ioApi(): IoApi {
  return {
    readNpy(bytes: BytesInput, options?: ReadNpyOptions): Tensor {
      const fn = 'io.readNpy';
      const opts = args.options(fn, options, ['voidAs'], true);
      if (opts.voidAs !== undefined) args.choice(fn, 'voidAs', opts.voidAs, ['bfloat16']);
      return readNpy(fn, bytesOf(fn, bytes), opts as ReadNpyOptions);
    },

    writeNpy(tensor: TensorInput, options?: WriteNpyOptions): Uint8Array {
      const fn = 'io.writeNpy';
      const opts = args.options(fn, options, ['dims', 'dtype'], true);
      const t = args.tensor(fn, 'tensor', tensor, opts.dims);
      return writeNpy(t.data, t.dims, dtypeOf(fn, opts.dtype));
    },

    writeSafetensors(tensors: Record<string, TensorLike>, options?: WriteSafetensorsOptions): Uint8Array {
      const fn = 'io.writeSafetensors';
      const opts = args.options(fn, options, ['dtype', 'metadata'], true);
      if (tensors === null || typeof tensors !== 'object' || Array.isArray(tensors) || ArrayBuffer.isView(tensors)) {
        throw new PosEncError('INVALID_TYPE', `${fn}: tensors must be an object of named tensors, got ${args.describe(tensors)}`);
      }
      const list = Object.entries(tensors).map(([name, value]) => {
        if (args.isFloat32Array(value)) {
          throw new PosEncError('INVALID_TYPE', `${fn}: tensors['${name}'] is a bare Float32Array; give it with its shape, as { data, dims }`);
        }
        const t = args.tensor(fn, `tensors['${name}']`, value, undefined);
        return { name, data: t.data, dims: t.dims };
      });
      return writeSafetensors(fn, list, dtypeOf(fn, opts.dtype), metadataOf(fn, opts.metadata));
    },

    listSafetensors(bytes: BytesInput): SafetensorsHeader {
      const fn = 'io.listSafetensors';
      return listSafetensors(fn, bytesOf(fn, bytes));
    },

    readSafetensors(bytes: BytesInput, options?: ReadSafetensorsOptions): Record<string, Tensor> {
      const fn = 'io.readSafetensors';
      const opts = args.options(fn, options, ['names'], true);
      let names: string[] | undefined;
      if (opts.names !== undefined) {
        if (!Array.isArray(opts.names) || !opts.names.every((n) => typeof n === 'string')) {
          throw new PosEncError('INVALID_TYPE', `${fn}: names must be an array of tensor names, got ${args.describe(opts.names)}`);
        }
        names = opts.names as string[];
      }
      return readSafetensors(fn, bytesOf(fn, bytes), names);
    },
  };
}

function dtypeOf(fn: string, value: unknown): OutputDtype {
  return value === undefined ? 'float32' : OUTPUT_DTYPES[args.choice(fn, 'dtype', value, OUTPUT_DTYPES)]!;
}

function metadataOf(fn: string, value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw new PosEncError('INVALID_TYPE', `${fn}: metadata must be an object of string values, got ${args.describe(value)}`);
  }
  return value as Record<string, string>;
}
