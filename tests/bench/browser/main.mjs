// The benchmark in a browser page (`npm run bench -- --browser` opens it in headless Chromium):
// the same kernels, cases, checks and timing as the Node run (harness/run-case.mjs), for posenc and
// the JavaScript contenders; the tfjs and onnxruntime-web peers are Node-only here and are skipped.
// Query: kernels=alibi,rope,... (module names in ../kernels/), filter=REGEX, quick=1, budget=MS.
// The result (or the error) is left on window.__bench for the driver to collect.
import { createBounds } from '../harness/bounds.mjs';
import { instantiateKeepingMemory } from '../harness/keep-memory.mjs';
import { evaluateTargets, runCase } from '../harness/run-case.mjs';

const query = new URLSearchParams(location.search);
const log = document.getElementById('log');
const say = (line) => { log.textContent += `\n${line}`; };

/** posenc from the built package, keeping its WebAssembly.Memory (as the Node run does). */
async function createMeasuredPosEnc() {
  const [{ default: factory }, { instantiate }, bytes] = await Promise.all([
    import('/dist/posenc.mjs'),
    import('/dist/posenc.js'),
    fetch('/dist/posenc.wasm').then((r) => r.arrayBuffer()),
  ]);
  return instantiateKeepingMemory(factory, instantiate, new Uint8Array(bytes));
}

async function main() {
  const { pe, memory } = await createMeasuredPosEnc();
  say(`posenc ${pe.version} (${pe.simd} -> wasm SIMD) in ${navigator.userAgent}`);
  const env = { pe, bounds: await createBounds(pe, memory) };
  const filter = query.get('filter') ? new RegExp(query.get('filter')) : undefined;
  const kernels = [];
  for (const name of (query.get('kernels') ?? '').split(',').filter(Boolean)) {
    kernels.push(...[(await import(`../kernels/${name}.mjs`)).default].flat());
  }
  const cases = [];
  for (const kernel of kernels) {
    for (const c of kernel.cases({ quick: query.get('quick') === '1' })) {
      if (filter && !filter.test(c.id)) continue;
      cases.push(await runCase(kernel, c, env, { budget: Number(query.get('budget') ?? 1200) }));
      say(`${c.id} done`);
    }
  }
  return { userAgent: navigator.userAgent, posenc: `${pe.version} (${pe.simd} -> wasm SIMD)`, cases, targets: evaluateTargets(kernels, cases) };
}

main().then(
  (result) => { window.__bench = { result }; say('finished'); },
  (error) => { window.__bench = { error: String(error?.stack ?? error) }; say(`failed: ${error}`); },
);
