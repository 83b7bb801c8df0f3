// The posenc benchmark: posenc against the JavaScript and WebAssembly alternatives users have, and
// against memory bounds measured in the same run. One Node process; `npm run bench` builds what is
// needed first (scripts/bench.mjs) and passes its arguments here.
//
//   node tests/bench/run.mjs [--quick] [--filter REGEX] [--json PATH] [--markdown PATH] [--budget MS]
//
// Kernels are the modules in tests/bench/kernels/ (see README.md there): each lists cases and
// contenders. For every case, each contender runs once on the same input and its output is checked
// against the float64 reference (the naive JS contender) and against posenc; any disagreement
// beyond the contender's tolerance stops the run. Then all contenders and the bounds are timed
// together (harness/timing.mjs) and one table per case is printed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { createBounds } from './harness/bounds.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';
import { maxAbs, maxAbsDiff } from './harness/data.mjs';
import { BOUNDS, PEERS, caseTable, summaryTable, targetLines } from './harness/report.mjs';
import { measureTogether } from './harness/timing.mjs';
import { loadOrt } from './peers/ort.mjs';
import { loadTf } from './peers/tfjs.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const DEFAULT_TOLERANCE = 4e-6; // relative to the reference's largest magnitude

function parseArgs(argv) {
  const opts = { quick: false, filter: undefined, json: join(ROOT, 'build', 'bench', 'results.json'), markdown: undefined, budget: 1200 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`bench: ${a} needs a value`);
      return argv[++i];
    };
    if (a === '--quick') opts.quick = true;
    else if (a === '--filter') opts.filter = new RegExp(value());
    else if (a === '--json') opts.json = value();
    else if (a === '--markdown') opts.markdown = value();
    else if (a === '--budget') opts.budget = Number(value());
    else if (a === '--help') {
      console.log('usage: npm run bench -- [--quick] [--filter REGEX] [--json PATH] [--markdown PATH] [--budget MS] [--no-native]');
      process.exit(0);
    } else throw new Error(`bench: unknown argument ${a}`);
  }
  return opts;
}

async function loadKernels() {
  const files = readdirSync(join(HERE, 'kernels')).filter((f) => f.endsWith('.mjs')).sort();
  const kernels = [];
  for (const f of files) {
    const m = await import(pathToFileURL(join(HERE, 'kernels', f)).href);
    kernels.push(...[m.default].flat());
  }
  return kernels;
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

async function runCase(kernel, c, env, opts) {
  const input = c.input?.();
  const instances = [];
  let reference;
  for (const k of kernel.contenders) {
    if (k.needs && !env[k.needs]) continue;
    if (k.applies && !k.applies(c.params)) continue;
    const inst = await k.prepare(c.params, input, env);
    await inst.run();
    const out = Float32Array.from(await inst.output());
    instances.push({ k, inst, out });
    if (k.reference) reference = out;
  }
  if (!reference) throw new Error(`bench: case ${c.id} has no reference contender`);
  const scale = Math.max(maxAbs(reference), 1e-30);
  const posencOut = instances.find((i) => i.k.peer === 'posenc');
  const tolOf = (k) => (k.tolerance ? k.tolerance(c.params) : DEFAULT_TOLERANCE);
  const failures = [];
  for (const i of instances) {
    i.maxErr = maxAbsDiff(i.out, reference) / scale;
    if (!(i.maxErr <= tolOf(i.k))) failures.push(`${i.k.id}: max |${i.k.id} - reference| = ${i.maxErr} × ${scale} > tolerance ${tolOf(i.k)}`);
    if (posencOut) {
      const d = maxAbsDiff(i.out, posencOut.out) / scale;
      if (!(d <= tolOf(i.k) + tolOf(posencOut.k))) failures.push(`${i.k.id}: max |${i.k.id} - ${posencOut.k.id}| = ${d} × ${scale}`);
    }
  }
  if (failures.length) {
    throw new Error(`bench: contenders disagree on ${c.id} (${c.label}):\n  ${failures.join('\n  ')}`);
  }

  const bounds = env.bounds.prepare(c.bytes, c.rotRowFloats);
  if (!bounds.check()) throw new Error('bench: the bound module computed a wrong result');
  const caseBounds = BOUNDS.filter((b) => bounds[b] !== undefined); // rot only where a case defines its rows
  const runnables = [
    ...instances.map(({ k, inst }) => ({ id: k.id, run: inst.run, async: inst.async })),
    ...caseBounds.map((b) => ({ id: `bound:${b}`, run: bounds[b] })),
  ];
  const timed = await measureTogether(runnables, { budgetMs: opts.budget });
  for (const { inst } of instances) await inst.dispose?.();
  bounds.dispose();

  const boundMedian = Object.fromEntries(caseBounds.map((b) => [b, timed.get(`bound:${b}`).median]));
  const best = {};
  for (const { k } of instances) {
    const m = timed.get(k.id).median;
    if (best[k.peer] === undefined || m < best[k.peer]) best[k.peer] = m;
  }
  const row = (id, label, kind, peer, maxErr) => {
    const t = timed.get(id);
    return {
      id, label, kind, peer, maxErr,
      median: t.median, q1: t.q1, q3: t.q3, min: t.min, samples: t.samples, callsPerSample: t.callsPerSample, spread: t.spread,
      gbps: c.bytes / t.median / 1e6,
      vsBound: Object.fromEntries(caseBounds.map((b) => [b, t.median / boundMedian[b]])),
      vsPeer: Object.fromEntries(PEERS.map((p) => [p.id, best[p.id] === undefined ? undefined : best[p.id] / t.median])),
    };
  };
  const rows = [
    ...instances.map((i) => row(i.k.id, i.k.label, 'contender', i.k.peer, i.maxErr)),
    ...caseBounds.map((b) => row(`bound:${b}`, { fill: 'memory.fill', copy: 'memory.copy', rmw: 'SIMD in-place pass', add: 'SIMD in-place add of a 2nd input', rot: 'SIMD in-place rotation of half-paired rows, cos/sin in registers' }[b], 'bound', undefined)),
  ];
  return { kernel: kernel.id, id: c.id, label: c.label, bytes: c.bytes, params: c.params, rows };
}

function evaluateTargets(kernels, cases) {
  const out = [];
  for (const kernel of kernels) {
    for (const t of kernel.targets ?? []) {
      const results = [];
      for (const c of cases.filter((x) => x.kernel === kernel.id && t.select(x))) {
        for (const rowId of t.rows) {
          const r = c.rows.find((x) => x.id === rowId);
          if (!r) continue;
          const v = t.measure(r);
          results.push({ caseId: c.id, rowId, value: v, ok: v !== undefined && t.pass(v), formatted: v === undefined ? 'n/a' : t.format(v, r) });
        }
      }
      if (results.length) out.push({ kernel: kernel.id, text: t.text, results });
    }
  }
  return out;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { pe, memory } = await createMeasuredPosEnc(ROOT);
  const tf = await loadTf();
  const ort = await loadOrt();
  const env = { pe, tf: tf.tf, ort: ort.ort, bounds: await createBounds(pe, memory) };
  const meta = {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    commit: gitDescribe(),
    node: process.version,
    v8: process.versions.v8,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    loadBefore: os.loadavg(),
    posenc: `${pe.version} (${pe.simd} -> wasm SIMD)`,
    tfjs: tf.info ?? tf.error,
    ort: ort.info ?? ort.error,
  };
  console.log(`posenc bench — ${meta.date}, ${meta.cpu} (${meta.cores} cores), Node ${meta.node}, commit ${meta.commit}`);
  console.log(`peers: ${meta.tfjs}; ${meta.ort}`);
  console.log(`load average before: ${meta.loadBefore.map((l) => l.toFixed(2)).join(' ')}\n`);

  const kernels = await loadKernels();
  const cases = [];
  const started = Date.now();
  for (const kernel of kernels) {
    for (const c of kernel.cases({ quick: opts.quick })) {
      if (opts.filter && !opts.filter.test(c.id)) continue;
      const result = await runCase(kernel, c, env, opts);
      cases.push(result);
      console.log(`${caseTable(result)}\n`);
      globalThis.gc?.();
    }
  }
  meta.loadAfter = os.loadavg();
  meta.seconds = Math.round((Date.now() - started) / 1000);
  const spreads = cases.flatMap((c) => c.rows.map((r) => r.spread)).sort((a, b) => a - b);
  meta.noise = spreads.length ? { medianSpread: spreads[Math.floor(spreads.length / 2)], worstSpread: spreads[spreads.length - 1] } : undefined;
  const targets = evaluateTargets(kernels, cases);
  console.log('Summary (the README table):\n');
  console.log(`${summaryTable(kernels, cases)}\n`);
  console.log('Targets:');
  console.log(targetLines(targets));
  console.log(`\n${cases.length} cases in ${meta.seconds} s; load average after: ${meta.loadAfter.map((l) => l.toFixed(2)).join(' ')}; ` +
    `sample spread (IQR/median): median ${Math.round((meta.noise?.medianSpread ?? 0) * 100)}%, worst ${Math.round((meta.noise?.worstSpread ?? 0) * 100)}%`);

  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, `${JSON.stringify({ meta, cases, targets }, null, 1)}\n`);
  console.log(`results: ${opts.json}`);
  if (opts.markdown) {
    mkdirSync(dirname(opts.markdown), { recursive: true });
    writeFileSync(opts.markdown, `${summaryTable(kernels, cases)}\n\n${cases.map(caseTable).join('\n\n')}\n`);
  }
  process.exit(0); // onnxruntime-web and tfjs keep handles open
}

main().catch((error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});
