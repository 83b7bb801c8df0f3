// The trained table against the sinusoidal one of the same size (pe.sinusoidal.table): the cosine
// similarity of every pair of rows of each, side by side, and row p of both on one plot. Both
// tables are small (at most 128 × 32), so the similarities are computed here, in float64.
import { seriesColour } from '../../plot/colormap.js';
import { Heatmap } from '../../plot/heatmap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { int, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';

/** @typedef {import('../../ui/section.js').Figure} Figure */

/** Cosine similarity of every pair of rows of a [rows, dim] table. @param {Float32Array} data @param {number} rows @param {number} dim */
export function cosineMatrix(data, rows, dim) {
  const norms = new Float64Array(rows);
  for (let p = 0; p < rows; p++) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += data[p * dim + j] ** 2;
    norms[p] = Math.sqrt(s) || 1;
  }
  const out = new Float64Array(rows * rows);
  for (let p = 0; p < rows; p++) {
    for (let q = p; q < rows; q++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += data[p * dim + j] * data[q * dim + j];
      out[p * rows + q] = out[q * rows + p] = s / (norms[p] * norms[q]);
    }
  }
  return out;
}

/** @param {import('posenc').PosEnc} pe @param {Figure} figure */
export function versusFigure(pe, figure) {
  /** @type {{ rows: number, trained: Float64Array, sinusoidal: Float64Array } | null} */
  let state = null;
  let p = 32;
  let q = 33;
  let sinusoidal = { key: '', matrix: new Float64Array(0) };
  const common = { xLabel: 'position q', yLabel: 'position p', legendLabel: 'cosine', onCursor: (/** @type {{ row: number, col: number }} */ c) => pick(c.row, c.col) };
  const trainedMap = new Heatmap(figure.plot('trained'), { ...common, label: 'Cosine similarity of every pair of rows of the trained table' });
  const sinusoidalMap = new Heatmap(figure.plot('sinusoidal'), { ...common, label: 'Cosine similarity of every pair of rows of the sinusoidal table' });
  const line = new LinePlot(figure.plot('rows'), {
    label: 'Cosine similarity of position p with every position, for both tables', xLabel: 'position q', yLabel: 'cosine with p',
    yRange: [-1, 1], onCursor: (_, k) => pick(p, k),
  });

  /** @param {number} row @param {number} col */
  function pick(row, col) {
    if (!state) return;
    const rowChanged = row !== p;
    p = row;
    q = col;
    const n = state.rows;
    trainedMap.setCursor(p, q);
    sinusoidalMap.setCursor(p, q);
    if (rowChanged || line.series.length === 0) {
      const x = Float64Array.from({ length: n }, (_, k) => k);
      line.setSeries([
        { name: `trained, row p = ${p}`, color: seriesColour(0), x, y: state.trained.subarray(p * n, (p + 1) * n) },
        { name: 'sinusoidal, same size', color: seriesColour(1), x, y: state.sinusoidal.subarray(p * n, (p + 1) * n) },
      ]);
    }
    line.setCursorIndex(q);
    const near = Math.min(n - 1, p + 1);
    setReadout(figure.readout(),
      [field('p', int(p)), '   ', field('q', int(q)), '   cos trained = ', valueSpan('trained', signed(state.trained[p * n + q], 4)),
        '   cos sinusoidal = ', valueSpan('sinusoidal', signed(state.sinusoidal[p * n + q], 4))],
      [`next row (q = ${near}): trained `, valueSpan('trained-next', signed(state.trained[p * n + near], 4)),
        ', sinusoidal ', valueSpan('sinusoidal-next', signed(state.sinusoidal[p * n + near], 4))]);
  }

  return {
    /** A trained table [rows, dim]: compared with pe.sinusoidal.table of the same size. @param {Float32Array} data @param {number} rows @param {number} dim */
    show(data, rows, dim) {
      const key = `${rows}x${dim}`;
      if (sinusoidal.key !== key) {
        sinusoidal = { key, matrix: cosineMatrix(pe.sinusoidal.table({ length: rows, dim }).data, rows, dim) };
      }
      state = { rows, trained: cosineMatrix(data, rows, dim), sinusoidal: sinusoidal.matrix };
      const range = /** @type {const} */ ([-1, 1]);
      trainedMap.setData({ values: Float32Array.from(state.trained), rows, cols: rows, range });
      sinusoidalMap.setData({ values: Float32Array.from(state.sinusoidal), rows, cols: rows, range });
      if (p >= rows) p = Math.floor(rows / 2);
      line.series = [];
      pick(p, Math.min(q, rows - 1));
    },
    /** Row p, picked in another figure. @param {number} row */
    setRow(row) {
      if (state && row < state.rows) pick(row, q);
    },
  };
}
