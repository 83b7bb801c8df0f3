// Relative positions, part 5: Transformer-XL. R from pe.transformerXL.relativeSinusoid (row r =
// distance kLen − 1 − r), and the rel-shift: a [qLen, kLen] matrix whose column r holds the
// distance of R's row r (what query·R gives every query) before and after pe.transformerXL.relShift.
import { numberControl, perFrame, showStatus } from '../lib/controls.js';
import { int, signed } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { field, setReadout, sub, valueSpan } from '../lib/readout.js';

const MAX_R_VALUES = 1 << 21;

export function mountTransformerXL(pe, showCalls) {
  const $ = (id) => document.getElementById(id);
  const status = $('rel-txl-status');
  const update = perFrame(() => recompute());
  const memLen = numberControl('rel-txl-mem', update);
  const dModel = numberControl('rel-txl-dmodel', update);
  const clampLen = numberControl('rel-txl-clamp', update);
  const mask = $('rel-txl-mask');
  mask.addEventListener('change', update);
  let shared = null;
  let state = null; // { qLen, kLen, mem, d, r: Float32Array, bd, shifted, clamp }
  let rCell = { row: 0, col: 0 };
  let shiftCell = { row: 2, col: 3 };

  const rMap = new Heatmap($('rel-txl-r'), {
    label: 'The Transformer-XL relative sinusoid R', xLabel: 'column (sines, then cosines)', yLabel: 'row r',
    legendLabel: 'R value (unitless)',
    onCursor: (c) => {
      rCell = c;
      showR();
    },
  });
  const legend = 'distance (tokens)';
  const bdMap = new Heatmap($('rel-txl-bd'), {
    label: 'Before the rel-shift: column r holds the distance of row r of R', xLabel: 'column r', yLabel: 'query i', legendLabel: legend,
    margin: { left: 44 },
    onCursor: (c) => pickShift(c.row, c.col + c.row - (state.qLen - 1), 'bd'),
  });
  const shiftedMap = new Heatmap($('rel-txl-shifted'), {
    label: 'After the rel-shift: the distance from query i to key j', xLabel: 'key j', yLabel: 'query i', legendLabel: legend,
    margin: { left: 44 },
    onCursor: (c) => pickShift(c.row, c.col, 'shifted'),
  });

  function recompute() {
    if (!shared) return;
    const qLen = shared.qLen;
    const mem = memLen.get();
    const d = dModel.get();
    const clamp = clampLen.get();
    const maskFuture = mask.checked;
    let r;
    let shifted;
    const kLen = mem + qLen;
    if (kLen * d > MAX_R_VALUES) {
      showStatus(status, `R would have ${int(kLen)} × ${int(d)} values, more than this page draws; use a smaller memLen or dModel.`);
      return;
    }
    // Column r of the raw product query·R holds distance kLen − 1 − r for every query (labels, not scores).
    const bd = new Float32Array(qLen * Math.max(kLen, 0));
    for (let i = 0; i < qLen; i++) for (let c = 0; c < kLen; c++) bd[i * kLen + c] = kLen - 1 - c;
    try {
      r = pe.transformerXL.relativeSinusoid({ qLen, memLen: mem, dModel: d, clampLen: clamp });
      shifted = pe.transformerXL.relShift({ data: bd, dims: [qLen, kLen] }, { maskFuture });
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    showStatus(status, null);
    state = { qLen, kLen, mem, d, clamp, r: r.data, bd, shifted: shifted.data, maskFuture };
    rMap.setData({ values: r.data, rows: kLen, cols: d, range: [-1, 1] });
    rCell = { row: Math.min(rCell.row, kLen - 1), col: Math.min(rCell.col, d - 1) };
    rMap.setCursor(rCell.row, rCell.col);
    const range = [0, kLen - 1 || 1]; // distances from 0 (the query itself) to kLen − 1
    const keep = shiftCell; // setData moves the cursors; put them back on the same cell
    bdMap.setData({ values: bd, rows: qLen, cols: kLen, range, colormap: 'sequential' });
    shiftedMap.setData({ values: shifted.data, rows: qLen, cols: kLen, range, colormap: 'sequential' });
    shiftCell = { row: Math.min(keep.row, qLen - 1), col: Math.min(keep.col, kLen - 1) };
    pickShift(shiftCell.row, shiftCell.col, null);
    showR();
    showCalls('txl', [
      `pe.transformerXL.relativeSinusoid({ qLen: ${qLen}, memLen: ${mem}, dModel: ${d}, clampLen: ${clamp} });   // R [${kLen}, ${d}]`,
      `pe.transformerXL.relShift({ data: bd, dims: [${qLen}, ${kLen}] }, { maskFuture: ${maskFuture} });`,
    ]);
  }

  function showR() {
    if (!state) return;
    const { row, col } = rCell;
    const { kLen, d, clamp, r } = state;
    const t = kLen - 1 - row;
    const used = clamp > 0 ? Math.min(t, clamp) : t;
    const half = d / 2;
    const fn = col < half ? 'sin' : 'cos';
    const pair = col < half ? col : col - half;
    setReadout($('rel-txl-r-readout'),
      field('row r', String(row), 'row'), ' holds distance ', valueSpan('distance', int(t)),
      used !== t ? ` (clamped to clampLen = ${int(used)})` : '', '   ', field('column', String(col)), '\n',
      `R[${row}, ${col}] = ${fn}(${int(used)} · w${sub(pair)}) = `, valueSpan('value', signed(r[row * d + col], 6)),
    );
  }

  /** Query i and key j of the shifted matrix; `from` is the map the user pointed at. */
  function pickShift(i, j, from) {
    if (!state) return;
    const { qLen, kLen, mem, shifted } = state;
    j = Math.max(0, Math.min(kLen - 1, j));
    shiftCell = { row: i, col: j };
    const source = j + qLen - 1 - i; // the column of the raw product that lands in (i, j)
    if (from !== 'shifted') shiftedMap.setCursor(i, j);
    if (from !== 'bd') bdMap.setCursor(i, Math.min(kLen - 1, source));
    const v = shifted[i * kLen + j];
    const valid = j <= mem + i;
    setReadout($('rel-txl-shift-readout'),
      field('i', String(i)), '   ', field('j', String(j)), `   from column ${source < kLen ? source : '—'} of row ${i}\n`,
      'shifted = ', valueSpan('shifted', Number.isFinite(v) ? int(v) : '−∞'),
      valid ? ` = (memLen + i) − j = ${int(mem + i)} − ${j}` : '   (key after the query: a leftover the model masks)',
    );
  }

  return {
    update(s) {
      shared = s;
      recompute();
    },
  };
}
