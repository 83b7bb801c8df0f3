// Section "Learned position tables": a table trained here, in the compute worker, on a task that
// needs order (training.js, compute/train.js), drawn as it emerges and compared with the sinusoidal table
// (versus.js); what a table does past its last row (beyond.js); and a table read from an .npy or
// .safetensors file with pe.io (file.js). The four table figures show the trained table until a
// file is loaded, and again after "Train again". The table is kept in WebAssembly memory with
// pe.learned.createTable. A file that cannot be used changes nothing.
import { button, choice, file as fileControl } from '../../ui/control-specs.js';
import { bytes as formatBytes, int, num } from '../../ui/format.js';
import { nextTask } from '../../ui/schedule.js';
import { SimilarityFigures } from '../similarity/figures.js';
import { beyondPart } from './beyond.js';
import { tableFigures } from './figures.js';
import { preferredEntry, readFile, readTable } from './file.js';
import { trainingPart } from './training.js';
import { versusFigure } from './versus.js';

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
  section.callOrder(['train', 'learned', 'beyond']);
  /** What the table figures show: the trained table, or a file's. */
  let showing = /** @type {'trained' | 'file'} */ ('trained');
  /** The file loaded last, and what the info line says about it. @type {{ file: TableFile, name: string, info: string } | null} */
  let current = null;
  /** The info line of the trained table. */
  let trainedInfo = '';

  const versus = versusFigure(pe, section.figure('versus'));
  const similarity = new SimilarityFigures(matrixFig, simRowFig, 'E', (p) => {
    table.setRow(p);
    versus.setRow(p);
  });
  const table = tableFigures(tableFig, rowFig, (p) => {
    similarity.selectRow(p);
    versus.setRow(p);
  });
  similarity.measure = 'cosine';
  const beyond = beyondPart(section);

  /**
   * Draws a table [rows, dim] in the four figures and the out-of-table figure.
   * @param {Float32Array} data @param {number} rows @param {number} dim
   */
  async function showTable(data, rows, dim) {
    const positions = pe.learned.createTable({ data, dims: [rows, dim] });
    await table.show({ table: positions, data, rows, dim });
    beyond.setTable({ data, rows, dim });
    section.root.dataset.table = `${rows}x${dim}`;
    section.calls('learned', [
      `const positions = pe.learned.createTable(table);          // kept in WebAssembly memory, dims [${rows}, ${dim}]`,
      `const row = positions.lookup({ positionIds: [p] });        // dims [1, ${dim}]`,
    ]);
    await nextTask();
    await similarity.setTable(data, rows, dim);
    similarity.selectRow(table.cell.row);
  }

  const training = trainingPart(section, async (state) => {
    if (state.step === 0) showing = 'trained'; // a new run: the figures follow it
    const { table: data, positions: rows, dim, step, steps } = state;
    trainedInfo = `trained here · ${int(rows)} positions × ${int(dim)} dims · step ${int(step)} of ${int(steps)}`
      + (step > 0 ? ` · loss ${num(state.losses[step - 1], 3)}` : '');
    versus.show(data, rows, dim);
    if (showing !== 'trained') return;
    info.textContent = trainedInfo;
    status.show(null);
    await showTable(data, rows, dim);
  });

  /** @param {string} name @param {unknown} error */
  function fail(name, error) {
    status.show(`Could not use ${name}: ${error instanceof Error ? error.message : String(error)}`);
    info.textContent = showing === 'file' && current ? current.info : trainedInfo;
    if (current) tensor.set('tensor', current.name); // the picker shows what the figures show
  }

  /**
   * Shows tensor `name` of `file`; on success the picker and the info line follow. The figures are
   * drawn in separate tasks (a GPT-2 table is 786 432 values), so the page stays responsive.
   * @param {TableFile} file @param {string} name
   */
  async function show(file, name) {
    const t = readTable(pe, file, name);
    await nextTask();
    showing = 'file';
    const text = `${file.name} · ${file.kind === 'npy' ? 'array' : name} · ${int(t.rows)} positions × ${int(t.dim)} dims · ${formatBytes(file.bytes.length)}`;
    current = { file, name, info: text };
    info.textContent = text;
    tensor.setOptions('tensor', file.entries.map((e) => [e.name, `${e.name}  [${e.dims.join(', ')}]${e.dtype === 'npy' ? '' : `  ${e.dtype}`}`]), name);
    tensor.enable('tensor', file.entries.length > 1);
    status.show(null);
    const dims = `[${t.rows}, ${t.dim}]`;
    await showTable(t.data, t.rows, t.dim);
    section.calls('learned', [
      file.kind === 'npy'
        ? `const table = pe.io.readNpy(bytes);                       // dims ${dims}, float32`
        : `const table = pe.io.readSafetensors(bytes, { names: ['${name}'] })['${name}'];   // float32`,
      `const positions = pe.learned.createTable(table);          // kept in WebAssembly memory, dims ${dims}`,
      `const row = positions.lookup({ positionIds: [p] });        // dims [1, ${t.dim}]`,
    ]);
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

  training.start();
}
