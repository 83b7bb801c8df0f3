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
