// The `out` option of the generators (sinusoidal.table, t5.bias, alibi.bias): results written into
// the caller's Float32Array or WasmTensor equal the default results, and bad targets are errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const t5Table = { data: randomFloats(32 * 3, 1), dims: [32, 3] };

const GENERATORS = [
  ['sinusoidal.table', [5, 6], (out) => pe.sinusoidal.table({ length: 5, dim: 6, offset: 3, out })],
  ['t5.bias', [3, 4, 7], (out) => pe.t5.bias(t5Table, { qLen: 4, kLen: 7, queryOffset: 2, out })],
  ['alibi.bias', [6, 4, 7], (out) => pe.alibi.bias({ numHeads: 6, qLen: 4, kLen: 7, out })],
  ['alibi.bias (bloom, batched mask)', [2, 3, 4, 5], (out) => pe.alibi.bias({ numHeads: 3, qLen: 4, kLen: 5, form: 'bloom', attentionMask: { data: [0, 1, 1, 1, 1, 1, 1, 1, 1, 1], dims: [2, 5] }, out })],
];

for (const [name, dims, make] of GENERATORS) {
  const size = dims.reduce((a, b) => a * b, 1);

  test(`${name}: out as a Float32Array or a WasmTensor gives the default result`, () => {
    const expected = make(undefined);
    assert.deepEqual(expected.dims, dims);

    const target = new Float32Array(size).fill(123);
    const viaArray = make(target);
    assert.equal(viaArray.data, target, 'the result is the given array');
    assert.deepEqual(viaArray.data, expected.data);

    const wasm = pe.memory.tensor(dims);
    const viaWasm = make(wasm);
    assert.deepEqual(Array.from(wasm.view()), Array.from(expected.data));
    assert.deepEqual(Array.from(viaWasm.data), Array.from(expected.data));
    assert.deepEqual(viaWasm.dims, dims);
    wasm.dispose();
  });

  test(`${name}: a wrong out is a PosEncError and nothing is written`, () => {
    const short = new Float32Array(size - 1).fill(5);
    throwsPosEnc(() => make(short), 'SHAPE_MISMATCH', new RegExp(`out has ${size - 1} elements, but .* is \\[${dims.join(', ')}\\]`));
    assert.ok(short.every((v) => v === 5));
    const wrongDims = pe.memory.tensor([size]);
    throwsPosEnc(() => make(wrongDims), 'SHAPE_MISMATCH', /out has dims/);
    wrongDims.dispose();
    const disposed = pe.memory.tensor(dims);
    disposed.dispose();
    throwsPosEnc(() => make(disposed), 'DISPOSED');
    throwsPosEnc(() => make(new Float64Array(size)), 'INVALID_TYPE', /out must be a Float32Array or a WasmTensor/);
    throwsPosEnc(() => make([1, 2]), 'INVALID_TYPE', /out must be/);
  });
}
