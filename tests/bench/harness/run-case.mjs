// One benchmark case, run the same way in Node (run.mjs) and in a browser (browser/main.mjs): every
// contender runs once on the same input and its output is checked against the float64 reference
// and against posenc; then all contenders and the bounds are timed together.
import { maxAbs, maxAbsDiff } from './data.mjs';
import { BOUNDS, PEERS } from './report.mjs';
import { measureTogether } from './timing.mjs';

const DEFAULT_TOLERANCE = 4e-6; // relative to the reference's largest magnitude

/**
 * Runs case `c` of `kernel` with `env` ({ pe, tf?, ort?, bounds }) and `opts` ({ budget }); returns
 * { kernel, id, label, bytes, params, rows } (one row per contender and bound).
 */
export async function runCase(kernel, c, env, opts) {
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

/** Every case of `kernels` (those whose id matches opts.filter; opts.quick for fewer), in order: the results, each also passed to onCase. */
export async function runCases(kernels, env, opts, onCase) {
  const cases = [];
  for (const kernel of kernels) {
    for (const c of kernel.cases({ quick: opts.quick })) {
      if (opts.filter && !opts.filter.test(c.id)) continue;
      // A kernel with run() measures its cases itself (whole programs, e.g. kernels/cli-write.mjs).
      const result = kernel.run ? await kernel.run(c, env, opts) : await runCase(kernel, c, env, opts);
      cases.push(result);
      onCase(result);
    }
  }
  return cases;
}

/** How the results name the posenc build: its version and the SIMD it was compiled from. */
export function posencLabel(pe) {
  return `${pe.version} (${pe.simd} -> wasm SIMD; ${pe.kernels} kernels)`;
}

/** Each kernel's targets over the measured cases: { kernel, text, results: [{ caseId, rowId, value, ok, formatted }] }. */
export function evaluateTargets(kernels, cases) {
  const out = [];
  for (const kernel of kernels) {
    for (const t of kernel.targets ?? []) {
      const results = [];
      for (const c of cases.filter((x) => x.kernel === kernel.id && t.select(x))) {
        for (const rowId of t.rows) {
          const r = c.rows.find((x) => x.id === rowId);
          if (!r) continue;
          const v = t.measure(r, c);
          results.push({ caseId: c.id, rowId, value: v, ok: v !== undefined && t.pass(v), formatted: v === undefined ? 'n/a' : t.format(v, r, c) });
        }
      }
      if (results.length) out.push({ kernel: kernel.id, text: t.text, results });
    }
  }
  return out;
}
