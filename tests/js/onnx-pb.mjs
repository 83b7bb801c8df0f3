// A minimal protobuf reader for ONNX files: TensorProto (.pb) and the attributes of a ModelProto's
// first node. Enough for the conformance data; see tests/conformance/onnx-rotary-embedding/SOURCE.md.

/** Reads a varint at `pos`; returns [value as BigInt, next pos]. */
function varint(bytes, pos) {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const b = bytes[pos++];
    if (b === undefined) throw new Error('truncated varint');
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
}

/** Splits a message into fields: [{ number, wire, value (BigInt) | bytes (Uint8Array) }]. */
function fields(bytes) {
  const out = [];
  let pos = 0;
  while (pos < bytes.length) {
    let key;
    [key, pos] = varint(bytes, pos);
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      let value;
      [value, pos] = varint(bytes, pos);
      out.push({ number, wire, value });
    } else if (wire === 2) {
      let len;
      [len, pos] = varint(bytes, pos);
      out.push({ number, wire, bytes: bytes.subarray(pos, pos + Number(len)) });
      pos += Number(len);
    } else if (wire === 5) {
      out.push({ number, wire, bytes: bytes.subarray(pos, pos + 4) });
      pos += 4;
    } else if (wire === 1) {
      out.push({ number, wire, bytes: bytes.subarray(pos, pos + 8) });
      pos += 8;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

function packedVarints(bytes) {
  const values = [];
  let pos = 0;
  while (pos < bytes.length) {
    let v;
    [v, pos] = varint(bytes, pos);
    values.push(v);
  }
  return values;
}

const FLOAT = 1;
const INT64 = 7;

/** Parses a TensorProto: { name, dims, data } with data a Float32Array or BigInt64Array (copies). */
export function parseTensor(bytes) {
  const dims = [];
  let type = 0;
  let name = '';
  let raw;
  for (const f of fields(bytes)) {
    if (f.number === 1) {
      if (f.wire === 0) dims.push(Number(f.value));
      else dims.push(...packedVarints(f.bytes).map(Number));
    } else if (f.number === 2) type = Number(f.value);
    else if (f.number === 8) name = new TextDecoder().decode(f.bytes);
    else if (f.number === 9) raw = f.bytes;
  }
  if (!raw) throw new Error(`tensor ${name}: no raw_data`);
  const copy = new Uint8Array(raw).buffer; // a real copy: Buffer#slice would share the file buffer
  let data;
  if (type === FLOAT) data = new Float32Array(copy);
  else if (type === INT64) data = new BigInt64Array(copy);
  else throw new Error(`tensor ${name}: unsupported data_type ${type}`);
  const count = dims.reduce((a, b) => a * b, 1);
  if (data.length !== count) throw new Error(`tensor ${name}: ${data.length} elements for dims [${dims}]`);
  return { name, dims, data };
}

/** The op type and integer attributes of the first node of a ModelProto's graph. */
export function parseModelNode(bytes) {
  const graph = fields(bytes).find((f) => f.number === 7);
  const node = fields(graph.bytes).find((f) => f.number === 1);
  let opType = '';
  const attributes = {};
  for (const f of fields(node.bytes)) {
    if (f.number === 4) opType = new TextDecoder().decode(f.bytes);
    if (f.number === 5) {
      let name = '';
      let value;
      for (const a of fields(f.bytes)) {
        if (a.number === 1) name = new TextDecoder().decode(a.bytes);
        if (a.number === 3) value = Number(BigInt.asIntN(64, a.value));
      }
      attributes[name] = value;
    }
  }
  return { opType, attributes };
}
