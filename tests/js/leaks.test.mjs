// Failing and succeeding calls release everything they take: after a warm-up, hundreds of
// thousands of calls leave WebAssembly memory exactly as large as it was. (A leak of 64 bytes per
// call would need ~19 MB more.) Its own file, so it runs in a fresh process with a small heap.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats } from './helpers.mjs';

const pe = await createPosEnc();
const q = randomFloats(4 * 64, 1);
const table = { data: randomFloats(16 * 8, 2), dims: [16, 8] };
const anchored = pe.sinusoidal.createTable({ maxPositions: 100, dim: 8, precision: 'fast', storage: 'anchored' });
const x = randomFloats(3 * 8, 4);
const long = randomFloats(70 * 8, 5); // 64 rows or more: addTo 'fast' takes the anchored path
const pixtral = pe.model.fromConfig({ model_type: 'pixtral', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 1, image_size: 1024, patch_size: 16 });
const deepseek = pe.model.fromConfig({ model_type: 'deepseek_v3', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 1,
  qk_nope_head_dim: 32, qk_rope_head_dim: 32, rope_theta: 10000 });

const CALLS = {
  'failing in C++ (bad rotaryDim)': () => pe.rope.apply(q, null, { dims: [4, 64], rotaryDim: 62 + 1 }),
  'failing in C++ (id outside a table)': () => pe.learned.lookup(table, { positionIds: [3, 16] }),
  'failing in C++ (bad base)': () => pe.sinusoidal.table({ length: 8, dim: 8, base: -2 }),
  'failing in C++ (past an anchored table)': () => anchored.addTo(x, { dims: [3, 8], offset: 98 }),
  'failing in JS (typo)': () => pe.rope.apply(q, null, { dims: [4, 64], rotarydim: 8 }),
  'succeeding (copy path)': () => pe.rope.apply(q, null, { dims: [4, 64], offset: 7 }),
  'succeeding (fast addTo, anchored rows)': () => pe.sinusoidal.addTo(long, { dims: [70, 8], precision: 'fast', offset: 5 }),
  'succeeding (T5 bias)': () => pe.t5.bias({ data: randomFloats(32 * 2, 3), dims: [32, 2] }, { qLen: 8, kLen: 8 }),
  'failing in C++ (a Pixtral id past the grid)': () => pe.model.apply(pixtral, 0, q, null, { dims: [4, 64], positionIds: [0, 1, 2, 3, 0, 1, 2, 64] }),
  'succeeding (a model layer, DeepSeek-V3 interleave)': () => pe.model.apply(deepseek, 0, q, null, { dims: [4, 64], offset: 3 }),
};

function runAll(times) {
  let failures = 0;
  for (let i = 0; i < times; i++) {
    for (const call of Object.values(CALLS)) {
      try { call(); } catch (error) {
        assert.equal(error.name, 'PosEncError');
        failures++;
      }
    }
  }
  return failures;
}

test('hundreds of thousands of calls, failing and succeeding, do not grow WebAssembly memory', () => {
  runAll(200); // warm-up: scratch pools and caches reach their steady size
  const before = pe.memory.bytes;
  const failures = runAll(50_000);
  assert.equal(failures, 50_000 * 6, 'the six failing calls failed every time');
  assert.equal(pe.memory.bytes, before, `memory grew from ${before} to ${pe.memory.bytes} bytes`);
  assert.equal(pe.sinusoidal.table({ length: 1, dim: 2, offset: 1 }).data[0], Math.fround(Math.sin(1)));
});

// Calls that fail after they read their arguments, or while copying them in, free what they took.
// Each allocating entry point fails 1000 times; WebAssembly memory must not grow after the first
// round. The blocks are large (256 KiB) where the call allocates for the caller's data, so that a
// block leaked per failure would need ~250 MiB more.
const BIG = 1 << 16;
const bigInts = new BigInt64Array(BIG);
const throwingValues = new Array(BIG).fill(0);
Object.defineProperty(throwingValues, BIG - 1, { get() { throw new Error('no value'); } });

const FAILING = {
  'memory.tensor with bigint values': () => pe.memory.tensor([BIG], bigInts),
  'memory.tensor with a value that throws when read': () => pe.memory.tensor([BIG], throwingValues),
  'memory.tensor with values of the wrong length': () => pe.memory.tensor([BIG], new Float32Array(BIG - 1)),
  'WasmTensor.set with bigint values': () => reusable.set(bigInts),
  'learned.createTable from a detached array': () => pe.learned.createTable(detachedFloats(BIG), { tableDims: [BIG / 8, 8] }),
  'sinusoidal.createTable refused in C++': () => pe.sinusoidal.createTable({ maxPositions: BIG / 8, dim: 8, base: -2 }),
  'rope.createCache refused': () => pe.rope.createCache({ rotaryDim: 8, maxPositions: BIG / 8, scaling: { type: 'linear', factor: -1 } }),
  'model.createCache refused': () => pe.model.createCache(deepseek, 0, { maxPositions: BIG, seqLen: -1 }),
  'rope.apply whose input is detached by an option getter': () => {
    const data = new Float32Array(BIG);
    pe.rope.apply(data, null, { dims: [BIG / 64, 64], get offset() { structuredClone(data.buffer, { transfer: [data.buffer] }); return 1; } });
  },
};
const reusable = pe.memory.tensor([BIG]);

function detachedFloats(n) {
  const a = new Float32Array(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

test('1000 failing calls of each allocating entry point leave WebAssembly memory as it was after the first', () => {
  for (const [name, call] of Object.entries(FAILING)) {
    const fail = () => assert.throws(call, (e) => e.name === 'PosEncError', `${name} fails with a PosEncError`);
    fail();
    const before = pe.memory.bytes;
    for (let i = 0; i < 1000; i++) fail();
    assert.equal(pe.memory.bytes, before, `${name}: memory grew from ${before} to ${pe.memory.bytes} bytes`);
  }
});
