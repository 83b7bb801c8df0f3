// Prints the README summary table (and the targets) from a results JSON written by run.mjs:
//   node tests/bench/summary.mjs [build/bench/results.json]
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { summaryTable, targetLines } from './harness/report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const path = process.argv[2] ?? join(HERE, '..', '..', 'build', 'bench', 'results.json');
const { meta, cases, targets } = JSON.parse(readFileSync(path, 'utf8'));
const kernels = [];
for (const f of readdirSync(join(HERE, 'kernels')).filter((x) => x.endsWith('.mjs')).sort()) {
  kernels.push(...[(await import(pathToFileURL(join(HERE, 'kernels', f)).href)).default].flat());
}
console.log(`${meta.command} — ${meta.date}, ${meta.cpu} (${meta.cores} cores), Node ${meta.node}, commit ${meta.commit}`);
console.log(`load average ${meta.loadBefore.map((l) => l.toFixed(2)).join(' ')} -> ${meta.loadAfter.map((l) => l.toFixed(2)).join(' ')}; ` +
  `sample spread (IQR/median) median ${Math.round(meta.noise.medianSpread * 100)}%, worst ${Math.round(meta.noise.worstSpread * 100)}%\n`);
console.log(`${summaryTable(kernels, cases)}\n`);
console.log(targetLines(targets));
