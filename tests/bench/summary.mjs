// Prints the summary table of docs/performance.md (the relaxed-SIMD kernels beside the SIMD128 ones,
// and the targets) from a results JSON written by run.mjs:
//   node tests/bench/summary.mjs [build/bench/results.json] [more.json ...]
// With more than one file, the tables come from the first, followed by every target result in
// each run side by side (how far a row moves between runs).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { kernelsTable, summaryTable, targetLines, targetsAcrossRuns } from './harness/report.mjs';
import { loadKernels } from './kernel-modules.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const paths = positionals.length ? positionals : [join(HERE, '..', '..', 'build', 'bench', 'results.json')];
const path = paths[0];
const runs = paths.map((p) => JSON.parse(readFileSync(p, 'utf8')));
const { meta, cases, targets } = runs[0];
const kernels = await loadKernels();
console.log(`${meta.command} — ${meta.date}, ${meta.cpu} (${meta.cores} cores), ${meta.browser ?? `Node ${meta.node}`}, commit ${meta.commit}`);
console.log(`load average ${meta.loadBefore.map((l) => l.toFixed(2)).join(' ')} -> ${meta.loadAfter.map((l) => l.toFixed(2)).join(' ')}; ` +
  `sample spread (IQR/median) median ${Math.round(meta.noise.medianSpread * 100)}%, worst ${Math.round(meta.noise.worstSpread * 100)}%\n`);
console.log(`${summaryTable(kernels, cases)}\n`);
const twins = kernelsTable(cases);
if (twins) console.log(`Kernels (${meta.posenc}) beside the SIMD128 ones:\n\n${twins}\n`);
console.log(targetLines(targets));
if (runs.length > 1) console.log(`\n${targetsAcrossRuns(paths, runs)}`);

// The native results written beside the JSON (npm run bench writes X.native.json next to X.json).
const nativePath = path.replace(/(\.json)?$/, '.native.json');
let native;
try {
  native = JSON.parse(readFileSync(nativePath, 'utf8'));
} catch {
  native = undefined;
}
if (native) {
  const fmt = (ms) => (ms >= 1 ? `${ms.toPrecision(3)} ms` : ms >= 1e-3 ? `${(ms * 1e3).toPrecision(3)} µs` : `${(ms * 1e6).toPrecision(3)} ns`);
  const lines = [
    `Native (${nativePath.split('/').pop()}, xsimd ${native.arch}):`,
    '',
    `| case (native, ${native.arch}) | posenc | median | GB/s | ×memset | ×in-place pass | ×in-place add |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const c of native.cases) {
    const bound = (id) => c.rows.find((r) => r.id === id)?.median_ms;
    for (const r of c.rows.filter((x) => !x.id.startsWith('bound:'))) {
      const ratio = (id) => (bound(id) ? (r.median_ms / bound(id)).toFixed(2) : '–');
      lines.push(`| ${c.label} | ${r.label.replace(/^posenc /, '')} | ${fmt(r.median_ms)} | ${r.gbps.toFixed(1)} | ${ratio('bound:fill')} | ${ratio('bound:rmw')} | ${ratio('bound:add')} |`);
    }
  }
  console.log(lines.join('\n'));
}
