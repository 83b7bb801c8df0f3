// The "similarity of positions" pair of figures shared by the sinusoidal and learned sections:
// the full [rows, rows] matrix (computed in a worker) and one row of it against all others
// (computed here, in float64). Elements: #<prefix>-sim-measure, -sim-matrix, -sim-row, -sim-readout.
import { SERIES_COLOURS } from './colormap.js';
import { choiceControl } from './controls.js';
import { int, signed } from './format.js';
import { GramClient } from './gram.js';
import { Heatmap } from './heatmap.js';
import { LinePlot } from './lineplot.js';
import { field, setReadout, valueSpan } from './readout.js';

/** The matrix covers at most this many positions (the worker's cost grows with rows² × dim). */
const MAX_MATRIX_ROWS = 1024;
const LEGEND = { dot: 'dot product (unitless)', cosine: 'cosine similarity' };

export class SimilarityPanel {
  /**
   * @param {string} prefix  element id prefix ('sin', 'learned')
   * @param {string} name  the table's symbol in readouts ('PE', 'E')
   * @param {(p: number) => void} onPick  the user picked position p here
   */
  constructor(prefix, name, onPick) {
    this.name = name;
    this.onPick = onPick;
    this.table = null;
    this.p = 0;
    this.q = 0;
    this.gram = new GramClient();
    this.matrixArea = document.getElementById(`${prefix}-sim-matrix`);
    this.readout = document.getElementById(`${prefix}-sim-readout`);
    this.measure = choiceControl(`${prefix}-sim-measure`, () => this.recompute());
    this.matrix = new Heatmap(this.matrixArea, {
      label: 'Similarity of every pair of positions', xLabel: 'position q', yLabel: 'position p',
      legendLabel: LEGEND.dot, emptyText: 'no table yet',
      onCursor: ({ row, col }) => this.pick(row, col, true),
    });
    this.line = new LinePlot(document.getElementById(`${prefix}-sim-row`), {
      label: 'Similarity of position p with every position q', xLabel: 'position q', yLabel: 'similarity', emptyText: 'no table yet',
      onCursor: (q) => this.pick(this.p, q, false),
    });
  }

  /** A new table: Float32Array data of [rows, dim]. */
  setTable(data, rows, dim) {
    this.table = { data, rows, dim };
    this.norms = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += data[r * dim + j] * data[r * dim + j];
      this.norms[r] = Math.sqrt(s);
    }
    this.p = Math.min(this.p, rows - 1);
    this.q = Math.min(this.q, rows - 1);
    this.recompute();
  }

  /** Selects row p (from another figure). */
  selectRow(p) {
    if (!this.table) return;
    this.pick(Math.min(p, this.table.rows - 1), this.q, false);
  }

  /** Similarity of rows a and b in float64 (the readout's value). */
  similarity(a, b) {
    const { data, dim } = this.table;
    let s = 0;
    for (let j = 0; j < dim; j++) s += data[a * dim + j] * data[b * dim + j];
    if (this.measure.get() === 'cosine') {
      const n = this.norms[a] * this.norms[b];
      return n > 0 ? s / n : 0;
    }
    return s;
  }

  pick(p, q, fromMatrix) {
    const rowChanged = p !== this.p;
    this.p = p;
    this.q = q;
    if (rowChanged) {
      this.drawRow();
      if (fromMatrix) this.onPick?.(p);
    }
    this.line.setCursorIndex(q);
    if (!fromMatrix && this.matrix.matrix) this.matrix.setCursor(p, q);
    this.showReadout();
  }

  recompute() {
    if (!this.table) return;
    const measure = this.measure.get();
    this.matrix.o.legendLabel = LEGEND[measure];
    this.drawRow();
    this.showReadout();
    const { data, dim } = this.table;
    const rows = Math.min(this.table.rows, MAX_MATRIX_ROWS);
    const legendNote = rows < this.table.rows ? `(first ${rows} positions)` : '';
    this.matrixArea.dataset.state = 'computing';
    this.matrix.o.emptyText = 'computing…';
    this.matrix.matrix = null;
    this.matrix.plot.redraw();
    this.gram.compute(data.subarray(0, rows * dim), rows, dim, measure).then((matrix) => {
      if (!matrix) return; // a newer request replaced this one
      let max = 0;
      let min = Infinity;
      for (const v of matrix) {
        max = Math.max(max, Math.abs(v));
        min = Math.min(min, v);
      }
      // Signed values get the diverging map centred on 0; all-positive ones the sequential map from 0.
      const top = measure === 'cosine' ? 1 : max || 1;
      const colormap = min >= 0 ? 'sequential' : 'diverging';
      const range = min >= 0 ? [0, top] : [-top, top];
      this.matrix.setData({ values: matrix, rows, cols: rows, range, colormap, legendNote });
      this.matrix.setCursor(this.p, this.q);
      this.matrixArea.dataset.state = 'ready';
    });
  }

  drawRow() {
    const { rows } = this.table;
    const x = new Float64Array(rows);
    const y = new Float64Array(rows);
    for (let q = 0; q < rows; q++) {
      x[q] = q;
      y[q] = this.similarity(this.p, q);
    }
    this.line.o.yLabel = this.measure.get() === 'cosine' ? 'cosine similarity' : 'dot product';
    this.line.setSeries([{ name: `row p = ${this.p}`, color: SERIES_COLOURS[0], x, y, }]);
    this.line.setLines({ vlines: [{ at: this.p, label: 'q = p', color: '#888' }] });
    this.line.setCursorIndex(this.q);
  }

  showReadout() {
    if (!this.table) return;
    const { p, q, name } = this;
    const v = this.similarity(p, q);
    const expr = this.measure.get() === 'cosine' ? `cos(${name}[${p}], ${name}[${q}])` : `${name}[${p}] · ${name}[${q}]`;
    setReadout(this.readout,
      field('p', int(p)), '   ', field('q', int(q)), '   ', field('p − q', int(p - q)), '\n',
      `${expr} = `, valueSpan('similarity', signed(v, 6)),
    );
  }
}
