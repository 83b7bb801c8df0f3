// Section "Sinusoidal encoding": the table from pe.sinusoidal.table as a heatmap with a readout of
// the formula, chosen columns as waves, and the similarity of positions. Every PE value shown comes
// from posenc; the page only multiplies p by posenc's frequency to spell out the angle.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { choiceControl, numberControl, perFrame, showStatus } from '../lib/controls.js';
import { bytes, int, signed, sig } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, showCall, sub, valueSpan } from '../lib/readout.js';
import { SimilarityPanel } from '../lib/similarity-panel.js';

const MAX_WAVES = 6;
/** Points of the smooth curves: enough for 8 per position, bounded so dim × samples stays small. */
const MAX_CURVE_FLOATS = 2_000_000;

/** Which pair and function column j holds (docs/encodings.md section 1 and the layouts of pe.sinusoidal). */
function columnMeaning(j, dim, layout) {
  if (layout === 'interleaved') return { pair: j >> 1, fn: j % 2 === 0 ? 'sin' : 'cos' };
  const sines = Math.ceil(dim / 2);
  return j < sines ? { pair: j, fn: 'sin' } : { pair: j - sines, fn: 'cos' };
}

export function mount(root, pe, bus) {
  const $ = (id) => document.getElementById(id);
  const status = $('sin-status');
  const update = perFrame(() => recompute());
  const length = numberControl('sin-length', update);
  const dim = numberControl('sin-dim', update);
  const base = numberControl('sin-base', update);
  const layout = choiceControl('sin-layout', update, root);
  const colsField = $('sin-waves-cols');
  colsField.addEventListener('input', perFrame(() => drawWaves()));
  const windowSelect = choiceControl('sin-waves-window', () => drawWaves());
  $('sin-controls').addEventListener('submit', (e) => e.preventDefault());

  let state = null; // { params, table, freqs }
  let cell = { row: 20, col: 10 };

  const heatmap = new Heatmap($('sin-heatmap'), {
    label: 'Heatmap of the sinusoidal table: positions down, dimensions across',
    xLabel: 'dimension j', yLabel: 'position p', legendLabel: 'PE value (unitless)',
    onCursor: (c) => {
      cell = c;
      showCell();
      similarity.selectRow(c.row);
      if (state && c.row < waves.series[0]?.x.length) {
        waves.setCursorIndex(c.row);
        showWaveReadout(c.row);
      }
    },
    onSelect: (c) => addWave(c.col),
  });
  const waves = new LinePlot($('sin-waves'), {
    label: 'Chosen columns of the table as functions of the position',
    xLabel: 'position p', yLabel: 'PE[p, j]', yRange: [-1.15, 1.15], emptyText: 'type column numbers above',
    onCursor: (p) => showWaveReadout(p),
  });
  const similarity = new SimilarityPanel('sin', 'PE', (p) => heatmap.setCursor(p, cell.col));

  function params() {
    return { length: length.get(), dim: dim.get(), base: base.get(), layout: layout.get() };
  }

  function recompute() {
    const p = params();
    let table;
    let freqs;
    try {
      // posenc validates the inputs: its messages name the argument and what was expected.
      table = pe.sinusoidal.table({ length: p.length, dim: p.dim, base: p.base, layout: p.layout });
      freqs = pe.sinusoidal.frequencies({ dim: p.dim, base: p.base });
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    if (p.length * p.dim > 8_000_000) {
      showStatus(status, `length × dim = ${int(p.length * p.dim)} values is more than this page draws (8 million); choose a smaller table.`);
      return;
    }
    showStatus(status, null);
    state = { params: p, table, freqs };
    heatmap.setData({ values: table.data, rows: p.length, cols: p.dim, range: [-1, 1] });
    cell = { row: Math.min(cell.row, p.length - 1), col: Math.min(cell.col, p.dim - 1) };
    heatmap.setCursor(cell.row, cell.col);
    showCell();
    drawWaves();
    similarity.setTable(table.data, p.length, p.dim);
    similarity.selectRow(cell.row);
    showCall($('sin-call'), [
      `const pe = await createPosEnc();                       // import { createPosEnc } from 'posenc'`,
      `const table = pe.sinusoidal.table({ length: ${p.length}, dim: ${p.dim}, base: ${p.base}, layout: '${p.layout}' });   // dims [${table.dims.join(', ')}]`,
      `const w = pe.sinusoidal.frequencies({ dim: ${p.dim}, base: ${p.base} });   // ${freqs.length} angular frequencies, rad/token`,
    ]);
    bus.publish('sinusoidal-table', { table, params: p });
  }

  function showCell() {
    if (!state) return;
    const { params: p, table, freqs } = state;
    const { row, col } = cell;
    const { pair, fn } = columnMeaning(col, p.dim, p.layout);
    const w = freqs[pair];
    const value = table.data[row * p.dim + col];
    setReadout($('sin-readout'),
      field('p', String(row)), '   ', field('j', String(col)), '   ',
      field('pair i', String(pair), 'pair'), ` (${fn === 'sin' ? 'sine)  ' : 'cosine)'}   `,
      field(`w${sub(pair)}`, sig(w, 6), 'w'), ' rad/token\n',
      `PE[${row}, ${col}] = ${fn}(p · w${sub(pair)}) = ${fn}(${row} × ${sig(w, 6)}) = ${fn}(`,
      valueSpan('angle', sig(row * w, 6)), ' rad) = ', valueSpan('value', signed(value, 6)),
    );
  }

  /** The column list typed by the user, checked against the table's width. */
  function chosenColumns() {
    const d = state.params.dim;
    const cols = [];
    const problems = [];
    for (const part of colsField.value.split(/[\s,;]+/).filter(Boolean)) {
      const j = Number(part);
      if (!Number.isInteger(j) || j < 0 || j >= d) problems.push(part);
      else if (!cols.includes(j)) cols.push(j);
    }
    return { cols: cols.slice(0, MAX_WAVES), problems };
  }

  function addWave(col) {
    const { cols } = chosenColumns();
    if (!cols.includes(col)) cols.push(col);
    colsField.value = cols.slice(-MAX_WAVES).join(', ');
    drawWaves();
  }

  function drawWaves() {
    if (!state) return;
    const { params: p, table } = state;
    const { cols, problems } = chosenColumns();
    colsField.setAttribute('aria-invalid', problems.length ? 'true' : 'false');
    colsField.title = problems.length ? `not a column of 0..${p.dim - 1}: ${problems.join(', ')}` : '';
    const series = [];
    const shown = windowSelect.get() === 'all' ? p.length : Math.min(p.length, Number(windowSelect.get()));
    // Smooth curves: the same table call at fractional positions, when that stays affordable.
    const samples = Math.min(8 * shown, Math.floor(MAX_CURVE_FLOATS / p.dim), 4000);
    let curve = null;
    if (shown > 1 && samples >= 2 * shown) {
      const ids = Float64Array.from({ length: samples }, (_, s) => (s * (shown - 1)) / (samples - 1));
      curve = { ids, t: pe.sinusoidal.table({ positionIds: ids, dim: p.dim, base: p.base, layout: p.layout }) };
    }
    const xs = Float64Array.from({ length: shown }, (_, i) => i);
    cols.forEach((j, k) => {
      const color = SERIES_COLOURS[k % SERIES_COLOURS.length];
      const y = Float64Array.from({ length: shown }, (_, r) => table.data[r * p.dim + j]);
      const dots = shown <= 96;
      series.push({ name: `j = ${j}`, color, x: xs, y, style: dots ? 'dots' : 'line', width: 1.5 });
      if (curve && dots) {
        const cy = Float64Array.from({ length: samples }, (_, s) => curve.t.data[s * p.dim + j]);
        series.push({ name: '', color, x: curve.ids, y: cy, style: 'line', width: 1.25 });
      }
    });
    waves.setSeries(series);
    waves.setCursorIndex(Math.min(cell.row, shown - 1));
    showWaveReadout(Math.min(cell.row, shown - 1));
  }

  function showWaveReadout(row) {
    if (!state) return;
    const { params: p, table } = state;
    // One grid cell per value under the p line: two per line, one per line on a phone; the box has
    // room for MAX_WAVES values either way, so it never scrolls or changes size (page.css).
    const cell = (...content) => {
      const span = document.createElement('span');
      span.className = 'cell';
      span.append(...content);
      return span;
    };
    const parts = [Object.assign(cell(field('p', String(row))), { className: 'cell full' })];
    for (const j of chosenColumns().cols) {
      parts.push(cell(`PE[${row}, ${j}] = `, valueSpan(`wave-${j}`, signed(table.data[row * p.dim + j], 4))));
    }
    setReadout($('sin-waves-readout'), ...parts);
  }

  $('sin-download').addEventListener('click', () => {
    if (!state) return;
    const file = pe.io.writeNpy(state.table);
    const name = `sinusoidal-${state.params.length}x${state.params.dim}.npy`;
    const url = URL.createObjectURL(new Blob([file], { type: 'application/octet-stream' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: name });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    $('sin-download-note').textContent = `${name}: ${bytes(file.length)}, written by pe.io.writeNpy`;
  });

  recompute();
}
