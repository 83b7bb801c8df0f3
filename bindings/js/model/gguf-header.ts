// The GGUF header (ggml docs/gguf.md, versions 2 and 3, little-endian): its key/value metadata and
// tensor list read from bytes, and a metadata-only header written back. No network, no Node APIs:
// works on bytes in browsers and Node (gguf-source.ts streams them from a Blob, file or stream).
// Every table keyed by the file's strings is a Map. Malformed input is INVALID_FILE.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { attachedLength, bufferOf, byteOffsetOf, typedArrayName } from '../runtime/typed.js';

/** GGUF value types, index = the type id of the format. */
export const GGUF_TYPES = ['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'float32', 'bool', 'string', 'array',
  'uint64', 'int64', 'float64'] as const;
/** The type of a GGUF metadata value, as the format names it. */
export type GgufType = (typeof GGUF_TYPES)[number];

/** One metadata value: its GGUF type (for arrays, the element type) and value. */
export interface GgufValue {
  /** The value's type (`'array'` for a list). */
  type: GgufType;
  /** For `type: 'array'`: the element type. */
  itemType?: GgufType;
  /** The value: a number (64-bit integers beyond 2^53 are refused), boolean, string, or a list of them. */
  value: number | boolean | string | (number | boolean | string)[];
}

/** A tensor's entry in the header. */
export interface GgufTensorInfo {
  name: string;
  dims: number[];
  /** ggml type id (0 = F32, 1 = F16). */
  ggmlType: number;
  /** Byte offset of its data from the start of the data section. */
  offset: number;
}

/** The header as posenc reads it: every table keyed by the file's strings is a Map. */
export interface GgufHeader {
  version: number;
  /**
   * The key/values, by key (each key once). Arrays longer than {@link MAX_KEPT_ARRAY} (tokenizer
   * lists) are stepped over, not kept nor decoded: `value` is `[]`, `count` says how long.
   */
  metadata: Map<string, GgufValue & { count?: number }>;
  /** The tensors, by name (each name once). */
  tensors: Map<string, GgufTensorInfo>;
  /** Byte offset of the data section (after alignment) from the start of the file. */
  dataOffset: number;
  /** `general.alignment` (default 32). */
  alignment: number;
}

const MAGIC = 0x46554747; // "GGUF" little-endian
/** The most bytes posenc reads as a GGUF header (key/values and tensor list); real models' headers are a few MiB, mostly the tokenizer's lists. */
export const MAX_GGUF_HEADER_BYTES = 64 * 1024 * 1024;
/** The largest `general.alignment` posenc reads (a power of two; ggml's default is 32). */
export const MAX_GGUF_ALIGNMENT = 65536;
/** Arrays of more elements than this (tokenizer lists) are walked and checked but not kept: no key posenc reads holds more (one entry per layer at most). */
export const MAX_KEPT_ARRAY = 65536;
/** ggml.h GGML_MAX_DIMS. */
const MAX_DIMS = 4;
/** Bytes of each scalar value type (0 for string and array). */
const SIZES = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];

/**
 * Thrown by the reader, never to a caller, when it needs bytes past those it was given and the file
 * is known to go on: the streaming reader (gguf-source.ts) then reads up to `upTo` and parses again.
 */
export class NeedMoreBytes {
  constructor(readonly upTo: number) {}
}

class Reader {
  pos = 0;
  readonly view: DataView;
  readonly text = new TextDecoder('utf-8', { fatal: true });
  /** `bytes` are the first bytes of a file of `fileSize` bytes (fileSize = bytes.length: the whole file was given). */
  constructor(readonly fn: string, readonly bytes: Uint8Array, readonly fileSize: number) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  fail(what: string): never {
    throw new PosEncError('INVALID_FILE', `${this.fn}: ${what} (at byte ${this.pos} of ${this.fileSize})`);
  }
  /** The bytes left in the file after the current position. */
  left(): number {
    return this.fileSize - this.pos;
  }
  need(n: number, what: string): void {
    if (n > this.left()) this.fail(`the file ends inside ${what}`);
    if (this.pos + n > MAX_GGUF_HEADER_BYTES) {
      throw new PosEncError('INVALID_FILE', `${this.fn}: the GGUF header goes on past ${MAX_GGUF_HEADER_BYTES} bytes (inside ${what}); posenc reads headers of at most that size`);
    }
    if (n > this.bytes.length - this.pos) throw new NeedMoreBytes(this.pos + n);
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u64(what: string): number {
    this.need(8, what);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    // Two halves, not a BigInt: this runs for every string of a tokenizer's lists.
    if (hi > 0x1fffff) this.fail(`${what} ${this.view.getBigUint64(this.pos, true)} is too large`);
    this.pos += 8;
    return hi * 2 ** 32 + lo;
  }
  string(what: string): string {
    const n = this.u64(`the length of ${what}`);
    this.need(n, what);
    try {
      const s = this.text.decode(this.bytes.subarray(this.pos, this.pos + n));
      this.pos += n;
      return s;
    } catch {
      return this.fail(`${what} is not UTF-8`);
    }
  }
  scalar(type: number, what: string): number | boolean | string {
    if (type === 8) return this.string(what);
    if (type === 9 || type < 0 || type >= SIZES.length) this.fail(`${what} has value type ${type}, which GGUF does not define here`);
    this.need(SIZES[type]!, what);
    const v = this.view;
    const p = this.pos;
    this.pos += SIZES[type]!;
    switch (type) {
      case 0: return v.getUint8(p);
      case 1: return v.getInt8(p);
      case 2: return v.getUint16(p, true);
      case 3: return v.getInt16(p, true);
      case 4: return v.getUint32(p, true);
      case 5: return v.getInt32(p, true);
      case 6: return v.getFloat32(p, true);
      case 7: {
        const b = v.getUint8(p);
        if (b > 1) this.fail(`${what} is a bool of value ${b}`);
        return b === 1;
      }
      case 10: case 11: {
        const big = type === 10 ? v.getBigUint64(p, true) : v.getBigInt64(p, true);
        if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(-Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${big} does not fit a JavaScript number`);
        return Number(big);
      }
      default: return v.getFloat64(p, true);
    }
  }
}

const arrayBufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;

/** Whether `value` is an ArrayBuffer, by its internal slot (a Proxy's traps never run). */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  try {
    arrayBufferLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The bytes of a Uint8Array or ArrayBuffer argument, as a plain Uint8Array over exactly the caller's
 * view (read through the engine's own accessors: a subclass's getters or methods never run, and no
 * byte before or after the view can be read).
 */
export function asBytes(fn: string, bytes: unknown): Uint8Array {
  if (typedArrayName(bytes) === 'Uint8Array' && ArrayBuffer.isView(bytes)) {
    const length = attachedLength(fn, 'bytes', bytes);
    return new Uint8Array(bufferOf.call(bytes), byteOffsetOf.call(bytes), length);
  }
  if (isArrayBuffer(bytes)) return new Uint8Array(bytes);
  throw new PosEncError('INVALID_TYPE', `${fn}: the GGUF bytes must be a Uint8Array or ArrayBuffer, got ${args.describe(bytes)}`);
}

/**
 * Reads the header of a GGUF file from its first bytes. `fileSize` is the size of the whole file
 * (default: the bytes are the whole file, or all of it posenc may read); when the bytes end before
 * the header does and the file goes on, {@link NeedMoreBytes} says how many to read.
 */
export function readGgufHeader(fn: string, bytes: Uint8Array, fileSize = bytes.length): GgufHeader {
  const r = new Reader(fn, bytes, fileSize);
  if (fileSize < 4) r.fail('not a GGUF file (the magic "GGUF" is missing)');
  if (r.u32('the magic') !== MAGIC) r.fail('not a GGUF file (the magic "GGUF" is missing)');
  const version = r.u32('the version');
  if (version !== 2 && version !== 3) r.fail(`GGUF version ${version} is not supported (2 and 3 are)`);
  const tensorCount = r.u64('the tensor count');
  const kvCount = r.u64('the key/value count');
  // Each key/value takes at least 13 bytes (key length 8, type 4, a 1-byte value), each tensor entry 24.
  if (kvCount > r.left() / 13) r.fail(`the file claims ${kvCount} key/values, more than its ${r.left()} remaining bytes can hold`);
  if (tensorCount > r.left() / 24) r.fail(`the file claims ${tensorCount} tensors, more than its ${r.left()} remaining bytes can hold`);
  const metadata = new Map<string, GgufValue & { count?: number }>();
  for (let i = 0; i < kvCount; i++) {
    const key = r.string(`key ${i}`);
    if (metadata.has(key)) r.fail(`key '${key}' appears twice`);
    const type = r.u32(`the type of '${key}'`);
    if (type === 9) {
      const itemType = r.u32(`the element type of '${key}'`);
      if (itemType === 9) r.fail(`'${key}' is an array of arrays, which posenc does not read`);
      if (itemType >= SIZES.length) r.fail(`'${key}' has element type ${itemType}, which GGUF does not define`);
      const count = r.u64(`the length of '${key}'`);
      if (count > r.left() / (itemType === 8 ? 8 : SIZES[itemType]!)) r.fail(`'${key}' claims ${count} elements, more than the bytes left`);
      const keep = count <= MAX_KEPT_ARRAY;
      const value: (number | boolean | string)[] = [];
      if (!keep && itemType !== 8) { // a long list of fixed-size values, not kept: stepped over (bools checked)
        r.need(count * SIZES[itemType]!, `'${key}'`);
        if (itemType === 7) for (let j = 0; j < count; j++) if (r.bytes[r.pos + j]! > 1) r.fail(`${key}[${j}] is a bool of value ${r.bytes[r.pos + j]}`);
        r.pos += count * SIZES[itemType]!;
        metadata.set(key, { type: 'array', itemType: GGUF_TYPES[itemType]!, value, count });
        continue;
      }
      if (!keep) { // a long list of strings (a tokenizer's), not kept: each stepped over by its length
        const what = `a string of '${key}'`; // one text for all: this loop may run millions of times
        for (let j = 0; j < count; j++) {
          const n = r.u64(what);
          r.need(n, what);
          r.pos += n;
        }
        metadata.set(key, { type: 'array', itemType: 'string', value, count });
        continue;
      }
      for (let j = 0; j < count; j++) {
        const item = r.scalar(itemType, `${key}[${j}]`);
        if (keep) value.push(item);
      }
      metadata.set(key, { type: 'array', itemType: GGUF_TYPES[itemType]!, value });
    } else {
      const name = GGUF_TYPES[type] ?? r.fail(`'${key}' has value type ${type}, which GGUF does not define`);
      metadata.set(key, { type: name, value: r.scalar(type, `'${key}'`) });
    }
  }
  const alignment = alignmentOf(r, metadata.get('general.alignment'));
  const tensors = new Map<string, GgufTensorInfo>();
  for (let i = 0; i < tensorCount; i++) {
    const name = r.string(`tensor ${i}'s name`);
    if (tensors.has(name)) r.fail(`tensor '${name}' appears twice`);
    const nDims = r.u32(`the dims of '${name}'`);
    if (nDims > MAX_DIMS) r.fail(`tensor '${name}' has ${nDims} dims (ggml tensors have at most ${MAX_DIMS})`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(r.u64(`a dim of '${name}'`));
    const ggmlType = r.u32(`the type of '${name}'`);
    const offset = r.u64(`the offset of '${name}'`);
    if (offset % alignment !== 0) r.fail(`tensor '${name}' has offset ${offset}, not a multiple of the alignment ${alignment}`);
    tensors.set(name, { name, dims, ggmlType, offset });
  }
  const dataOffset = Math.ceil(r.pos / alignment) * alignment;
  return { version, metadata, tensors, dataOffset, alignment };
}

/** `general.alignment`: a uint32 power of two (gguf.cpp), at most {@link MAX_GGUF_ALIGNMENT}; 32 when absent. */
function alignmentOf(r: Reader, entry: GgufValue | undefined): number {
  if (entry === undefined) return 32;
  const v = entry.value;
  if (entry.type !== 'uint32' || typeof v !== 'number') r.fail(`general.alignment must be a uint32, got a ${entry.type}`);
  if (v < 1 || v > MAX_GGUF_ALIGNMENT || (v & (v - 1)) !== 0) {
    r.fail(`general.alignment is ${v}; it must be a power of two from 1 to ${MAX_GGUF_ALIGNMENT}`);
  }
  return v;
}

/** Writes a GGUF v3 header holding `metadata` and no tensors. */
export function writeGgufHeader(metadata: Record<string, GgufValue>): Uint8Array {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const u32 = (v: number) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v, true); chunks.push(b); };
  const u64 = (v: number) => { const b = new Uint8Array(8); new DataView(b.buffer).setBigUint64(0, BigInt(v), true); chunks.push(b); };
  const str = (s: string) => { const b = enc.encode(s); u64(b.length); chunks.push(b); };
  const scalar = (type: GgufType, v: number | boolean | string) => {
    const id = GGUF_TYPES.indexOf(type);
    if (type === 'string') return str(v as string);
    const b = new Uint8Array(SIZES[id]!);
    const d = new DataView(b.buffer);
    const n = Number(v);
    [() => d.setUint8(0, n), () => d.setInt8(0, n), () => d.setUint16(0, n, true), () => d.setInt16(0, n, true),
      () => d.setUint32(0, n, true), () => d.setInt32(0, n, true), () => d.setFloat32(0, n, true), () => d.setUint8(0, v ? 1 : 0),
      null, null, () => d.setBigUint64(0, BigInt(n), true), () => d.setBigInt64(0, BigInt(n), true), () => d.setFloat64(0, n, true)][id]!();
    chunks.push(b);
  };
  u32(MAGIC);
  u32(3);
  u64(0);
  u64(Object.keys(metadata).length);
  for (const [key, entry] of Object.entries(metadata)) {
    str(key);
    u32(GGUF_TYPES.indexOf(entry.type));
    if (entry.type === 'array') {
      const items = entry.value as (number | boolean | string)[];
      u32(GGUF_TYPES.indexOf(entry.itemType!));
      u64(items.length);
      for (const item of items) scalar(entry.itemType!, item);
    } else {
      scalar(entry.type, entry.value as number | boolean | string);
    }
  }
  const size = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(Math.ceil(size / 32) * 32);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
