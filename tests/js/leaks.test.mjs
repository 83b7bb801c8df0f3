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
