// The calls whose time is mostly sines and cosines (sinusoidal tables, rows at explicit position ids,
// RoPE at explicit ids) in two builds of the package, measured in one process and interleaved round
// by round like ab-rope.mjs, so that a change to src/kernels/sincos-inl.hpp can be judged on a busy
// machine. Positions stay below 1e6, the range every model uses (the SIMD kernel's fast path).
//
//   cp -r dist /tmp/before   (build the other version)   node tests/bench/ab-sincos.mjs /tmp/before dist
//
// Prints, per build and call, the minimum and the median of the per-call time over the rounds.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '30' } } });
if (positionals.length !== 2) {
  console.error('usage: node tests/bench/ab-sincos.mjs [--rounds N] DIST_A DIST_B');
  process.exit(2);
}
const rounds = Number(values.rounds);
const load = async (dir) => (await import(pathToFileURL(resolve(dir, 'node.js')).href)).createPosEnc();

/** [name, call, repetitions per round] for one posenc instance. */
function calls(pe) {
  const table = pe.memory.tensor([512, 768]);
  const ids = Float64Array.from({ length: 512 }, (_, i) => (i * 7919) % 1000000);  // scattered, < 1e6
  const q = pe.memory.tensor([1, 128, 8, 64], Float32Array.from({ length: 128 * 8 * 64 }, (_, i) => Math.sin(i)));
  return [
    ['sinusoidal.table 512 x 768, exact, out: WasmTensor', () => pe.sinusoidal.table({ length: 512, dim: 768, out: table }), 20],
    ['sinusoidal.table 512 x 768, fast, out: WasmTensor', () => pe.sinusoidal.table({ length: 512, dim: 768, precision: 'fast', out: table }), 20],
    ['sinusoidal.table 512 ids x 768 (every row direct)', () => pe.sinusoidal.table({ dim: 768, positionIds: ids, out: table }), 10],
    ['rope.apply 128 x 8 x 64 at ids, WasmTensor', () => pe.rope.apply(q, null, { layout: 'bshd', positionIds: ids.subarray(0, 128) }), 100],
  ];
}

const runs = [];
for (const [label, dir] of [['A', positionals[0]], ['B', positionals[1]]]) {
  const pe = await load(dir);
  for (const [call, run, reps] of calls(pe)) runs.push({ label, call, run, reps, ns: [] });
}
for (let r = 0; r < rounds; r++) {
  for (const x of runs) {
    x.run(); // warm
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < x.reps; i++) x.run();
    x.ns.push(Number(process.hrtime.bigint() - t0) / x.reps);
  }
}
for (const x of runs) {
  x.ns.sort((a, b) => a - b);
  const us = (v) => (v / 1000).toFixed(2);
  console.log(`${x.label} ${x.call.padEnd(52)} min ${us(x.ns[0])} µs  median ${us(x.ns[x.ns.length >> 1])} µs`);
}
