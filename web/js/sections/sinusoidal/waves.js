// Waves: chosen columns of the sinusoidal table as functions of the position. Dots are the
// table's rows; over a short window, smooth curves are the same pe.sinusoidal.table call at
// fractional positions (computed in the worker: dim columns at up to 8 samples per position).
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { choice, text } from '../../ui/control-specs.js';
import { signed } from '../../ui/format.js';
import { field, valueSpan } from '../../ui/readout.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('../../ui/section.js').Figure} Figure */
/** @typedef {import('./state.js').TableState} TableState */

const MAX_WAVES = 6;
/** Windows up to this many positions are drawn as dots on smooth curves; longer ones as lines. */
const DOTS_UP_TO = 96;

export const WAVE_TOOLS = {
  columns: text({ label: 'columns j', value: '0, 1, 24, 50', size: 16, mono: true }),
  window: choice({ label: 'positions', value: '64', options: [['32', '0–31'], ['64', '0–63'], ['256', '0–255'], ['all', 'all']] }),
};

/**
 * The column list typed by the reader, checked against the table's width.
 * @param {string} typed @param {number} dim
 */
export function parseColumns(typed, dim) {
  /** @type {number[]} */
  const cols = [];
  /** @type {string[]} */
  const problems = [];
  for (const part of typed.split(/[\s,;]+/).filter(Boolean)) {
    const j = Number(part);
    if (!Number.isInteger(j) || j < 0 || j >= dim) problems.push(part);
    else if (!cols.includes(j)) cols.push(j);
  }
  return { cols: cols.slice(0, MAX_WAVES), problems };
}

/** @param {Section} section @param {Figure} figure */
export function wavesFigure(section, figure) {
  const tools = section.panel('waves', WAVE_TOOLS);
  const columnsField = tools.element('columns');
  /** @type {TableState | null} */
  let state = null;
  let row = 0;
  const plot = new LinePlot(figure.plot(), {
    label: 'Chosen columns of the table as functions of the position',
    xLabel: 'position p', yLabel: 'PE[p, j]', yRange: [-1.15, 1.15], emptyText: 'type column numbers above',
    onCursor: (p) => read(p),
  });

  /** @param {number} p */
  function read(p) {
    if (!state) return;
    row = p;
    const { params, table } = state;
    // p on its own line, then one cell per column: two a line, one on a phone (page.css)
    const cells = parseColumns(tools.get('columns'), params.dim).cols.map((j) => {
      const cell = document.createElement('span');
      cell.className = 'cell';
      cell.append(`PE[${p}, ${j}] = `, valueSpan(`wave-${j}`, signed(table.data[p * params.dim + j], 4)));
      return cell;
    });
    const head = document.createElement('span');
    head.className = 'cell full';
    head.append(field('p', String(p)));
    figure.readout().replaceChildren(head, ...cells);
  }

  const draw = section.updater({ status: section.status(tools), figures: [figure] }, async (current) => {
    if (!state) return;
    const { params: p, table } = state;
    const { cols, problems } = parseColumns(tools.get('columns'), p.dim);
    tools.invalid('columns', problems.length > 0);
    columnsField.title = problems.length ? `not a column of 0..${p.dim - 1}: ${problems.join(', ')}` : '';
    const win = tools.get('window');
    const shown = win === 'all' ? p.length : Math.min(p.length, Number(win));
    const xs = Float64Array.from({ length: shown }, (_, i) => i);
    const dots = shown <= DOTS_UP_TO;
    /** @type {import('../../plot/lineplot.js').Series[]} */
    const series = cols.map((j, k) => ({
      name: `j = ${j}`, color: seriesColour(k), x: xs, y: Float64Array.from({ length: shown }, (_, r) => table.data[r * p.dim + j]),
      style: dots ? 'dots' : 'line', width: 1.5,
    }));
    if (dots && shown > 1 && cols.length) {
      const samples = 8 * shown;
      const ids = Float64Array.from({ length: samples }, (_, s) => (s * (shown - 1)) / (samples - 1));
      const result = await section.compute.run('sinusoidal-curves', 'sinusoidalCurves', { ids, dim: p.dim, base: p.base, layout: p.layout, columns: cols });
      if (!result || !current()) return;
      result.curves.forEach((y, k) => series.push({ name: '', color: seriesColour(k), x: ids, y, style: 'line', width: 1.25 }));
    }
    plot.setSeries(series);
    plot.setCursorIndex(Math.min(row, shown - 1));
    read(Math.min(row, shown - 1));
  });
  tools.onChange(() => draw());

  return {
    /** A new table, and the position chosen in it. @param {TableState} s @param {number} p */
    show(s, p) {
      state = s;
      row = p;
      draw();
    },
    /** Follows the position chosen in the table. @param {number} p */
    setRow(p) {
      if (!state || !plot.series[0] || p >= plot.series[0].x.length) return;
      plot.setCursorIndex(p);
      read(p);
    },
    /** Adds column j to the list (Enter or a click on the table). @param {number} j */
    add(j) {
      if (!state) return;
      const { cols } = parseColumns(tools.get('columns'), state.params.dim);
      if (!cols.includes(j)) cols.push(j);
      tools.set('columns', cols.slice(-MAX_WAVES).join(', '));
      draw();
    },
  };
}
