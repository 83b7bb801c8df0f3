// GGUF files built byte by byte for the tests and the fuzz target (ggml docs/gguf.md, little-endian;
// no file is downloaded). Lets a test write what a valid writer never would: any alignment, any
// tensor offset, repeated keys and tensors, counts that do not match.

/** Bytes of one value of GGUF type `type` ('u8', 'i32', 'u32', 'u64', 'f32', 'f64', 'bool', 'str', or arrays 'bools', 'u32s', 'strs'). */
function valueBytes(type, value) {
  const parts = [];
  const push = (size, write) => { const b = Buffer.alloc(size); write(b); parts.push(b); };
  const u32 = (v) => push(4, (b) => b.writeUInt32LE(v));
  const u64 = (v) => push(8, (b) => b.writeBigUInt64LE(BigInt(v)));
  const str = (s) => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  switch (type) {
    case 'u8': u32(0); push(1, (b) => b.writeUInt8(value)); break;
    case 'i32': u32(5); push(4, (b) => b.writeInt32LE(value)); break;
    case 'u32': u32(4); u32(value); break;
    case 'f32': u32(6); push(4, (b) => b.writeFloatLE(value)); break;
    case 'bool': u32(7); push(1, (b) => b.writeUInt8(value ? 1 : 0)); break;
    case 'str': u32(8); str(value); break;
    case 'u64': u32(10); u64(value); break;
    case 'f64': u32(12); push(8, (b) => b.writeDoubleLE(value)); break;
    case 'bools': u32(9); u32(7); u64(value.length); parts.push(Buffer.from(value.map((v) => (v ? 1 : 0)))); break;
    case 'u32s': u32(9); u32(4); u64(value.length); value.forEach(u32); break;
    case 'strs': u32(9); u32(8); u64(value.length); value.forEach(str); break;
    default: throw new Error(`gguf-bytes: unknown type ${type}`);
  }
  return Buffer.concat(parts);
}

/**
 * A GGUF file with the given [key, type, value] entries and tensors: a name (dims [4], F32, no data)
 * or { name, values, type = 0 (F32), dims, offset } whose values are written little-endian in the
 * data section (each tensor padded to the alignment, at its own offset unless `offset` says
 * otherwise). Options: `version` (3), `alignment` (32: the padding used; give the key yourself),
 * `kvCount` / `tensorCount` to claim other counts than those written.
 */
export function gguf(entries, { version = 3, tensors = [], alignment = 32, kvCount, tensorCount } = {}) {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  parts.push(Buffer.from('GGUF'));
  u32(version);
  u64(tensorCount ?? tensors.length);
  u64(kvCount ?? entries.length);
  for (const [key, type, value] of entries) {
    str(key);
    parts.push(valueBytes(type, value));
  }
  const data = [];
  let offset = 0;
  for (const t of tensors) {
    const { name, values = [], type = 0, dims = [values.length || 4], offset: at } = typeof t === 'string' ? { name: t } : t;
    str(name); u32(dims.length); dims.forEach((d) => u64(d)); u32(type); u64(at ?? offset);
    const b = Buffer.alloc(Math.ceil((values.length * 4) / alignment) * alignment);
    values.forEach((v, i) => b.writeFloatLE(v, 4 * i));
    data.push(b);
    offset += b.length;
  }
  const header = Buffer.concat(parts);
  const pad = Buffer.alloc(Math.ceil(header.length / alignment) * alignment - header.length);
  return new Uint8Array(Buffer.concat([header, pad, ...data]));
}
