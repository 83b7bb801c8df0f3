// The JavaScript cost of a small call, in two builds: CPU time per call (user + system, fastest of
// 40 rounds of 20000 calls), which stays steady on a busy machine where wall-clock time does not.
//   node tests/bench/call-overhead.mjs <dist of build A> [<dist of build B> ...]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dists = process.argv.slice(2);
if (dists.length === 0) {
  console.error('usage: node tests/bench/call-overhead.mjs <dist folder> [<dist folder> ...]');
  process.exit(2);
}

/** CPU ns per call of f(i): the fastest of `rounds` rounds of `calls` calls. */
function cpuNsPerCall(f, rounds = 40, calls = 20000) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) f(i);
    const used = process.cpuUsage(start);
    best = Math.min(best, ((used.user + used.system) * 1e3) / calls);
  }
  return Math.round(best);
}

for (const dist of dists) {
  const { createPosEnc } = await import(pathToFileURL(resolve(dist, 'node.js')).href);
  const pe = await createPosEnc();
  const q = new Float32Array(2 * 64).fill(1);
  const t = pe.memory.tensor([2, 64], q);
  const rows = {
    'rope.apply [2, 64], copy path': cpuNsPerCall((i) => pe.rope.apply(q, null, { dims: [2, 64], offset: i })),
    'rope.apply [2, 64], WasmTensor': cpuNsPerCall((i) => pe.rope.apply(t, null, { offset: i })),
    'sinusoidal.table 4 x 8': cpuNsPerCall((i) => pe.sinusoidal.table({ length: 4, dim: 8, offset: i })),
  };
  t.dispose();
  for (const [name, ns] of Object.entries(rows)) console.log(`${dist}\t${name}\t${ns} ns/call`);
}
