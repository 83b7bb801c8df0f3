// NumPy .npy files (format versions 1.0, 2.0, 3.0; numpy/lib/format.py documents the layout):
//   "\x93NUMPY" | major | minor | header length (uint16 LE in v1, uint32 LE in v2/v3)
//   | header: a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (r, c), }
//     (latin-1 in v1/v2, UTF-8 in v3), padded with spaces and a newline
//   | the elements, C (row-major) or Fortran (column-major) order.
import type { Tensor } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { decodeFloats, elementCount, ITEM_SIZE, PLATFORM_LITTLE_ENDIAN } from './dtypes.js';
import type { FileDtype } from './dtypes.js';
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

/** Reads an .npy file into a float32 tensor (C order). */
export function readNpy(fn: string, bytes: Uint8Array, options: ReadNpyOptions): Tensor {
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
  const dataStart = 8 + lengthBytes + headerLength;
  if (dataStart > bytes.length) {
    throw invalid(fn, `the header says it is ${headerLength} bytes long, but the file ends after ${bytes.length - 8 - lengthBytes}`);
  }
  let text: string;
  try {
    text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1', { fatal: true }).decode(bytes.subarray(8 + lengthBytes, dataStart));
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
  const need = count === undefined ? undefined : count * ITEM_SIZE[dtype];
  const have = bytes.length - dataStart;
  if (need === undefined || need > have) {
    throw invalid(fn, `shape (${dims.join(', ')}) of ${dtype} needs ${need ?? 'too many'} bytes of data, but the file has ${have}: it is truncated`);
  }
  if (need < have) throw invalid(fn, `${have - need} unexpected bytes follow the ${need} bytes of data`);
  const data = decodeFloats(fn, 'the array', bytes, dataStart, count!, dtype, littleEndian);
  return { data: dict.fortran_order ? fortranToC(data, dims) : data, dims: dims.slice() };
}

/** Writes a float32 tensor as an .npy file (version 1.0, or 2.0 for a very long shape), little-endian, C order. */
export function writeNpy(data: Float32Array, dims: readonly number[]): Uint8Array {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let dict = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  // Pad with spaces so the data starts at a multiple of 64 bytes; the header ends with '\n'.
  const version = dict.length + 1 + 10 <= 65535 ? 1 : 2;
  const prefix = version === 1 ? 10 : 12;
  const total = Math.ceil((prefix + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - prefix - 1, ' ') + '\n';
  const out = new Uint8Array(total + data.length * 4);
  out.set(MAGIC, 0);
  out[6] = version;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, dict.length, true);
  else view.setUint32(8, dict.length, true);
  for (let i = 0; i < dict.length; i++) out[prefix + i] = dict.charCodeAt(i); // ASCII only
  if (PLATFORM_LITTLE_ENDIAN) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), total);
  } else {
    for (let i = 0; i < data.length; i++) view.setFloat32(total + 4 * i, data[i]!, true);
  }
  return out;
}
