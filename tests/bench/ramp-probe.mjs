// How long does a memory-bound loop take to reach its speed? The rmw bound (harness/bounds.mjs)
// over a buffer of posenc's memory, timed call by call: back to back; right after six passes of the
// same loop over another buffer of the same size; right after a compute-bound JS spin of 10 ms;
// right after a JS loop over a Float32Array of the same size. On the VM docs/performance.md's numbers come
// from (32 MiB, beyond L2, inside a large L3 shared with other tenants), the first 3-5 calls after
// each of the last three ran 2-3x slower than back to back. That is why the bench's timing
// (harness/timing.mjs) re-warms every contender and bound before each sample.
//
//   node tests/bench/ramp-probe.mjs [MiB, default 32]
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { createBounds } from './harness/bounds.mjs';
import { boundsWasm } from './harness/bounds-wasm.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';
import { summarise } from './harness/timing.mjs';

const mib = Number(parseArgs({ allowPositionals: true, options: {} }).positionals[0] ?? 32);
const bytes = mib * 2 ** 20;
const { pe, memory } = await createMeasuredPosEnc(fileURLToPath(new URL('../..', import.meta.url)));
const bounds = await createBounds(pe, memory, boundsWasm());
const measured = bounds.prepare(bytes);
const other = bounds.prepare(bytes);
const js = new Float32Array(bytes / 4).fill(0.3);
let sink = 0;
const before = {
  'back to back': () => {},
  'after 6 passes over another buffer': () => {
    for (let i = 0; i < 6; i++) other.rmw();
  },
  'after a 10 ms compute-bound spin': () => {
    const t0 = performance.now();
    while (performance.now() - t0 < 10) sink += Math.sqrt(sink + 1);
  },
  'after a JS pass over as many bytes': () => {
    for (let i = 0; i < js.length; i++) js[i] = -js[i] * 1.0001;
  },
};
const ms = (f) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};
for (let i = 0; i < 20; i++) measured.rmw();
const calls = 8;
const rounds = 9;
console.log(`rmw over ${mib} MiB: median ms per call over ${rounds} rounds, calls 1..${calls}`);
for (const [label, f] of Object.entries(before)) {
  const times = Array.from({ length: calls }, () => []);
  for (let r = 0; r < rounds; r++) {
    f();
    for (let c = 0; c < calls; c++) times[c].push(ms(measured.rmw));
  }
  console.log(`  ${label.padEnd(36)} ${times.map((t) => summarise(t).median.toPrecision(3).padStart(6)).join(' ')}`);
}
if (sink < 0) console.log(sink);
measured.dispose();
other.dispose();
