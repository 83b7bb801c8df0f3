// File readers and writers for position tables: .npy (NumPy) and .safetensors (Hugging Face).
// Plain JavaScript, no WebAssembly: readers check every field and throw PosEncError('INVALID_FILE')
// naming what is wrong; float16, bfloat16 and float64 data are converted to float32.
import * as args from '../runtime/args.js';
import type { Tensor, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { readNpy, writeNpy } from './npy.js';
import type { ReadNpyOptions } from './npy.js';
import { listSafetensors, readSafetensors } from './safetensors.js';
import type { SafetensorsHeader } from './safetensors.js';

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
}

/** Reading and writing position tables: `pe.io`. */
export interface IoApi {
  /**
   * Reads an `.npy` file (format 1.0/2.0/3.0, either byte order, C or Fortran order) of float16,
   * float32, float64 or bfloat16 into a float32 tensor in C order.
   */
  readNpy(bytes: BytesInput, options?: ReadNpyOptions): Tensor;
  /** Writes a float32 tensor as an `.npy` file (`'<f4'`, C order) that `numpy.load` reads. */
  writeNpy(tensor: TensorInput, options?: WriteNpyOptions): Uint8Array;
  /** Lists the tensors of a `.safetensors` file (names, dtypes, dims, byte ranges) and its metadata. Needs only the header bytes. */
  listSafetensors(bytes: BytesInput): SafetensorsHeader;
  /** Reads tensors of a `.safetensors` file (F32, F64, F16, BF16) into float32, keyed by name. */
  readSafetensors(bytes: BytesInput, options?: ReadSafetensorsOptions): Record<string, Tensor>;
}

function bytesOf(fn: string, value: unknown): Uint8Array {
  const tag = Object.prototype.toString.call(value);
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
      const opts = args.options(fn, options, ['dims'], true);
      const t = args.tensor(fn, 'tensor', tensor, opts.dims);
      return writeNpy(t.data, t.dims);
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
