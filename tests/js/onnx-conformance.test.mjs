// The ONNX RotaryEmbedding node tests (opset 23), all 16 directories, through pe.rope.rotaryEmbedding.
// Attributes come from each model.onnx, tensors from the .pb files; nothing is restated here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc } from './helpers.mjs';
import { parseModelNode, parseTensor } from './onnx-pb.mjs';

const pe = await createPosEnc();
const root = new URL('../conformance/onnx-rotary-embedding/', import.meta.url);
const cases = readdirSync(root).filter((d) => d.startsWith('test_rotary_embedding')).sort();

test('the suite has all 16 cases', () => {
  assert.equal(cases.length, 16);
});

for (const name of cases) {
  test(name, () => {
    const dir = new URL(`${name}/`, root);
    // An *_expanded model replaces the operator by its function body, so its attributes are not
    // stored as attributes; its .pb files are byte-identical to the plain twin's (checked below),
    // whose model.onnx gives the attributes.
    const twin = new URL(`${name.replace(/_expanded$/, '')}/`, root);
    const { opType, attributes } = parseModelNode(readFileSync(new URL('model.onnx', twin)));
    assert.equal(opType, 'RotaryEmbedding');
    const inputs = readdirSync(new URL('test_data_set_0/', dir))
      .filter((f) => f.startsWith('input_'))
      .sort()
      .map((f) => parseTensor(readFileSync(new URL(`test_data_set_0/${f}`, dir))));
    const expected = parseTensor(readFileSync(new URL('test_data_set_0/output_0.pb', dir)));
    const [x, cos, sin, positionIds] = inputs;
    for (const f of readdirSync(new URL('test_data_set_0/', dir))) {
      assert.deepEqual(readFileSync(new URL(`test_data_set_0/${f}`, dir)), readFileSync(new URL(`test_data_set_0/${f}`, twin)));
    }

    const y = pe.rope.rotaryEmbedding(x, cos, sin, {
      positionIds,
      interleaved: attributes.interleaved ?? 0,
      rotaryEmbeddingDim: attributes.rotary_embedding_dim ?? 0,
      numHeads: attributes.num_heads,
    });
    assert.deepEqual(y.dims, expected.dims);
    for (let i = 0; i < y.data.length; i++) {
      const e = expected.data[i];
      assert.ok(Math.abs(y.data[i] - e) <= 1e-6 + 1e-6 * Math.abs(e), `element ${i}: ${y.data[i]} vs ${e}`);
    }
    assert.notDeepEqual(y.data, x.data, 'the op changed something');
  });
}
