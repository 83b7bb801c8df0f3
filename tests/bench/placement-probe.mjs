// Does where a buffer sits in WebAssembly memory change how fast a loop runs over it? The bound
// loops (harness/bounds.mjs) over two buffers of the same size in posenc's memory: one allocated
// first, one after 256 MiB more was allocated (and so after the memory grew), timed together the
// way the bench times a case (harness/timing.mjs). On the VM docs/performance.md's numbers come from, with
// `32`: rmw within 3% in the two regions, rot up to 1.3x apart, the faster region changing from
// run to run (noise, not a slower place). With `32 --no-rewarm` (samples not re-warmed, as the
// bench was before) both loops can move further apart: most of that is the ramp ramp-probe.mjs
// shows. The bench allocates its bound buffers in posenc's memory, beside the contenders'
// tensors, so that a bound and a kernel differ only in what they compute.
//
//   node tests/bench/placement-probe.mjs [MiB per buffer, default 4] [--no-rewarm]
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { createBounds } from './harness/bounds.mjs';
import { boundsWasm } from './harness/bounds-wasm.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';
import { measureTogether } from './harness/timing.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'no-rewarm': { type: 'boolean', default: false } } });
const mib = Number(positionals[0] ?? 4);
const bytes = mib * 2 ** 20;
const { pe, memory } = await createMeasuredPosEnc(fileURLToPath(new URL('../..', import.meta.url)));
const bounds = await createBounds(pe, memory, boundsWasm());
const early = bounds.prepare(bytes, 64);
const filler = pe.memory.tensor([64 * 2 ** 20]); // 256 MiB in between
const late = bounds.prepare(bytes, 64);
const runs = [
  { id: 'rmw, first buffer', run: early.rmw },
  { id: 'rmw, later buffer', run: late.rmw },
  { id: 'rot, first buffer', run: early.rot },
  { id: 'rot, later buffer', run: late.rot },
];
const timed = await measureTogether(runs, { budgetMs: 3000, ...(values['no-rewarm'] ? { rewarmMaxMs: 0 } : {}) });
console.log(`${mib} MiB per buffer, medians (WebAssembly memory now ${memory.buffer.byteLength >> 20} MiB):`);
for (const { id } of runs) console.log(`  ${id}: ${(timed.get(id).median * 1000).toFixed(0)} us`);
early.dispose();
late.dispose();
filler.dispose();
