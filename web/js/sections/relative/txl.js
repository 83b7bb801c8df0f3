// Relative positions, part 5: Transformer-XL. R from pe.transformerXL.relativeSinusoid (row r =
// distance kLen − 1 − r), and the rel-shift: a [qLen, kLen] matrix whose column r holds the
// distance of R's row r (what query·R gives every query) before and after pe.transformerXL.relShift.
import { Heatmap } from '../../plot/heatmap.js';
import { check, number } from '../../ui/control-specs.js';
import { int, signed, sub } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { nextTask } from '../../ui/schedule.js';
import { PageError } from '../../ui/section.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').Lengths} Lengths */

const SETTINGS = {
  memLen: number({ label: 'memLen', unit: 'cached', value: 8, step: 1, max: 512 }),
  dModel: number({ label: 'dModel', unit: 'even', value: 64, step: 2, max: 1024 }),
  clampLen: number({ label: 'clampLen', unit: '0 = off', value: 0, step: 1, max: 100000 }),
  maskFuture: check({ label: 'maskFuture (−∞)', caption: 'future keys', value: true }),
};

/** @param {Section} section */
export function txlPart(section) {
  const { pe } = section;
  const settings = section.panel('txl', SETTINGS);
  const rFig = section.figure('txl-r');
  const shiftFig = section.figure('txl-shift');
  /** @type {Lengths | null} */
  let lengths = null;
  /** @type {{ qLen: number, kLen: number, mem: number, d: number, clamp: number, r: Float32Array, shifted: Float32Array } | null} */
  let state = null;
  let rCell = { row: 0, col: 0 };
  let shiftCell = { row: 2, col: 3 };

  const rMap = new Heatmap(rFig.plot(), {
    label: 'The Transformer-XL relative sinusoid R', xLabel: 'column (sines, then cosines)', yLabel: 'row r', legendLabel: 'R value (unitless)',
    onCursor: (c) => {
      rCell = c;
      readR();
    },
  });
  const legendLabel = 'distance (tokens)';
  const bdMap = new Heatmap(shiftFig.plot('before'), {
    label: 'Before the rel-shift: column r holds the distance of row r of R', xLabel: 'column r', yLabel: 'query i', legendLabel, margin: { left: 44 },
    onCursor: (c) => state && pickShift(c.row, c.col + c.row - (state.qLen - 1), 'bd'),
  });
  const shiftedMap = new Heatmap(shiftFig.plot('after'), {
    label: 'After the rel-shift: the distance from query i to key j', xLabel: 'key j', yLabel: 'query i', legendLabel, margin: { left: 44 },
    onCursor: (c) => pickShift(c.row, c.col, 'shifted'),
  });

  function readR() {
    if (!state) return;
    const { row, col } = rCell;
    const { kLen, d, clamp, r } = state;
    const t = kLen - 1 - row;
    const used = clamp > 0 ? Math.min(t, clamp) : t;
    const half = d / 2;
    const fn = col < half ? 'sin' : 'cos';
    const pair = col < half ? col : col - half;
    setReadout(rFig.readout(),
      [field('row r', String(row), 'row'), ' holds distance ', valueSpan('distance', int(t)), used !== t ? ` (clamped to clampLen = ${int(used)})` : '', '   ', field('column', String(col))],
      [`R[${row}, ${col}] = ${fn}(${int(used)} · w${sub(pair)}) = `, valueSpan('value', signed(r[row * d + col], 6))]);
  }

  /** Query i and key j of the shifted matrix; `from` is the map the reader pointed at. @param {number} i @param {number} j @param {string | null} from */
  function pickShift(i, j, from) {
    if (!state) return;
    const { qLen, kLen, mem, shifted } = state;
    j = Math.max(0, Math.min(kLen - 1, j));
    shiftCell = { row: i, col: j };
    const source = j + qLen - 1 - i; // the column of the raw product that lands in (i, j)
    if (from !== 'shifted') shiftedMap.setCursor(i, j);
    if (from !== 'bd') bdMap.setCursor(i, Math.min(kLen - 1, source));
    const v = shifted[i * kLen + j];
    setReadout(shiftFig.readout(), [field('i', String(i)), '   ', field('j', String(j)), `   from column ${source < kLen ? source : '—'} of row ${i}`],
      ['shifted = ', valueSpan('shifted', int(v)),
        j <= mem + i ? ` = (memLen + i) − j = ${int(mem + i)} − ${j}` : '   (key after the query: a leftover the model masks)']);
  }

  const update = section.updater({ status: section.status(settings), figures: [rFig, shiftFig] }, async (current) => {
    if (!lengths) return false;
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const { memLen: mem, dModel: d, clampLen: clamp, maskFuture } = settings.values();
    const qLen = lengths.qLen;
    const kLen = mem + qLen;
    // Column r of the raw product query·R holds distance kLen − 1 − r for every query (labels, not scores).
    const bd = new Float32Array(qLen * kLen);
    for (let i = 0; i < qLen; i++) for (let c = 0; c < kLen; c++) bd[i * kLen + c] = kLen - 1 - c;
    const r = pe.transformerXL.relativeSinusoid({ qLen, memLen: mem, dModel: d, clampLen: clamp });
    const shifted = pe.transformerXL.relShift({ data: bd, dims: [qLen, kLen] }, { maskFuture });
    state = { qLen, kLen, mem, d, clamp, r: r.data, shifted: shifted.data };
    await nextTask(); // R has up to a million values: its picture gets a task of its own
    if (!current()) return false;
    rMap.setData({ values: r.data, rows: kLen, cols: d, range: [-1, 1] });
    rCell = { row: Math.min(rCell.row, kLen - 1), col: Math.min(rCell.col, d - 1) };
    rMap.setCursor(rCell.row, rCell.col);
    readR();
    await nextTask(); // R has up to a million values: the rel-shift maps get a task of their own
    if (!current()) return false;
    /** @type {[number, number]} */
    const range = [0, kLen - 1 || 1]; // distances from 0 (the query itself) to kLen − 1
    const keep = shiftCell; // setData moves the cursors; put them back on the same cell
    bdMap.setData({ values: bd, rows: qLen, cols: kLen, range, colormap: 'sequential' });
    shiftedMap.setData({ values: shifted.data, rows: qLen, cols: kLen, range, colormap: 'sequential' });
    pickShift(Math.min(keep.row, qLen - 1), Math.min(keep.col, kLen - 1), null);
    section.calls('txl', [
      `pe.transformerXL.relativeSinusoid({ qLen: ${qLen}, memLen: ${mem}, dModel: ${d}, clampLen: ${clamp} });   // R [${kLen}, ${d}]`,
      `pe.transformerXL.relShift({ data: bd, dims: [${qLen}, ${kLen}] }, { maskFuture: ${maskFuture} });`,
    ]);
    return true;
  });
  settings.onChange(() => update());

  return {
    figures: [rFig, shiftFig],
    /** @param {Lengths} s */
    update(s) {
      lengths = s;
      update();
    },
  };
}
