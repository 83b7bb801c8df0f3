// npm run fuzz: posenc fuzzes itself (docs/reliability.md).
//
//   npm run fuzz                          the short deterministic run that `npm test -- fuzz` runs
//                                         (fixed seed, bounded runs per target)
//   npm run fuzz -- --minutes N [T ...]   every JS target (or the targets T) for N minutes in all,
//                                         random seeds; findings saved under build/fuzz/findings/
//   npm run fuzz -- native [--minutes N]  the libFuzzer target (clang, ASan + UBSan) for N minutes
//   npm run fuzz -- --replay T:SEED:PATH  replays a JS finding (printed with every counterexample)
//   npm run fuzz -- native --replay FILE  replays a native finding
//   --seed S                              the seed of a deterministic run
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { buildFuzzNative } from './lib/builds.mjs';
import { ROOT } from './lib/run.mjs';

const QUICK_SEED = 20261201;
const QUICK_RUNS = 2000;
const FINDINGS = join(ROOT, 'build', 'fuzz', 'findings');

let opts;
try {
  opts = parseArgs({
    allowPositionals: true,
    options: { minutes: { type: 'string' }, seed: { type: 'string' }, replay: { type: 'string' } },
  });
} catch (error) {
  console.error(`posenc fuzz: ${error.message}`);
  process.exit(2);
}
const { values, positionals } = opts;
const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
if (minutes !== undefined && !(minutes > 0)) {
  console.error(`posenc fuzz: --minutes must be a positive number, got ${values.minutes}`);
  process.exit(2);
}

if (positionals[0] === 'native') process.exit(runNative());
process.exit(await runJs());

/** The JS targets: tests/fuzz/targets/*.mjs, each exporting `target`. */
async function loadTargets() {
  const dir = join(ROOT, 'tests', 'fuzz', 'targets');
  const targets = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()) {
    targets.push((await import(join(dir, f))).target);
  }
  return targets;
}

async function runJs() {
  const [{ default: fc }, { createPosEnc }, { healthCheck, outcomes }] = await Promise.all([
    import('fast-check'), import(join(ROOT, 'dist', 'node.js')), import(join(ROOT, 'tests', 'fuzz', 'harness.mjs'))]);
  const all = await loadTargets();
  const names = new Set(all.map((t) => t.name));
  let replay;
  if (values.replay) {
    const m = /^([^:]+):(-?\d+):([\d:]+)$/.exec(values.replay);
    if (!m || !names.has(m[1])) {
      console.error(`posenc fuzz: --replay wants TARGET:SEED:PATH with TARGET one of ${[...names].join(', ')}, got ${values.replay}`);
      return 2;
    }
    replay = { target: m[1], seed: Number(m[2]), path: m[3] };
  }
  const wanted = replay ? [replay.target] : positionals;
  const unknown = wanted.filter((n) => !names.has(n));
  if (unknown.length) {
    console.error(`posenc fuzz: unknown target(s) ${unknown.join(', ')}; targets: ${[...names].join(', ')}, native`);
    return 2;
  }
  const targets = wanted.length ? all.filter((t) => wanted.includes(t.name)) : all;
  const pe = await createPosEnc();
  const long = minutes !== undefined && !replay;
  const budgetMs = long ? (minutes * 60_000) / targets.length : 0;
  console.log(long ? `posenc fuzz: ${targets.length} targets, ${minutes} min in all (${(budgetMs / 1000).toFixed(0)} s each), random seeds`
    : replay ? `posenc fuzz: replaying ${values.replay}` : `posenc fuzz: deterministic run, seed ${values.seed ?? QUICK_SEED}`);
  let findings = 0;
  for (const target of targets) {
    const context = target.setup ? target.setup(pe) : {};
    const health = healthCheck(pe);
    const arbitrary = typeof target.arbitrary === 'function' ? target.arbitrary(pe, context) : target.arbitrary;
    const predicate = target.async
      ? async (input) => { await target.check(pe, input, context); health(); }
      : (input) => { target.check(pe, input, context); health(); };
    const property = target.async ? fc.asyncProperty(arbitrary, predicate) : fc.property(arbitrary, predicate);
    outcomes.clear();
    const started = Date.now();
    let executions = 0;
    const failures = [];
    const check = async (params) => {
      const result = await fc.check(property, params);
      executions += result.numRuns + result.numShrinks;
      // A run interrupted by the time limit before its first case counts as failed, with nothing to show.
      if (result.failed && !(result.interrupted && result.counterexample === null)) failures.push({ seed: result.seed, path: result.counterexamplePath, result });
      return result;
    };
    if (replay) {
      await check({ seed: replay.seed, path: replay.path, endOnFailure: true });
    } else if (!long) {
      await check({ seed: values.seed === undefined ? QUICK_SEED : Number(values.seed), numRuns: target.quickRuns ?? QUICK_RUNS });
    } else {
      while (Date.now() - started < budgetMs && failures.length < 5) {
        const left = budgetMs - (Date.now() - started);
        await check({ seed: (Math.random() * 2 ** 31) | 0, numRuns: 100_000, interruptAfterTimeLimit: left, markInterruptAsFailure: false });
      }
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(`  ${target.name.padEnd(12)} ${String(executions).padStart(9)} executions in ${seconds.toFixed(1)} s, ${failures.length} finding(s)`);
    console.log(`  ${''.padEnd(12)} calls: ${[...outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
    for (const f of failures) {
      findings++;
      report(fc, target, f);
    }
  }
  console.log(findings ? `posenc fuzz: ${findings} finding(s); saved under build/fuzz/findings/` : 'posenc fuzz: no findings');
  return findings ? 1 : 0;
}

/** Prints a counterexample with its replay command and saves it under build/fuzz/findings/. */
function report(fc, target, { seed, path, result }) {
  const error = result.errorInstance;
  const message = error instanceof Error ? error.message : String(error);
  const counterexample = fc.stringify(result.counterexample);
  // The generators depend on which known-defect classes are included (tests/fuzz/known-defects.mjs).
  const env = process.env.POSENC_FUZZ_ALL === '1' ? 'POSENC_FUZZ_ALL=1 ' : '';
  const replay = `${env}npm run fuzz -- --replay ${target.name}:${seed}:${path}`;
  console.log(`    ${message.split('\n')[0]}\n    counterexample: ${counterexample.slice(0, 600)}\n    replay: ${replay}`);
  if (error?.cause?.stack) console.log(`    cause: ${error.cause.stack.split('\n').slice(0, 4).join('\n      ')}`);
  mkdirSync(FINDINGS, { recursive: true });
  writeFileSync(join(FINDINGS, `${target.name}-${seed}.json`), `${JSON.stringify({
    target: target.name, seed, path, replay, message, counterexample, cause: error?.cause?.stack ?? null,
  }, null, 2)}\n`);
}

/** libFuzzer over the C++ API (tests/fuzz/native/posenc_fuzz.cpp), built with ASan and UBSan. */
function runNative() {
  buildFuzzNative();
  const binary = join(ROOT, 'build', 'fuzz-native', 'posenc_fuzz');
  const env = { ...process.env, ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' };
  if (values.replay) {
    return spawnSync(binary, [values.replay], { stdio: 'inherit', env }).status ?? 1;
  }
  const working = join(ROOT, 'build', 'fuzz', 'native-corpus');
  mkdirSync(working, { recursive: true });
  mkdirSync(FINDINGS, { recursive: true });
  const seconds = Math.max(1, Math.round((minutes ?? 1) * 60));
  const seed = values.seed ?? String((Math.random() * 2 ** 31) | 0);
  const args = [`-max_total_time=${seconds}`, `-seed=${seed}`, '-max_len=1024', '-rss_limit_mb=2048', '-print_final_stats=1',
    `-artifact_prefix=${FINDINGS}/native-`, working, join(ROOT, 'tests', 'fuzz', 'corpus', 'native')];
  console.log(`posenc fuzz: native, ${seconds} s, seed ${seed}\n$ ${binary} ${args.join(' ')}`);
  const r = spawnSync(binary, args, { env, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], maxBuffer: 1 << 28 });
  const stderr = r.stderr ?? '';
  const stat = (name) => new RegExp(`stat::${name}:\\s+(\\d+)`).exec(stderr)?.[1];
  const lines = stderr.split('\n');
  const crash = lines.filter((l) => /ERROR: |runtime error:|invariant broken|Test unit written to/.test(l));
  process.stderr.write(lines.filter((l) => !/^#\d+\s+(NEW|REDUCE|pulse|INITED)/.test(l)).slice(-40).join('\n'));
  console.log(`\n  native       ${stat('number_of_executed_units') ?? '?'} executions in ${seconds} s (${stat('average_exec_per_sec') ?? '?'}/s), ` +
    `${crash.length ? 'a finding' : '0 findings'}`);
  if (crash.length) {
    console.log(`    ${crash.join('\n    ')}\n    replay: npm run fuzz -- native --replay <the test unit file above>`);
  }
  return r.status === 0 ? 0 : 1;
}
