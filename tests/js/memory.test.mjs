// Memory behaviour of the copy path: allocations that cannot fit fail with OUT_OF_MEMORY, memory
// growth between calls does not corrupt results, and the module keeps working.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

test('an allocation WebAssembly memory cannot hold fails with OUT_OF_MEMORY, and the module keeps working', () => {
  // 2^19 x 1023 floats = 2,145,386,496 bytes: below the 2 GiB request limit, above what fits.
  throwsPosEnc(() => pe.sinusoidal.table({ length: 2 ** 19, dim: 1023 }), 'OUT_OF_MEMORY', /out of WebAssembly memory allocating 2145386496 bytes/);
  assert.equal(pe.sinusoidal.table({ length: 2, dim: 2 }).data[3], Math.fround(Math.cos(1)));
});

test('results stay right when memory grows between and during calls', () => {
  const before = pe.sinusoidal.table({ length: 4, dim: 8 });
  const cache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 64 });
  const big = pe.sinusoidal.table({ length: 4096, dim: 4096 }); // 64 MiB: grows memory
  assert.equal(big.data.length, 4096 * 4096);
  const q = new Float32Array([1, 0, 0, 0, 0, 0, 0, 0]);
  cache.apply(q, null, { dims: [1, 8], offset: 1 });
  assert.ok(Math.abs(q[0] - Math.cos(1)) < 1e-7 && Math.abs(q[4] - Math.sin(1)) < 1e-7);
  assert.deepEqual(pe.sinusoidal.table({ length: 4, dim: 8 }).data, before.data);
  cache.dispose();
});
