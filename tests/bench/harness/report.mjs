// Tables (Markdown) for the terminal and docs/performance.md, from the measured rows.
import { formatBytes } from './data.mjs';

/** Peer groups, in column order: a row's "vs X" is X's best median / this row's median (>1: faster). */
export const PEERS = [
  { id: 'js-naive', label: 'naive JS' },
  { id: 'js-opt', label: 'opt. JS' },
  { id: 'tfjs', label: 'tfjs' },
  { id: 'ort', label: 'ORT' },
];
export const BOUNDS = ['fill', 'copy', 'rmw', 'add', 'rot'];

export function formatTime(ms) {
  if (ms < 1e-3) return `${(ms * 1e6).toFixed(0)} ns`;
  if (ms < 1) return `${(ms * 1e3).toPrecision(3)} µs`;
  if (ms < 1000) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toPrecision(3)} s`;
}

const ratio = (v) => (v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const err = (v) => (v === undefined ? '' : v === 0 ? '0' : v.toExponential(0));

/** One case: a heading line and a Markdown table of its rows (bounds last). */
export function caseTable(c) {
  const lines = [`#### ${c.label} — ${formatBytes(c.bytes)}`, ''];
  const head = ['contender', 'median', 'GB/s', ...BOUNDS.map((b) => `×${b}`), ...PEERS.map((p) => `vs ${p.label}`), 'max err', '±'];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`);
  for (const r of c.rows) {
    const cells = [
      r.kind === 'bound' ? `*bound: ${r.label}*` : r.label,
      formatTime(r.median),
      r.gbps.toFixed(r.gbps >= 10 ? 1 : 2),
      ...BOUNDS.map((b) => ratio(r.vsBound[b])),
      ...PEERS.map((p) => ratio(r.vsPeer[p.id])),
      err(r.maxErr),
      `${Math.round(r.spread * 100)}%`,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The targets, one line each per evaluated row; a target no row could be measured for (its peer did not run) says so. */
export function targetLines(targets) {
  const lines = [];
  for (const t of targets) {
    if (t.results.every((r) => r.value === undefined)) {
      lines.push(`n/a   ${t.text} (not measured in this run)`);
      continue;
    }
    const all = t.results.every((r) => r.ok);
    lines.push(`${all ? 'MET ' : 'MISS'}  ${t.text}`);
    for (const r of t.results) lines.push(`        ${r.ok ? 'ok  ' : 'miss'} ${r.caseId} / ${r.rowId}: ${r.formatted}`);
  }
  return lines.join('\n');
}

/**
 * Each target result of several runs (`runs`: parsed results files, named by `paths`) side by side,
 * with how many runs met it.
 */
export function targetsAcrossRuns(paths, runs) {
  const lines = [`Targets across ${runs.length} runs (${paths.join(', ')}):`];
  for (const t of runs[0].targets) {
    lines.push(`  ${t.text}`);
    for (const r of t.results) {
      const same = runs.map((run) => run.targets?.find((x) => x.text === t.text)?.results.find((y) => y.caseId === r.caseId && y.rowId === r.rowId));
      const measured = same.filter((x) => x !== undefined && x.value !== undefined);
      const met = measured.filter((x) => x.ok).length;
      lines.push(`    ${r.caseId} / ${r.rowId}: ${same.map((x) => x?.formatted ?? 'not run').join(' | ')} (met in ${met} of ${measured.length})`);
    }
  }
  return lines.join('\n');
}

/**
 * The summary table of docs/performance.md: per case, the posenc rows a kernel module lists in
 * `summary.rows` (cases filtered by `summary.cases`), with the ratios that matter. Markdown.
 */
export function summaryTable(kernels, cases) {
  const head = ['case', 'posenc', 'median', 'GB/s', '×fill', '×rmw', '×add', '×rot', 'vs naive JS', 'vs opt. JS', 'vs tfjs', 'vs ORT'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const c of cases) {
    const kernel = kernels.find((k) => k.id === c.kernel);
    const summary = kernel?.summary;
    if (!summary || (summary.cases && !summary.cases(c))) continue;
    for (const id of summary.rows) {
      const r = c.rows.find((x) => x.id === id);
      if (!r) continue;
      lines.push(`| ${c.label} | ${summary.names?.[id] ?? r.label} | ${formatTime(r.median)} | ${r.gbps.toFixed(r.gbps >= 10 ? 1 : 2)} | ` +
        `${ratio(r.vsBound.fill)} | ${ratio(r.vsBound.rmw)} | ${ratio(r.vsBound.add)} | ${ratio(r.vsBound.rot)} | ` +
        `${PEERS.map((p) => ratio(r.vsPeer[p.id])).join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

/**
 * The relaxed-SIMD kernels against the SIMD128 ones: every row that has a twin measured on an
 * instance with the SIMD128 kernels (harness/simd128-twin.mjs), as multiples of the in-place SIMD
 * pass (rmw) and of the fill bound, and the twin's median over the row's (>1: relaxed faster).
 * Markdown; empty when no twin ran (the measured instance runs the SIMD128 kernels).
 */
export function kernelsTable(cases) {
  const head = ['case', 'posenc', '×rmw relaxed', '×rmw SIMD128', '×fill relaxed', '×fill SIMD128', 'SIMD128 / relaxed', '± relaxed, SIMD128'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  let rows = 0;
  for (const c of cases) {
    for (const twin of c.rows.filter((r) => r.id.endsWith('-simd128'))) {
      const r = c.rows.find((x) => x.id === twin.id.slice(0, -'-simd128'.length));
      if (!r) continue;
      rows++;
      lines.push(`| ${c.label} | ${r.label} | ${ratio(r.vsBound.rmw)} | ${ratio(twin.vsBound.rmw)} | ${ratio(r.vsBound.fill)} | ` +
        `${ratio(twin.vsBound.fill)} | ${(twin.median / r.median).toFixed(2)} | ${Math.round(r.spread * 100)}%, ${Math.round(twin.spread * 100)}% |`);
    }
  }
  return rows ? lines.join('\n') : '';
}
