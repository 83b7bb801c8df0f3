// Relative positions, part 1: the distance between query i and key j in both sign conventions,
// the row of Shaw et al.'s relative table each pair reads (pe.shaw.relativeIndices) and Shaw's
// score of each pair (shaw-score.js), one cursor on all three. The distance itself is page
// arithmetic (j − (offset + i)); the clipped indices and the scores come from posenc.
import { Heatmap } from '../../plot/heatmap.js';
import { choice, number } from '../../ui/control-specs.js';
import { int } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { shawScorePart } from './shaw-score.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').Lengths} Lengths */

const SIGN = { sign: choice({ label: 'sign', as: 'radio', value: 'key-minus-query', options: [['key-minus-query', 'j − i (Shaw, T5)'], ['query-minus-key', 'i − j (DeBERTa)']] }) };
const CLIP = { shawK: number({ label: 'clip distance k', value: 4, step: 1, slider: [1, 32] }) };

/** 'the key is 3 tokens before the query' for a key-minus-query distance. @param {number} keyMinusQuery */
export function describeDistance(keyMinusQuery) {
  if (keyMinusQuery === 0) return 'the key is the query’s own position';
  const n = Math.abs(keyMinusQuery);
  return `the key is ${int(n)} token${n === 1 ? '' : 's'} ${keyMinusQuery < 0 ? 'before' : 'after'} the query`;
}

/** @param {Section} section */
export function distancePart(section) {
  const { pe } = section;
  const sign = section.panel('sign', SIGN);
  const clip = section.panel('shaw', CLIP);
  const distFig = section.figure('distance');
  const shawFig = section.figure('shaw');
  /** @type {Lengths | null} */
  let lengths = null;
  /** @type {import('posenc').IndexTensor | null} */
  let indices = null;
  let k = 4;
  let cell = { row: 9, col: 3 };
  const onCursor = (/** @type {import('../../plot/heatmap.js').Cell} */ c) => {
    cell = c;
    distance.setCursor(c.row, c.col);
    shaw.setCursor(c.row, c.col);
    read();
  };
  const score = shawScorePart(section, onCursor);
  const distance = new Heatmap(distFig.plot(), {
    label: 'Distance between every query and key', xLabel: 'key j', yLabel: 'query i', legendLabel: 'distance (tokens)', onCursor,
  });
  const shaw = new Heatmap(shawFig.plot(), {
    label: 'The row of the Shaw relative table each query and key pair reads', xLabel: 'key j', yLabel: 'query i', legendLabel: 'table row', onCursor,
  });

  /** @param {number} i @param {number} j */
  const keyMinusQuery = (i, j) => j - ((lengths?.queryOffset ?? 0) + i);
  const signOf = () => (sign.get('sign') === 'key-minus-query' ? 1 : -1);

  /** Shaw's indices for the lengths (throws posenc's error). @param {Lengths} s */
  function computeShaw(s) {
    k = clip.get('shawK');
    indices = pe.shaw.relativeIndices({ qLen: s.qLen, kLen: s.kLen, maxRelativePosition: k, queryOffset: s.queryOffset });
    shaw.setData({ values: Float32Array.from(indices.data), rows: s.qLen, cols: s.kLen, range: [0, 2 * k], colormap: 'sequential' });
    section.calls('shaw', [
      `pe.shaw.relativeIndices({ qLen: ${s.qLen}, kLen: ${s.kLen}, maxRelativePosition: ${k}, queryOffset: ${s.queryOffset} });   // rows of a [${2 * k + 1}, d] table`,
    ]);
    score.update(s, k);
  }

  function drawDistance() {
    if (!lengths) return;
    const { qLen, kLen } = lengths;
    const s = signOf();
    const values = new Float32Array(qLen * kLen);
    let max = 1;
    for (let i = 0; i < qLen; i++) {
      for (let j = 0; j < kLen; j++) {
        values[i * kLen + j] = s * keyMinusQuery(i, j);
        max = Math.max(max, Math.abs(values[i * kLen + j]));
      }
    }
    distance.o.legendLabel = s > 0 ? 'j − i (tokens)' : 'i − j (tokens)';
    distance.setData({ values, rows: qLen, cols: kLen, range: [-max, max] });
  }

  function read() {
    if (!lengths || !indices) return;
    cell = { row: Math.min(cell.row, lengths.qLen - 1), col: Math.min(cell.col, lengths.kLen - 1) };
    distance.setCursor(cell.row, cell.col);
    shaw.setCursor(cell.row, cell.col);
    score.setCursor(cell);
    const { row: i, col: j } = cell;
    const d = keyMinusQuery(i, j);
    const s = signOf();
    setReadout(distFig.readout(),
      [field('query i', String(i), 'i'), ` (position ${int(lengths.queryOffset + i)})   `, field('key j', String(j), 'j')],
      [s > 0 ? 'j − i = ' : 'i − j = ', valueSpan('distance', int(s * d)), `: ${describeDistance(d)}`]);
    const index = indices.data[i * lengths.kLen + j];
    setReadout(shawFig.readout(),
      [field('j − i', int(d), 'distance'), `   clipped to ±${k}: `, valueSpan('clipped', int(index - k))],
      ['table row = ', valueSpan('index', String(index)), ` of ${2 * k + 1}   (row ${k} is distance 0)`]);
  }

  const updateShaw = section.updater({ status: section.status(clip), figures: [shawFig, score.figure] }, () => {
    if (!lengths) return false;
    computeShaw(lengths);
    read();
    return true;
  });
  clip.onChange(() => updateShaw());
  sign.onChange(() => {
    drawDistance();
    read();
  });

  return {
    figures: [distFig, shawFig, score.figure],
    /** New lengths (posenc has checked them). @param {Lengths} s */
    update(s) {
      lengths = s;
      drawDistance();
      updateShaw();
    },
  };
}
