// Relative positions, part 4: ALiBi. The slope of every head (pe.alibi.slopes) on a log axis, and
// the bias of one head (a slice of pe.alibi.bias) in the causal, symmetric or BLOOM form.
import { seriesColour } from '../../plot/colormap.js';
import { Heatmap } from '../../plot/heatmap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { choice, number } from '../../ui/control-specs.js';
import { int, num, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').Lengths} Lengths */

const SETTINGS = {
  heads: number({ label: 'heads', value: 8, step: 1, max: 128, slider: [1, 64] }),
  maxBias: number({ label: 'maxBias', value: 8, step: 'any', max: 64 }),
  head: number({ label: 'head h shown', value: 1, step: 1, min: 1, max: 8 }),
  form: choice({ label: 'form', as: 'radio', value: 'causal', options: [['causal', 'causal'], ['symmetric', 'symmetric'], ['bloom', 'BLOOM']] }),
};

/** A slope as a power of two: '2^−1.5 = 0.353553'. @param {number} m */
export function slopeText(m) {
  const e = Math.log2(m);
  const exp = Math.abs(e - Math.round(e)) < 1e-9 ? String(Math.round(e)) : e.toFixed(3).replace(/0+$/, '');
  return `2^${exp.replace('-', '−')} = ${num(m, 6)}`;
}

/** @param {Section} section */
export function alibiPart(section) {
  const { pe } = section;
  const settings = section.panel('alibi', SETTINGS);
  const slopesFig = section.figure('alibi-slopes');
  const biasFig = section.figure('alibi-bias');
  /** @type {Lengths | null} */
  let lengths = null;
  /** @type {{ bias: Float32Array, h: number } | null} */
  let state = null;
  let cell = { row: 9, col: 3 };

  const slopePlot = new LinePlot(slopesFig.plot(), {
    label: 'ALiBi slope of every head, log scale', xLabel: 'head h', yLabel: 'slope m (log scale)', yScale: 'log', xPad: 0.6,
    onCursor: (h) => {
      settings.set('head', h);
      update();
    },
  });
  const map = new Heatmap(biasFig.plot(), {
    label: 'ALiBi bias of the chosen head for every query and key', xLabel: 'key j', yLabel: 'query i', legendLabel: 'bias added to the score',
    onCursor: (c) => {
      cell = c;
      readCell();
    },
  });

  function readCell() {
    if (!state || !lengths) return;
    const { row: i, col: j } = cell;
    const v = state.bias[i * lengths.kLen + j];
    setReadout(biasFig.readout(), [field('head', String(state.h)), '   ', field('i', String(i)), ` (position ${int(lengths.queryOffset + i)})   `, field('j', String(j))],
      [`bias[${state.h - 1}, ${i}, ${j}] = `, valueSpan('bias', signed(v, 6))]);
  }

  const update = section.updater({ status: section.status(settings), figures: [slopesFig, biasFig] }, () => {
    if (!lengths) return false;
    const heads = settings.get('heads');
    if (Number.isInteger(heads) && heads > 0 && heads <= 128) settings.setMax('head', heads);
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const { maxBias, head: h, form } = settings.values();
    const { qLen, kLen, queryOffset } = lengths;
    const slopes = pe.alibi.slopes({ numHeads: heads, maxBias });
    // Head h alone: a one-head ALiBi has the slope 2^−maxBias, so maxBias = −log2(m_h) gives head h's
    // bias without computing all heads (128 × 512 × 512 values would take a second).
    const alone = -Math.log2(slopes[h - 1]);
    const bias = pe.alibi.bias({ numHeads: 1, maxBias: alone, form, qLen, kLen, queryOffset }).data;
    state = { bias, h };
    let max = 0;
    for (const v of bias) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
    map.setData({ values: bias, rows: qLen, cols: kLen, range: [-(max || 1), max || 1] });
    cell = { row: Math.min(cell.row, qLen - 1), col: Math.min(cell.col, kLen - 1) };
    map.setCursor(cell.row, cell.col);
    const x = Float64Array.from({ length: heads }, (_, k) => k + 1);
    slopePlot.setSeries([{ name: `slopes, ${heads} heads`, color: seriesColour(0), x, y: slopes, style: 'stems', highlight: h - 1, radius: heads > 32 ? 2.5 : 4 }]);
    slopePlot.setCursorIndex(h - 1);
    setReadout(slopesFig.readout(), [field('head h', String(h), 'head'), '   ', field('m', slopeText(slopes[h - 1]), 'slope')],
      ['steepest ', valueSpan('steepest', slopeText(Math.max(...slopes))), '   shallowest ', valueSpan('shallowest', slopeText(Math.min(...slopes)))]);
    readCell();
    section.calls('alibi', [
      `pe.alibi.slopes({ numHeads: ${heads}, maxBias: ${maxBias} });`,
      `pe.alibi.bias({ numHeads: ${heads}, qLen: ${qLen}, kLen: ${kLen}, queryOffset: ${queryOffset}, maxBias: ${maxBias}, form: '${form}' });   // [${heads}, ${qLen}, ${kLen}]: all heads`,
      `pe.alibi.bias({ numHeads: 1, qLen: ${qLen}, kLen: ${kLen}, queryOffset: ${queryOffset}, maxBias: ${num(alone, 6)}, form: '${form}' });   // head ${h} alone: maxBias = −log2(m_${h}), what this page calls`,
    ]);
    return true;
  });
  settings.onChange(() => update());

  return {
    figures: [slopesFig, biasFig],
    /** @param {Lengths} s */
    update(s) {
      lengths = s;
      update();
    },
  };
}
