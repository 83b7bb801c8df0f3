// Input files for the command line: .npy and .safetensors tensors read piece by piece (C-order
// data is read where it lies in the file), Fortran-order .npy and .json read whole, and JSON configs.
import type { FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';

import type { Tensor } from '../runtime/args.js';
import { describe, PosEncError } from '../runtime/errors.js';
import { decodeFloatsInto, elementCount, ITEM_SIZE } from '../io/dtypes.js';
import type { FileDtype } from '../io/dtypes.js';
import { checkNpyLength, NPY_PREFIX_BYTES, npyDataOffset, parseNpyHeader } from '../io/npy.js';
import { checkSafetensorsLength, listSafetensors } from '../io/safetensors.js';
import type { PosEnc } from '../posenc.js';
import { openFile, readFailure, readJsonFile, readWholeFile } from './files.js';
import { CliError } from './flags.js';
import type { Flag, FlagValues } from './flags.js';

/** A float tensor in a file, read as float32 in C order, any range of elements at a time. */
export interface TensorSource {
  readonly path: string;
  readonly dims: number[];
  /** Reads elements [start, start + out.length) into `out`. */
  read(start: number, out: Float32Array): Promise<void>;
  close(): Promise<void>;
}

/** Reads exactly `length` bytes at `position` into `buffer` (a short file is INVALID_FILE). */
async function readExactly(handle: FileHandle, path: string, buffer: Uint8Array, length: number, position: number): Promise<void> {
  let done = 0;
  while (done < length) {
    let n: number;
    try {
      ({ bytesRead: n } = await handle.read(buffer, done, length - done, position + done));
    } catch (error) {
      throw readFailure(error, path);
    }
    if (n === 0) throw new PosEncError('INVALID_FILE', `${path}: the file ended after ${position + done} bytes; it is truncated`);
    done += n;
  }
}

/** A tensor stored contiguously (C order) at `offset` of an open file. */
class FileTensor implements TensorSource {
  #buffer = new Uint8Array(0);

  constructor(
    readonly path: string,
    readonly dims: number[],
    private readonly handle: FileHandle,
    private readonly offset: number,
    private readonly dtype: FileDtype,
    private readonly littleEndian: boolean,
  ) {}

  async read(start: number, out: Float32Array): Promise<void> {
    const size = ITEM_SIZE[this.dtype];
    const length = out.length * size;
    if (this.#buffer.length < length) this.#buffer = new Uint8Array(length);
    await readExactly(this.handle, this.path, this.#buffer, length, this.offset + start * size);
    decodeFloatsInto(this.path, `the values from element ${start} on`, this.#buffer, 0, out.length, this.dtype, this.littleEndian, out);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/** A tensor held in memory (read whole: Fortran-order .npy, .json). */
class MemoryTensor implements TensorSource {
  constructor(readonly path: string, readonly dims: number[], private readonly data: Float32Array) {}

  async read(start: number, out: Float32Array): Promise<void> {
    out.set(this.data.subarray(start, start + out.length));
  }

  async close(): Promise<void> {}
}

/**
 * The flags of a tensor file: `--NAME FILE` and `--NAME-tensor KEY`, which picks a tensor of a
 * .safetensors file holding several (every file flag has its own, so two files never share one).
 */
export function tensorFileFlags(name: string, help: string, required = true): Flag[] {
  return [
    { name, kind: 'text', value: 'FILE', required, help: `${help}: .npy, .safetensors or .json` },
    { name: `${name}-tensor`, kind: 'text', value: 'KEY', help: `the tensor to read when --${name} is a .safetensors file with several` },
  ];
}

/**
 * Opens the float tensor file of the flag `--NAME` (`flag`): `.npy`, `.safetensors` (the tensor that
 * `--NAME-tensor` names, or its only tensor) or `.json` (`{ "dims": [...], "data": [...] }`).
 */
export async function openTensor(pe: PosEnc, values: FlagValues, flag: string): Promise<TensorSource> {
  const path = values[flag] as string;
  const nameFlag = `${flag}-tensor`;
  const name = values[nameFlag] as string | undefined;
  flag = `--${flag}`;
  const ext = extname(path).toLowerCase();
  if (ext === '.json') {
    const t = jsonTensor(path, await readJsonFile(path));
    return new MemoryTensor(path, t.dims, t.data);
  }
  if (ext !== '.npy' && ext !== '.safetensors') {
    throw new CliError(`${flag} ${path}: unknown file type '${ext}'; use .npy, .safetensors or .json`);
  }
  if (name !== undefined && ext !== '.safetensors') throw new CliError(`--${nameFlag} picks a tensor of a .safetensors file; ${path} is not one`);
  const { handle, size } = await openFile(path);
  try {
    const source = ext === '.npy' ? await npySource(pe, handle, path, size) : await safetensorsSource(handle, path, size, name, `--${nameFlag}`);
    if (source instanceof MemoryTensor) await handle.close();
    return source;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function npySource(pe: PosEnc, handle: FileHandle, path: string, size: number): Promise<TensorSource> {
  const prefix = new Uint8Array(Math.min(size, NPY_PREFIX_BYTES));
  await readExactly(handle, path, prefix, prefix.length, 0);
  const dataOffset = npyDataOffset(path, prefix);
  const head = new Uint8Array(Math.min(size, dataOffset));
  await readExactly(handle, path, head, head.length, 0);
  const header = parseNpyHeader(path, head, {});
  checkNpyLength(path, header, size);
  if (header.fortranOrder) {
    // Column-major data cannot be read row by row: read it whole (io.readNpy reorders it).
    return new MemoryTensor(path, header.dims, pe.io.readNpy(await readWholeFile(path)).data);
  }
  return new FileTensor(path, header.dims, handle, header.dataOffset, header.dtype, header.littleEndian);
}

const SAFETENSORS_DTYPES: Readonly<Record<string, FileDtype>> = { F16: 'float16', BF16: 'bfloat16', F32: 'float32', F64: 'float64' };

async function safetensorsSource(handle: FileHandle, path: string, size: number, name: string | undefined, nameFlag: string): Promise<TensorSource> {
  const prefix = new Uint8Array(Math.min(size, 8));
  await readExactly(handle, path, prefix, prefix.length, 0);
  const view = new DataView(prefix.buffer);
  const headerSize = prefix.length < 8 ? 0 : view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  const head = new Uint8Array(Math.min(size, 8 + Math.min(headerSize, 100_000_000)));
  await readExactly(handle, path, head, head.length, 0);
  const header = listSafetensors(path, head);
  checkSafetensorsLength(path, header, size);
  const { tensors } = header;
  const names = tensors.map((t) => t.name);
  const chosen = name ?? (names.length === 1 ? names[0] : undefined);
  if (chosen === undefined) {
    throw new CliError(`${path} holds ${names.length} tensors; choose one with ${nameFlag} (${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''})`);
  }
  const entry = tensors.find((t) => t.name === chosen);
  if (!entry) throw new CliError(`${nameFlag} ${chosen}: ${path} has no such tensor (it holds ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''})`);
  const dtype = SAFETENSORS_DTYPES[entry.dtype];
  if (!dtype) throw new PosEncError('INVALID_FILE', `${path}: tensor '${entry.name}' has dtype ${entry.dtype}; posenc reads F32, F64, F16 and BF16`);
  return new FileTensor(path, entry.dims, handle, entry.begin, dtype, true);
}

/**
 * A `{ "dims": [...], "data": [...] }` object as a float32 tensor: numbers within the float32 range,
 * or the strings "Infinity", "-Infinity", "NaN". Anything else is refused with its index, never
 * rounded to infinity or read as 0 (a literal such as 1e39 overflows float32; 1e400 even float64).
 */
function jsonTensor(path: string, parsed: unknown): Tensor {
  const shape = 'expected an object { "dims": [...], "data": [...] }';
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new PosEncError('INVALID_FILE', `${path}: ${shape}, the file holds ${describe(parsed)}`);
  }
  const t = parsed as Record<string, unknown>;
  const unknown = Object.keys(t).filter((k) => k !== 'dims' && k !== 'data');
  if (unknown.length) throw new PosEncError('INVALID_FILE', `${path}: unknown key '${unknown[0]}'; ${shape}`);
  if (!Array.isArray(t.dims) || !t.dims.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new PosEncError('INVALID_FILE', `${path}: "dims" must be an array of sizes (integers >= 0); ${shape}`);
  }
  if (!Array.isArray(t.data)) throw new PosEncError('INVALID_FILE', `${path}: "data" must be an array of numbers; ${shape}`);
  const dims = t.dims as number[];
  const count = elementCount(dims);
  if (count !== t.data.length) {
    throw new PosEncError('INVALID_FILE', `${path}: dims [${dims.join(', ')}] need ${count ?? 'too many'} values, data has ${t.data.length}`);
  }
  const data = Float32Array.from(t.data as unknown[], (v, i) => {
    if (v === 'Infinity' || v === '-Infinity' || v === 'NaN') return Number(v);
    if (typeof v !== 'number') throw new PosEncError('INVALID_FILE', `${path}: data[${i}] is ${describe(v)}, not a number`);
    const f = Math.fround(v);
    if (!Number.isFinite(f)) {
      throw new PosEncError('INVALID_FILE', `${path}: data[${i}] is ${Number.isFinite(v) ? v : 'a number beyond the float64 range'}, ` +
        'beyond the float32 range (±3.4e38); write "Infinity" or "-Infinity" for an infinity');
    }
    return f;
  });
  return { data, dims };
}

/** The whole tensor of the flag `--NAME` in memory (for tables the API keeps whole anyway, e.g. a learned table). */
export async function readTensor(pe: PosEnc, values: FlagValues, flag: string): Promise<Tensor> {
  const source = await openTensor(pe, values, flag);
  try {
    const data = new Float32Array(source.dims.reduce((a, b) => a * b, 1));
    await source.read(0, data);
    return { data, dims: source.dims.slice() };
  } finally {
    await source.close();
  }
}
