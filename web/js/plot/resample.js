// Fitting a matrix to a plot's pixels. When a heatmap has more rows or columns than the plot has
// device pixels, drawing every n-th cell would alias fine detail into false bands (moiré: the
// sinusoidal table's fast columns turn into stripes). Instead each pixel shows the area-weighted
// mean of the cells it covers, so detail finer than a pixel fades to its average.

/**
 * How each of `n` input cells spreads over `m` <= n output cells of equal total width: output
 * index and weight of its first part, and of its second part when it straddles a boundary.
 * @param {number} n @param {number} m
 */
function spans(n, m) {
  const first = new Int32Array(n);
  const firstWeight = new Float64Array(n);
  const scale = m / n; // the width of an input cell in output cells (<= 1)
  for (let c = 0; c < n; c++) {
    const lo = c * scale;
    const hi = (c + 1) * scale;
    const a = Math.min(m - 1, Math.floor(lo));
    first[c] = a;
    // the part before the boundary a + 1 (all of it when the cell does not cross one)
    firstWeight[c] = Math.min(hi, a + 1) - lo;
  }
  return { first, firstWeight, scale };
}

/**
 * Averages a row-major [rows, cols] matrix down to [outRows, outCols] (each at most the input's).
 * Non-finite cells (−∞ marks a masked entry) are left out of the means; an output cell that covers
 * only such cells is −∞. Returns the input itself when no axis shrinks.
 * @param {ArrayLike<number>} values @param {number} rows @param {number} cols @param {number} outRows @param {number} outCols
 * @returns {ArrayLike<number>}
 */
export function areaAverage(values, rows, cols, outRows, outCols) {
  if (outRows >= rows && outCols >= cols) return values;
  outRows = Math.min(outRows, rows);
  outCols = Math.min(outCols, cols);
  // columns: [rows, cols] -> sums and finite weights of [rows, outCols]
  const { first: colOut, firstWeight: colWeight, scale: colScale } = spans(cols, outCols);
  const sum = new Float64Array(rows * outCols);
  const weight = new Float64Array(rows * outCols);
  for (let r = 0; r < rows; r++) {
    const base = r * outCols;
    const src = r * cols;
    for (let c = 0; c < cols; c++) {
      const v = values[src + c];
      if (v - v !== 0) continue; // not finite (−∞ marks a masked entry)
      const a = base + colOut[c];
      const w = colWeight[c];
      sum[a] += w * v;
      weight[a] += w;
      const rest = colScale - w;
      if (rest > 1e-12) {
        sum[a + 1] += rest * v;
        weight[a + 1] += rest;
      }
    }
  }
  // rows: [rows, outCols] -> [outRows, outCols]
  const { first: rowOut, firstWeight: rowWeight, scale: rowScale } = spans(rows, outRows);
  const outSum = new Float64Array(outRows * outCols);
  const outWeight = new Float64Array(outRows * outCols);
  for (let r = 0; r < rows; r++) {
    const a = rowOut[r] * outCols;
    const w = rowWeight[r];
    const rest = rowScale - w;
    const src = r * outCols;
    for (let c = 0; c < outCols; c++) {
      outSum[a + c] += w * sum[src + c];
      outWeight[a + c] += w * weight[src + c];
    }
    if (rest > 1e-12) {
      for (let c = 0; c < outCols; c++) {
        outSum[a + outCols + c] += rest * sum[src + c];
        outWeight[a + outCols + c] += rest * weight[src + c];
      }
    }
  }
  const out = new Float32Array(outRows * outCols);
  for (let i = 0; i < out.length; i++) out[i] = outWeight[i] > 0 ? outSum[i] / outWeight[i] : -Infinity;
  return out;
}
