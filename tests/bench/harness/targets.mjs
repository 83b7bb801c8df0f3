// Target helpers for kernel modules: each returns the { text, select, rows, measure, pass, format }
// record run.mjs evaluates (see tests/bench/README.md, "Adding a kernel").

/** "Within `limit`× of bound `bound`" for `rows` of the cases `select` keeps. */
export function withinBound({ text, rows, bound, limit, select = () => true, format }) {
  return {
    text,
    select,
    rows,
    measure: (r) => r.vsBound[bound],
    pass: (v) => v <= limit,
    format: format ?? ((v) => `${v.toFixed(2)}× ${bound}`),
  };
}

/**
 * A contender that only allocates a new Float32Array of the result's size and copies a finished
 * result into it (`source(p, input, env)` returns that result, computed once in prepare): the
 * least any call that returns a new array must spend beyond computing it. Its peer is 'bound', so it
 * is in no "vs" column.
 */
export function allocateAndCopy(source) {
  return {
    id: 'alloc-copy',
    label: 'bound: new Float32Array(n) + set() of a finished result (allocate and copy, nothing computed)',
    peer: 'bound',
    prepare(p, input, env) {
      const result = Float32Array.from(source(p, input, env));
      let out;
      return {
        run() {
          out = new Float32Array(result.length);
          out.set(result);
        },
        output: () => out,
      };
    },
  };
}

/**
 * "The default path costs at most `limit`× the allocate-and-copy bound more than the `out` path":
 * (median of row `row` - median of row `out`) / median of the allocateAndCopy row, for results of
 * at least 32 MiB. Below that glibc's malloc may serve a new array from memory it freed before
 * (cheap) or from fresh pages (each first write a page fault: on the bench VM 1-2 orders of
 * magnitude dearer), and which one a call gets changes from run to run, for the bound as for the
 * default path; from 32 MiB on (the largest threshold glibc gives mmap) every array is fresh pages.
 */
export function defaultPathOverhead({ text, row, out, limit, select = (c) => c.bytes >= 32 << 20 }) {
  const median = (c, id) => c.rows.find((x) => x.id === id)?.median;
  return {
    text,
    select,
    rows: [row],
    measure: (r, c) => {
      const extra = r.median - median(c, out);
      const bound = median(c, 'alloc-copy');
      return bound === undefined || Number.isNaN(extra) ? undefined : extra / bound;
    },
    pass: (v) => v <= limit,
    format: (v, r, c) => `${v.toFixed(2)}× (default ${fmt(r.median)} - out ${fmt(median(c, out))} vs new Float32Array + set ${fmt(median(c, 'alloc-copy'))})`,
  };
}

const fmt = (ms) => `${ms.toPrecision(3)} ms`;

/** "Rows `rows` take at most `limit`× the median of row `twin`" (a default call beside its zero-copy twin). */
export function withinRow({ text, rows, twin, limit, select = () => true }) {
  const median = (c, id) => c.rows.find((x) => x.id === id)?.median;
  return {
    text,
    select,
    rows,
    measure: (r, c) => r.median / median(c, twin),
    pass: (v) => v <= limit,
    format: (v, r, c) => `${v.toFixed(2)}× (${fmt(r.median)} vs ${fmt(median(c, twin))})`,
  };
}

/** "Rows `rows` take at most `us` µs more per call than row `twin`" (decode-size calls beside their zero-copy twin). */
export function withinMicrosOf({ text, rows, twin, us, select = () => true }) {
  const median = (c, id) => c.rows.find((x) => x.id === id)?.median;
  return {
    text,
    select,
    rows,
    measure: (r, c) => (r.median - median(c, twin)) * 1000,
    pass: (v) => v <= us,
    format: (v, r, c) => `+${v.toFixed(2)} µs (${(r.median * 1000).toFixed(2)} vs ${(median(c, twin) * 1000).toFixed(2)} µs)`,
  };
}
