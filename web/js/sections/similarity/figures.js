// "Similarity of positions", shared by the sinusoidal and learned sections: the [rows, rows]
// matrix of dot products (or cosines) of a table's rows, computed in a worker, and one row of it
// against all others (computed here in float64, on an axis from 0 so the decay is not exaggerated).
import { GramClient } from '../../compute/gram-client.js';
import { rowNorms } from '../../compute/jobs.js';
import { seriesColour } from '../../plot/colormap.js';
import { Heatmap } from '../../plot/heatmap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { int, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';

/** @typedef {import('../../ui/section.js').Figure} Figure */
/** @typedef {import('../../compute/gram-client.js').Measure} Measure */

/** Positions the matrix covers: at most 1024, fewer for wide tables (the worker's cost is rows² × dim). */
export function matrixRows(/** @type {number} */ rows, /** @type {number} */ dim) {
  return Math.max(1, Math.min(rows, 1024, Math.floor(Math.sqrt(2 ** 27 / dim))));
}

const LEGEND = { dot: 'dot product (unitless)', cosine: 'cosine similarity' };

export class SimilarityFigures {
  /**
   * @param {Figure} matrixFigure  its plot: the matrix
   * @param {Figure} rowFigure  its plot: one row; its readout: the chosen pair
   * @param {string} name  the table's symbol in readouts ('PE', 'E')
   * @param {(p: number) => void} onPick  the reader picked position p in the matrix
   */
  constructor(matrixFigure, rowFigure, name, onPick) {
    this.name = name;
    this.onPick = onPick;
    this.matrixFigure = matrixFigure;
    this.readout = rowFigure.readout();
    /** @type {{ data: Float32Array, rows: number, dim: number, norms: Float64Array } | null} */
    this.table = null;
    /** @type {Measure} */
    this.measure = 'dot';
    this.p = 0;
    this.q = 0;
    this.gram = new GramClient();
    this.matrix = new Heatmap(matrixFigure.plot(), {
      label: 'Similarity of every pair of positions', xLabel: 'position q', yLabel: 'position p',
      legendLabel: LEGEND.dot, emptyText: 'no table yet', onCursor: ({ row, col }) => this.pick(row, col, true),
    });
    this.line = new LinePlot(rowFigure.plot(), {
      label: 'Similarity of position p with every position q', xLabel: 'position q', yLabel: 'similarity', emptyText: 'no table yet',
      yZero: true, onCursor: (q) => this.pick(this.p, q, false),
    });
  }

  /**
   * A new table [rows, dim] (norms: its row norms, if already known). Resolves once the matrix is drawn.
   * @param {Float32Array} data @param {number} rows @param {number} dim @param {Float64Array} [norms]
   */
  setTable(data, rows, dim, norms) {
    this.table = { data, rows, dim, norms: norms ?? rowNorms(data, rows, dim) };
    this.p = Math.min(this.p, rows - 1);
    this.q = Math.min(this.q, rows - 1);
    return this.recompute();
  }

  /** @param {Measure} measure */
  setMeasure(measure) {
    this.measure = measure;
    return this.recompute();
  }

  /** Clears both plots. @param {string} text */
  clear(text) {
    this.table = null;
    this.matrix.clear(text);
    this.line.clear(text);
    this.readout.replaceChildren();
  }

  /** Selects row p (from another figure). @param {number} p */
  selectRow(p) {
    if (this.table) this.pick(Math.min(p, this.table.rows - 1), this.q, false);
  }

  /** Similarity of rows a and b in float64 (the readout's value). @param {number} a @param {number} b */
  similarity(a, b) {
    const { data, dim, norms } = /** @type {NonNullable<SimilarityFigures['table']>} */ (this.table);
    let s = 0;
    for (let j = 0; j < dim; j++) s += data[a * dim + j] * data[b * dim + j];
    if (this.measure === 'cosine') {
      const n = norms[a] * norms[b];
      return n > 0 ? s / n : 0;
    }
    return s;
  }

  /** @param {number} p @param {number} q @param {boolean} fromMatrix */
  pick(p, q, fromMatrix) {
    const rowChanged = p !== this.p;
    this.p = p;
    this.q = q;
    if (rowChanged) {
      this.drawRow();
      if (fromMatrix) this.onPick(p);
    }
    this.line.setCursorIndex(q);
    if (!fromMatrix && this.matrix.matrix) this.matrix.setCursor(p, q);
    this.showReadout();
  }

  /** Redraws the row at once and the matrix when the worker has it. */
  async recompute() {
    if (!this.table) return;
    const measure = this.measure;
    this.matrix.o.legendLabel = LEGEND[measure];
    this.drawRow();
    this.showReadout();
    const { data, dim } = this.table;
    const rows = matrixRows(this.table.rows, dim);
    this.matrixFigure.element.dataset.state = 'computing';
    this.matrix.clear('computing…');
    const matrix = await this.gram.compute(data, rows, dim, measure);
    if (!matrix) return; // a newer request replaced this one
    let max = 0;
    let min = Infinity;
    for (const v of matrix) {
      max = Math.max(max, Math.abs(v));
      min = Math.min(min, v);
    }
    // Signed values get the diverging map centred on 0; all-positive ones the sequential map from 0.
    const top = measure === 'cosine' ? 1 : max || 1;
    /** @type {[number, number]} */
    const range = min >= 0 ? [0, top] : [-top, top];
    const legendNote = rows < this.table.rows ? `(first ${int(rows)} positions)` : '';
    this.matrix.setData({ values: matrix, rows, cols: rows, range, colormap: min >= 0 ? 'sequential' : 'diverging', legendNote });
    this.matrix.setCursor(this.p, this.q);
    this.matrixFigure.element.dataset.state = 'ready';
  }

  drawRow() {
    if (!this.table) return;
    const { rows } = this.table;
    const x = new Float64Array(rows);
    const y = new Float64Array(rows);
    for (let q = 0; q < rows; q++) {
      x[q] = q;
      y[q] = this.similarity(this.p, q);
    }
    this.line.o.yLabel = this.measure === 'cosine' ? 'cosine similarity' : 'dot product';
    this.line.setSeries([{ name: `row p = ${int(this.p)}`, color: seriesColour(0), x, y }]);
    this.line.setLines({ vlines: [{ at: this.p, label: 'q = p', color: '#888' }] });
    this.line.setCursorIndex(this.q);
  }

  showReadout() {
    if (!this.table) return;
    const { p, q, name } = this;
    const v = this.similarity(p, q);
    const expr = this.measure === 'cosine' ? `cos(${name}[${p}], ${name}[${q}])` : `${name}[${p}] · ${name}[${q}]`;
    setReadout(this.readout,
      [field('p', int(p)), '   ', field('q', int(q)), '   ', field('p − q', int(p - q))],
      [`${expr} = `, valueSpan('similarity', signed(v, 6))]);
  }
}
