// Fitting a matrix to a plot's pixels. When a heatmap has more rows or columns than the plot has
// device pixels, drawing every n-th cell would alias fine detail into false bands (moiré: the
// sinusoidal table's fast columns turn into stripes). Instead each pixel shows the area-weighted
// mean of the cells it covers, so detail finer than a pixel fades to its average.

/**
 * Output cell k of `m` covers input cells [k·n/m, (k+1)·n/m): the first and last whole cells, and
 * the weights of the partial cells at either end (an axis of `n` cells shrunk to `m` <= n).
 * @param {number} n @param {number} m
 */
function cover(n, m) {
  const from = new Int32Array(m);
  const to = new Int32Array(m); // exclusive
  const head = new Float64Array(m); // weight of cell from - 1 (0 if none)
  const tail = new Float64Array(m); // weight of cell `to` (0 if none)
  for (let k = 0; k < m; k++) {
    const lo = (k * n) / m;
    const hi = ((k + 1) * n) / m;
    from[k] = Math.ceil(lo);
    to[k] = Math.floor(hi);
    head[k] = from[k] - lo;
    tail[k] = hi - to[k];
    if (from[k] > to[k]) { // inside one cell: all of the weight on it
      from[k] = to[k];
      head[k] = 0;
      tail[k] = hi - lo;
    }
  }
  return { from, to, head, tail };
}

/**
 * Averages a row-major [rows, cols] matrix down to [outRows, outCols] (each at most the input's).
 * Non-finite cells (−∞ marks a masked entry) are left out of the means; an output cell that covers
 * only such cells is −∞. Returns the input itself when no axis shrinks.
 * @param {Float32Array} values @param {number} rows @param {number} cols @param {number} outRows @param {number} outCols
 * @returns {Float32Array}
 */
export function areaAverage(values, rows, cols, outRows, outCols) {
  if (outRows >= rows && outCols >= cols) return values;
  outRows = Math.min(outRows, rows);
  outCols = Math.min(outCols, cols);
  const c = cover(cols, outCols);
  // one input row averaged across its columns: sums and finite weights per output column, kept
  // for the next output row (a row split between two output rows is used by both)
  const rowSum = new Float64Array(outCols);
  const rowWeight = new Float64Array(outCols);
  let cached = -1;
  /** @param {number} r */
  const columns = (r) => {
    if (r === cached) return;
    cached = r;
    const src = r * cols;
    for (let k = 0; k < outCols; k++) {
      let sum = 0;
      let weight = 0;
      for (let i = src + c.from[k], end = src + c.to[k]; i < end; i++) {
        const v = values[i];
        if (v - v === 0) { // finite (−∞ marks a masked entry)
          sum += v;
          weight += 1;
        }
      }
      const h = c.head[k];
      if (h > 0) {
        const v = values[src + c.from[k] - 1];
        if (v - v === 0) {
          sum += h * v;
          weight += h;
        }
      }
      const t = c.tail[k];
      if (t > 0) {
        const v = values[src + c.to[k]];
        if (v - v === 0) {
          sum += t * v;
          weight += t;
        }
      }
      rowSum[k] = sum;
      rowWeight[k] = weight;
    }
  };
  const rc = cover(rows, outRows);
  const out = new Float32Array(outRows * outCols);
  const s = new Float64Array(outCols);
  const w = new Float64Array(outCols);
  /** @param {number} row @param {number} by */
  const add = (row, by) => {
    columns(row);
    for (let k = 0; k < outCols; k++) {
      s[k] += by * rowSum[k];
      w[k] += by * rowWeight[k];
    }
  };
  for (let k = 0; k < outRows; k++) {
    s.fill(0);
    w.fill(0);
    if (rc.head[k] > 0) add(rc.from[k] - 1, rc.head[k]);
    for (let row = rc.from[k]; row < rc.to[k]; row++) add(row, 1);
    if (rc.tail[k] > 0) add(rc.to[k], rc.tail[k]);
    const dst = k * outCols;
    for (let j = 0; j < outCols; j++) out[dst + j] = w[j] > 0 ? s[j] / w[j] : -Infinity;
  }
  return out;
}
