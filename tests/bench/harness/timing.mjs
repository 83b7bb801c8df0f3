// Timing: warm-up, calibration and round-robin sampling, so that every contender of a case (and
// its bounds) is sampled in the same stretch of time. On a shared machine, load that comes and goes
// then hits all of them alike, and the ratios between medians stay meaningful.
//
// Round-robin alone favours whoever runs right after its own data was touched. On the VM the
// numbers of docs/performance.md come from (2 MiB of L2 per core, a large L3 shared with other tenants), a loop
// over 32 MiB ran 2-3x slower for its first 3-5 passes after another loop had streamed a different
// buffer, or after 10 ms of compute-bound code, and only then reached its speed
// (`node tests/bench/ramp-probe.mjs`). The bounds ran back to back on the same two buffers and were
// timed at full speed, a contender that followed a JS or tfjs contender at the start of its ramp.
// So before each sample a runnable now runs untimed until it has made `rewarmCalls` calls and
// spent `rewarmMs`, or has spent `rewarmMaxMs` (a sample's worth of calls at a time): each is timed
// in its own steady state. A runnable slower than `rewarmMaxMs` per call (a slow peer,
// compute-bound) is not re-warmed; `rewarmMaxMs: 0` turns the re-warm off.

import { performance } from 'node:perf_hooks';

/** @typedef {{ id: string, run: () => (void | Promise<void>), async?: boolean }} Runnable */

const now = () => performance.now();

async function timeCalls(r, calls) {
  const t0 = now();
  if (r.async) {
    for (let i = 0; i < calls; i++) await r.run();
  } else {
    for (let i = 0; i < calls; i++) r.run();
  }
  return now() - t0;
}

function quantile(sorted, q) {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Summary of per-call times (ms): median, quartiles, min, and the relative spread (IQR / median). */
export function summarise(perCall) {
  const s = [...perCall].sort((a, b) => a - b);
  const median = quantile(s, 0.5);
  const q1 = quantile(s, 0.25);
  const q3 = quantile(s, 0.75);
  return { median, q1, q3, min: s[0], samples: s.length, spread: median > 0 ? (q3 - q1) / median : 0 };
}

/**
 * Measures runnables together.
 * - warm-up: each runs until it has spent `warmupMs` (at least 2 calls; JIT tiers, caches, pages),
 * - calibration: calls per sample so that one sample lasts about `sampleMs`,
 * - sampling: rounds in which each unfinished runnable takes one sample, in a rotating order,
 *   until each has `minSamples` and the case has spent `budgetMs` (a runnable slower than
 *   `slowMs` per call stops at 3 samples; nobody goes past `maxSamples`); before each sample the
 *   runnable is re-warmed (see above).
 * Returns Map(id -> summary in ms per call, plus callsPerSample).
 */
export async function measureTogether(runnables, opts = {}) {
  const { warmupMs = 60, sampleMs = 4, budgetMs = 1500, minSamples = 9, maxSamples = 41, slowMs = 250 } = opts;
  const { rewarmCalls = 6, rewarmMs = 10, rewarmMaxMs = 60 } = opts;
  const state = [];
  for (const r of runnables) {
    let calls = 0;
    let spent = 0;
    while (calls < 2 || spent < warmupMs) {
      spent += await timeCalls(r, 1);
      calls++;
      if (spent > 4 * slowMs) break; // very slow: warm enough
    }
    const perCall = spent / calls;
    const callsPerSample = Math.max(1, Math.round(sampleMs / Math.max(perCall, 1e-6)));
    const wanted = perCall > slowMs ? 3 : minSamples;
    state.push({ r, callsPerSample, wanted, rewarms: perCall <= rewarmMaxMs, times: [] });
  }
  /** The untimed calls before a sample of s (see above), a sample's worth at a time. */
  const rewarm = async (s) => {
    if (!s.rewarms) return;
    for (let calls = 0, spent = 0; (calls < rewarmCalls || spent < rewarmMs) && spent < rewarmMaxMs; calls += s.callsPerSample) {
      spent += await timeCalls(s.r, s.callsPerSample);
    }
  };
  const t0 = now();
  for (let round = 0; ; round++) {
    const active = state.filter((s) => s.times.length < s.wanted || (now() - t0 < budgetMs && s.times.length < maxSamples && s.wanted !== 3));
    if (active.length === 0) break;
    for (let i = 0; i < active.length; i++) {
      const s = active[(i + round) % active.length];
      await rewarm(s);
      s.times.push((await timeCalls(s.r, s.callsPerSample)) / s.callsPerSample);
    }
  }
  return new Map(state.map((s) => [s.r.id, { ...summarise(s.times), callsPerSample: s.callsPerSample }]));
}
