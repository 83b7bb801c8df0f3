// One hot loop for tests/bench/annotate.sh: runs a posenc call (or a bound) long enough for perf to
// sample the machine code V8 generated for it.
//   node --perf-prof tests/bench/annotate-loop.mjs <loop>
import { fileURLToPath } from 'node:url';

import { createBounds } from './harness/bounds.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';

const LOOPS = ['rope-half', 'rope-interleaved', 'sinusoidal-fast-add', 'alibi-bias', 'rmw', 'rot'];
const name = process.argv[2];
if (!LOOPS.includes(name)) {
  console.error(`usage: annotate-loop.mjs <${LOOPS.join('|')}>`);
  process.exit(2);
}
const { pe, memory } = await createMeasuredPosEnc(fileURLToPath(new URL('../..', import.meta.url)));
const [tokens, heads, dim] = [128, 8, 64]; // the first RoPE case of the bench, 256 KiB: in cache
let run;
if (name.startsWith('rope-')) {
  const pairing = name === 'rope-half' ? 'half' : 'interleaved';
  const x = pe.memory.tensor([1, tokens, heads, dim], Float32Array.from({ length: tokens * heads * dim }, (_, i) => Math.sin(i)));
  const cache = pe.rope.createCache({ rotaryDim: dim, maxPositions: tokens, pairing });
  const opts = { layout: 'bshd' };
  run = () => cache.apply(x, null, opts);
} else if (name === 'sinusoidal-fast-add') {
  const x = pe.memory.tensor([512, 768]);
  const table = pe.sinusoidal.createTable({ maxLength: 512, dim: 768, precision: 'fast' });
  run = () => table.addTo(x);
} else if (name === 'alibi-bias') {
  const out = pe.memory.tensor([16, 128, 128]); // the bench's 16 x 128 x 128 case, 1 MiB: in cache
  const opts = { numHeads: 16, qLen: 128, kLen: 128, out };
  run = () => pe.alibi.bias(opts);
} else {
  const bounds = (await createBounds(pe, memory)).prepare(tokens * heads * dim * 4, dim);
  run = bounds[name];
}
const end = performance.now() + 3000;
while (performance.now() < end) for (let i = 0; i < 100; i++) run();
