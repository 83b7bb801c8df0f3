// pe.sinusoidal against the float64 formula, through the public JS API.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import createModule from '../../dist/posenc.mjs';
import { instantiate } from '../../dist/loading.js';
import { createPosEnc, randomFloats, sinusoid, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

test('table equals the float64 formula (interleaved, odd and even widths)', () => {
  for (const dim of [1, 2, 3, 7, 64, 65, 768]) {
    for (const offset of [0, 17, 1e6]) {
      const { data, dims } = pe.sinusoidal.table({ length: 80, dim, offset });
      assert.deepEqual(dims, [80, dim]);
      for (let t = 0; t < 80; t++) {
        for (let j = 0; j < dim; j++) {
          const e = Math.abs(data[t * dim + j] - sinusoid(offset + t, j, dim));
          assert.ok(e <= 1.2e-7, `dim ${dim} offset ${offset} row ${t} col ${j}: error ${e}`);
        }
      }
    }
  }
});

test('half layout holds the same columns, sines first', () => {
  for (const dim of [6, 7]) {
    const a = pe.sinusoidal.table({ length: 5, dim, base: 500 });
    const b = pe.sinusoidal.table({ length: 5, dim, base: 500, layout: 'half' });
    const sines = Math.ceil(dim / 2);
    for (let t = 0; t < 5; t++) {
      for (let j = 0; j < dim; j++) {
        const col = j < sines ? 2 * j : 2 * (j - sines) + 1;
        assert.equal(b.data[t * dim + j], a.data[t * dim + col]);
      }
    }
  }
});

test('explicit positionIds: negative, fractional, BigInt64Array, tensor-like', () => {
  const ids = [0, -3, 2.5, 1e6];
  const { data } = pe.sinusoidal.table({ positionIds: ids, dim: 8 });
  ids.forEach((p, t) => {
    for (let j = 0; j < 8; j++) assert.ok(Math.abs(data[t * 8 + j] - sinusoid(p, j, 8)) <= 1.2e-7);
  });
  const big = pe.sinusoidal.table({ positionIds: new BigInt64Array([5n, 6n]), dim: 4 });
  assert.deepEqual(big.data, pe.sinusoidal.table({ length: 2, offset: 5, dim: 4 }).data);
  const tensorIds = pe.sinusoidal.table({ positionIds: { data: new Int32Array([5, 6]), dims: [2] }, dim: 4 });
  assert.deepEqual(tensorIds.data, big.data);
});

test('row 0 is [0, 1, 0, 1, ...] exactly', () => {
  assert.deepEqual(Array.from(pe.sinusoidal.table({ length: 1, dim: 5 }).data), [0, 1, 0, 1, 0]);
});

test('addTo adds in place for [seq, dim] and [batch, seq, dim], with offset and per-row ids', () => {
  const x0 = randomFloats(2 * 6 * 10, 1);
  const x = x0.slice();
  const returned = pe.sinusoidal.addTo({ data: x, dims: [2, 6, 10] }, { offset: 4 });
  assert.equal(returned, x);
  for (let i = 0; i < x.length; i++) {
    const s = Math.floor(i / 10) % 6;
    assert.ok(Math.abs(x[i] - (x0[i] + sinusoid(4 + s, i % 10, 10))) <= 2.5e-7);
  }
  const y = x0.slice();
  const ids = Array.from({ length: 12 }, (_, i) => (i * 37) % 100);
  pe.sinusoidal.addTo(y, { dims: [2, 6, 10], positionIds: ids, layout: 'interleaved' });
  for (let i = 0; i < y.length; i++) {
    assert.ok(Math.abs(y[i] - (x0[i] + sinusoid(ids[Math.floor(i / 10)], i % 10, 10))) <= 2.5e-7);
  }
  const z = x0.slice(0, 60);
  pe.sinusoidal.addTo(z, { dims: [6, 10] });
  assert.ok(Math.abs(z[11] - (x0[11] + sinusoid(1, 1, 10))) <= 2.5e-7);
});

test('frequencies are base^(-2i/dim)', () => {
  const w = pe.sinusoidal.frequencies({ dim: 7, base: 100 });
  assert.equal(w.length, 4);
  w.forEach((v, i) => assert.equal(v, 100 ** (-2 * i / 7)));
});

test('createTable caches rows for repeated adds and lookups; dispose ends it', () => {
  const table = pe.sinusoidal.createTable({ maxPositions: 64, dim: 12 });
  assert.equal(table.rows, 64);
  const x = new Float32Array(3 * 12);
  table.addTo(x, { dims: [3, 12], offset: 10 });
  assert.deepEqual(x, pe.sinusoidal.table({ length: 3, offset: 10, dim: 12 }).data);
  assert.deepEqual(table.lookup({ positionIds: [63, 0] }).data, pe.sinusoidal.table({ positionIds: [63, 0], dim: 12 }).data);
  throwsPosEnc(() => table.addTo(x, { dims: [3, 12], offset: 62 }), 'OUT_OF_RANGE', /offset \+ 2\) is 64/);
  table.dispose();
  table.dispose();
  assert.equal(table.disposed, true);
  throwsPosEnc(() => table.lookup({ length: 1 }), 'DISPOSED', /disposed/);
});

test("precision 'fast': within 3.2e-7 of the float64 formula in table, createTable and addTo", () => {
  for (const [length, dim, offset, layout] of [[300, 768, 0, 'interleaved'], [130, 65, 1e6, 'half'], [64, 6, 5, 'interleaved']]) {
    const { data } = pe.sinusoidal.table({ length, dim, offset, layout, precision: 'fast' });
    const exact = pe.sinusoidal.table({ length, dim, offset, layout }).data;
    const sines = Math.ceil(dim / 2);
    let worst = 0;
    let differs = false;
    for (let t = 0; t < length; t++) {
      for (let j = 0; j < dim; j++) {
        const col = layout === 'half' ? (j < sines ? 2 * j : 2 * (j - sines) + 1) : j;
        worst = Math.max(worst, Math.abs(data[t * dim + j] - sinusoid(offset + t, col, dim)));
        differs ||= data[t * dim + j] !== exact[t * dim + j];
      }
    }
    assert.ok(worst <= 3.2e-7, `${length} x ${dim} offset ${offset} ${layout}: error ${worst}`);
    assert.ok(differs, 'the fast path ran (some value differs from the exact table)');
  }
  const table = pe.sinusoidal.createTable({ maxPositions: 256, dim: 32, precision: 'fast' });
  assert.deepEqual(table.toTensor().data, pe.sinusoidal.table({ length: 256, dim: 32, precision: 'fast' }).data);
  table.dispose();
  const x = new Float32Array(100 * 64);
  pe.sinusoidal.addTo(x, { dims: [100, 64], offset: 9, precision: 'fast' });
  for (let i = 0; i < x.length; i++) assert.ok(Math.abs(x[i] - sinusoid(9 + Math.floor(i / 64), i % 64, 64)) <= 3.2e-7);
  // Explicit positions are always exact.
  assert.deepEqual(pe.sinusoidal.table({ positionIds: [3, 1e6], dim: 8, precision: 'fast' }).data,
    pe.sinusoidal.table({ positionIds: [3, 1e6], dim: 8 }).data);
});

test("addTo with precision 'fast' adds exactly the rows of table({ precision: 'fast' }) to every batch row", () => {
  for (const [seq, dim, offset, layout] of [[300, 768, 0, 'interleaved'], [97, 65, 2.5, 'half'], [64, 7, 1e6, 'interleaved'], [63, 6, 5, 'half']]) {
    const rows = pe.sinusoidal.table({ length: seq, dim, offset, layout, precision: 'fast' }).data;
    const x0 = randomFloats(2 * seq * dim, seq);
    const x = x0.slice();
    pe.sinusoidal.addTo(x, { dims: [2, seq, dim], offset, layout, precision: 'fast' });
    for (let i = 0; i < x.length; i++) {
      assert.equal(x[i], Math.fround(x0[i] + rows[i % (seq * dim)]), `${seq} x ${dim} offset ${offset} ${layout}: element ${i}`);
    }
  }
});

test("createTable with precision 'fast', full or anchored rows: the fast table's values either way", async () => {
  for (const [maxLength, dim, layout] of [[300, 768, 'interleaved'], [97, 65, 'half'], [71, 7, 'interleaved'], [64, 6, 'half']]) {
    for (const storage of ['anchored', 'rows', undefined]) {
      const want = pe.sinusoidal.table({ length: maxLength, dim, layout, precision: 'fast' }).data;
      const table = pe.sinusoidal.createTable({ maxPositions: maxLength, dim, layout, precision: 'fast', storage });
      const label = `${maxLength} x ${dim} ${layout} storage ${storage}`;
      // 'auto' (the default) keeps full rows this small; 'anchored' keeps 2 dim (ceil(rows / 32) + 32) floats.
      assert.equal(table.storage, storage ?? 'rows', label);
      assert.equal(table.bytes, (storage === 'anchored' ? 2 * dim * (Math.ceil(maxLength / 32) + 32) : maxLength * dim) * 4, label);
      assert.deepEqual(table.toTensor(), { data: want, dims: [maxLength, dim] }, label);
      const ids = [maxLength - 1, 0, 33, 31, 32];
      const picked = table.lookup({ positionIds: ids }).data;
      ids.forEach((id, t) => assert.deepEqual(picked.subarray(t * dim, (t + 1) * dim), want.subarray(id * dim, (id + 1) * dim), `${label} id ${id}`));
      // Two batch rows: a shared range from offset 5, then each row at its own positions.
      const seq = 40;
      const x0 = randomFloats(2 * seq * dim, dim);
      const x = x0.slice();
      table.addTo(x, { dims: [2, seq, dim], offset: 5 });
      for (let i = 0; i < x.length; i++) assert.equal(x[i], Math.fround(x0[i] + want[(5 + (Math.floor(i / dim) % seq)) * dim + (i % dim)]), `${label} add ${i}`);
      const perRow = Array.from({ length: 2 * seq }, (_, t) => (t * 37) % maxLength);
      const y = x0.slice();
      table.addTo(y, { dims: [2, seq, dim], positionIds: { data: perRow, dims: [2, seq] } });
      for (let i = 0; i < y.length; i++) assert.equal(y[i], Math.fround(x0[i] + want[perRow[Math.floor(i / dim)] * dim + (i % dim)]), `${label} ids ${i}`);
      throwsPosEnc(() => table.addTo(x, { dims: [2, seq, dim], offset: maxLength - seq + 1 }), 'OUT_OF_RANGE', /outside the table|is \d+/);
      throwsPosEnc(() => table.lookup({ positionIds: [maxLength] }), 'OUT_OF_RANGE', new RegExp(`positionIds\\[0\\] is ${maxLength}`));
      table.dispose();
    }
  }
  // Memory: a fresh instance (its own WebAssembly memory, not the shared one createPosEnc returns)
  // grows by the anchored storage (9 MiB), not by the 128 MiB of full rows.
  const fresh = await instantiate(createModule, { kind: 'bytes', bytes: readFileSync(new URL('../../dist/posenc.wasm', import.meta.url)), from: 'dist/posenc.wasm' });
  const before = fresh.memory.bytes;
  const anchored = fresh.sinusoidal.createTable({ maxPositions: 8192, dim: 4096, precision: 'fast', storage: 'anchored' });
  const grownAnchored = fresh.memory.bytes - before;
  const full = fresh.sinusoidal.createTable({ maxPositions: 8192, dim: 4096, precision: 'fast' }); // 'auto': 128 MiB of rows
  const grownFull = fresh.memory.bytes - before;
  assert.ok(grownAnchored < 16 * 2 ** 20, `anchored table grew memory by ${grownAnchored} bytes`);
  assert.ok(grownFull >= 128 * 2 ** 20, `full table grew memory by ${grownFull} bytes`);
  // What each table says it holds: 8 dim (8192/32 + 32) floats of anchored rows, or every row.
  assert.equal(anchored.bytes, 2 * 4096 * (8192 / 32 + 32) * 4);
  assert.equal(anchored.storage, 'anchored');
  assert.equal(full.bytes, 8192 * 4096 * 4);
  assert.equal(full.storage, 'rows');
  const want = fresh.sinusoidal.table({ length: 8192, dim: 4096, precision: 'fast' }).data.subarray(8191 * 4096);
  assert.deepEqual(anchored.lookup({ positionIds: [8191] }).data, want);
  assert.deepEqual(full.lookup({ positionIds: [8191] }).data, want);
  anchored.dispose();
  full.dispose();
  assert.equal(anchored.bytes, 0);
  // Past 256 MiB of full rows, 'auto' keeps anchored rows (18 MiB here instead of 256 MiB + 16 KiB).
  const past = fresh.sinusoidal.createTable({ maxPositions: 16385, dim: 4096, precision: 'fast' });
  assert.equal(past.storage, 'anchored');
  past.dispose();
});

test("createTable's storage: 'rows' keeps full rows at any size, 'anchored' only for fast tables of 64 rows or more", () => {
  for (const options of [{ maxPositions: 63, dim: 4, storage: 'rows' }, { maxPositions: 100, dim: 4 }, { maxPositions: 100, dim: 4, storage: 'auto' }]) {
    const rows = pe.sinusoidal.createTable(options); // exact tables keep full rows
    assert.equal(rows.storage, 'rows');
    rows.dispose();
  }
  const create = (o) => () => pe.sinusoidal.createTable({ maxPositions: 100, dim: 4, ...o });
  throwsPosEnc(create({ storage: 'anchored' }), 'INVALID_ARGUMENT', /storage 'anchored' needs precision 'fast'/);
  throwsPosEnc(create({ storage: 'anchored', precision: 'fast', maxPositions: 63 }), 'INVALID_ARGUMENT', /maxPositions >= 64.*got 63/);
  throwsPosEnc(create({ storage: 'full' }), 'INVALID_ARGUMENT', /storage must be 'auto' or 'rows' or 'anchored', got 'full'/);
  throwsPosEnc(create({ storage: 1 }), 'INVALID_TYPE', /sinusoidal\.createTable: storage/);
  throwsPosEnc(create({ storage: 'anchored', precision: 'fast', maxPositions: 2 ** 31 - 1, dim: 2 ** 31 - 1 }), 'SIZE_OVERFLOW', /anchored rows/);
});

test("large positions: exact within 1.2e-7 of float64 up to 1e8, 'fast' within 3.2e-7 up to 1e9 (docs/reference.md)", () => {
  for (const [offset, precision, bound] of [[1e8, 'exact', 1.2e-7], [1e9, 'fast', 3.2e-7], [1e8, 'fast', 3.2e-7]]) {
    for (const dim of [6, 65]) {
      const { data } = pe.sinusoidal.table({ length: 100, dim, offset, precision });
      let worst = 0;
      for (let t = 0; t < 100; t++) {
        for (let j = 0; j < dim; j++) worst = Math.max(worst, Math.abs(data[t * dim + j] - sinusoid(offset + t, j, dim)));
      }
      assert.ok(worst <= bound, `${precision} at ${offset}, dim ${dim}: ${worst}`);
    }
  }
});

test('every bad argument throws a PosEncError naming it', () => {
  const t = (opts) => () => pe.sinusoidal.table(opts);
  throwsPosEnc(t({ length: 4 }), 'MISSING_OPTION', /'dim'/);
  throwsPosEnc(t({ dim: 4 }), 'MISSING_OPTION', /'length'/);
  throwsPosEnc(t({ length: 4, dim: 0 }), 'INVALID_ARGUMENT', /dim must be an integer >= 1, got 0/);
  throwsPosEnc(t({ length: 4, dim: 2.5 }), 'INVALID_ARGUMENT', /dim/);
  throwsPosEnc(t({ length: -1, dim: 4 }), 'INVALID_ARGUMENT', /length/);
  throwsPosEnc(t({ length: 4, dim: '4' }), 'INVALID_TYPE', /dim must be a number/);
  throwsPosEnc(t({ length: 4, dim: 4, base: NaN }), 'INVALID_ARGUMENT', /base/);
  throwsPosEnc(t({ length: 4, dim: 4, base: -1 }), 'INVALID_ARGUMENT', /base must be a finite number > 0/);
  throwsPosEnc(t({ length: 4, dim: 4, offset: Infinity }), 'INVALID_ARGUMENT', /offset/);
  throwsPosEnc(t({ length: 4, dim: 4, layout: 'concat' }), 'INVALID_ARGUMENT', /layout must be 'interleaved' or 'half'/);
  throwsPosEnc(t({ length: 4, dim: 4, precision: 'float16' }), 'INVALID_ARGUMENT', /precision must be 'exact' or 'fast', got 'float16'/);
  throwsPosEnc(t({ length: 4, dim: 4, precision: 1 }), 'INVALID_TYPE', /precision must be/);
  throwsPosEnc(() => pe.sinusoidal.createTable({ maxPositions: 4, dim: 4, precision: 'Fast' }), 'INVALID_ARGUMENT', /sinusoidal\.createTable: precision/);
  throwsPosEnc(t({ length: 4, dim: 4, lenght: 3 }), 'UNKNOWN_OPTION', /lenght/);
  throwsPosEnc(t({ positionIds: [1, NaN], dim: 4 }), 'INVALID_ARGUMENT', /positionIds\[1\]/);
  throwsPosEnc(t({ positionIds: [1, '2'], dim: 4 }), 'INVALID_TYPE', /positionIds\[1\]/);
  throwsPosEnc(t({ positionIds: [], dim: 4 }), 'INVALID_ARGUMENT', /at least one/);
  throwsPosEnc(t({ positionIds: [1], length: 1, dim: 4 }), 'INVALID_ARGUMENT', /either/);
  throwsPosEnc(t({ length: 2 ** 20, dim: 2 ** 12 }), 'SIZE_OVERFLOW', /bytes/);
  throwsPosEnc(() => pe.sinusoidal.table(null), 'INVALID_TYPE', /options must be an object/);
  throwsPosEnc(() => pe.sinusoidal.addTo(new Float32Array(10)), 'MISSING_OPTION', /'dims'/);
  throwsPosEnc(() => pe.sinusoidal.addTo(new Float32Array(10), { dims: [3, 4] }), 'SHAPE_MISMATCH', /10 elements, but dims \[3, 4\] need 12/);
  throwsPosEnc(() => pe.sinusoidal.addTo([1, 2], { dims: [1, 2] }), 'INVALID_TYPE', /Float32Array/);
  throwsPosEnc(() => pe.sinusoidal.addTo({ data: new Float64Array(4), dims: [2, 2] }), 'INVALID_TYPE', /x\.data must be a Float32Array/);
  throwsPosEnc(() => pe.sinusoidal.addTo(new Float32Array(8), { dims: [2, 2, 2, 1] }), 'SHAPE_MISMATCH', /\[seq, dim\] or \[batch, seq, dim\]/);
  throwsPosEnc(() => pe.sinusoidal.addTo(new Float32Array(8), { dims: [2, 4], positionIds: [1, 2, 3] }), 'SHAPE_MISMATCH', /positionIds has 3 values/);
  // The module keeps working after every error above.
  assert.equal(pe.sinusoidal.table({ length: 1, dim: 2 }).data[1], 1);
});
