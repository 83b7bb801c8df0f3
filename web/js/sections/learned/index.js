// Section "Learned position tables": a table read from an .npy or .safetensors file with pe.io
// (file.js), kept in WebAssembly memory with pe.learned.createTable, shown as a heatmap, one row
// (PositionTable.lookup) and the similarity of positions. A file that cannot be used changes
// nothing: the picker, the info line and the figures keep showing the table they showed.
import { button, choice, file as fileControl } from '../../ui/control-specs.js';
import { bytes as formatBytes, int } from '../../ui/format.js';
import { nextTask } from '../../ui/schedule.js';
import { SimilarityFigures } from '../similarity/figures.js';
import { tableFigures } from './figures.js';
import { preferredEntry, readFile, readTable } from './file.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./file.js').TableFile} TableFile */

const SOURCE = {
  pick: fileControl({ label: 'Choose a file…', accept: '.npy,.safetensors' }),
  sample: button({ label: 'Use the sinusoidal table above' }),
};
/** @type {{ tensor: import('../../ui/control-specs.js').ChoiceSpec<string> }} */
const TENSOR = { tensor: choice({ label: 'tensor', value: '', options: [['', 'no file loaded']] }) };
const MEASURE = { measure: choice({ label: 'measure', value: 'cosine', options: [['dot', 'dot product'], ['cosine', 'cosine']] }) };

/** @param {Section} section */
export function mount(section) {
  const { pe } = section;
  const source = section.panel('source', SOURCE);
  const tensor = section.panel('tensor', TENSOR);
  const measure = section.panel('similarity', MEASURE);
  const drop = section.part('drop');
  const info = section.part('info');
  const status = section.status(drop);
  const [tableFig, rowFig, matrixFig, simRowFig] = ['table', 'row', 'similarity', 'similarity-row'].map((n) => section.figure(n));
  tensor.enable('tensor', false);
  /** @type {{ file: TableFile, name: string, info: string } | null} */
  let current = null;

  const similarity = new SimilarityFigures(matrixFig, simRowFig, 'E', (p) => table.setRow(p));
  const table = tableFigures(tableFig, rowFig, (p) => similarity.selectRow(p));
  similarity.measure = 'cosine';

  /** @param {string} name @param {unknown} error */
  function fail(name, error) {
    status.show(`Could not use ${name}: ${error instanceof Error ? error.message : String(error)}`);
    info.textContent = current ? current.info : 'No table loaded yet.';
    if (current) tensor.set('tensor', current.name); // the picker shows what the figures show
  }

  /**
   * Shows tensor `name` of `file`; on success the picker and the info line follow. The figures are
   * drawn in separate tasks (a GPT-2 table is 786 432 values), so the page stays responsive.
   * @param {TableFile} file @param {string} name
   */
  async function show(file, name) {
    const t = readTable(pe, file, name);
    const positions = pe.learned.createTable({ data: t.data, dims: [t.rows, t.dim] });
    await nextTask();
    await table.show({ table: positions, data: t.data, rows: t.rows, dim: t.dim });
    const text = `${file.name} · ${file.kind === 'npy' ? 'array' : name} · ${int(t.rows)} positions × ${int(t.dim)} dims · ${formatBytes(file.bytes.length)}`;
    current = { file, name, info: text };
    info.textContent = text;
    tensor.setOptions('tensor', file.entries.map((e) => [e.name, `${e.name}  [${e.dims.join(', ')}]${e.dtype === 'npy' ? '' : `  ${e.dtype}`}`]), name);
    tensor.enable('tensor', file.entries.length > 1);
    section.root.dataset.table = `${t.rows}x${t.dim}`;
    status.show(null);
    const dims = `[${t.rows}, ${t.dim}]`;
    section.calls('learned', [
      file.kind === 'npy'
        ? `const table = pe.io.readNpy(bytes);                       // dims ${dims}, float32`
        : `const table = pe.io.readSafetensors(bytes, { names: ['${name}'] })['${name}'];   // float32`,
      `const positions = pe.learned.createTable(table);          // kept in WebAssembly memory, dims ${dims}`,
      `const row = positions.lookup({ positionIds: [p] });        // dims [1, ${t.dim}]`,
    ]);
    await nextTask();
    await similarity.setTable(t.data, t.rows, t.dim);
    similarity.selectRow(table.cell.row);
  }

  /** Reads a file's bytes and shows its most likely position table. @param {string} name @param {Uint8Array} bytes */
  async function load(name, bytes) {
    let file;
    try {
      file = readFile(pe, name, bytes);
      await nextTask(); // decoding a GPT-2 table takes a task of its own
      await show(file, preferredEntry(file).name);
    } catch (error) {
      fail(name, error);
    }
  }

  /** @param {File | undefined | null} f */
  async function loadFile(f) {
    if (!f) return;
    info.textContent = `reading ${f.name} (${formatBytes(f.size)})…`;
    await load(f.name, new Uint8Array(await f.arrayBuffer()));
  }

  source.on('pick', () => section.whileBusy(loadFile(source.takeFile('pick'))));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    section.whileBusy(loadFile(e.dataTransfer?.files?.[0]));
  });
  tensor.onChange(() => {
    if (!current) return;
    const file = current.file;
    section.whileBusy(show(file, tensor.get('tensor')).catch((error) => fail(file.name, error)));
  });
  measure.onChange(() => section.whileBusy(similarity.setMeasure(/** @type {'dot' | 'cosine'} */ (measure.get('measure')))));

  // "Use the sinusoidal table above": written with pe.io.writeNpy and read back like any file.
  /** @type {import('../sinusoidal/index.js').TableState | null} */
  let sinusoidal = null;
  source.enable('sample', false);
  section.bus.subscribe('sinusoidal-table', (detail) => {
    sinusoidal = /** @type {import('../sinusoidal/index.js').TableState} */ (detail);
    source.enable('sample', true);
  });
  source.on('sample', () => {
    if (!sinusoidal) return;
    const { params: p, table: t } = sinusoidal;
    section.whileBusy(load(`sinusoidal-${p.length}x${p.dim}.npy`, pe.io.writeNpy(t)));
  });
}
