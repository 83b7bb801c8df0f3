// Other libraries' tensors: real onnxruntime-web tensors from real sessions (float32 and float16
// outputs of one-node models), transformers.js-shaped tensors, and real TensorFlow.js tensors, in
// and out of posenc (pe.tensors.from / pe.tensors.wrap), and the errors that say how to convert.
// Also: Hugging Face snake_case keys where posenc expects camelCase.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { oneNodeModel } from '../bench/onnx-writer.mjs';
import { loadOrt } from '../bench/peers/ort.mjs';
import { loadTf } from '../bench/peers/tfjs.mjs';
import { createPosEnc } from './helpers.mjs';

/** onnx TensorProto.DataType: the name the model writer takes and the number Cast's `to` attribute takes. */
const FLOAT = { name: 'FLOAT', code: 1 };
const FLOAT16 = { name: 'FLOAT16', code: 10 };

let pe, ort, tf;
before(async () => {
  pe = await createPosEnc();
  const loaded = await loadOrt();
  assert.ok(loaded.ort, loaded.error);
  ort = loaded.ort;
  const tfLoaded = await loadTf();
  assert.ok(tfLoaded.tf, tfLoaded.error);
  tf = tfLoaded.tf;
});

/** Runs a Cast(X: float32 [2, 4]) -> Y of element type `to` in onnxruntime-web; returns Y (an ort.Tensor). */
async function castOutput(values, to) {
  const model = await oneNodeModel({
    opType: 'Cast', opset: 19, attributes: { to: to.code },
    inputs: [{ name: 'X', type: FLOAT.name, dims: [2, 4] }], outputs: [{ name: 'Y', type: to.name, dims: [2, 4] }],
  });
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
  const { Y } = await session.run({ X: new ort.Tensor('float32', Float32Array.from(values), [2, 4]) });
  await session.release();
  return Y;
}

/** RoPE (half pairing, base 10000) of rows [seq, headDim] at positions offset.., in float64. */
function ropeReference(values, seq, headDim, offset) {
  const out = new Float64Array(values.length);
  const half = headDim / 2;
  for (let s = 0; s < seq; s++) {
    for (let i = 0; i < half; i++) {
      const angle = (s + offset) * 10000 ** (-2 * i / headDim);
      const a = values[s * headDim + i];
      const b = values[s * headDim + i + half];
      out[s * headDim + i] = a * Math.cos(angle) - b * Math.sin(angle);
      out[s * headDim + i + half] = b * Math.cos(angle) + a * Math.sin(angle);
    }
  }
  return out;
}

const VALUES = [0.5, -2, 1.25, 3, -0.75, 2.5, -1, 0.125]; // exact in float16

function assertClose(actual, expected, tol = 1e-6) {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) assert.ok(Math.abs(actual[i] - expected[i]) <= tol, `[${i}] ${actual[i]} vs ${expected[i]}`);
}

test('a float32 ort.Tensor from a session is rotated in place, as it is', async () => {
  const y = await castOutput(VALUES, FLOAT);
  assert.ok(y instanceof ort.Tensor && y.type === 'float32');
  pe.rope.apply(y, null, { offset: 3 });
  assertClose(y.data, ropeReference(VALUES, 2, 4, 3));
});

test('a float16 ort.Tensor is refused with how to convert; pe.tensors.from converts it exactly', async () => {
  const y = await castOutput(VALUES, FLOAT16);
  assert.equal(y.type, 'float16');
  assert.throws(() => pe.rope.apply(y, null, {}), (e) => e.code === 'INVALID_TYPE' && /float16/.test(e.message) && /pe\.tensors\.from\(q\)/.test(e.message));
  const q = pe.tensors.from(y);
  assert.ok(q.data instanceof Float32Array);
  assert.deepEqual(q.dims, [2, 4]);
  assert.deepEqual(Array.from(q.data), VALUES);
  pe.rope.apply(q, null, {});
  assertClose(q.data, ropeReference(VALUES, 2, 4, 0));
});

test('pe.tensors.wrap(ort.Tensor, result) gives an ort.Tensor a session takes as input', async () => {
  const table = pe.sinusoidal.table({ length: 2, dim: 4 });
  const wrapped = pe.tensors.wrap(ort.Tensor, table);
  assert.ok(wrapped instanceof ort.Tensor);
  assert.equal(wrapped.type, 'float32');
  assert.deepEqual([...wrapped.dims], [2, 4]);
  assert.equal(wrapped.data, table.data, 'shares the result (no copy)');
  const model = await oneNodeModel({ opType: 'Identity', opset: 19, inputs: [{ name: 'X', type: FLOAT.name, dims: [2, 4] }], outputs: [{ name: 'Y', type: FLOAT.name, dims: [2, 4] }] });
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
  const { Y } = await session.run({ X: wrapped });
  await session.release();
  assert.deepEqual(Array.from(Y.data), Array.from(table.data));
  // A WasmTensor result is copied out of WebAssembly memory first.
  const w = pe.memory.tensor([2, 4], VALUES);
  const out = pe.tensors.wrap(ort.Tensor, w);
  assert.notEqual(out.data.buffer, w.view().buffer);
  assert.deepEqual(Array.from(out.data), VALUES);
  w.dispose();
});

/** A tensor shaped as transformers.js's Tensor: (type, data, dims), a data getter, an ort_tensor inside. */
class TransformersLikeTensor {
  constructor(type, data, dims) {
    this.ort_tensor = new ort.Tensor(type, data, dims);
  }
  get type() { return this.ort_tensor.type; }
  get data() { return this.ort_tensor.data; }
  get dims() { return this.ort_tensor.dims; }
  get size() { return this.ort_tensor.size; }
}

test('transformers.js-shaped tensors go in as they are and come back through wrap', () => {
  const q = new TransformersLikeTensor('float32', Float32Array.from(VALUES), [1, 2, 4]);
  pe.rope.apply(q, null, { layout: 'bshd', numHeads: 1, offset: 1 }); // [batch, seq, hidden], as transformers.js keeps q
  assertClose(q.data, ropeReference(VALUES, 2, 4, 1));
  const half = new TransformersLikeTensor('float16', new Uint16Array([0x3800, 0xc000]), [2]);
  assert.throws(() => pe.sinusoidal.addTo(half, { dims: [1, 2] }), /float16/);
  assert.deepEqual(Array.from(pe.tensors.from(half).data), [0.5, -2]);
  const back = pe.tensors.wrap(TransformersLikeTensor, pe.sinusoidal.table({ length: 1, dim: 2 }));
  assert.ok(back instanceof TransformersLikeTensor);
  assert.deepEqual([...back.dims], [1, 2]);
});

test('TensorFlow.js tensors: refused with the helper named; pe.tensors.from copies them', () => {
  const t = tf.tensor2d(VALUES, [2, 4]);
  assert.throws(() => pe.rope.apply(t, null, {}), (e) => e.code === 'INVALID_TYPE' && /TensorFlow\.js/.test(e.message) && /pe\.tensors\.from/.test(e.message));
  const q = pe.tensors.from(t);
  assert.deepEqual(q.dims, [2, 4]);
  pe.rope.apply(q, null, {});
  assertClose(Array.from(tf.tensor(q.data, q.dims).dataSync()), ropeReference(VALUES, 2, 4, 0));
  assert.deepEqual(Array.from(t.dataSync()), VALUES, 'the tfjs tensor itself is untouched');
  assert.throws(() => pe.tensors.from(tf.tensor1d([1, 2], 'int32')), (e) => e.code === 'INVALID_TYPE' && /toFloat/.test(e.message));
  t.dispose();
  assert.throws(() => pe.tensors.from(t), (e) => e.code === 'INVALID_ARGUMENT' && /disposed/i.test(e.message));
});

test('tensors that are not float32, or not on the CPU, are PosEncErrors that say what to do', () => {
  const gpu = { get data() { throw new Error('The data is not on CPU'); }, dims: [1, 4], type: 'float32', location: 'gpu-buffer' };
  assert.throws(() => pe.rope.apply(gpu, null, {}), (e) => e.code === 'INVALID_TYPE' && /getData\(\)/.test(e.message));
  assert.throws(() => pe.tensors.from(gpu), (e) => e.code === 'INVALID_TYPE' && /getData\(\)/.test(e.message));
  const ids = { data: new BigInt64Array(4), dims: [1, 4], type: 'int64' };
  assert.throws(() => pe.rope.apply(ids, null, {}), (e) => e.code === 'INVALID_TYPE' && /'int64' tensor/.test(e.message));
  assert.throws(() => pe.tensors.from(ids), (e) => e.code === 'INVALID_TYPE' && /positionIds/.test(e.message));
  assert.deepEqual(Array.from(pe.tensors.from({ data: new Float64Array([0.1, 1e30]), dims: [2] }).data), [Math.fround(0.1), Math.fround(1e30)]);
  assert.throws(() => pe.tensors.from({ data: new Float64Array([1e300]), dims: [1] }), (e) => e.code === 'OUT_OF_RANGE');
  // a plain array too: 1e39 is finite but rounds to Infinity in float32
  assert.throws(() => pe.tensors.from({ data: [1, 1e39], dims: [2] }), (e) => e.code === 'OUT_OF_RANGE' && /tensor\.data\[1\] is 1e\+39, beyond the float32 range/.test(e.message));
  assert.deepEqual(Array.from(pe.tensors.from({ data: [1, -3.4028234663852886e38], dims: [2] }).data), [1, -3.4028234663852886e38]);
  assert.throws(() => pe.tensors.from({ data: new Float32Array(3), dims: [2, 2] }), (e) => e.code === 'SHAPE_MISMATCH');
  assert.throws(() => pe.tensors.wrap({}, { data: new Float32Array(1), dims: [1] }), (e) => e.code === 'INVALID_TYPE');
  assert.throws(() => pe.rope.apply(new Float64Array(4), null, { dims: [1, 4] }), /new Float32Array\(q\)/);
});

test('a misspelt option name is UNKNOWN_OPTION suggesting the nearest option, as the CLI does for flags', () => {
  const q = () => new Float32Array(8);
  const unknown = (pattern) => (e) => e.code === 'UNKNOWN_OPTION' && pattern.test(e.message);
  assert.throws(() => pe.rope.apply(q(), null, { dims: [1, 1, 1, 8], layot: 'bhsd' }), unknown(/unknown option 'layot' \(did you mean 'layout'\?\)$/));
  assert.throws(() => pe.rope.apply(q(), null, { dims: [1, 8], ofset: 3 }), unknown(/unknown option 'ofset' \(did you mean 'offset'\?\)$/));
  assert.throws(() => pe.sinusoidal.table({ lenght: 4, dim: 4 }), unknown(/unknown option 'lenght' \(did you mean 'length'\?\)$/));
  assert.throws(() => pe.rope.frequencies({ rotaryDim: 8, scaling: { type: 'linear', factr: 2 } }), unknown(/'scaling\.factr'.*did you mean 'factor'/));
  // nothing near: every known option is listed
  assert.throws(() => pe.sinusoidal.table({ length: 4, dim: 4, zzzzzzzz: 1 }), unknown(/unknown option 'zzzzzzzz'; known options: .*length/));
});

test('Hugging Face snake_case keys name the camelCase option or pe.rope.fromConfig', () => {
  const q = () => new Float32Array(8);
  const unknown = (pattern) => (e) => e.code === 'UNKNOWN_OPTION' && pattern.test(e.message);
  // scaling: { rope_type } used to say only that scaling.type is required
  assert.throws(() => pe.rope.apply(q(), null, { dims: [1, 8], scaling: { rope_type: 'llama3', factor: 8 } }),
    unknown(/'scaling\.rope_type'.*'scaling\.type'.*fromConfig/));
  assert.throws(() => pe.rope.frequencies({ rotaryDim: 8, scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 64 } }),
    unknown(/'scaling\.originalMaxPositionEmbeddings'/));
  assert.throws(() => pe.rope.createCache({ rotary_dim: 8, maxPositions: 4 }), unknown(/did you mean 'rotaryDim'/));
  assert.throws(() => pe.rope.createCache({ rotaryDim: 8, max_position_embeddings: 4 }), unknown(/did you mean 'maxPositions'/));
  assert.throws(() => pe.rope.apply(q(), null, { dims: [1, 8], rope_theta: 500000 }), unknown(/did you mean 'base'/));
  assert.throws(() => pe.rope.apply(q(), null, { dims: [1, 8], partial_rotary_factor: 0.5 }), unknown(/fromConfig/));
});
