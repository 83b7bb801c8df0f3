// pe.learned: gathers and adds are exact copies of table rows; ids outside the table are errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const rows = 12;
const dim = 5;
const table = { data: randomFloats(rows * dim, 1), dims: [rows, dim] };
const row = (r) => Array.from(table.data.subarray(r * dim, (r + 1) * dim));

test('lookup by range and by ids returns exact rows', () => {
  const a = pe.learned.lookup(table, { length: 3, offset: 9 });
  assert.deepEqual(a.dims, [3, dim]);
  assert.deepEqual(Array.from(a.data), [...row(9), ...row(10), ...row(11)]);
  const b = pe.learned.lookup(table.data, { tableDims: [rows, dim], positionIds: new Int32Array([0, 11, 4]) });
  assert.deepEqual(Array.from(b.data), [...row(0), ...row(11), ...row(4)]);
});

test('addTo adds rows per batch row, by offset and by per-row ids', () => {
  const x0 = randomFloats(2 * 3 * dim, 2);
  const x = x0.slice();
  pe.learned.addTo({ data: x, dims: [2, 3, dim] }, table, { offset: 2 });
  for (let i = 0; i < x.length; i++) assert.equal(x[i], Math.fround(x0[i] + table.data[(2 + (Math.floor(i / dim) % 3)) * dim + (i % dim)]));
  const y = x0.slice();
  const ids = [5, 5, 0, 11, 1, 2];
  pe.learned.addTo(y, table, { dims: [2, 3, dim], positionIds: ids });
  for (let i = 0; i < y.length; i++) assert.equal(y[i], Math.fround(x0[i] + table.data[ids[Math.floor(i / dim)] * dim + (i % dim)]));
});

test('createTable keeps the table in wasm memory for repeated use', () => {
  const t = pe.learned.createTable(table);
  assert.equal(t.bytes, table.data.length * 4);
  assert.equal(t.rows, rows);
  assert.equal(t.dim, dim);
  assert.deepEqual(t.toTensor().data, table.data);
  assert.deepEqual(t.lookup({ positionIds: [3] }).data, pe.learned.lookup(table, { positionIds: [3] }).data);
  t.dispose();
  throwsPosEnc(() => t.addTo(new Float32Array(dim), { dims: [1, dim] }), 'DISPOSED', /disposed/);
});

test('robertaPositionIds counts real tokens from paddingIdx + 1', () => {
  const ids = pe.learned.robertaPositionIds([0, 5, 6, 1, 1, 1, 7, 8, 9, 1], { paddingIdx: 1, dims: [2, 5] });
  assert.deepEqual(Array.from(ids), [2, 3, 4, 1, 1, 1, 2, 3, 4, 1]);
});

test('ids outside the table are errors, never clamped or wrapped', () => {
  throwsPosEnc(() => pe.learned.lookup(table, { positionIds: [0, 12] }), 'OUT_OF_RANGE', /positionIds\[1\] is 12, outside the table's positions 0\.\.11/);
  throwsPosEnc(() => pe.learned.lookup(table, { positionIds: [-1] }), 'OUT_OF_RANGE', /positionIds\[0\] is -1/);
  throwsPosEnc(() => pe.learned.lookup(table, { positionIds: [1.5] }), 'INVALID_ARGUMENT', /integer position id/);
  throwsPosEnc(() => pe.learned.lookup(table, { length: 4, offset: 9 }), 'OUT_OF_RANGE', /offset \+ 3\) is 12/);
  const x = new Float32Array(2 * dim);
  throwsPosEnc(() => pe.learned.addTo(x, table, { dims: [2, dim], offset: 11 }), 'OUT_OF_RANGE', /12/);
  assert.deepEqual(x, new Float32Array(2 * dim), 'x untouched');
  throwsPosEnc(() => pe.learned.addTo(x, table, { dims: [2, 4] }), 'SHAPE_MISMATCH', /10 elements/);
  throwsPosEnc(() => pe.learned.addTo(new Float32Array(8), table, { dims: [2, 4] }), 'SHAPE_MISMATCH', /rows of 4 values but the table has dim 5/);
  throwsPosEnc(() => pe.learned.lookup(table.data, { length: 1 }), 'MISSING_OPTION', /'tableDims'/);
  throwsPosEnc(() => pe.learned.lookup({ data: table.data, dims: [rows * dim] }, { length: 1 }), 'SHAPE_MISMATCH', /\[rows, dim\]/);
  throwsPosEnc(() => pe.learned.lookup(table, { length: 0 }), 'INVALID_ARGUMENT', /length/);
  // an offset beside positionIds would be ignored: it is refused, as addTo refuses it
  throwsPosEnc(() => pe.learned.lookup(table, { positionIds: [1], offset: 3 }), 'INVALID_ARGUMENT', /positionIds, not both/);
  throwsPosEnc(() => pe.learned.addTo(x, table, { dims: [2, dim], positionIds: [1, 2], offset: 3 }), 'INVALID_ARGUMENT', /positionIds, not both/);
  throwsPosEnc(() => pe.learned.robertaPositionIds([1, 2], { paddingIdx: -1 }), 'INVALID_ARGUMENT', /paddingIdx/);
  throwsPosEnc(() => pe.learned.robertaPositionIds([1, 2, 3], { paddingIdx: 1, dims: [2, 2] }), 'SHAPE_MISMATCH', /batch \* seq = 3/);
  // found by the api fuzz target (tests/fuzz/targets/api.mjs): array-likes whose length sizes no
  // array, and a Symbol token, were RangeErrors and a TypeError
  for (const length of [2 ** 32, -1, 1.5, NaN]) {
    throwsPosEnc(() => pe.learned.robertaPositionIds({ length }, { paddingIdx: 1 }), 'INVALID_ARGUMENT', /inputIds\.length must be an integer/);
  }
  throwsPosEnc(() => pe.learned.robertaPositionIds([0, Symbol('id')], { paddingIdx: 1 }), 'INVALID_ARGUMENT', /inputIds\[1\] must be an integer token id/);
});
