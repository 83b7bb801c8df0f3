// Section "Learned position tables": a table read from an .npy or .safetensors file with pe.io,
// kept in WebAssembly memory with pe.learned.createTable, shown as a heatmap, one row
// (PositionTable.lookup) and the similarity of positions. Bad files show posenc's own message.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { choiceControl, showStatus } from '../lib/controls.js';
import { bytes as formatBytes, int, signed } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, showCall, valueSpan } from '../lib/readout.js';
import { SimilarityPanel } from '../lib/similarity-panel.js';

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
/** Names that usually hold a position table, to preselect it in a model file. */
const POSITION_NAME = /(^|\.)(wpe|position_embeddings?|pos_embed(ding)?s?|positional_embedding)(\.|$)/i;

/** Which reader a file needs: by extension, else by its first bytes. */
function fileKind(name, bytes) {
  if (/\.npy$/i.test(name)) return 'npy';
  if (/\.safetensors$/i.test(name)) return 'safetensors';
  return NPY_MAGIC.every((b, i) => bytes[i] === b) ? 'npy' : 'safetensors';
}

/** The largest |value| below which `q` of the values lie (from a sample), for the colour scale. */
function robustMax(data, q = 0.995) {
  const step = Math.max(1, Math.floor(data.length / 200_000));
  const sample = new Float32Array(Math.ceil(data.length / step));
  for (let i = 0, k = 0; i < data.length; i += step, k++) sample[k] = Math.abs(data[i]);
  sample.sort();
  return sample[Math.min(sample.length - 1, Math.floor(q * sample.length))] || 1;
}

/** [1, ..., rows, dim] -> [rows, dim]; anything else is not a position table. */
function asTable(tensor, label) {
  const dims = tensor.dims.slice();
  while (dims.length > 2 && dims[0] === 1) dims.shift();
  if (dims.length !== 2) {
    throw new Error(`${label} has shape [${tensor.dims.join(', ')}]; a position table has two dimensions, [positions, dim]`);
  }
  if (dims[0] === 0 || dims[1] === 0) throw new Error(`${label} has shape [${tensor.dims.join(', ')}]: it is empty`);
  return { data: tensor.data, dims };
}

export function mount(root, pe, bus) {
  const $ = (id) => document.getElementById(id);
  const status = $('learned-status');
  const drop = $('learned-drop');
  const fileInput = $('learned-file');
  const picker = $('learned-tensor');
  let file = null; // { name, bytes, kind, entries }
  let shown = null; // { table: PositionTable, data, rows, dim, label }
  let cell = { row: 0, col: 0 };
  let sinusoidal = null;

  const heatmap = new Heatmap($('learned-heatmap'), {
    label: 'Heatmap of the loaded position table', xLabel: 'dimension j', yLabel: 'position p',
    legendLabel: 'value (model units)', emptyText: 'load a table to see it here',
    onCursor: (c) => {
      cell = c;
      showCell();
      drawRow();
      similarity.selectRow(c.row);
    },
  });
  const rowPlot = new LinePlot($('learned-row'), {
    label: 'The selected row of the table', xLabel: 'dimension j', yLabel: 'E[p, j]', emptyText: 'no table yet', xPad: 0.5,
    onCursor: (j) => showRowReadout(j),
  });
  const similarity = new SimilarityPanel('learned', 'E', (p) => {
    heatmap.setCursor(p, cell.col);
    cell = { row: p, col: cell.col };
    showCell();
    drawRow();
  });
  choiceControl('learned-tensor', () => showTensor(picker.value));

  function fail(name, error) {
    showStatus(status, `Could not use ${name}: ${error.message}`);
    $('learned-info').textContent = shown ? shown.info : 'No table loaded yet.';
  }

  /** Reads a file's bytes: lists what it holds and shows the most likely position table. */
  function load(name, bytes) {
    showStatus(status, null);
    try {
      const kind = fileKind(name, bytes);
      let entries;
      if (kind === 'npy') {
        const tensor = pe.io.readNpy(bytes);
        entries = [{ name: 'array', dims: tensor.dims, dtype: 'npy', tensor }];
      } else {
        let header;
        try {
          header = pe.io.listSafetensors(bytes);
        } catch (error) {
          if (/\.safetensors$/i.test(name)) throw error;
          throw new Error(`it is neither an .npy file (it does not start with \\x93NUMPY) nor a .safetensors file (${error.message})`);
        }
        const all = header.tensors;
        entries = all.filter((t) => t.readable && t.dims.filter((d) => d !== 1).length === 2 && t.dims.length >= 2);
        if (entries.length === 0) {
          const some = all.slice(0, 6).map((t) => `${t.name} ${t.dtype} [${t.dims.join(', ')}]`).join('; ');
          throw new Error(`it holds no float tensor of shape [positions, dim] (${all.length} tensor(s)${some ? `: ${some}` : ''})`);
        }
      }
      file = { name, bytes, kind, entries };
    } catch (error) {
      fail(name, error);
      return;
    }
    picker.replaceChildren(...file.entries.map((e) => new Option(`${e.name}  [${e.dims.join(', ')}]${e.dtype === 'npy' ? '' : `  ${e.dtype}`}`, e.name)));
    picker.disabled = file.entries.length < 2;
    const preferred = file.entries.find((e) => POSITION_NAME.test(e.name)) ?? file.entries[0];
    picker.value = preferred.name;
    showTensor(preferred.name);
  }

  function showTensor(name) {
    const entry = file?.entries.find((e) => e.name === name);
    if (!entry) return; // the picker is disabled until a file is loaded; a scripted change does nothing
    let t;
    try {
      const tensor = entry.tensor ?? pe.io.readSafetensors(file.bytes, { names: [name] })[name];
      t = asTable(tensor, file.kind === 'npy' ? 'the array' : `tensor '${name}'`);
    } catch (error) {
      fail(file.name, error);
      return;
    }
    const [rows, dim] = t.dims;
    shown?.table.dispose();
    // Kept in WebAssembly memory: every row lookup below reuses it without copying the table again.
    shown = { table: pe.learned.createTable({ data: t.data, dims: [rows, dim] }), data: t.data, rows, dim, label: name };
    const c = robustMax(t.data);
    heatmap.setData({ values: t.data, rows, cols: dim, range: [-c, c], legendNote: '' });
    cell = { row: Math.min(cell.row, rows - 1), col: Math.min(cell.col, dim - 1) };
    heatmap.setCursor(cell.row, cell.col);
    const info = `${file.name} · ${file.kind === 'npy' ? 'array' : name} · ${int(rows)} positions × ${int(dim)} dims · ${formatBytes(file.bytes.length)}`;
    $('learned-info').textContent = info;
    shown.info = info;
    root.dataset.table = `${rows}x${dim}`;
    showCell();
    drawRow();
    similarity.setTable(t.data, rows, dim);
    similarity.selectRow(cell.row);
  }

  function showCalls() {
    const dims = `[${shown.rows}, ${shown.dim}]`;
    showCall($('learned-call'), [
      file.kind === 'npy'
        ? `const table = pe.io.readNpy(bytes);                       // dims ${dims}, float32`
        : `const table = pe.io.readSafetensors(bytes, { names: ['${shown.label}'] })['${shown.label}'];   // float32`,
      `const positions = pe.learned.createTable(table);          // kept in WebAssembly memory, dims ${dims}`,
      `const row = positions.lookup({ positionIds: [${cell.row}] });        // dims [1, ${shown.dim}]`,
    ]);
  }

  function showCell() {
    if (!shown) return;
    const { row, col } = cell;
    setReadout($('learned-readout'),
      field('p', String(row)), '   ', field('j', String(col)), '\n',
      `E[${row}, ${col}] = `, valueSpan('value', signed(shown.data[row * shown.dim + col], 6)),
    );
  }

  function drawRow() {
    if (!shown) return;
    const row = shown.table.lookup({ positionIds: [cell.row] });
    shown.row = row.data;
    showCalls();
    const x = Float64Array.from({ length: shown.dim }, (_, j) => j);
    rowPlot.setSeries([{ name: `row p = ${cell.row}`, color: SERIES_COLOURS[0], x, y: row.data, style: shown.dim <= 128 ? 'stems' : 'line', width: 1.25 }]);
    rowPlot.setCursorIndex(cell.col);
    showRowReadout(cell.col);
  }

  function showRowReadout(j) {
    if (!shown?.row) return;
    setReadout($('learned-row-readout'), field('j', String(j)), `   E[${cell.row}, ${j}] = `, valueSpan('row-value', signed(shown.row[j], 6)));
  }

  async function loadFile(f) {
    if (!f) return;
    $('learned-info').textContent = `reading ${f.name} (${formatBytes(f.size)})…`;
    try {
      load(f.name, new Uint8Array(await f.arrayBuffer()));
    } catch (error) {
      fail(f.name, error);
    }
  }

  $('learned-pick').addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', () => {
    loadFile(fileInput.files[0]);
    fileInput.value = ''; // choosing the same file again still loads it
  });
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    loadFile(e.dataTransfer?.files?.[0]);
  });

  // "Use the sinusoidal table above": written with pe.io.writeNpy and read back like any file.
  const sample = $('learned-sample');
  sample.disabled = true;
  bus.subscribe('sinusoidal-table', (detail) => {
    sinusoidal = detail;
    sample.disabled = false;
  });
  sample.addEventListener('click', () => {
    if (!sinusoidal) return;
    const { params: p, table } = sinusoidal;
    load(`sinusoidal-${p.length}x${p.dim}.npy`, pe.io.writeNpy(table));
  });
}
