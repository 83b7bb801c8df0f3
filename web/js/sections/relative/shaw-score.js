// Relative positions, Shaw et al.'s attention score for every pair, e_ij = x_i W^Q (x_j W^K + a^K_ij)ᵀ / √d_z,
// from pe.shaw.logits on toy inputs: one vector x per position (random, the same on every load),
// the toy projections W^Q, W^K and a random table a^K of 2k + 1 rows, one per clipped distance.
// The readout splits the score of the chosen pair into its two terms, content and position
// (float64 sums here), which add up to posenc's value; the plot shows either term alone, also
// from pe.shaw.logits (with zero keys, or a zero table).
import { Heatmap } from '../../plot/heatmap.js';
import { choice } from '../../ui/control-specs.js';
import { int, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { project, randomVector, toyProjections } from '../../toy.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').Lengths} Lengths */

/** The head width d_z of the toy model. */
export const SHAW_DIM = 16;

/** The toy token vector at absolute position p. @param {number} p */
export const tokenAt = (p) => randomVector(SHAW_DIM, 9000 + p);

/** The toy relative-key table a^K: 2k + 1 rows of width d_z. @param {number} k */
export const relativeKeys = (k) => randomVector((2 * k + 1) * SHAW_DIM, 606).map((v) => 1.5 * v);

/**
 * Queries and keys of the toy model: x W^Q for the queries at positions offset..offset+qLen-1,
 * x W^K for the keys at 0..kLen-1.
 * @param {Lengths} s
 */
export function toyQueriesKeys(s) {
  const { wq, wk } = toyProjections(SHAW_DIM);
  const xq = new Float32Array(s.qLen * SHAW_DIM);
  for (let i = 0; i < s.qLen; i++) xq.set(tokenAt(s.queryOffset + i), i * SHAW_DIM);
  const xk = new Float32Array(s.kLen * SHAW_DIM);
  for (let j = 0; j < s.kLen; j++) xk.set(tokenAt(j), j * SHAW_DIM);
  return { q: project(xq, wq, s.qLen, SHAW_DIM), k: project(xk, wk, s.kLen, SHAW_DIM) };
}

const SHOW = {
  term: choice({
    label: 'show', as: 'radio', value: 'both',
    options: [['both', 'e_ij'], ['position', 'position term'], ['content', 'content term']],
  }),
};

/**
 * @param {Section} section
 * @param {(cell: { row: number, col: number }) => void} onCursor  the reader moved the cursor here
 */
export function shawScorePart(section, onCursor) {
  const { pe } = section;
  const show = section.panel('shaw-score', SHOW);
  const figure = section.figure('shaw-score');
  /** @type {{ s: Lengths, k: number, q: Float32Array, keys: Float32Array, table: Float32Array, e: Float32Array } | null} */
  let state = null;
  let cell = { row: 9, col: 3 };
  const heatmap = new Heatmap(figure.plot(), {
    label: 'Shaw attention score of every query and key pair', xLabel: 'key j', yLabel: 'query i', legendLabel: 'score (logit)', onCursor,
  });

  function read() {
    if (!state) return;
    const { s, k, q, keys, table, e } = state;
    const i = Math.min(cell.row, s.qLen - 1);
    const j = Math.min(cell.col, s.kLen - 1);
    const d = SHAW_DIM;
    const row = Math.max(-k, Math.min(k, j - (s.queryOffset + i))) + k;
    let content = 0;
    let position = 0;
    for (let c = 0; c < d; c++) {
      content += q[i * d + c] * keys[j * d + c];
      position += q[i * d + c] * table[row * d + c];
    }
    content /= Math.sqrt(d);
    position /= Math.sqrt(d);
    setReadout(figure.readout(),
      [field('i', String(i)), '   ', field('j', String(j)), `   j − i = ${int(j - (s.queryOffset + i))} → row `, valueSpan('row', String(row)), ` of aᴷ (2k + 1 = ${2 * k + 1} rows)`],
      ['content qᵢ·kⱼ/√d_z = ', valueSpan('content', signed(content, 4)), '   position qᵢ·aᴷᵢⱼ/√d_z = ', valueSpan('position', signed(position, 4))],
      ['e_ij = ', valueSpan('sum', signed(content + position, 4)), '   pe.shaw.logits: ', valueSpan('score', signed(e[i * s.kLen + j], 4))]);
  }

  function draw() {
    if (!state) return;
    const { s, k, q, keys, table } = state;
    const term = show.get('term');
    const d = SHAW_DIM;
    const zeroKeys = new Float32Array(keys.length);
    const zeroTable = new Float32Array(table.length);
    const shown = term === 'both' ? state.e
      : pe.shaw.logits({ data: q, dims: [s.qLen, d] }, { data: term === 'position' ? zeroKeys : keys, dims: [s.kLen, d] },
        { data: term === 'position' ? table : zeroTable, dims: [2 * k + 1, d] }, { queryOffset: s.queryOffset }).data;
    let max = 0;
    for (const v of shown) max = Math.max(max, Math.abs(v));
    heatmap.setData({ values: shown, rows: s.qLen, cols: s.kLen, range: [-(max || 1), max || 1] });
    heatmap.setCursor(cell.row, cell.col);
    read();
  }
  /** @type {{ s: Lengths, k: number } | null} */
  let wanted = null;
  // a task of its own (512 × 512 scores), after the figures of the same settings
  const refresh = section.updater({ status: section.status(show), figures: [figure] }, () => {
    if (!wanted) return false;
    const { s, k } = wanted;
    if (!state || state.s !== s || state.k !== k) {
      const { q, k: keys } = toyQueriesKeys(s);
      const table = relativeKeys(k);
      const e = pe.shaw.logits({ data: q, dims: [s.qLen, SHAW_DIM] }, { data: keys, dims: [s.kLen, SHAW_DIM] },
        { data: table, dims: [2 * k + 1, SHAW_DIM] }, { queryOffset: s.queryOffset }).data;
      state = { s, k, q, keys, table, e };
      section.calls('shaw-score', [
        `pe.shaw.logits(q, k, aK, { queryOffset: ${s.queryOffset} });   // q [${s.qLen}, ${SHAW_DIM}], k [${s.kLen}, ${SHAW_DIM}], aK [${2 * k + 1}, ${SHAW_DIM}] → e [${s.qLen}, ${s.kLen}], scale 1/√${SHAW_DIM}`,
      ]);
    }
    draw();
    return true;
  });
  show.onChange(() => refresh());

  return {
    figure,
    /** New lengths or a new clip distance k (posenc has checked both). @param {Lengths} s @param {number} k */
    update(s, k) {
      wanted = { s, k };
      refresh();
    },
    /** @param {{ row: number, col: number }} c */
    setCursor(c) {
      cell = c;
      heatmap.setCursor(c.row, c.col);
      read();
    },
  };
}
