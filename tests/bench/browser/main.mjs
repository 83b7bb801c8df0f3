// The benchmark in a browser page (`npm run bench -- --browser` opens it in headless Chromium):
// the same kernels, cases, checks and timing as the Node run (harness/run-case.mjs), for posenc and
// the JavaScript contenders; the tfjs and onnxruntime-web peers are Node-only here and are skipped.
// Query: kernels=alibi,rope,... (module names in ../kernels/), filter=REGEX, quick=1, budget=MS,
// posencKernels=auto|simd128|relaxed (createPosEnc's kernels option; with relaxed kernels the SIMD128
// ones run beside them, as in the Node run).
// window.__bench is the run's promise, for the driver to await.
import { createBounds } from '../harness/bounds.mjs';
import { instantiateKeepingMemory } from '../harness/keep-memory.mjs';
import { posencLabel, runCases } from '../harness/run-case.mjs';

const query = new URLSearchParams(location.search);
const log = document.getElementById('log');
const say = (line) => {
  log.textContent += `\n${line}`;
  console.log(line);
};

/** posenc from the built package, keeping its WebAssembly.Memory (as the Node run does). */
async function createMeasuredPosEnc(kernels) {
  const [{ default: factory }, { instantiate }, bytes] = await Promise.all([
    import('/dist/posenc.mjs'),
    import('/dist/loading.js'),
    fetch('/dist/posenc.wasm').then((r) => r.arrayBuffer()),
  ]);
  return instantiateKeepingMemory(factory, instantiate, new Uint8Array(bytes), kernels);
}

async function main() {
  const { pe, memory } = await createMeasuredPosEnc(query.get('posencKernels') ?? 'auto');
  say(`posenc ${posencLabel(pe)} in ${navigator.userAgent}`);
  // The bound module as the Node side compiled it (harness/bounds-wasm.mjs, before opening this page).
  const boundsWasm = new Uint8Array(await (await fetch('/build/bench/bounds.wasm')).arrayBuffer());
  const env = { pe, bounds: await createBounds(pe, memory, boundsWasm) };
  if (pe.kernels === 'relaxed') env.peSimd128 = (await createMeasuredPosEnc('simd128')).pe;
  const kernels = [];
  for (const name of (query.get('kernels') ?? '').split(',').filter(Boolean)) {
    kernels.push(...[(await import(`../kernels/${name}.mjs`)).default].flat());
  }
  const opts = {
    quick: query.get('quick') === '1',
    filter: query.get('filter') ? new RegExp(query.get('filter')) : undefined,
    budget: Number(query.get('budget')),
  };
  const cases = await runCases(kernels, env, opts, (c) => say(`${c.id} done`));
  say('finished');
  return { userAgent: navigator.userAgent, posenc: posencLabel(pe), cases };
}

window.__bench = main();
