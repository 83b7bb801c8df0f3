// One hot loop for tests/bench/annotate.sh: runs a posenc contender of a bench case (or a bound)
// long enough for perf to sample the machine code V8 generated for it. The contenders are the
// bench's own (kernels/*.mjs), so the loop is what the bench times.
//   node --perf-prof tests/bench/annotate-loop.mjs <loop>
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { createBounds } from './harness/bounds.mjs';
import { boundsWasm } from './harness/bounds-wasm.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';

/** loop -> [kernel module, case id, contender id]; the bounds run over the first RoPE case of 128 tokens. */
const LOOPS = {
  'rope-half': ['rope', 'rope-half-128x8x64', 'posenc-cache-wasm'],
  'rope-interleaved': ['rope', 'rope-interleaved-128x8x64', 'posenc-cache-wasm'],
  'sinusoidal-fast-add': ['sinusoidal', 'sinusoidal-add-512x768', 'posenc-fast-table-add-wasm'],
  'alibi-bias': ['alibi', 'alibi-bias-16x128x128', 'posenc-bias-wasm'],
  rmw: ['rope', 'rope-half-128x8x64', 'bound'],
  rot: ['rope', 'rope-half-128x8x64', 'bound'],
};
const [name] = parseArgs({ allowPositionals: true, options: {} }).positionals;
if (!(name in LOOPS)) {
  console.error(`usage: annotate-loop.mjs <${Object.keys(LOOPS).join('|')}>`);
  process.exit(2);
}
const [module, caseId, contenderId] = LOOPS[name];
const kernels = [(await import(`./kernels/${module}.mjs`)).default].flat();
const kernel = kernels.find((k) => k.cases({ quick: false }).some((c) => c.id === caseId));
const c = kernel.cases({ quick: false }).find((x) => x.id === caseId);
const { pe, memory } = await createMeasuredPosEnc(fileURLToPath(new URL('../..', import.meta.url)));
let run;
if (contenderId === 'bound') {
  run = (await createBounds(pe, memory, boundsWasm())).prepare(c.bytes, c.rotRowFloats)[name];
} else {
  run = (await kernel.contenders.find((k) => k.id === contenderId).prepare(c.params, c.input?.(), { pe })).run;
}
const end = performance.now() + 3000;
while (performance.now() < end) for (let i = 0; i < 100; i++) run();
