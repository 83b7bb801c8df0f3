// The posenc benchmark: posenc against the JavaScript and WebAssembly alternatives users have, and
// against memory bounds measured in the same run. One Node process; `npm run bench` builds what is
// needed first (scripts/bench.mjs) and passes its arguments here. With --browser the same cases run
// in headless Chromium instead (browser-driver.mjs, browser/main.mjs), without the tfjs and
// onnxruntime-web peers.
//
//   node tests/bench/run.mjs [--quick] [--filter REGEX] [--json PATH] [--markdown PATH] [--budget MS] [--browser]
//   (the options of tests/bench/options.mjs)
//
// Kernels are the modules in tests/bench/kernels/ (see README.md there): each lists cases and
// contenders. For every case, each contender runs once on the same input and its output is checked
// against the float64 reference (the naive JS contender) and against posenc; any disagreement
// beyond the contender's tolerance stops the run. Then all contenders and the bounds are timed
// together (harness/timing.mjs) and one table per case is printed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createBounds } from './harness/bounds.mjs';
import { boundsWasm } from './harness/bounds-wasm.mjs';
import { parseBenchArgs, USAGE } from './options.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';
import { caseTable, kernelsTable, summaryTable, targetLines } from './harness/report.mjs';
import { evaluateTargets, posencLabel, runCases } from './harness/run-case.mjs';
import { kernelNames, loadKernels } from './kernel-modules.mjs';
import { loadOrt } from './peers/ort.mjs';
import { loadTf } from './peers/tfjs.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

function parseOptions(argv) {
  const values = parseBenchArgs(argv);
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const budget = Number(values.budget);
  const posencKernels = values['posenc-kernels'];
  if (!['simd128', 'relaxed', 'auto'].includes(posencKernels)) throw new Error(`bench: --posenc-kernels must be auto, simd128 or relaxed, got ${posencKernels}`);
  if (!(budget > 0)) throw new Error(`bench: --budget must be a positive number of milliseconds, got ${values.budget}`);
  return {
    quick: values.quick,
    filter: values.filter === undefined ? undefined : new RegExp(values.filter),
    json: values.json ?? join(ROOT, 'build', 'bench', values.browser ? 'browser.json' : 'results.json'),
    markdown: values.markdown,
    budget,
    browser: values.browser,
    posencKernels,
  };
}

function gitDescribe() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+changes` : commit;
  } catch {
    return 'unknown';
  }
}

/** The run in this Node process, against every peer: meta, and the cases (printed as they finish). */
async function runInNode(kernels, opts) {
  const { pe, memory } = await createMeasuredPosEnc(ROOT, opts.posencKernels);
  const tf = await loadTf();
  const ort = await loadOrt();
  const env = { pe, tf: tf.tf, ort: ort.ort, bounds: await createBounds(pe, memory, boundsWasm()) };
  // With relaxed kernels, a second instance with the SIMD128 ones: before and after in one table.
  if (pe.kernels === 'relaxed') env.peSimd128 = (await createMeasuredPosEnc(ROOT, 'simd128')).pe;
  const meta = {
    ...machineMeta(),
    node: process.version,
    v8: process.versions.v8,
    posenc: posencLabel(pe),
    tfjs: tf.info ?? tf.error,
    ort: ort.info ?? ort.error,
  };
  printHeader(meta, `Node ${meta.node}`, `${meta.tfjs}; ${meta.ort}`);
  const cases = await runCases(kernels, env, opts, (result) => {
    console.log(`${caseTable(result)}\n`);
    globalThis.gc?.();
  });
  return { meta, cases, targets: evaluateTargets(kernels, cases) };
}

/** The same cases in headless Chromium (browser-driver.mjs): posenc, the JS contenders and the bounds. */
async function runInBrowser(kernels, opts) {
  const meta = machineMeta();
  printHeader(meta, 'headless Chromium', 'the JavaScript contenders; tfjs and onnxruntime-web run in the Node bench only');
  const { runBenchInBrowser } = await import('./browser-driver.mjs'); // playwright-core, for this run only
  boundsWasm(); // compiled for the page, which fetches it
  const result = await runBenchInBrowser({ root: ROOT, kernels: kernelNames(), filter: opts.filter?.source, quick: opts.quick, budget: opts.budget, posencKernels: opts.posencKernels });
  meta.browser = result.userAgent;
  meta.posenc = result.posenc;
  console.log(`${result.userAgent}; posenc ${result.posenc}\n`);
  for (const c of result.cases) console.log(`${caseTable(c)}\n`);
  return { meta, cases: result.cases, targets: evaluateTargets(kernels, result.cases) };
}

function printHeader(meta, where, peers) {
  console.log(`posenc bench — ${meta.date}, ${meta.cpu} (${meta.cores} cores), ${where}, commit ${meta.commit}`);
  if (meta.posenc) console.log(`posenc: ${meta.posenc}`);
  console.log(`peers: ${peers}`);
  console.log(`load average before: ${meta.loadBefore.map((l) => l.toFixed(2)).join(' ')}\n`);
}

/** Date, command, commit, machine and load: the part of the metadata both runs share. */
function machineMeta() {
  return {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    commit: gitDescribe(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    loadBefore: os.loadavg(),
  };
}

async function main() {
  const opts = parseOptions(process.argv.slice(2));
  const kernels = await loadKernels();
  const started = Date.now();
  const { meta, cases, targets } = opts.browser ? await runInBrowser(kernels, opts) : await runInNode(kernels, opts);
  meta.loadAfter = os.loadavg();
  meta.seconds = Math.round((Date.now() - started) / 1000);
  const spreads = cases.flatMap((c) => c.rows.map((r) => r.spread)).sort((a, b) => a - b);
  meta.noise = spreads.length ? { medianSpread: spreads[Math.floor(spreads.length / 2)], worstSpread: spreads[spreads.length - 1] } : undefined;
  console.log('Summary (the README table):\n');
  console.log(`${summaryTable(kernels, cases)}\n`);
  const kernelRows = kernelsTable(cases);
  console.log(kernelRows ? `Kernels: the relaxed-SIMD kernels (measured instance, ${meta.posenc}) beside the SIMD128 ones:\n\n${kernelRows}\n`
    : `Kernels: ${meta.posenc}; no relaxed-SIMD kernels ran, so there is nothing to compare them with.\n`);
  console.log('Targets:');
  console.log(targetLines(targets));
  console.log(`\n${cases.length} cases in ${meta.seconds} s; load average after: ${meta.loadAfter.map((l) => l.toFixed(2)).join(' ')}; ` +
    `sample spread (IQR/median): median ${Math.round((meta.noise?.medianSpread ?? 0) * 100)}%, worst ${Math.round((meta.noise?.worstSpread ?? 0) * 100)}%`);

  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, `${JSON.stringify({ meta, cases, targets }, null, 1)}\n`);
  console.log(`results: ${opts.json}`);
  if (opts.markdown) {
    mkdirSync(dirname(opts.markdown), { recursive: true });
    writeFileSync(opts.markdown, `${summaryTable(kernels, cases)}\n\n${kernelRows ? `${kernelRows}\n\n` : ''}${cases.map(caseTable).join('\n\n')}\n`);
  }
  process.exit(0); // onnxruntime-web and tfjs keep handles open
}

main().catch((error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});
