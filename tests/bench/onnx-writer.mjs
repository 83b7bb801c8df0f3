// One-node ONNX models for the benchmark's onnxruntime-web peer, serialised with the ONNX schema
// as the onnx-proto package compiles it (protobufjs): no field number is written here. Loaded on
// first use, so that the browser run, which never builds a model, does not import it.

/**
 * Serialises a ModelProto with one node.
 * @param {object} spec
 * @param {string} spec.opType
 * @param {string} [spec.domain]      '' (ai.onnx) or e.g. 'com.microsoft'
 * @param {number} spec.opset         version of that domain
 * @param {Array<{name: string, type: 'FLOAT' | 'INT64', dims: Array<number|string>} | null>} spec.inputs  null = omitted optional input
 * @param {Array<{name: string, type: 'FLOAT' | 'INT64', dims: Array<number|string>}>} spec.outputs
 * @param {Record<string, number>} [spec.attributes]  integers become INT attributes, others FLOAT
 * @param {number} [spec.irVersion]
 * @returns {Promise<Uint8Array>}
 */
export async function oneNodeModel({ opType, domain = '', opset, inputs, outputs, attributes = {}, irVersion = 10 }) {
  const { onnx } = (await import('onnx-proto')).default;
  const { AttributeType } = onnx.AttributeProto;
  const valueInfo = ({ name, type, dims }) => ({
    name,
    type: {
      tensorType: {
        elemType: onnx.TensorProto.DataType[type],
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  });
  const attribute = (name, value) => (Number.isInteger(value)
    ? { name, type: AttributeType.INT, i: value }
    : { name, type: AttributeType.FLOAT, f: value });
  const model = onnx.ModelProto.create({
    irVersion,
    producerName: 'posenc-bench',
    opsetImport: [{ domain: '', version: domain ? 21 : opset }, ...(domain ? [{ domain, version: opset }] : [])],
    graph: {
      name: `${opType}_graph`,
      node: [{
        input: inputs.map((i) => (i ? i.name : '')),
        output: outputs.map((o) => o.name),
        name: `${opType}_0`,
        opType,
        domain,
        attribute: Object.entries(attributes).map(([name, value]) => attribute(name, value)),
      }],
      input: inputs.filter(Boolean).map(valueInfo),
      output: outputs.map(valueInfo),
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
