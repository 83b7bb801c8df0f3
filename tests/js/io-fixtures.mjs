// Builders of .npy and .safetensors bytes for the tests, written from the format descriptions and
// independent of posenc's own writer, so a reader bug cannot hide behind a matching writer bug.

const encoder = new TextEncoder();

/** Bytes of `values` as `dtype` ('f2' | 'f4' | 'f8' | 'bf16'), little- or big-endian. Values must be exact in that type. */
export function encodeFloats(values, dtype, littleEndian = true) {
  const size = { f2: 2, bf16: 2, f4: 4, f8: 8 }[dtype];
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  const f32 = new DataView(new ArrayBuffer(4));
  values.forEach((v, i) => {
    const at = i * size;
    if (dtype === 'f4') view.setFloat32(at, v, littleEndian);
    else if (dtype === 'f8') view.setFloat64(at, v, littleEndian);
    else if (dtype === 'bf16') {
      f32.setFloat32(0, v);
      if (f32.getUint16(2) !== 0) throw new Error(`${v} is not exact in bfloat16`);
      view.setUint16(at, f32.getUint16(0), littleEndian);
    } else view.setUint16(at, toHalfBits(v), littleEndian);
  });
  return out;
}

/** binary16 bits of v (which must be exactly representable: a test fixture, not a converter). */
export function toHalfBits(v) {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  if (a === 0) return sign;
  if (a < 2 ** -14) {
    const m = a / 2 ** -24;
    if (!Number.isInteger(m)) throw new Error(`${v} is not exact in float16`);
    return sign | m;
  }
  const e = Math.floor(Math.log2(a));
  const m = (a / 2 ** e - 1) * 1024;
  if (!Number.isInteger(m) || e > 15) throw new Error(`${v} is not exact in float16`);
  return sign | ((e + 15) << 10) | m;
}

/**
 * An .npy file. `header` overrides the dict text; `padTo` the alignment (numpy uses 64, older 16);
 * `version` 1, 2 or 3; `data` the raw element bytes.
 */
export function npyBytes({ descr = '<f4', fortran = false, shape, data, version = 1, header, padTo = 64, magic }) {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let text = header ?? `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${dims}, }`;
  const prefix = version === 1 ? 10 : 12;
  let body = encoder.encode(text);
  const total = Math.ceil((prefix + body.length + 1) / padTo) * padTo;
  text = text + ' '.repeat(total - prefix - body.length - 1) + '\n';
  body = encoder.encode(text);
  const out = new Uint8Array(prefix + body.length + data.length);
  out.set(magic ?? [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, body.length, true);
  else view.setUint32(8, body.length, true);
  out.set(body, prefix);
  out.set(data, prefix + body.length);
  return out;
}

/**
 * A .safetensors file from `{ name: { dtype, shape, data } }` (data: raw bytes), laid out in order.
 * `headerJson` replaces the JSON text; `metadata` becomes __metadata__; `headerPad` appends spaces.
 */
export function safetensorsBytes(tensors, { metadata, headerJson, headerPad = 0 } = {}) {
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  const blobs = [];
  for (const [name, t] of Object.entries(tensors)) {
    const entry = { dtype: t.dtype, shape: t.shape, data_offsets: t.offsets ?? [offset, offset + t.data.length] };
    Object.defineProperty(header, name, { value: entry, enumerable: true }); // '__proto__' stays a key
    offset += t.data.length;
    blobs.push(t.data);
  }
  const json = encoder.encode((headerJson ?? JSON.stringify(header)) + ' '.repeat(headerPad));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const blob of blobs) {
    out.set(blob, at);
    at += blob.length;
  }
  return out;
}
