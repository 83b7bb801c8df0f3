// safetensors files (huggingface/safetensors, docs "Format"), read and written:
//   8 bytes: N, the header size (uint64 little-endian)
//   N bytes: a UTF-8 JSON object { name: { dtype, shape, data_offsets: [begin, end] }, ..., "__metadata__": {...} }
//   the data: tensors in little-endian, C order, at [begin, end) bytes from the end of the header.
import type { Tensor } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { decodeFloats, elementCount, encodeFloats, OUTPUT_ITEM_SIZE } from './dtypes.js';
import type { FileDtype, OutputDtype } from './dtypes.js';

/** One tensor listed in a safetensors header. */
export interface SafetensorsEntry {
  /** Its key in the file, e.g. `'transformer.wpe.weight'`. */
  name: string;
  /** Its element type as the file names it: `'F32'`, `'F16'`, `'BF16'`, `'F64'`, `'I64'`, ... */
  dtype: string;
  /** Its shape. */
  dims: number[];
  /** Whether posenc can read it (F32, F64, F16, BF16; converted to float32). */
  readable: boolean;
  /** First byte of its data, counted from the start of the file. */
  begin: number;
  /** One past its last byte, counted from the start of the file. */
  end: number;
}

/** What a safetensors header says: the tensors (in file order) and the free-form metadata. */
export interface SafetensorsHeader {
  /** Every tensor of the file, in the order of their data. */
  tensors: SafetensorsEntry[];
  /** The `__metadata__` strings (empty when the file has none). */
  metadata: Record<string, string>;
  /** Bytes before the tensor data (8 + the JSON header). */
  dataOffset: number;
}

const READABLE: Readonly<Record<string, FileDtype>> = { F16: 'float16', BF16: 'bfloat16', F32: 'float32', F64: 'float64' };
const ITEM_BYTES: Readonly<Record<string, number>> = {
  BOOL: 1, U8: 1, I8: 1, F8_E4M3: 1, F8_E5M2: 1, F8_E8M0: 1,
  U16: 2, I16: 2, F16: 2, BF16: 2, U32: 4, I32: 4, F32: 4, U64: 8, I64: 8, F64: 8, C64: 8,
};
/** The reference implementation refuses larger headers; a bigger number means this is not a safetensors file. */
const MAX_HEADER_BYTES = 100_000_000;

function invalid(fn: string, message: string): PosEncError {
  return new PosEncError('INVALID_FILE', `${fn}: ${message}`);
}

const isSize = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function entryOf(fn: string, name: string, raw: unknown, dataOffset: number): SafetensorsEntry {
  const where = `tensor '${name}'`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(fn, `${where} is not an object`);
  const { dtype, shape, data_offsets: offsets } = raw as Record<string, unknown>;
  if (typeof dtype !== 'string') throw invalid(fn, `${where} has no dtype string`);
  if (!Array.isArray(shape) || !shape.every(isSize)) throw invalid(fn, `${where} has no valid shape (an array of sizes)`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isSize) || offsets[0]! > offsets[1]!) {
    throw invalid(fn, `${where} has no valid data_offsets ([begin, end] with begin <= end)`);
  }
  const [begin, end] = offsets as [number, number];
  const itemBytes = ITEM_BYTES[dtype];
  const count = elementCount(shape);
  if (itemBytes !== undefined && (count === undefined || count * itemBytes !== end - begin)) {
    throw invalid(fn, `${where}: data_offsets [${begin}, ${end}] span ${end - begin} bytes, but ${dtype} of shape [${shape.join(', ')}] needs ${count === undefined ? 'more' : count * itemBytes}`);
  }
  return { name, dtype, dims: shape.slice(), readable: dtype in READABLE, begin: dataOffset + begin, end: dataOffset + end };
}

/**
 * Reads and checks the header. Needs only the first 8 + N bytes of the file, so a caller with a
 * huge file may pass just its beginning.
 */
export function listSafetensors(fn: string, bytes: Uint8Array): SafetensorsHeader {
  if (bytes.length < 8) throw invalid(fn, `the file is ${bytes.length} bytes, too short for a safetensors header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (size > MAX_HEADER_BYTES || size < 2) {
    throw invalid(fn, `the header size field is ${size}, not a plausible JSON header size: is this a safetensors file?`);
  }
  if (8 + size > bytes.length) {
    throw invalid(fn, `the header is ${size} bytes long (the tensors start at byte ${8 + size}), but the file ends after ${bytes.length} bytes: it is truncated`);
  }
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + size));
  } catch {
    throw invalid(fn, 'the header is not valid UTF-8');
  }
  if (!json.startsWith('{')) throw invalid(fn, 'the header does not start with \'{\' (a JSON object): is this a safetensors file?');
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw invalid(fn, `the header is not valid JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid(fn, 'the header is not a JSON object');
  const dataOffset = 8 + size;
  const metadata: Record<string, string> = {};
  const tensors: SafetensorsEntry[] = [];
  for (const [name, raw] of Object.entries(parsed as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(fn, '__metadata__ is not an object');
      for (const [k, v] of Object.entries(raw)) {
        if (typeof v !== 'string') throw invalid(fn, `__metadata__ value '${k}' is not a string`);
        Object.defineProperty(metadata, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
      continue;
    }
    tensors.push(entryOf(fn, name, raw, dataOffset));
  }
  return { tensors: inDataOrder(fn, tensors, dataOffset), metadata, dataOffset };
}

/**
 * The tensors sorted by their data (begin, then end), each starting where the one before ended and
 * the first at the start of the data, as the reference reader requires (huggingface/safetensors,
 * safetensors/src/tensor.rs: `TryFrom<HashMetadata> for Metadata` sorts by `data_offsets`, then
 * `Metadata::validate` refuses a tensor whose start is not the previous end). The order comes from
 * the offsets, never from the parsed object: JSON.parse puts integer-like keys first.
 */
function inDataOrder(fn: string, tensors: SafetensorsEntry[], dataOffset: number): SafetensorsEntry[] {
  const sorted = tensors.slice().sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = dataOffset;
  sorted.forEach((t, i) => {
    const previous = sorted[i - 1];
    if (t.begin < at) throw invalid(fn, `tensors '${previous!.name}' and '${t.name}' overlap`);
    if (t.begin > at) {
      throw invalid(fn, `tensor '${t.name}' starts at data byte ${t.begin - dataOffset}, but ${previous ? `'${previous.name}' ends at ${at - dataOffset}` : 'the data starts at 0'}: the file has a gap between tensors`);
    }
    at = t.end;
  });
  return sorted;
}

/**
 * Checks that a file of `fileBytes` bytes holds exactly the data its header lists: refuses a
 * truncated file and bytes after the last tensor (the reference reader's
 * `SafeTensors::read_metadata` refuses both as `MetadataIncompleteBuffer`).
 */
export function checkSafetensorsLength(fn: string, header: SafetensorsHeader, fileBytes: number): void {
  const last = header.tensors[header.tensors.length - 1];
  const end = last ? last.end : header.dataOffset;
  if (fileBytes < end) {
    throw invalid(fn, `${last ? `tensor '${last.name}' ends` : 'the header ends'} at byte ${end}, but the file has ${fileBytes} bytes: it is truncated`);
  }
  if (fileBytes > end) {
    throw invalid(fn, `the file has ${fileBytes - end} bytes after the ${last ? `last tensor ('${last.name}', ending at byte ${end})` : `header (${end} bytes)`}; a safetensors file ends with its last tensor`);
  }
}

/** Reads tensors (all, or those named) into float32. */
export function readSafetensors(fn: string, bytes: Uint8Array, names: readonly string[] | undefined): Record<string, Tensor> {
  const header = listSafetensors(fn, bytes);
  checkSafetensorsLength(fn, header, bytes.length);
  let chosen = header.tensors;
  if (names !== undefined) {
    const byName = new Map(header.tensors.map((t) => [t.name, t]));
    chosen = names.map((name) => {
      const entry = byName.get(name);
      if (!entry) {
        const some = header.tensors.slice(0, 8).map((t) => `'${t.name}'`).join(', ');
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: the file has no tensor '${name}'; it holds ${header.tensors.length} tensor(s)${some ? `: ${some}${header.tensors.length > 8 ? ', ...' : ''}` : ''}`);
      }
      return entry;
    });
  }
  const out: Record<string, Tensor> = {};
  for (const entry of chosen) {
    const dtype = READABLE[entry.dtype];
    if (!dtype) {
      throw invalid(fn, `tensor '${entry.name}' has dtype ${entry.dtype}; posenc reads F32, F64, F16 and BF16` +
        (names === undefined ? " (choose the tensors to read with the 'names' option)" : ''));
    }
    const count = elementCount(entry.dims)!;
    const data = decodeFloats(fn, `tensor '${entry.name}'`, bytes, entry.begin, count, dtype, true);
    Object.defineProperty(out, entry.name, { value: { data, dims: entry.dims.slice() }, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The dtype names safetensors gives the element types posenc writes. */
export const SAFETENSORS_DTYPE: Readonly<Record<OutputDtype, string>> = { float32: 'F32', float16: 'F16', bfloat16: 'BF16' };

/** One tensor of a safetensors file to write: its name, element type and shape. */
export interface SafetensorsLayoutEntry {
  name: string;
  dtype: OutputDtype;
  dims: readonly number[];
}

/**
 * The header of a safetensors file holding `entries` in that order, and where each one's data
 * starts (bytes from the start of the file). The JSON is padded with spaces to a multiple of 8
 * bytes, so every tensor is 8-byte aligned, as the reference writer does.
 */
export function safetensorsHeader(
  fn: string, entries: readonly SafetensorsLayoutEntry[], metadata?: Readonly<Record<string, string>>,
): { bytes: Uint8Array; offsets: number[] } {
  const json: Record<string, unknown> = {};
  if (metadata !== undefined && Object.keys(metadata).length > 0) json.__metadata__ = { ...metadata };
  let at = 0;
  const relative: number[] = [];
  for (const e of entries) {
    if (e.name === '__metadata__' || e.name in json) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: tensor name '${e.name}' is ${e.name === '__metadata__' ? 'reserved' : 'used twice'}`);
    }
    const size = elementCount(e.dims)! * OUTPUT_ITEM_SIZE[e.dtype];
    json[e.name] = { dtype: SAFETENSORS_DTYPE[e.dtype], shape: e.dims.slice(), data_offsets: [at, at + size] };
    relative.push(at);
    at += size;
  }
  let text = JSON.stringify(json);
  const encoded = new TextEncoder().encode(text);
  const padded = Math.ceil(encoded.length / 8) * 8;
  text = text + ' '.repeat(padded - encoded.length);
  const bytes = new Uint8Array(8 + padded);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, padded % 2 ** 32, true);
  view.setUint32(4, Math.floor(padded / 2 ** 32), true);
  bytes.set(new TextEncoder().encode(text), 8);
  return { bytes, offsets: relative.map((r) => r + bytes.length) };
}

/** A whole safetensors file holding `tensors` (float32 data) as `dtype`. */
export function writeSafetensors(
  fn: string, tensors: readonly { name: string; data: Float32Array; dims: readonly number[] }[], dtype: OutputDtype,
  metadata?: Readonly<Record<string, string>>,
): Uint8Array {
  const { bytes, offsets } = safetensorsHeader(fn, tensors.map((t) => ({ name: t.name, dtype, dims: t.dims })), metadata);
  const total = tensors.reduce((n, t) => n + t.data.length * OUTPUT_ITEM_SIZE[dtype], bytes.length);
  const out = new Uint8Array(total);
  out.set(bytes, 0);
  tensors.forEach((t, i) => encodeFloats(t.data, dtype, out.subarray(offsets[i]!, offsets[i]! + t.data.length * OUTPUT_ITEM_SIZE[dtype])));
  return out;
}
