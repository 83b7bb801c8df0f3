// NumPy .npy files (format versions 1.0, 2.0, 3.0; numpy/lib/format.py documents the layout):
//   "\x93NUMPY" | major | minor | header length (uint16 LE in v1, uint32 LE in v2/v3)
//   | header: a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (r, c), }
//     (latin-1 in v1/v2, UTF-8 in v3), padded with spaces and a newline
//   | the elements, C (row-major) or Fortran (column-major) order.
import type { Tensor } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { decodeFloats, elementCount, encodeFloats, ITEM_SIZE, OUTPUT_ITEM_SIZE, PLATFORM_LITTLE_ENDIAN } from './dtypes.js';
import type { FileDtype, OutputDtype } from './dtypes.js';
import { parsePythonLiteral } from './python-literal.js';

/** Options of `pe.io.readNpy`. */
export interface ReadNpyOptions {
  /**
   * How to read 2-byte raw elements (descr `'<V2'`). `np.save` writes bfloat16 arrays (ml_dtypes,
   * JAX) that way, losing the type; pass `'bfloat16'` to read such a file. Default: an error.
   */
  voidAs?: 'bfloat16';
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const KIND: Readonly<Record<string, FileDtype>> = { f2: 'float16', f4: 'float32', f8: 'float64' };

function invalid(fn: string, message: string): PosEncError {
  return new PosEncError('INVALID_FILE', `${fn}: ${message}`);
}

/** The element type and byte order of a descr string such as '<f4', '>f8' or 'bfloat16'. */
function parseDescr(fn: string, descr: unknown, voidAs: 'bfloat16' | undefined): { dtype: FileDtype; littleEndian: boolean } {
  if (typeof descr !== 'string') {
    throw invalid(fn, `descr is ${Array.isArray(descr) ? 'a list (a structured dtype)' : typeof descr}; posenc reads plain float arrays`);
  }
  // ml_dtypes' own name (written by tools that store str(dtype) instead of np.save's '<V2').
  if (descr === 'bfloat16' || descr === '<bfloat16') return { dtype: 'bfloat16', littleEndian: true };
  const m = /^([<>|=]?)([a-zA-Z])(\d+)$/.exec(descr);
  const order = m?.[1] ?? '';
  const kind = m ? `${m[2]}${m[3]}` : '';
  if (m && (kind === 'V2') && voidAs === 'bfloat16') return { dtype: 'bfloat16', littleEndian: order !== '>' };
  if (!m || !(kind in KIND)) {
    const hint = m && kind === 'V2'
      ? " (2-byte raw elements: how np.save stores bfloat16; pass { voidAs: 'bfloat16' } to read them as bfloat16)"
      : '';
    throw invalid(fn, `dtype '${descr}' is not supported${hint}; posenc reads float16 ('<f2'), float32 ('<f4'), float64 ('<f8') and bfloat16`);
  }
  if (order === '|') throw invalid(fn, `dtype '${descr}' has no byte order ('|'), which a ${m[3]}-byte float needs`);
  // '=' means the writer's native order; numpy itself always writes '<' or '>'.
  const littleEndian = order === '>' ? false : order === '<' ? true : PLATFORM_LITTLE_ENDIAN;
  return { dtype: KIND[kind]!, littleEndian };
}

function parseShape(fn: string, shape: unknown): number[] {
  if (!Array.isArray(shape)) throw invalid(fn, `shape must be a tuple of sizes, got ${typeof shape}`);
  shape.forEach((d, i) => {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) throw invalid(fn, `shape[${i}] is ${String(d)}, not a size`);
  });
  return shape as number[];
}

/** Reorders column-major (Fortran) elements into row-major order. */
function fortranToC(data: Float32Array, dims: readonly number[]): Float32Array {
  if (dims.length < 2) return data;
  const out = new Float32Array(data.length);
  const rank = dims.length;
  // strides of the column-major source, per C index
  const strides = new Array<number>(rank);
  let s = 1;
  for (let k = 0; k < rank; k++) {
    strides[k] = s;
    s *= dims[k]!;
  }
  const index = new Array<number>(rank).fill(0);
  let src = 0;
  for (let i = 0; i < out.length; i++) {
    out[i] = data[src]!;
    for (let k = rank - 1; k >= 0; k--) { // advance the row-major counter, last axis fastest
      index[k]! += 1;
      src += strides[k]!;
      if (index[k]! < dims[k]!) break;
      src -= strides[k]! * dims[k]!;
      index[k] = 0;
    }
  }
  return out;
}

/** What an .npy header says: the element type, order and shape, and where the data starts. */
export interface NpyHeader {
  dtype: FileDtype;
  littleEndian: boolean;
  fortranOrder: boolean;
  dims: number[];
  /** Elements (the product of dims). */
  count: number;
  /** Byte offset of the first element. */
  dataOffset: number;
}

/** Bytes of the fixed prefix (magic, version, header length) of an .npy file: enough to learn the header's length. */
export const NPY_PREFIX_BYTES = 12;

/**
 * The offset at which the data of an .npy file starts, from its first bytes (at least
 * NPY_PREFIX_BYTES, or the whole file if shorter): what to read before {@link parseNpyHeader}.
 */
export function npyDataOffset(fn: string, bytes: Uint8Array): number {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw invalid(fn, bytes.length < 10
      ? `the file is ${bytes.length} bytes, too short for an .npy header`
      : 'not an .npy file: it does not start with the magic bytes \\x93NUMPY');
  }
  const major = bytes[6]!;
  const minor = bytes[7]!;
  if (![1, 2, 3].includes(major) || minor !== 0) {
    throw invalid(fn, `.npy format version ${major}.${minor} is not supported (posenc reads 1.0, 2.0 and 3.0)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengthBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lengthBytes) throw invalid(fn, 'the file ends inside the header length');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  return 8 + lengthBytes + headerLength;
}

/**
 * Parses the header of an .npy file from its first bytes (at least up to the data offset
 * npyDataOffset gives; the data itself is not needed, so a caller can stream the rest).
 */
export function parseNpyHeader(fn: string, bytes: Uint8Array, options: ReadNpyOptions): NpyHeader {
  const dataOffset = npyDataOffset(fn, bytes);
  const major = bytes[6]!;
  const lengthBytes = major === 1 ? 2 : 4;
  if (dataOffset > bytes.length) {
    throw invalid(fn, `the header says it is ${dataOffset - 8 - lengthBytes} bytes long (the data starts at byte ${dataOffset}), ` +
      `but the file ends after ${bytes.length} bytes: it is truncated`);
  }
  let text: string;
  try {
    text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1', { fatal: true }).decode(bytes.subarray(8 + lengthBytes, dataOffset));
  } catch {
    throw invalid(fn, 'the header is not valid UTF-8');
  }
  let header: unknown;
  try {
    header = parsePythonLiteral(text);
  } catch (error) {
    throw invalid(fn, `the header is not a Python dict literal: ${(error as Error).message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw invalid(fn, 'the header is not a dict');
  }
  const dict = header as Record<string, unknown>;
  for (const key of ['descr', 'fortran_order', 'shape']) {
    if (!(key in dict)) throw invalid(fn, `the header has no '${key}' key`);
  }
  const extra = Object.keys(dict).find((k) => !['descr', 'fortran_order', 'shape'].includes(k));
  if (extra !== undefined) throw invalid(fn, `the header has an unexpected key '${extra}'`);
  const { dtype, littleEndian } = parseDescr(fn, dict.descr, options.voidAs);
  if (typeof dict.fortran_order !== 'boolean') throw invalid(fn, 'fortran_order must be True or False');
  const dims = parseShape(fn, dict.shape);
  const count = elementCount(dims);
  if (count === undefined || !Number.isSafeInteger(count * ITEM_SIZE[dtype])) {
    throw invalid(fn, `shape (${dims.join(', ')}) has too many elements to address`);
  }
  return { dtype, littleEndian, fortranOrder: dict.fortran_order, dims, count, dataOffset };
}

/**
 * Checks that a file of `fileBytes` bytes holds exactly the data its header describes (after
 * the header, nothing missing and nothing extra).
 */
export function checkNpyLength(fn: string, header: NpyHeader, fileBytes: number): void {
  const need = header.count * ITEM_SIZE[header.dtype];
  const have = fileBytes - header.dataOffset;
  if (need > have) {
    throw invalid(fn, `shape (${header.dims.join(', ')}) of ${header.dtype} needs ${need} bytes of data, but the file has ${have}: it is truncated`);
  }
  if (need < have) throw invalid(fn, `${have - need} unexpected bytes follow the ${need} bytes of data`);
}

/** Reads an .npy file into a float32 tensor (C order). */
export function readNpy(fn: string, bytes: Uint8Array, options: ReadNpyOptions): Tensor {
  const header = parseNpyHeader(fn, bytes, options);
  checkNpyLength(fn, header, bytes.length);
  const { dims } = header;
  const data = decodeFloats(fn, 'the array', bytes, header.dataOffset, header.count, header.dtype, header.littleEndian);
  return { data: header.fortranOrder ? fortranToC(data, dims) : data, dims: dims.slice() };
}

/** The descr an .npy header gives each element type posenc writes ('<V2' for bfloat16, as np.save stores ml_dtypes' bfloat16). */
const WRITE_DESCR: Readonly<Record<OutputDtype, string>> = { float32: '<f4', float16: '<f2', bfloat16: '<V2' };

/**
 * The header of an .npy file holding `dims` elements of `dtype` in C order, little-endian
 * (version 1.0, or 2.0 for a very long shape), padded so that the data starts at a multiple of 64
 * bytes; the data follows it directly.
 */
export function npyHeader(dims: readonly number[], dtype: OutputDtype = 'float32'): Uint8Array {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let dict = `{'descr': '${WRITE_DESCR[dtype]}', 'fortran_order': False, 'shape': ${shape}, }`;
  // Pad with spaces so the data starts at a multiple of 64 bytes; the header ends with '\n'.
  const version = dict.length + 1 + 10 <= 65535 ? 1 : 2;
  const prefix = version === 1 ? 10 : 12;
  const total = Math.ceil((prefix + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - prefix - 1, ' ') + '\n';
  const out = new Uint8Array(total);
  out.set(MAGIC, 0);
  out[6] = version;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, dict.length, true);
  else view.setUint32(8, dict.length, true);
  for (let i = 0; i < dict.length; i++) out[prefix + i] = dict.charCodeAt(i); // ASCII only
  return out;
}

/** Writes a float32 tensor as an .npy file of `dtype` (rounded to nearest, ties to even). */
export function writeNpy(data: Float32Array, dims: readonly number[], dtype: OutputDtype = 'float32'): Uint8Array {
  const header = npyHeader(dims, dtype);
  const out = new Uint8Array(header.length + data.length * OUTPUT_ITEM_SIZE[dtype]);
  out.set(header, 0);
  encodeFloats(data, dtype, out.subarray(header.length));
  return out;
}
