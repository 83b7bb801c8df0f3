// Memory behaviour of the copy path: allocations that cannot fit fail with OUT_OF_MEMORY, memory
// growth between calls does not corrupt results, and the module keeps working; objects report the
// memory they hold.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import createModule from '../../dist/posenc.mjs';
import { instantiate } from '../../dist/loading.js';
import { createPosEnc, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

test('an allocation WebAssembly memory cannot hold fails with OUT_OF_MEMORY, and the module keeps working', () => {
  // 2^19 x 1023 floats = 2,145,386,496 bytes: below the 2 GiB request limit, above what fits.
  throwsPosEnc(() => pe.memory.tensor([2 ** 19, 1023]), 'OUT_OF_MEMORY', /out of WebAssembly memory allocating 2145386496 bytes/);
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

test("what a RopeCache, layer cache or learned table reports in .bytes is what it takes from WebAssembly memory", async () => {
  // In a fresh instance (its own memory), blocks of 1 MiB and more come one after another from the
  // top of the heap: the gap between a 1 MiB fence tensor allocated before an object and one after
  // it is the object's block, plus allocator headers and the small temporaries of the call.
  const fresh = await instantiate(createModule, { kind: 'bytes', bytes: readFileSync(new URL('../../dist/posenc.wasm', import.meta.url)), from: 'dist/posenc.wasm' });
  const fence = () => fresh.memory.tensor([2 ** 18]);
  const taken = (make) => {
    const before = fence();
    const object = make();
    const gap = fence().view().byteOffset - before.view().byteOffset - 2 ** 20;
    assert.ok(gap >= object.bytes && gap <= object.bytes + 64 * 1024, `${object.bytes} bytes reported, ${gap} taken`);
    return object;
  };
  const half = taken(() => fresh.rope.createCache({ rotaryDim: 128, maxPositions: 4096, pairing: 'half' }));
  const interleaved = taken(() => fresh.rope.createCache({ rotaryDim: 128, maxPositions: 4096, pairing: 'interleaved' }));
  const learned = taken(() => fresh.learned.createTable({ data: new Float32Array(1000 * 768), dims: [1000, 768] }));
  // A model layer's cache: Gemma 4's proportional RoPE keeps rows for its 64 rotated pairs only.
  const gemma4 = fresh.model.fromConfig({ model_type: 'gemma4_text', num_hidden_layers: 6, hidden_size: 1536, num_attention_heads: 8, head_dim: 256,
    global_head_dim: 512, sliding_window: 512, rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1e6, rope_type: 'proportional' },
      sliding_attention: { rope_theta: 10000, rope_type: 'default' } } });
  const layer = taken(() => fresh.model.createCache(gemma4, 5, { maxPositions: 4096 }));
  assert.deepEqual([half.bytes, interleaved.bytes, learned.bytes, layer.bytes],
    [4096 * 64 * 4 * 2, 4096 * 64 * 4 * 6, 1000 * 768 * 4, 4096 * 64 * 4 * 2]);
  for (const o of [half, interleaved, learned, layer]) {
    o.dispose();
    assert.equal(o.bytes, 0);
  }
});
