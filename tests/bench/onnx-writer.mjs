// A minimal protobuf writer for ONNX: enough to write a model holding one node, so the benchmark
// can build the RotaryEmbedding models it runs in onnxruntime-web instead of shipping .onnx files.
// Field numbers are those of onnx/onnx.proto (ModelProto, GraphProto, NodeProto, AttributeProto,
// ValueInfoProto, TypeProto, TensorShapeProto, OperatorSetIdProto).

const encoder = new TextEncoder();

/** Protobuf wire types. */
const VARINT = 0;
const LEN = 2;
const I32 = 5;

/** ONNX TensorProto.DataType values used here. */
export const FLOAT = 1;
export const INT64 = 7;

function varint(value) {
  const out = [];
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n; // two's complement, as protobuf encodes negative int64
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

/** One message under construction: a list of already-encoded fields. */
class Message {
  bytes = [];
  int(field, value) {
    this.bytes.push(...varint((field << 3) | VARINT), ...varint(value));
    return this;
  }
  float(field, value) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.bytes.push(...varint((field << 3) | I32), ...b);
    return this;
  }
  raw(field, bytes) {
    this.bytes.push(...varint((field << 3) | LEN), ...varint(bytes.length), ...bytes);
    return this;
  }
  string(field, s) {
    return this.raw(field, encoder.encode(s));
  }
  message(field, m) {
    return this.raw(field, m.bytes);
  }
  encode() {
    return Uint8Array.from(this.bytes);
  }
}

/** ValueInfoProto of a tensor; each dim is a number (fixed) or a string (symbolic). */
function valueInfo(name, elemType, dims) {
  const shape = new Message();
  for (const d of dims) shape.message(1, typeof d === 'number' ? new Message().int(1, d) : new Message().string(2, d));
  const tensorType = new Message().int(1, elemType).message(2, shape);
  return new Message().string(1, name).message(2, new Message().message(1, tensorType));
}

/** AttributeProto: integers (type INT = 2) and floats (type FLOAT = 1). */
function attribute(name, value) {
  const a = new Message().string(1, name);
  if (Number.isInteger(value)) return a.int(3, value).int(20, 2);
  return a.float(2, value).int(20, 1);
}

/**
 * Serialises a ModelProto with one node.
 * @param {object} spec
 * @param {string} spec.opType
 * @param {string} [spec.domain]      '' (ai.onnx) or e.g. 'com.microsoft'
 * @param {number} spec.opset         version of that domain
 * @param {Array<{name: string, type: number, dims: Array<number|string>} | null>} spec.inputs  null = omitted optional input
 * @param {Array<{name: string, type: number, dims: Array<number|string>}>} spec.outputs
 * @param {Record<string, number>} [spec.attributes]
 * @param {number} [spec.irVersion]
 */
export function oneNodeModel({ opType, domain = '', opset, inputs, outputs, attributes = {}, irVersion = 10 }) {
  const node = new Message();
  for (const i of inputs) node.string(1, i ? i.name : '');
  for (const o of outputs) node.string(2, o.name);
  node.string(3, `${opType}_0`).string(4, opType);
  for (const [name, value] of Object.entries(attributes)) node.message(5, attribute(name, value));
  if (domain) node.string(7, domain);

  const graph = new Message().message(1, node).string(2, `${opType}_graph`);
  for (const i of inputs) if (i) graph.message(11, valueInfo(i.name, i.type, i.dims));
  for (const o of outputs) graph.message(12, valueInfo(o.name, o.type, o.dims));

  const model = new Message().int(1, irVersion).string(2, 'posenc-bench');
  model.message(7, graph);
  model.message(8, new Message().string(1, '').int(2, domain ? 21 : opset));
  if (domain) model.message(8, new Message().string(1, domain).int(2, opset));
  return model.encode();
}
