// ONNX files read with the ONNX schema as the onnx-proto package compiles it (protobufjs): a
// TensorProto (.pb) and the attributes of a ModelProto's first node. Enough for the conformance
// data; see tests/conformance/onnx-rotary-embedding/SOURCE.md.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/** Parses a TensorProto: { name, dims, data } with data a Float32Array or BigInt64Array (copies). */
export function parseTensor(bytes) {
  const t = onnx.TensorProto.decode(bytes);
  const dims = t.dims.map(Number);
  if (t.rawData.length === 0) throw new Error(`tensor ${t.name}: no raw_data`);
  const copy = new Uint8Array(t.rawData).buffer; // a real copy: rawData may share the file buffer
  let data;
  if (t.dataType === onnx.TensorProto.DataType.FLOAT) data = new Float32Array(copy);
  else if (t.dataType === onnx.TensorProto.DataType.INT64) data = new BigInt64Array(copy);
  else throw new Error(`tensor ${t.name}: unsupported data_type ${t.dataType}`);
  const count = dims.reduce((a, b) => a * b, 1);
  if (data.length !== count) throw new Error(`tensor ${t.name}: ${data.length} elements for dims [${dims}]`);
  return { name: t.name, dims, data };
}

/** The op type and integer attributes of the first node of a ModelProto's graph. */
export function parseModelNode(bytes) {
  const node = onnx.ModelProto.decode(bytes).graph.node[0];
  const attributes = {};
  for (const a of node.attribute) {
    if (a.type !== onnx.AttributeProto.AttributeType.INT) throw new Error(`attribute ${a.name}: not an integer`);
    attributes[a.name] = Number(a.i);
  }
  return { opType: node.opType, attributes };
}
