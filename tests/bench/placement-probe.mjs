// Does where a buffer sits in WebAssembly memory change how fast a loop runs over it? The bound
// loops (harness/bounds.mjs) over two buffers of the same size in posenc's memory: one allocated
// first, one after 256 MiB more was allocated (and so after the memory grew), each measured in
// alternating samples. On the VM the README's numbers come from, the same out-of-cache loop ran
// 1.1-1.5x apart in the two regions, which one varying from run to run: placement alone moves a
// bound that much, so the bench allocates its bound buffers beside the contenders' tensors rather
// than in a memory of their own, and out-of-cache ratios are read with that margin.
//
//   node tests/bench/placement-probe.mjs [MiB per buffer, default 4]
import { fileURLToPath } from 'node:url';

import { createBounds } from './harness/bounds.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';
import { summarise } from './harness/timing.mjs';

const mib = Number(process.argv[2] ?? 4);
const bytes = mib * 2 ** 20;
const { pe, memory } = await createMeasuredPosEnc(fileURLToPath(new URL('../..', import.meta.url)));
const bounds = await createBounds(pe, memory);
const early = bounds.prepare(bytes, 64);
const filler = pe.memory.tensor([64 * 2 ** 20]); // 256 MiB in between
const late = bounds.prepare(bytes, 64);
const runs = { 'rmw, first buffer': early.rmw, 'rmw, later buffer': late.rmw, 'rot, first buffer': early.rot, 'rot, later buffer': late.rot };
for (const run of Object.values(runs)) for (let i = 0; i < 20; i++) run();
const samples = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
for (let round = 0; round < 21; round++) {
  for (const [k, run] of Object.entries(runs)) {
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) run();
    samples[k].push((performance.now() - t0) / 10);
  }
}
console.log(`${mib} MiB per buffer, medians of 21 samples (WebAssembly memory now ${memory.buffer.byteLength >> 20} MiB):`);
for (const [k, s] of Object.entries(samples)) console.log(`  ${k}: ${(summarise(s).median * 1000).toFixed(0)} us`);
early.dispose();
late.dispose();
filler.dispose();
