// Section "Sinusoidal encoding": the table from pe.sinusoidal.table (computed in the worker, with
// its picture averaged to the plot's pixels) as a heatmap with the formula of the chosen cell,
// chosen columns as waves, the similarity of positions, and the table as an .npy download.
import { choice, number, button } from '../../ui/control-specs.js';
import { bytes, int } from '../../ui/format.js';
import { Figure, PageError } from '../../ui/section.js';
import { SimilarityFigures } from '../similarity/figures.js';
import { tableFigure } from './table.js';
import { wavesFigure } from './waves.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').TableState} TableState */

export const SETTINGS = {
  length: number({ label: 'length', unit: 'positions', value: 256, step: 1, max: 4096, slider: [1, 1024] }),
  dim: number({ label: 'dim', unit: 'columns d', value: 128, step: 1, max: 2048, slider: [1, 512] }),
  base: number({ label: 'base', value: 10000, step: 'any' }),
  layout: choice({ label: 'layout', as: 'radio', value: 'interleaved', options: [['interleaved', 'interleaved (paper)'], ['half', 'half']] }),
};
const MEASURE = { measure: choice({ label: 'measure', value: 'dot', options: [['dot', 'dot product'], ['cosine', 'cosine']] }) };
const DOWNLOAD = { download: button({ label: 'Download this table as .npy' }) };

/** @param {Section} section */
export function mount(section) {
  const { pe } = section;
  const settings = section.panel('settings', SETTINGS);
  const measure = section.panel('similarity', MEASURE);
  const download = section.panel('download', DOWNLOAD);
  const figures = ['table', 'waves', 'similarity', 'similarity-row'].map((name) => section.figure(name));
  const [tableFig, wavesFig, matrixFig, rowFig] = figures;
  const shape = section.part('shape');
  /** @type {TableState | null} */
  let state = null;

  const waves = wavesFigure(section, wavesFig);
  const similarity = new SimilarityFigures(matrixFig, rowFig, 'PE', (p) => table.setRow(p));
  const table = tableFigure(tableFig, {
    onCursor: ({ row }) => {
      similarity.selectRow(row);
      waves.setRow(row);
    },
    onSelect: ({ col }) => waves.add(col),
  });

  const update = section.updater({ status: section.status(settings), figures: [...figures, new Figure(shape)], actions: [download.element('download')] }, async (current) => {
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const p = settings.values();
    const px = table.heatmap.pixels();
    // posenc checks the values (in the worker) and says what is wrong
    const result = await section.compute.run('sinusoidal', 'sinusoidal', { ...p, viewRows: px.rows, viewCols: px.cols });
    if (!result || !current()) return;
    state = { params: p, table: result.table, view: result.view, freqs: pe.sinusoidal.frequencies({ dim: p.dim, base: p.base }) };
    table.show(state);
    waves.show(state, table.cell.row);
    for (const [name, v] of [['L', p.length], ['d', p.dim], ['L2', p.length], ['d2', p.dim], ['values', p.length * p.dim]]) {
      shape.querySelector(`[data-field="${name}"]`)?.replaceChildren(int(/** @type {number} */ (v)));
    }
    section.calls('table', [
      `const pe = await createPosEnc();                       // import { createPosEnc } from 'posenc'`,
      `const table = pe.sinusoidal.table({ length: ${p.length}, dim: ${p.dim}, base: ${p.base}, layout: '${p.layout}' });   // dims [${result.table.dims.join(', ')}]`,
      `const w = pe.sinusoidal.frequencies({ dim: ${p.dim}, base: ${p.base} });   // ${state.freqs.length} angular frequencies, rad/token`,
    ]);
    section.bus.publish('sinusoidal-table', state);
    await similarity.setTable(result.table.data, p.length, p.dim, result.norms);
    similarity.selectRow(table.cell.row);
  });
  settings.onChange(() => update());
  measure.onChange(() => section.whileBusy(similarity.setMeasure(measure.get('measure'))));

  const note = section.part('download-note');
  download.on('download', () => {
    if (!state) return;
    const file = pe.io.writeNpy(state.table);
    const name = `sinusoidal-${state.params.length}x${state.params.dim}.npy`;
    const url = URL.createObjectURL(new Blob([/** @type {BlobPart} */ (file)], { type: 'application/octet-stream' }));
    Object.assign(document.createElement('a'), { href: url, download: name }).click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    note.textContent = `${name}: ${bytes(file.length)}, written by pe.io.writeNpy`;
  });

  update();
}
