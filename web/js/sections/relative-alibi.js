// Relative positions, part 4: ALiBi. The slope of every head (pe.alibi.slopes) on a log axis, and
// the bias of one head (a slice of pe.alibi.bias) in the causal, symmetric or BLOOM form.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { choiceControl, numberControl, perFrame, showStatus } from '../lib/controls.js';
import { int, sig } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';

/** Most bias values the page asks for at once (all heads × qLen × kLen). */
const MAX_VALUES = 1 << 22;

/** A slope as a power of two: '2^−1.5 = 0.353553'. */
export function slopeText(m) {
  const e = Math.log2(m);
  const exp = Math.abs(e - Math.round(e)) < 1e-9 ? String(Math.round(e)) : e.toFixed(3).replace(/0+$/, '');
  return `2^${exp.replace('-', '−')} = ${sig(m, 6)}`;
}

/** A bias value: '−1.500000', '−∞'. */
export function biasText(v) {
  if (v === -Infinity) return '−∞';
  return (v < 0 && v.toFixed(6) !== '-0.000000' ? '−' : '+') + Math.abs(v).toFixed(6);
}

export function mountAlibi(pe, showCalls) {
  const $ = (id) => document.getElementById(id);
  const status = $('rel-alibi-status');
  const update = perFrame(() => recompute());
  const heads = numberControl('rel-alibi-heads', update);
  const maxBias = numberControl('rel-alibi-maxbias', update);
  const head = numberControl('rel-alibi-head', update);
  const form = choiceControl('rel-alibi-form', update, $('relative'));
  let shared = null;
  let state = null; // { slopes, bias: Float32Array of one head, h, qLen, kLen }
  let cell = { row: 9, col: 3 };

  const slopePlot = new LinePlot($('rel-alibi-slopes'), {
    label: 'ALiBi slope of every head, log scale', xLabel: 'head h', yLabel: 'slope m (log scale)', yScale: 'log', xPad: 0.6,
    onCursor: (h) => {
      head.set(h);
      recompute();
    },
  });
  const map = new Heatmap($('rel-alibi-bias'), {
    label: 'ALiBi bias of the chosen head for every query and key', xLabel: 'key j', yLabel: 'query i',
    legendLabel: 'bias added to the score',
    onCursor: (c) => {
      cell = c;
      showCell();
    },
  });

  function recompute() {
    if (!shared) return;
    const numHeads = heads.get();
    head.setMax(Number.isInteger(numHeads) && numHeads > 0 ? numHeads : 1);
    const h = Math.round(head.get()) || 1;
    const options = { numHeads, maxBias: maxBias.get(), form: form.get() };
    const { qLen, kLen, queryOffset } = shared;
    if (numHeads * qLen * kLen > MAX_VALUES) {
      showStatus(status, `${numHeads} heads × ${qLen} × ${kLen} is more bias values than this page draws at once; use fewer heads or a shorter input.`);
      return;
    }
    let slopes;
    let all;
    try {
      slopes = pe.alibi.slopes({ numHeads, maxBias: options.maxBias });
      all = pe.alibi.bias({ ...options, qLen, kLen, queryOffset });
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    showStatus(status, null);
    const bias = all.data.subarray((h - 1) * qLen * kLen, h * qLen * kLen);
    state = { slopes, bias, h, qLen, kLen };
    let max = 0;
    for (const v of bias) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
    map.setData({ values: bias, rows: qLen, cols: kLen, range: [-(max || 1), max || 1] });
    cell = { row: Math.min(cell.row, qLen - 1), col: Math.min(cell.col, kLen - 1) };
    map.setCursor(cell.row, cell.col);
    const x = Float64Array.from({ length: numHeads }, (_, k) => k + 1);
    slopePlot.setSeries([{ name: `slopes, ${numHeads} heads`, color: SERIES_COLOURS[0], x, y: slopes, style: 'stems', highlight: h - 1, radius: numHeads > 32 ? 2.5 : 4 }]);
    slopePlot.setCursorIndex(h - 1);
    setReadout($('rel-alibi-slopes-readout'),
      field('head h', String(h), 'head'), '   ', field('m', slopeText(slopes[h - 1]), 'slope'), '\n',
      'steepest ', valueSpan('steepest', slopeText(Math.max(...slopes))), '   shallowest ', valueSpan('shallowest', slopeText(Math.min(...slopes))),
    );
    showCell();
    showCalls('alibi', [
      `pe.alibi.slopes({ numHeads: ${numHeads}, maxBias: ${options.maxBias} });`,
      `pe.alibi.bias({ numHeads: ${numHeads}, qLen: ${qLen}, kLen: ${kLen}, queryOffset: ${queryOffset}, maxBias: ${options.maxBias}, form: '${options.form}' });   // [${numHeads}, ${qLen}, ${kLen}]`,
    ]);
  }

  function showCell() {
    if (!state) return;
    const { row: i, col: j } = cell;
    const v = state.bias[i * state.kLen + j];
    setReadout($('rel-alibi-readout'),
      field('head', String(state.h)), '   ', field('i', String(i)), ` (position ${int(shared.queryOffset + i)})   `, field('j', String(j)), '\n',
      `bias[${state.h - 1}, ${i}, ${j}] = `, valueSpan('bias', biasText(v)),
    );
  }

  return {
    update(s) {
      shared = s;
      recompute();
    },
  };
}
