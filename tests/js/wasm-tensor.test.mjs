// pe.memory and WasmTensor, the zero-copy path: the same results as the copy path in every family,
// in-place updates where the tensor lives, read-only inputs left alone, views that survive memory
// growth, and every error path.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, maxAbsDiff, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

test('memory.tensor: dims, size, zero-filled or holding the given values, and a plain copy', () => {
  const z = pe.memory.tensor([2, 3]);
  assert.deepEqual(z.dims, [2, 3]);
  assert.equal(z.size, 6);
  assert.deepEqual(Array.from(z.view()), [0, 0, 0, 0, 0, 0]);
  assert.ok(Object.isFrozen(z.dims));
  const t = pe.memory.tensor([3], [1.5, -2, 3]);
  assert.deepEqual(Array.from(t.data), [1.5, -2, 3]);
  assert.equal(t.view().buffer, t.data.buffer, 'data is the view');
  const copy = t.toTensor();
  assert.deepEqual(copy.dims, [3]);
  t.view()[0] = 9;
  assert.equal(copy.data[0], 1.5, 'toTensor is a copy');
  t.set(new Float32Array([4, 5, 6]));
  assert.deepEqual(Array.from(t.view()), [4, 5, 6]);
  assert.ok(pe.memory.bytes >= t.view().byteOffset + 12);
  for (const x of [z, t]) x.dispose();
});

test('rope.apply on WasmTensors equals the copy path, in place, q and k (GQA), both layouts and pairings', () => {
  for (const layout of ['bshd', 'bhsd']) {
    for (const pairing of ['half', 'interleaved']) {
      const qDims = layout === 'bshd' ? [2, 5, 4, 16] : [2, 4, 5, 16];
      const kDims = layout === 'bshd' ? [2, 5, 2, 16] : [2, 2, 5, 16];
      const q0 = randomFloats(2 * 5 * 4 * 16, 1);
      const k0 = randomFloats(2 * 5 * 2 * 16, 2);
      const q = pe.memory.tensor(qDims, q0);
      const k = pe.memory.tensor(kDims, k0);
      const qc = { data: q0.slice(), dims: qDims };
      const kc = { data: k0.slice(), dims: kDims };
      pe.rope.apply(q, k, { layout, pairing, offset: 7 });
      pe.rope.apply(qc, kc, { layout, pairing, offset: 7 });
      assert.equal(maxAbsDiff(q.view(), qc.data), 0, `${layout} ${pairing} q`);
      assert.equal(maxAbsDiff(k.view(), kc.data), 0, `${layout} ${pairing} k`);
      assert.ok(maxAbsDiff(q.view(), q0) > 0.1, 'q was rotated where it lives');
      // Mixed: a WasmTensor q with a plain k.
      const k2 = { data: k0.slice(), dims: kDims };
      q.set(q0);
      pe.rope.apply(q, k2, { layout, pairing, offset: 7 });
      assert.equal(maxAbsDiff(k2.data, kc.data), 0);
      q.dispose();
      k.dispose();
    }
  }
});

test('RopeCache.apply, rope.rotaryEmbedding and the dims option with WasmTensors', () => {
  const dims = [1, 6, 3, 8];
  const x0 = randomFloats(6 * 3 * 8, 3);
  const cache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 20, pairing: 'interleaved' });
  const x = pe.memory.tensor(dims, x0);
  const xc = x0.slice();
  cache.apply(x, null, { layout: 'bshd', dims, offset: 4 }); // a matching dims option is fine
  cache.apply(xc, null, { layout: 'bshd', dims, offset: 4 });
  assert.equal(maxAbsDiff(x.view(), xc), 0);

  // rotaryEmbedding returns a new tensor and leaves x (and the caches) as they were.
  const { cos, sin } = cache.toTensors();
  const cosW = pe.memory.tensor(cos.dims, cos.data);
  const sinW = pe.memory.tensor(sin.dims, sin.data);
  const x4 = pe.memory.tensor([1, 3, 6, 8], x0);
  const ids = [0, 1, 2, 3, 4, 5];
  const out = pe.rope.rotaryEmbedding(x4, cosW, sinW, { positionIds: ids, interleaved: true });
  const ref = pe.rope.rotaryEmbedding({ data: x0.slice(), dims: [1, 3, 6, 8] }, cos, sin, { positionIds: ids, interleaved: true });
  assert.equal(maxAbsDiff(out.data, ref.data), 0);
  assert.equal(maxAbsDiff(x4.view(), x0), 0, 'x is not modified');
  assert.equal(maxAbsDiff(cosW.view(), cos.data), 0, 'cos cache is not modified');
  assert.ok(!(out.data.buffer instanceof SharedArrayBuffer) && out.data.buffer !== x4.view().buffer, 'the result is a plain copy');
  for (const t of [x, cosW, sinW, x4]) t.dispose();
  cache.dispose();
});

test('sinusoidal.addTo, PositionTable.addTo and learned tables with WasmTensors', () => {
  const x0 = randomFloats(2 * 4 * 6, 4);
  const x = pe.memory.tensor([2, 4, 6], x0);
  const xc = x0.slice();
  const ret = pe.sinusoidal.addTo(x, { offset: 3 });
  pe.sinusoidal.addTo(xc, { dims: [2, 4, 6], offset: 3 });
  assert.equal(maxAbsDiff(x.view(), xc), 0);
  assert.equal(maxAbsDiff(ret, xc), 0, 'addTo returns the values');

  const table = pe.sinusoidal.createTable({ maxPositions: 10, dim: 6 });
  table.addTo(x, { offset: 2 });
  table.addTo(xc, { dims: [2, 4, 6], offset: 2 });
  assert.equal(maxAbsDiff(x.view(), xc), 0);
  table.dispose();

  const rows = randomFloats(10 * 6, 5);
  const learned = pe.memory.tensor([10, 6], rows);
  pe.learned.addTo(x, learned, { positionIds: [9, 0, 1, 2] });
  pe.learned.addTo(xc, { data: rows, dims: [10, 6] }, { dims: [2, 4, 6], positionIds: [9, 0, 1, 2] });
  assert.equal(maxAbsDiff(x.view(), xc), 0);
  const looked = pe.learned.lookup(learned, { length: 2, offset: 8 });
  assert.deepEqual(Array.from(looked.data), Array.from(rows.subarray(48, 60)));
  const uploaded = pe.learned.createTable(learned);
  learned.view().fill(0); // the created table is its own copy
  assert.deepEqual(Array.from(uploaded.lookup({ length: 1, offset: 9 }).data), Array.from(rows.subarray(54, 60)));
  uploaded.dispose();
  learned.dispose();
  x.dispose();
});

test('memory growth between calls: old views are detached, the tensor keeps working and its view is fresh', () => {
  const q0 = randomFloats(4 * 2 * 8, 6);
  const q = pe.memory.tensor([1, 4, 2, 8], q0);
  const ref = { data: q0.slice(), dims: [1, 4, 2, 8] };
  const old = q.view();
  const before = pe.memory.bytes;
  const big = pe.memory.tensor([Math.ceil((before + (64 << 20)) / 4)]); // forces WebAssembly memory to grow
  assert.ok(pe.memory.bytes > before, 'memory grew');
  assert.equal(old.length, 0, 'a view taken before the growth is detached');
  const fresh = q.view();
  assert.equal(fresh.length, q.size);
  assert.equal(maxAbsDiff(fresh, q0), 0, 'the data survived the growth');
  pe.rope.apply(q, null, { layout: 'bshd', offset: 11 });
  pe.rope.apply(ref, null, { layout: 'bshd', offset: 11 });
  assert.equal(maxAbsDiff(q.view(), ref.data), 0);
  assert.equal(maxAbsDiff(q.data, ref.data), 0);
  big.dispose();

  // Growth inside a call (a large copied k) while q is a WasmTensor: q is still updated in place.
  const k = new Float32Array(((pe.memory.bytes + (32 << 20)) / 4) & ~15).fill(0.25);
  const qBig = pe.memory.tensor([1, k.length / 16, 1, 16], new Float32Array(k.length).fill(0.5));
  const grown = pe.memory.bytes;
  pe.rope.apply(qBig, { data: k, dims: qBig.dims }, { layout: 'bshd', offset: 0 });
  assert.ok(pe.memory.bytes > grown, 'memory grew during the call');
  assert.equal(qBig.view()[0], 0.5, 'position 0 is the identity');
  assert.notEqual(qBig.view()[16], 0.5, 'position 1 rotated in place');
  assert.equal(k[16], qBig.view()[16] / 2, 'k (copied) rotated the same way');
  qBig.dispose();
  q.dispose();
});

test('WasmTensor errors: disposed, wrong dims, overlapping q and k, bad arguments', () => {
  const t = pe.memory.tensor([1, 2, 1, 4]);
  throwsPosEnc(() => pe.rope.apply(t, t, { layout: 'bshd' }), 'INVALID_ARGUMENT', /^rope\.apply: q and k must not overlap/);
  throwsPosEnc(() => pe.rope.apply(t, null, { layout: 'bshd', dims: [1, 2, 2, 2] }), 'SHAPE_MISMATCH', /^rope\.apply: option 'dims' \[1,2,2,2\] disagrees with q\.dims/);
  throwsPosEnc(() => pe.memory.tensor([2, 0]), 'INVALID_ARGUMENT', /^memory\.tensor: dims\[1\] must be an integer >= 1/);
  throwsPosEnc(() => pe.memory.tensor('2'), 'INVALID_TYPE', /^memory\.tensor: dims must be an array/);
  throwsPosEnc(() => pe.memory.tensor([2], [1, 2, 3]), 'SHAPE_MISMATCH', /^memory\.tensor: values has 3 elements, but dims \[2\] need 2/);
  throwsPosEnc(() => pe.memory.tensor([2], 5), 'INVALID_TYPE', /^memory\.tensor: values must be/);
  throwsPosEnc(() => pe.memory.tensor([2 ** 20, 2 ** 10]), 'SIZE_OVERFLOW', /^memory\.tensor: dims \[1048576, 1024\] need/);
  throwsPosEnc(() => t.set([1, 2]), 'SHAPE_MISMATCH', /^WasmTensor\.set: values has 2 elements/);
  t.dispose();
  t.dispose(); // twice is fine
  assert.equal(t.disposed, true);
  throwsPosEnc(() => t.view(), 'DISPOSED', /^WasmTensor\.view: the tensor was disposed/);
  throwsPosEnc(() => t.data, 'DISPOSED');
  throwsPosEnc(() => t.toTensor(), 'DISPOSED', /^WasmTensor\.toTensor/);
  throwsPosEnc(() => pe.rope.apply(t, null, { layout: 'bshd' }), 'DISPOSED', /^rope\.apply: the tensor was disposed/);
  throwsPosEnc(() => pe.sinusoidal.addTo(t), 'DISPOSED', /^sinusoidal\.addTo: the tensor was disposed/);
  const u = pe.memory.tensor([1]);
  const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose');
  u[dispose]();
  assert.equal(u.disposed, true);
});

test('the RoPE forms (apply2d, applyXPos) and the attention helpers take WasmTensors too', () => {
  const p0 = randomFloats(16 * 2 * 32, 7);
  const p = pe.memory.tensor([1, 16, 2, 32], p0);
  const pc = p0.slice();
  pe.rope.apply2d(p, null, { layout: 'bshd', grid: [4, 4] });
  pe.rope.apply2d(pc, null, { layout: 'bshd', dims: [1, 16, 2, 32], grid: [4, 4] });
  assert.equal(maxAbsDiff(p.view(), pc), 0);

  const q0 = randomFloats(10 * 32, 8);
  const k0 = randomFloats(10 * 32, 9);
  const q = pe.memory.tensor([10, 32], q0);
  const k = pe.memory.tensor([10, 32], k0);
  const qc = q0.slice();
  const kc = k0.slice();
  pe.rope.applyXPos(q, k, { scaleBase: 512 });
  pe.rope.applyXPos(qc, kc, { dims: [10, 32], scaleBase: 512 });
  assert.equal(maxAbsDiff(q.view(), qc), 0);
  assert.equal(maxAbsDiff(k.view(), kc), 0);

  const scores = pe.attention.scores(q, k, { causal: true });
  const plain = pe.attention.scores({ data: qc, dims: [10, 32] }, { data: kc, dims: [10, 32] }, { causal: true });
  assert.equal(maxAbsDiff(scores.data, plain.data), 0);
  assert.equal(maxAbsDiff(q.view(), qc), 0, 'read-only inputs are left alone');
  for (const t of [p, q, k]) t.dispose();
});

test('tensors and caches start on a cache line (64-byte aligned), so SIMD rows never straddle one', () => {
  const made = [1, 3, 17, 1000, 4097].map((n) => pe.memory.tensor([n]));
  for (const t of made) assert.equal(t.view().byteOffset % 64, 0, `size ${t.size}`);
  for (const t of made) t.dispose();
  const again = pe.memory.tensor([5], [1, 2, 3, 4, 5]); // freeing through the aligned address worked
  assert.deepEqual(Array.from(again.view()), [1, 2, 3, 4, 5]);
  again.dispose();
});
