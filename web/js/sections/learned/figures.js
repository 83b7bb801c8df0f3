// The figures of a loaded position table: the table as a heatmap (colours saturating at the 99.5th
// percentile of |value|) and row p as pe.learned's PositionTable.lookup returns it.
import { seriesColour } from '../../plot/colormap.js';
import { Heatmap } from '../../plot/heatmap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { nextTask } from '../../ui/schedule.js';
import { robustMax } from './file.js';

/** @typedef {import('../../ui/section.js').Figure} Figure */
/** @typedef {{ table: import('posenc').PositionTable, data: Float32Array, rows: number, dim: number }} Shown */

/** @param {Figure} tableFigure @param {Figure} rowFigure @param {(row: number) => void} onRow */
export function tableFigures(tableFigure, rowFigure, onRow) {
  /** @type {Shown | null} */
  let shown = null;
  let cell = { row: 0, col: 0 };
  /** @type {Float32Array | null} */
  let rowValues = null;
  const heatmap = new Heatmap(tableFigure.plot(), {
    label: 'Heatmap of the loaded position table', xLabel: 'dimension j', yLabel: 'position p',
    legendLabel: 'value (model units)', emptyText: 'load a table to see it here',
    onCursor: (c) => {
      const rowChanged = c.row !== cell.row;
      cell = c;
      readCell();
      drawRow();
      if (rowChanged) onRow(c.row);
    },
  });
  const rowPlot = new LinePlot(rowFigure.plot(), {
    label: 'The selected row of the table', xLabel: 'dimension j', yLabel: 'E[p, j]', emptyText: 'no table yet', xPad: 0.5,
    onCursor: (j) => readRow(j),
  });

  function readCell() {
    if (!shown) return;
    const { row, col } = cell;
    setReadout(tableFigure.readout(), [field('p', String(row)), '   ', field('j', String(col))],
      [`E[${row}, ${col}] = `, valueSpan('value', signed(shown.data[row * shown.dim + col], 6))]);
  }

  /** @param {number} j */
  function readRow(j) {
    if (!rowValues) return;
    setReadout(rowFigure.readout(), [field('j', String(j)), `   E[${cell.row}, ${j}] = `, valueSpan('row-value', signed(rowValues[j], 6))]);
  }

  function drawRow() {
    if (!shown) return;
    // kept in WebAssembly memory: a lookup reads the row without copying the table again
    rowValues = shown.table.lookup({ positionIds: [cell.row] }).data;
    const x = Float64Array.from({ length: shown.dim }, (_, j) => j);
    rowPlot.setSeries([{ name: `row p = ${cell.row}`, color: seriesColour(0), x, y: rowValues, style: shown.dim <= 128 ? 'stems' : 'line', width: 1.25 }]);
    rowPlot.setCursorIndex(cell.col);
    readRow(cell.col);
  }

  return {
    get cell() {
      return cell;
    },
    /** Shows a table (the previous one's wasm memory is freed), the row in a task of its own. @param {Shown} next */
    async show(next) {
      shown?.table.dispose();
      shown = next;
      const c = robustMax(next.data);
      heatmap.setData({ values: next.data, rows: next.rows, cols: next.dim, range: [-c, c] });
      cell = { row: Math.min(cell.row, next.rows - 1), col: Math.min(cell.col, next.dim - 1) };
      heatmap.setCursor(cell.row, cell.col);
      readCell();
      await nextTask();
      drawRow();
    },
    /** Row p, picked in another figure. @param {number} p */
    setRow(p) {
      cell = { row: p, col: cell.col };
      heatmap.setCursor(cell.row, cell.col);
      readCell();
      drawRow();
    },
  };
}
