// The `out` option of every generator (tables, rows, biases, cos/sin caches; slopes, frequencies and
// angles in float64): results written into the caller's reused array (or WasmTensor) equal the
// default results, repeated calls allocate nothing, and bad targets are errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const t5Table = { data: randomFloats(32 * 3, 1), dims: [32, 3] };
const learnedRows = { data: randomFloats(10 * 4, 2), dims: [10, 4] };
const learnedTable = pe.learned.createTable(learnedRows);
const anchoredTable = pe.sinusoidal.createTable({ maxPositions: 100, dim: 6, precision: 'fast', storage: 'anchored' });
const ropeCache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 5 });
const vitTable = { data: randomFloats(10 * 4, 3), dims: [10, 4] };

const GENERATORS = [
  ['sinusoidal.table', [5, 6], (out) => pe.sinusoidal.table({ length: 5, dim: 6, offset: 3, out })],
  ['t5.bias', [3, 4, 7], (out) => pe.t5.bias(t5Table, { qLen: 4, kLen: 7, queryOffset: 2, out })],
  ['alibi.bias', [6, 4, 7], (out) => pe.alibi.bias({ numHeads: 6, qLen: 4, kLen: 7, out })],
  ['learned.lookup', [3, 4], (out) => pe.learned.lookup(learnedRows, { positionIds: [9, 0, 4], out })],
  ['PositionTable.lookup', [2, 4], (out) => learnedTable.lookup({ length: 2, offset: 7, out })],
  ['PositionTable.lookup (anchored)', [3, 6], (out) => anchoredTable.lookup({ length: 3, offset: 90, out })],
  ['PositionTable.toTensor', [10, 4], (out) => learnedTable.toTensor({ out })],
  ['learned.interpolate', [5, 4], (out) => pe.learned.interpolate(vitTable, { gridSize: 3, newGridSize: 2, out })],
  ['transformerXL.relativeSinusoid', [5, 8], (out) => pe.transformerXL.relativeSinusoid({ qLen: 3, memLen: 2, dModel: 8, out })],
  ['RopeCache.toTensors (cos)', [5, 4], (out) => ropeCache.toTensors({ out: { cos: out } }).cos],
  ['RopeCache.toTensors (sin)', [5, 4], (out) => ropeCache.toTensors({ out: { sin: out } }).sin],
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

// Float64 results: a Float64Array out (there is no float64 WasmTensor).
const FLOAT64 = [
  ['alibi.slopes', 12, (out) => pe.alibi.slopes({ numHeads: 12, out })],
  ['sinusoidal.frequencies', 4, (out) => pe.sinusoidal.frequencies({ dim: 7, base: 100, out })],
  ['rope.angles', 6, (out) => pe.rope.angles({ rotaryDim: 4 }, [0, 5, 9], { out }).data],
];

for (const [name, size, make] of FLOAT64) {
  test(`${name}: out as a reused Float64Array gives the default result; a wrong out is a PosEncError`, () => {
    const expected = make(undefined);
    const target = new Float64Array(size).fill(7);
    assert.equal(make(target), target, 'the result is the given array');
    assert.deepEqual(target, expected);
    const short = new Float64Array(size - 1).fill(5);
    throwsPosEnc(() => make(short), 'SHAPE_MISMATCH', new RegExp(`out has ${size - 1} elements`));
    assert.ok(short.every((v) => v === 5));
    throwsPosEnc(() => make(new Float32Array(size)), 'INVALID_TYPE', /out must be a Float64Array/);
    const detached = new Float64Array(size);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    throwsPosEnc(() => make(detached), 'DETACHED_BUFFER', /out/);
  });
}

test('a detached Float32Array out is DETACHED_BUFFER, for every float32 generator', () => {
  for (const [name, dims, make] of GENERATORS) {
    const size = dims.reduce((a, b) => a * b, 1);
    const detached = new Float32Array(size);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    throwsPosEnc(() => make(detached), 'DETACHED_BUFFER', /out/, name);
  }
});

test('an out that shares memory with the call\'s input tensor is refused, and nothing is written', () => {
  // A table WasmTensor whose own memory is the out: the kernel would read rows it has overwritten.
  const table = pe.memory.tensor([10, 4], learnedRows.data);
  throwsPosEnc(() => pe.learned.lookup(table, { length: 10, out: table }), 'INVALID_ARGUMENT', /out overlaps table in memory/);
  throwsPosEnc(() => pe.learned.lookup(table, { length: 10, out: table.view() }), 'INVALID_ARGUMENT', /out overlaps table/);
  assert.deepEqual(table.view(), learnedRows.data);
  // A plain Float32Array table and a view of its buffer as out.
  const buffer = new Float32Array(10 * 4 + 32 * 3);
  const t5 = buffer.subarray(40);
  t5.set(t5Table.data);
  throwsPosEnc(() => pe.t5.bias({ data: t5, dims: [32, 3] }, { qLen: 2, kLen: 8, out: buffer.subarray(0, 48) }), 'INVALID_ARGUMENT', /out overlaps table/);
  // Beside it in the same buffer is fine.
  const beside = pe.learned.lookup(table, { length: 10, out: new Float32Array(40) });
  assert.deepEqual(beside.data, learnedRows.data);
  table.dispose();
});

test('repeated calls with a reused out grow neither WebAssembly memory nor allocate a result', () => {
  const out = new Float32Array(3 * 64 * 64);
  const slopes = new Float64Array(3);
  const run = () => {
    pe.alibi.bias({ numHeads: 3, qLen: 64, kLen: 64, out });
    pe.alibi.slopes({ numHeads: 3, out: slopes });
  };
  for (let i = 0; i < 10; i++) run();
  const bytes = pe.memory.bytes;
  for (let i = 0; i < 500; i++) run();
  assert.equal(pe.memory.bytes, bytes);
  assert.deepEqual(out, pe.alibi.bias({ numHeads: 3, qLen: 64, kLen: 64 }).data);
});
