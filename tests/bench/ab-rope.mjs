// RoPE in place (rope.apply with copies and on a WasmTensor, RopeCache.apply; bshd)
// in two builds of the package, measured in one process and interleaved round by round, so that
// load from other processes hits both alike: a change's cost on a busy machine, where two separate
// `npm run bench` runs differ by more than the change. Default shapes: the decode step.
//
//   cp -r dist /tmp/before   (build the other version)   node tests/bench/ab-rope.mjs /tmp/before dist
//   node tests/bench/ab-rope.mjs --shapes 128x8x128,2048x8x64 /tmp/before dist
//
// Prints, per build, shape (tokens x heads x headDim) and call, the minimum and the median of the
// per-call time over the rounds.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '40' },
    tokens: { type: 'string', default: '5000' },
    shapes: { type: 'string', default: '1x8x64,1x32x128' },
    pairing: { type: 'string', default: 'half' },
  },
});
if (positionals.length !== 2) {
  console.error('usage: node tests/bench/ab-rope.mjs [--rounds N] [--tokens N] [--shapes TxHxD,...] [--pairing half|interleaved] DIST_A DIST_B');
  process.exit(2);
}
const rounds = Number(values.rounds);
const tokensPerRound = Number(values.tokens); // per shape and call: calls = tokens / the shape's tokens
const shapes = values.shapes.split(',').map((s) => s.split('x').map(Number));
const load = async (dir) => (await import(pathToFileURL(resolve(dir, 'node.js')).href)).createPosEnc();

/** The three posenc calls of the bench's RoPE cases (decode at position 1000, longer from 0). */
function ropeCalls(pe, [t, h, d]) {
  const pairing = values.pairing;
  const x = Float32Array.from({ length: t * h * d }, (_, i) => Math.sin(i));
  const wx = pe.memory.tensor([1, t, h, d], x);
  const offset = t === 1 ? 1000 : 0;
  const cache = pe.rope.createCache({ rotaryDim: d, maxPositions: offset + t, pairing });
  return {
    'rope.apply, copies': () => pe.rope.apply(x, null, { layout: 'bshd', dims: [1, t, h, d], pairing, offset }),
    'rope.apply, WasmTensor': () => pe.rope.apply(wx, null, { layout: 'bshd', pairing, offset }),
    'RopeCache.apply, WasmTensor': () => cache.apply(wx, null, { layout: 'bshd', offset }),
  };
}

const runs = [];
for (const [label, dir] of [['A', positionals[0]], ['B', positionals[1]]]) {
  const pe = await load(dir);
  for (const shape of shapes) {
    for (const [call, run] of Object.entries(ropeCalls(pe, shape))) runs.push({ label, shape, call, run, ns: [] });
  }
}
for (let r = 0; r < rounds; r++) {
  for (const x of runs) {
    const calls = Math.max(1, Math.round(tokensPerRound / x.shape[0]));
    for (let i = 0; i < Math.max(2, calls / 20); i++) x.run(); // warm
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
