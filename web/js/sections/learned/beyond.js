// Past the last row: asking the shown table for position p with PositionTable.lookup, which for
// p outside [0, rows) is posenc's OUT_OF_RANGE error (never a clamped or wrapped row), shown as it
// comes; and one thing a model can do instead, stretch the table to p + 1 rows with
// pe.learned.interpolate (a 1 × rows grid resized to 1 × (p + 1), as ViT resizes its 2-D grid),
// drawn against the table for one column.
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { number } from '../../ui/control-specs.js';
import { fixed, int, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';

/** @typedef {import('../../ui/section.js').Section} Section */

/** The most values the stretched table may hold on this page. */
export const MAX_STRETCHED = 2 ** 21;

const TOOLS = {
  position: number({ label: 'ask for position', value: 70, step: 1, max: 1_000_000, slider: [0, 256] }),
  column: number({ label: 'column shown', value: 0, step: 1, min: 0, max: 15 }),
};

/** @param {Section} section */
export function beyondPart(section) {
  const { pe } = section;
  const tools = section.panel('beyond', TOOLS);
  const figure = section.figure('beyond');
  /** @type {{ table: import('posenc').PositionTable, data: Float32Array, rows: number, dim: number } | null} */
  let shown = null;
  const plot = new LinePlot(figure.plot(), {
    label: 'One column of the table along the positions, and of the table stretched to reach the position asked for',
    xLabel: 'position', yLabel: 'value in the column',
  });

  const update = section.updater({ status: section.status(tools), figures: [figure] }, () => {
    if (!shown) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const { position: p, column: j } = tools.values();
    if (!Number.isInteger(p) || !Number.isInteger(j)) throw new PageError('the position and the column are whole numbers');
    const { table, data, rows, dim } = shown;
    const lines = [];
    let asked;
    try {
      const row = table.lookup({ positionIds: [p] }).data;
      asked = { ok: true, text: `row ${int(p)} exists: E[${int(p)}, ${j}] = ${signed(row[j], 4)}` };
    } catch (error) {
      if (!(error instanceof pe.PosEncError)) throw error;
      asked = { ok: false, text: `${error.code}: ${error.message}` };
    }
    figure.readout('asked').dataset.state = asked.ok ? 'ok' : 'error';
    setReadout(figure.readout('asked'), [`table.lookup({ positionIds: [${p}] }) → `, valueSpan('lookup', asked.text)]);
    const x = Float64Array.from({ length: rows }, (_, k) => k);
    const column = Float32Array.from({ length: rows }, (_, k) => data[k * dim + j]);
    /** @type {import('../../plot/lineplot.js').Series[]} */
    const series = [{ name: `the table, ${int(rows)} rows`, color: seriesColour(0), x, y: column, style: rows <= 128 ? 'dots' : 'line' }];
    /** @type {import('../../plot/lineplot.js').RefLine[]} */
    const vlines = [{ at: rows - 1, label: 'last row', color: seriesColour(0) }];
    if (p >= rows) {
      if ((p + 1) * dim > MAX_STRETCHED) {
        throw new PageError(`stretching to ${int(p + 1)} rows of ${int(dim)} is ${int((p + 1) * dim)} values; this page stretches up to ${int(MAX_STRETCHED)}`);
      }
      const stretched = pe.learned.interpolate({ data, dims: [rows, dim] }, { gridSize: [1, rows], newGridSize: [1, p + 1], numPrefixTokens: 0 });
      const sx = Float64Array.from({ length: p + 1 }, (_, k) => k);
      const sy = Float32Array.from({ length: p + 1 }, (_, k) => stretched.data[k * dim + j]);
      series.push({ name: `stretched to ${int(p + 1)} rows`, color: seriesColour(1), x: sx, y: sy, style: p + 1 <= 128 ? 'dots' : 'line', radius: 1.8 });
      vlines.push({ at: p, label: `p = ${int(p)}`, color: seriesColour(1) });
      setReadout(figure.readout('stretched'),
        ['stretched: ', field(`E′[${int(p)}, ${j}]`, signed(stretched.data[p * dim + j], 4), 'stretched'), `   (the table's last row: ${signed(data[(rows - 1) * dim + j], 4)})`],
        [`every position up to ${int(p)} now has a row, but neighbours sit ${fixed((rows - 1) / p, 3)} of a trained step apart: the model must be fine-tuned to it`]);
      lines.push(`pe.learned.interpolate(table, { gridSize: [1, ${rows}], newGridSize: [1, ${p + 1}], numPrefixTokens: 0 });   // [${p + 1}, ${dim}]`);
    } else {
      setReadout(figure.readout('stretched'), [p < 0 ? 'a position before the first one has no row either' : `position ${int(p)} is inside the table: nothing to stretch`]);
    }
    plot.setSeries(series);
    plot.setLines({ vlines });
    section.calls('beyond', [`positions.lookup({ positionIds: [${p}] });   // ${asked.ok ? 'a row' : 'OUT_OF_RANGE'}`, ...lines]);
    return true;
  });
  tools.onChange(() => update());

  return {
    figures: [figure],
    /**
     * The table the section shows; a new number of rows or columns moves the position asked for
     * just past its end.
     * @param {{ data: Float32Array, rows: number, dim: number }} next
     */
    setTable(next) {
      if (!shown || shown.rows !== next.rows) {
        tools.set('position', next.rows + 6);
        tools.extendSlider('position', 2 * next.rows);
      }
      if (!shown || shown.dim !== next.dim) tools.setMax('column', next.dim - 1);
      shown?.table.dispose();
      // a table of its own in WebAssembly memory: the section's figures free theirs on their own schedule
      shown = { ...next, table: pe.learned.createTable({ data: next.data, dims: [next.rows, next.dim] }) };
      update();
    },
  };
}
