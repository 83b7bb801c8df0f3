// The CLI writing a big table: `posenc sinusoidal --length 131072 --dim 4096` (2 GiB of float32,
// more than WebAssembly memory can hold) against the same writer (pieces, files, write queue)
// writing 2 GiB of zeros (cli/zeros.mjs), each in its own process, alternately, with the peak RSS
// of each process (cli/max-rss.mjs). Targets: the table within 1.5x of the zeros, under 300 MB.
// Node only: the browser bench gets no cases from it. The files go to the OS temp directory and are
// deleted after each run.
import { summarise } from '../harness/timing.mjs';

const ROWS = 131072;
const DIM = 4096;
const RUNS = 5;

/** One run of `args` (a Node script and its arguments): wall time in ms and peak RSS in bytes. */
async function timedRun(args, path) {
  const [{ spawnSync }, { readFileSync, rmSync }, { fileURLToPath }] = await Promise.all([
    import('node:child_process'), import('node:fs'), import('node:url'),
  ]);
  const rssFile = `${path}.rss`;
  const probe = fileURLToPath(new URL('../cli/max-rss.mjs', import.meta.url));
  // Every run starts with no dirty pages: the previous run's 2 GiB is gone (deleted), and the
  // kernel's background writeback of anything else does not land in the middle of this one.
  spawnSync('sync');
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', probe, ...args], { encoding: 'utf8', env: { ...process.env, POSENC_BENCH_RSS_FILE: rssFile } });
  const ms = performance.now() - t0;
  try {
    if (r.status !== 0) throw new Error(`bench: ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return { ms, rss: Number(readFileSync(rssFile, 'utf8')) * 1024 };
  } finally {
    rmSync(path, { force: true });
    rmSync(rssFile, { force: true });
  }
}

/** A row of the case table (as harness/run-case.mjs makes them), with the peak RSS over the runs. */
function row(id, label, runs, bytes) {
  const t = summarise(runs.map((r) => r.ms));
  const peakRss = Math.max(...runs.map((r) => r.rss));
  return {
    id, label: `${label} (peak RSS ${(peakRss / 1e6).toFixed(0)} MB)`, kind: 'contender', peer: 'posenc', maxErr: undefined,
    ...t, callsPerSample: 1, gbps: bytes / t.median / 1e6, vsBound: {}, vsPeer: {}, peakRss,
  };
}

export default {
  id: 'cli-write',
  title: 'posenc CLI: a 2 GiB table written to a file',
  cases({ quick }) {
    if (quick || typeof process === 'undefined' || !process.versions?.node) return [];
    return [{
      id: `cli-write-sinusoidal-${ROWS}x${DIM}`,
      label: `posenc sinusoidal --length ${ROWS} --dim ${DIM} --out table.npy (float32)`,
      bytes: ROWS * DIM * 4,
      params: { rows: ROWS, dim: DIM },
    }];
  },
  /** Runs the case whole (no contenders): RUNS runs of each program, alternately. */
  async run(c) {
    const [{ mkdtempSync, rmSync, statfsSync }, { tmpdir }, { join }, { fileURLToPath }] = await Promise.all([
      import('node:fs'), import('node:os'), import('node:path'), import('node:url'),
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'posenc-bench-cli-'));
    try {
      const free = Number(statfsSync(dir).bavail) * Number(statfsSync(dir).bsize);
      if (free < c.bytes * 1.1) throw new Error(`bench: ${c.id} needs ${c.bytes} bytes free in ${dir}, found ${free}`);
      const cli = fileURLToPath(new URL('../../../dist/cli/cli.js', import.meta.url));
      const zeros = fileURLToPath(new URL('../cli/zeros.mjs', import.meta.url));
      const out = join(dir, 'table.npy');
      const runs = { table: [], zeros: [] };
      for (let i = 0; i < RUNS; i++) {
        runs.zeros.push(await timedRun([zeros, String(ROWS), String(DIM), out], out));
        runs.table.push(await timedRun([cli, 'sinusoidal', '--length', String(ROWS), '--dim', String(DIM), '--out', out], out));
      }
      return {
        kernel: 'cli-write', id: c.id, label: c.label, bytes: c.bytes, params: c.params,
        rows: [
          row('cli-table', 'posenc sinusoidal (the CLI, a process)', runs.table, c.bytes),
          row('cli-zeros', 'the same writer, zeros (cli/zeros.mjs, a process)', runs.zeros, c.bytes),
        ],
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  summary: { rows: ['cli-table', 'cli-zeros'], names: { 'cli-table': 'posenc sinusoidal CLI, 2 GiB .npy', 'cli-zeros': 'the same writer, zeros' } },
  targets: [
    {
      text: 'CLI: a 2 GiB float32 sinusoidal table written within 1.5× the time the same writer takes for 2 GiB of zeros',
      select: () => true,
      rows: ['cli-table'],
      measure: (r, c) => r.median / c.rows.find((x) => x.id === 'cli-zeros').median,
      pass: (v) => v <= 1.5,
      format: (v, r, c) => `${v.toFixed(2)}× (${(r.median / 1000).toFixed(2)} s vs ${(c.rows.find((x) => x.id === 'cli-zeros').median / 1000).toFixed(2)} s)`,
    },
    {
      text: 'CLI: peak RSS under 300 MB while writing the 2 GiB table',
      select: () => true,
      rows: ['cli-table'],
      measure: (r) => r.peakRss / 1e6,
      pass: (v) => v < 300,
      format: (v) => `${v.toFixed(0)} MB`,
    },
  ],
};
