// The sinusoidal table as a heatmap, with a readout that spells out the formula of the chosen cell
// with posenc's frequency: PE[p, j] = sin or cos(p · w_i) (docs/encodings.md section 1).
import { Heatmap } from '../../plot/heatmap.js';
import { num, signed, sub } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';

/** @typedef {import('../../ui/section.js').Figure} Figure */
/** @typedef {import('./state.js').TableState} TableState */
/** @typedef {import('../../plot/heatmap.js').Cell} Cell */

/**
 * Which pair and function column j holds in each layout of pe.sinusoidal.
 * @param {number} j @param {number} dim @param {'interleaved' | 'half'} layout
 */
export function columnMeaning(j, dim, layout) {
  if (layout === 'interleaved') return { pair: j >> 1, fn: j % 2 === 0 ? 'sin' : 'cos' };
  const sines = Math.ceil(dim / 2);
  return j < sines ? { pair: j, fn: 'sin' } : { pair: j - sines, fn: 'cos' };
}

/**
 * @param {Figure} figure
 * @param {{ onCursor: (cell: Cell) => void, onSelect: (cell: Cell) => void }} events
 */
export function tableFigure(figure, { onCursor, onSelect }) {
  /** @type {TableState | null} */
  let state = null;
  let cell = { row: 20, col: 10 };
  const heatmap = new Heatmap(figure.plot(), {
    label: 'Heatmap of the sinusoidal table: positions down, dimensions across',
    xLabel: 'dimension j', yLabel: 'position p', legendLabel: 'PE value (unitless)',
    onCursor: (c) => {
      cell = c;
      read();
      onCursor(c);
    },
    onSelect,
  });

  function read() {
    if (!state) return;
    const { params: p, table, freqs } = state;
    const { row, col } = cell;
    const { pair, fn } = columnMeaning(col, p.dim, p.layout);
    const w = freqs[pair];
    setReadout(figure.readout(),
      [field('p', String(row)), '   ', field('j', String(col)), '   ', field('pair i', String(pair), 'pair'),
        ` (${fn === 'sin' ? 'sine' : 'cosine'})   `, field(`w${sub(pair)}`, num(w, 6), 'w'), ' rad/token'],
      [`PE[${row}, ${col}] = ${fn}(p · w${sub(pair)}) = ${fn}(${row} × ${num(w, 6)}) = ${fn}(`,
        valueSpan('angle', num(row * w, 6)), ' rad) = ', valueSpan('value', signed(table.data[row * p.dim + col], 6))]);
  }

  return {
    heatmap,
    get cell() {
      return cell;
    },
    /** Shows a new table. @param {TableState} s */
    show(s) {
      state = s;
      const { length: rows, dim: cols } = s.params;
      heatmap.setData({ values: s.table.data, rows, cols, range: [-1, 1], ...(s.view ? { view: s.view } : {}) });
      cell = { row: Math.min(cell.row, rows - 1), col: Math.min(cell.col, cols - 1) };
      heatmap.setCursor(cell.row, cell.col);
      read();
    },
    /** Moves the cursor to row p (picked in another figure). @param {number} p */
    setRow(p) {
      cell = { row: p, col: cell.col };
      heatmap.setCursor(cell.row, cell.col);
      read();
    },
  };
}
