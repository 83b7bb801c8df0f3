// Concurrency: one module per thread. Four worker threads, each with its own posenc module, run the
// same calls at the same time (with memory growth forced in between) and give bit-identical results,
// the same as the main thread's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { createPosEnc } from './helpers.mjs';

const DIST = new URL('../../dist/node.js', import.meta.url).href;

/** The calls every thread makes; returns the bytes of all their results, in order. */
async function resultsOf(createPosEncFn, rounds) {
  const pe = await createPosEncFn();
  const q = Float32Array.from({ length: 2 * 4 * 64 }, (_, i) => Math.sin(i * 0.37));
  const parts = [];
  for (let r = 0; r < rounds; r++) {
    const x = q.slice();
    pe.rope.apply(x, null, { dims: [1, 2, 4, 64], layout: 'bshd', offset: 1000 + r, scaling: { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 512 } });
    parts.push(x);
    parts.push(pe.sinusoidal.table({ length: 16, dim: 32, offset: r }).data);
    parts.push(pe.alibi.bias({ numHeads: 6, qLen: 4, kLen: 9, form: 'bloom' }).data);
    parts.push(new Float32Array(pe.rope.frequencies({ rotaryDim: 64, base: 500000, scaling: { type: 'llama3', factor: 8 } }).invFreq));
    if (r % 8 === 0) pe.memory.tensor([(pe.memory.bytes / 4) | 0]).dispose(); // force memory to grow mid-way
  }
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))).toString('base64');
}

test('four workers, each with its own module, give bit-identical results at the same time', async () => {
  const rounds = 32;
  const expected = await resultsOf(createPosEnc, rounds);
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { createPosEnc } = await import(workerData.dist);
      const resultsOf = ${resultsOf.toString()};
      parentPort.postMessage(await resultsOf(createPosEnc, workerData.rounds));
    })().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));`;
  const runs = Array.from({ length: 4 }, () => new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { dist: DIST, rounds } });
    worker.once('message', (m) => { worker.terminate(); resolve(m); });
    worker.once('error', reject);
  }));
  const results = await Promise.all(runs);
  for (const [i, r] of results.entries()) {
    assert.equal(typeof r, 'string', `worker ${i} failed: ${r?.error}`);
    assert.ok(r === expected, `worker ${i} gave other bytes than the main thread`);
  }
});
