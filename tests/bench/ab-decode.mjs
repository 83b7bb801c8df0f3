// The decode step (one token, RoPE in place) of two builds of the package, measured in one process
// and interleaved round by round, so that load from other processes hits both alike: a change's
// cost on a busy machine, where two separate `npm run bench` runs differ by more than the change.
//
//   cp -r dist /tmp/before   (build the other version)   node tests/bench/ab-decode.mjs /tmp/before dist
//
// Prints, per build, shape and call, the minimum and the median of the per-call time over the rounds.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '40' }, calls: { type: 'string', default: '5000' } },
});
if (positionals.length !== 2) {
  console.error('usage: node tests/bench/ab-decode.mjs [--rounds N] [--calls N] DIST_A DIST_B');
  process.exit(2);
}
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const load = async (dir) => (await import(pathToFileURL(resolve(dir, 'node.js')).href)).createPosEnc();

/** The three decode calls of the bench's RoPE cases, at position 1000. */
function decodeCalls(pe, [t, h, d]) {
  const x = Float32Array.from({ length: t * h * d }, (_, i) => Math.sin(i));
  const wx = pe.memory.tensor([1, t, h, d], x);
  const cache = pe.rope.createCache({ rotaryDim: d, maxPositions: 1001 + t });
  return {
    'rope.apply, copies': () => pe.rope.apply(x, null, { layout: 'bshd', dims: [1, t, h, d], offset: 1000 }),
    'rope.apply, WasmTensor': () => pe.rope.apply(wx, null, { layout: 'bshd', offset: 1000 }),
    'RopeCache.apply, WasmTensor': () => cache.apply(wx, null, { layout: 'bshd', offset: 1000 }),
  };
}

const runs = [];
for (const [label, dir] of [['A', positionals[0]], ['B', positionals[1]]]) {
  const pe = await load(dir);
  for (const shape of [[1, 8, 64], [1, 32, 128]]) {
    for (const [call, run] of Object.entries(decodeCalls(pe, shape))) runs.push({ label, shape, call, run, ns: [] });
  }
}
for (let r = 0; r < rounds; r++) {
  for (const x of runs) {
    for (let i = 0; i < 200; i++) x.run(); // warm
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) x.run();
    x.ns.push(Number(process.hrtime.bigint() - t0) / calls);
  }
}
for (const x of runs) {
  x.ns.sort((a, b) => a - b);
  const us = (v) => (v / 1000).toFixed(3);
  console.log(`${x.label} ${x.shape.join('x').padEnd(9)} ${x.call.padEnd(28)} min ${us(x.ns[0])} µs  median ${us(x.ns[x.ns.length >> 1])} µs`);
}
