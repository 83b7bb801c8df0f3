// Does splitting one large call over two workers pay? Times each large case (RoPE prefill, a
// sinusoidal table, ALiBi and T5 biases, >= 8 MiB) on one worker against the same call split by
// rows over N workers (Node worker_threads), each with its own single-threaded posenc instance,
// and the memory bound of the machine for 1 and N threads (harness/bounds.wat on one shared
// WebAssembly.Memory). See README.md ("More than one core") and docs/performance.md.
//
//   node tests/bench/multicore.mjs [--threads 2] [--filter re] [--repeat 3] [--budget ms] [--json f] [--markdown]
//
// Variants, each run by 1 worker and by N workers splitting the rows:
//   resident  the rows stay in the worker's own wasm memory (a WasmTensor): the work a
//             shared-memory (pthreads) build would do per thread, without any copy;
//   copies    what independent instances must do: input rows copied from a SharedArrayBuffer into
//             wasm memory and results copied back out to a SharedArrayBuffer;
//   own/shared (the bounds) a fill, copy or SIMD scale loop over each worker's share of 64 MiB, in
//             its own posenc memory or in one shared WebAssembly.Memory.
// Before timing, the N-worker 'copies' output is checked bit for bit against the 1-worker one.
import { availableParallelism, cpus, loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { boundsWasm } from './harness/bounds-wasm.mjs';
import { randomFloats } from './harness/data.mjs';
import { measureTogether } from './harness/timing.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MiB = 1024 * 1024;
const CALL = 0, VARIANT = 1, THREADS = 2, DONE = 3, STOP = -1;

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
}
const threads = Number(option('threads', 2));
const filter = new RegExp(option('filter', '.'));
const repeat = Number(option('repeat', 1));
const budgetMs = Number(option('budget', 2500));

/** harness/bounds.wat with its imported memory declared shared, compiled by wat2wasm. */
function sharedBoundsWasm() {
  const out = join(ROOT, 'build', 'bench', 'bounds-shared.wasm');
  const wat = readFileSync(join(ROOT, 'tests', 'bench', 'harness', 'bounds.wat'), 'utf8');
  const declared = '(import "bench" "memory" (memory 0))';
  if (!wat.includes(declared)) throw new Error(`multicore: bounds.wat no longer declares ${declared}`);
  mkdirSync(dirname(out), { recursive: true });
  const source = `${out}.wat`;
  writeFileSync(source, wat.replace(declared, '(import "bench" "memory" (memory 0 65536 shared))'));
  execFileSync('wat2wasm', ['--enable-threads', source, '-o', out], { stdio: 'inherit' });
  return readFileSync(out);
}

const sab = (bytes) => new SharedArrayBuffer(bytes);
const POSENC = ['resident', 'copies'];

/** The cases: id, label, bytes written or updated (the tensor), and what the workers need. */
function cases() {
  const list = [];
  const streams = { fill: 'fill (write)', copy: 'copy (read + write)', rmw: 'scale in place (x = -x, SIMD)' };
  for (const [op, what] of Object.entries(streams)) {
    list.push({
      id: `bound-${op}-64MiB`, kind: 'stream', label: `bound: ${what}, 64 MiB`,
      bytes: 64 * MiB, params: { op }, variants: ['own', 'shared'],
    });
  }
  for (const tokens of [2048, 8192]) {
    const p = { tokens, heads: 32, dim: 128 };
    const bytes = tokens * p.heads * p.dim * 4;
    list.push({
      id: `rope-half-${tokens}x32x128`, kind: 'rope', label: `RoPE half, RopeCache.apply, ${tokens} × 32 × 128 (bshd)`,
      bytes, params: p, rows: tokens, rowFloats: p.heads * p.dim, variants: POSENC,
      input: () => { const b = sab(bytes); new Float32Array(b).set(randomFloats(bytes / 4, tokens, -1, 1)); return b; },
    });
  }
  for (const precision of ['exact', 'fast']) {
    const p = { length: 8192, dim: 4096, precision };
    list.push({
      id: `sinusoidal-${precision}-8192x4096`, kind: 'sinusoidal', label: `sinusoidal.table 8192 × 4096, precision '${precision}'`,
      bytes: p.length * p.dim * 4, params: p, rows: p.length, rowFloats: p.dim, variants: POSENC,
    });
  }
  const bias = { heads: 16, qLen: 2048, kLen: 2048 };
  list.push({
    id: 'alibi-16x2048x2048', kind: 'alibi', label: 'alibi.bias 16 heads × 2048 × 2048 (causal, masked)',
    bytes: bias.heads * bias.qLen * bias.kLen * 4, params: bias, rows: bias.qLen, rowFloats: bias.kLen, variants: POSENC,
  });
  const t5 = { ...bias, buckets: 32 };
  list.push({
    id: 't5-16x2048x2048', kind: 't5', label: 't5.bias 16 heads × 2048 × 2048 (32 buckets, bidirectional)',
    bytes: t5.heads * t5.qLen * t5.kLen * 4, params: t5, rows: t5.qLen, rowFloats: t5.kLen, variants: POSENC,
    input: () => { const b = sab(t5.buckets * t5.heads * 4); new Float32Array(b).set(randomFloats(t5.buckets * t5.heads, 5, -2, 2)); return b; },
  });
  return list.filter((c) => filter.test(c.id));
}

const once = (w, key) => new Promise((resolve, reject) => {
  const onMessage = (m) => { if (key in m) { w.off('message', onMessage); w.off('error', reject); resolve(m); } };
  w.on('message', onMessage);
  w.once('error', reject);
});

async function main() {
  const sharedBoundsBytes = sharedBoundsWasm();
  const control = sab(16);
  const ctrl = new Int32Array(control);
  // The stream buffers (two of 64 MiB) live in one shared memory all workers instantiate bounds on.
  const shared = new WebAssembly.Memory({ initial: (128 * MiB) / 65536, maximum: (128 * MiB) / 65536, shared: true });
  const workers = [];
  for (let index = 0; index < threads; index++) {
    const w = new Worker(new URL('./multicore-worker.mjs', import.meta.url), { workerData: { index, root: ROOT, control, shared, boundsBytes: boundsWasm(), sharedBoundsBytes } });
    workers.push(w);
    await once(w, 'loaded');
  }

  /** One call of `variant` by `n` workers, as a pool dispatches it: Atomics wake-up, wait for all. */
  const call = (variant, n) => {
    Atomics.store(ctrl, DONE, 0);
    Atomics.store(ctrl, VARIANT, variant);
    Atomics.store(ctrl, THREADS, n);
    Atomics.add(ctrl, CALL, 1);
    Atomics.notify(ctrl, CALL);
    for (let done; (done = Atomics.load(ctrl, DONE)) < n;) Atomics.wait(ctrl, DONE, done);
  };

  const host = `${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} logical CPUs, node ${process.version}`;
  console.log(`# posenc: one large call over ${threads} workers (${host})`);
  console.log(`# load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; repeat ${repeat}, budget ${budgetMs} ms per case`);
  const results = [];
  for (const c of cases()) {
    const input = c.input?.();
    const output = c.kind === 'stream' ? undefined : sab(c.bytes);
    const message = { kind: c.kind, bytes: c.bytes, params: c.params, rows: c.rows, rowFloats: c.rowFloats, variants: c.variants, threads, input, output };
    const ready = workers.map((w) => once(w, 'ready'));
    workers.forEach((w) => w.postMessage(message));
    await Promise.all(ready);
    const names = c.variants;
    if (output) {
      // The split must give the same bits as one worker (and as the single-threaded module).
      const copies = c.variants.indexOf('copies');
      const words = new Uint32Array(output);
      call(copies, 1);
      const single = words.slice();
      words.fill(0x7fc00001);
      call(copies, threads);
      for (let i = 0; i < words.length; i++) {
        if (words[i] !== single[i]) throw new Error(`multicore: ${c.id}: ${threads} workers differ from one at float ${i}`);
      }
    }
    const runs = [];
    for (let r = 0; r < repeat; r++) {
      const runnables = [];
      for (const name of names) {
        const v = c.variants.indexOf(name);
        for (const n of [1, threads]) runnables.push({ id: `${name}/${n}`, run: () => call(v, n) });
      }
      runs.push(await measureTogether(runnables, { budgetMs, minSamples: 9, warmupMs: 150 }));
    }
    const stop = workers.map((w) => once(w, 'done'));
    call(STOP, 0);
    await Promise.all(stop);
    results.push({ c, names, runs });
    report(c, names, runs);
  }
  console.log(`# load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await Promise.all(workers.map((w) => w.terminate()));
  if (process.argv.includes('--markdown')) markdown(results);
  const json = option('json', null);
  if (json) {
    writeFileSync(json, JSON.stringify(results.map(({ c, names, runs }) => ({
      id: c.id, label: c.label, bytes: c.bytes, threads,
      runs: runs.map((m) => Object.fromEntries([...m].map(([id, s]) => [id, s]))),
      variants: names,
    })), null, 2));
  }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const ms = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** Prints one case: per variant, 1 worker and N workers (median ms, IQR spread, GB/s) and the gain. */
function report(c, names, runs) {
  console.log(`\n${c.label} (${(c.bytes / MiB).toFixed(0)} MiB)`);
  for (const name of names) {
    const cells = [];
    const gains = [];
    for (const n of [1, threads]) {
      const medians = runs.map((m) => m.get(`${name}/${n}`).median);
      const spreads = runs.map((m) => m.get(`${name}/${n}`).spread);
      const mid = median(medians);
      const range = repeat > 1 ? ` [runs ${ms(Math.min(...medians))}-${ms(Math.max(...medians))}]` : '';
      cells.push(`${n} worker${n > 1 ? 's' : ''} ${ms(mid)} ms ±${(100 * median(spreads)).toFixed(0)}% ${(c.bytes / mid / 1e6).toFixed(1)} GB/s${range}`);
    }
    for (const m of runs) gains.push(m.get(`${name}/1`).median / m.get(`${name}/${threads}`).median);
    // 'copies' split against the best one-worker form ('resident'): what a user would trade.
    let vsResident = '';
    if (name === 'copies') {
      const r = runs.map((m) => m.get('resident/1').median / m.get(`copies/${threads}`).median);
      vsResident = `; vs resident/1: ${median(r).toFixed(2)}×`;
    }
    const g = gains.map((x) => x.toFixed(2)).join(' ');
    console.log(`  ${name.padEnd(9)} ${cells.join(' | ')} | gain ${median(gains).toFixed(2)}× (runs: ${g})${vsResident}`);
  }
}

/** The same results as a markdown table (docs/performance.md, "More than one core"). */
function markdown(results) {
  console.log(`\n| case | variant | 1 worker | ${threads} workers | gain |`);
  console.log('| --- | --- | ---: | ---: | ---: |');
  for (const { c, names, runs } of results) {
    for (const name of names) {
      const cell = (n) => {
        const mid = median(runs.map((m) => m.get(`${name}/${n}`).median));
        return `${ms(mid)} ms (${(c.bytes / mid / 1e6).toFixed(1)} GB/s)`;
      };
      const gains = runs.map((m) => m.get(`${name}/1`).median / m.get(`${name}/${threads}`).median);
      const range = repeat > 1 ? ` (${Math.min(...gains).toFixed(2)}-${Math.max(...gains).toFixed(2)})` : '';
      console.log(`| ${c.label} | ${name} | ${cell(1)} | ${cell(threads)} | ${median(gains).toFixed(2)}×${range} |`);
    }
  }
}

await main();
