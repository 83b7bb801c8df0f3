// The GGUF header (ggml docs/gguf.md, versions 2 and 3, little-endian): its key/value metadata and
// tensor list read from bytes, and a metadata-only header written back. No network, no Node APIs:
// works on an ArrayBuffer or Uint8Array in browsers and Node. Malformed input is INVALID_FILE.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';

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

export interface GgufHeader {
  version: number;
  metadata: Record<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Byte offset of the data section (after alignment), or -1 when the bytes end before it. */
  dataOffset: number;
}

const MAGIC = 0x46554747; // "GGUF" little-endian

class Reader {
  pos = 0;
  readonly view: DataView;
  readonly text = new TextDecoder('utf-8', { fatal: true });
  constructor(readonly fn: string, readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  fail(what: string): never {
    throw new PosEncError('INVALID_FILE', `${this.fn}: ${what} (at byte ${this.pos} of ${this.bytes.length})`);
  }
  need(n: number, what: string): void {
    if (this.pos + n > this.bytes.length) this.fail(`the file ends inside ${what}`);
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u64(what: string): number {
    this.need(8, what);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${v} is too large`);
    return Number(v);
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
    const sizes = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];
    if (type === 8) return this.string(what);
    if (type === 9 || type < 0 || type >= sizes.length) this.fail(`${what} has value type ${type}, which GGUF does not define here`);
    this.need(sizes[type]!, what);
    const v = this.view;
    const p = this.pos;
    this.pos += sizes[type]!;
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

/** The bytes of a Uint8Array or ArrayBuffer argument. */
export function asBytes(fn: string, bytes: unknown): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  throw new PosEncError('INVALID_TYPE', `${fn}: the GGUF bytes must be a Uint8Array or ArrayBuffer, got ${args.describe(bytes)}`);
}

/** Reads the header of a GGUF file from its bytes (the whole file, or at least its header). */
export function readGgufHeader(fn: string, input: unknown): GgufHeader {
  const r = new Reader(fn, asBytes(fn, input));
  if (r.bytes.length < 4 || r.view.getUint32(0, true) !== MAGIC) r.fail('not a GGUF file (the magic "GGUF" is missing)');
  r.pos = 4;
  const version = r.u32('the version');
  if (version !== 2 && version !== 3) r.fail(`GGUF version ${version} is not supported (2 and 3 are)`);
  const tensorCount = r.u64('the tensor count');
  const kvCount = r.u64('the key/value count');
  const metadata: Record<string, GgufValue> = {};
  for (let i = 0; i < kvCount; i++) {
    const key = r.string(`key ${i}`);
    if (key in metadata) r.fail(`key '${key}' appears twice`);
    const type = r.u32(`the type of '${key}'`);
    if (type === 9) {
      const itemType = r.u32(`the element type of '${key}'`);
      if (itemType === 9) r.fail(`'${key}' is an array of arrays, which posenc does not read`);
      const count = r.u64(`the length of '${key}'`);
      if (count > r.bytes.length - r.pos) r.fail(`'${key}' claims ${count} elements, more than the bytes left`);
      const value = Array.from({ length: count }, (_, j) => r.scalar(itemType, `${key}[${j}]`));
      metadata[key] = { type: 'array', itemType: GGUF_TYPES[itemType]!, value };
    } else {
      metadata[key] = { type: GGUF_TYPES[type] ?? r.fail(`'${key}' has value type ${type}, which GGUF does not define`), value: r.scalar(type, `'${key}'`) };
    }
  }
  const tensors: GgufTensorInfo[] = [];
  let complete = true;
  try {
    for (let i = 0; i < tensorCount; i++) {
      const name = r.string(`tensor ${i}'s name`);
      const nDims = r.u32(`the dims of '${name}'`);
      if (nDims > 8) r.fail(`tensor '${name}' has ${nDims} dims`);
      const dims = Array.from({ length: nDims }, () => r.u64(`a dim of '${name}'`));
      tensors.push({ name, dims, ggmlType: r.u32(`the type of '${name}'`), offset: r.u64(`the offset of '${name}'`) });
    }
  } catch (error) {
    if (!(error instanceof PosEncError) || !/ends inside/.test(error.message)) throw error;
    complete = false; // a header cut after the key/values: the metadata is still whole
  }
  const alignment = metadata['general.alignment'];
  const align = alignment && typeof alignment.value === 'number' ? alignment.value : 32;
  const dataOffset = complete ? Math.ceil(r.pos / align) * align : -1;
  return { version, metadata, tensors, dataOffset };
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
    const sizes = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];
    const b = new Uint8Array(sizes[id]!);
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
