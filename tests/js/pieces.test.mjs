// Default calls on plain Float32Arrays that copy in and out a piece of tokens at a time
// (rope.apply, RopeCache.apply, PositionTable.addTo and learned.addTo with consecutive positions)
// give the bits of the same call on a WasmTensor, which is rotated or added to in one piece, and
// reuse one scratch block: WebAssembly memory does not grow from call to call.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

/** Whether two float arrays hold the same values, NaN and -0 included. */
const sameBits = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

/** The call on a copy of `x` as a plain Float32Array and as a WasmTensor: both results. */
function bothWays(x, dims, call) {
  const plain = x.slice();
  call(plain, dims);
  const w = pe.memory.tensor(dims, x);
  call(w);
  const resident = w.view().slice();
  w.dispose();
  return { plain, resident };
}

test('rope.apply on Float32Arrays many pieces long: the bits of the one-piece WasmTensor call, q and k', () => {
  // [2, 300, 8, 64] q (600 tokens of 2 KiB) and [2, 300, 2, 64] k: several pieces per batch row.
  for (const pairing of ['half', 'interleaved']) {
    for (const offset of [0, 17, -40, 4194304 - 150, 123456789]) {
      const q = randomFloats(2 * 300 * 8 * 64, 1);
      const k = randomFloats(2 * 300 * 2 * 64, 2);
      const spec = { layout: 'bshd', pairing, offset, rotaryDim: 48, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 } };
      const qa = q.slice();
      const ka = k.slice();
      pe.rope.apply(qa, ka, { ...spec, dims: [2, 300, 8, 64], kDims: [2, 300, 2, 64] });
      const qw = pe.memory.tensor([2, 300, 8, 64], q);
      const kw = pe.memory.tensor([2, 300, 2, 64], k);
      pe.rope.apply(qw, kw, spec);
      assert.ok(sameBits(qa, qw.view()), `q, ${pairing}, offset ${offset}`);
      assert.ok(sameBits(ka, kw.view()), `k, ${pairing}, offset ${offset}`);
      qw.dispose();
      kw.dispose();
    }
  }
});

test('RopeCache.apply on Float32Arrays many pieces long: the bits of the WasmTensor call', () => {
  const cache = pe.rope.createCache({ rotaryDim: 64, maxPositions: 1200 });
  const x = randomFloats(3 * 700 * 4 * 64, 3);
  const r = bothWays(x, [3, 700, 4, 64], (t, dims) => cache.apply(t, null, { layout: 'bshd', dims, offset: 450 }));
  assert.ok(sameBits(r.plain, r.resident), 'RopeCache.apply');
  cache.dispose();
});

test('PositionTable.addTo and learned.addTo on Float32Arrays many pieces long: the bits of the WasmTensor call', () => {
  const dims = [2, 300, 512]; // 1.2 MiB: several pieces of 256 KiB
  const x = randomFloats(2 * 300 * 512, 9);
  const rows = randomFloats(400 * 512, 10);
  const tables = [
    pe.sinusoidal.createTable({ maxPositions: 400, dim: 512 }),
    pe.sinusoidal.createTable({ maxPositions: 400, dim: 512, precision: 'fast', storage: 'anchored' }),
    pe.learned.createTable({ data: rows, dims: [400, 512] }),
  ];
  for (const table of tables) {
    const r = bothWays(x, dims, (t, d) => table.addTo(t, { dims: d, offset: 77 }));
    assert.ok(sameBits(r.plain, r.resident), `${table.storage} table`);
    table.dispose();
  }
  const r = bothWays(x, dims, (t, d) => pe.learned.addTo(t, { data: rows, dims: [400, 512] }, { dims: d, offset: 100 }));
  assert.ok(sameBits(r.plain, r.resident), 'learned.addTo');
});

test('an error in a call that goes in pieces comes before anything is written back', () => {
  const q = randomFloats(600 * 8 * 64, 5);
  const before = q.slice();
  throwsPosEnc(() => pe.rope.apply(q, null, { dims: [1, 600, 8 * 64], numHeads: 8, rotaryDim: 66 }), 'OUT_OF_RANGE', /rotaryDim/);
  assert.deepEqual(q, before);
});

test('repeated piecewise calls reuse one scratch block: WebAssembly memory stays the same size', () => {
  const q = randomFloats(400 * 8 * 64, 6);
  const k = randomFloats(400 * 2 * 64, 7);
  const cache = pe.rope.createCache({ rotaryDim: 64, maxPositions: 500 });
  const run = () => {
    pe.rope.apply(q, k, { dims: [1, 400, 8, 64], kDims: [1, 400, 2, 64], layout: 'bshd', offset: 9 });
    cache.apply(q, null, { dims: [1, 400, 512], numHeads: 8, offset: 90 });
  };
  for (let i = 0; i < 5; i++) run();
  const bytes = pe.memory.bytes;
  for (let i = 0; i < 200; i++) run();
  assert.equal(pe.memory.bytes, bytes);
});
