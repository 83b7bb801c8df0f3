// RoPE, part 2: q·k depends only on m − n. One random query is copied to positions 0..N-1 and one
// random key likewise; one pe.rope.apply call rotates both with the section's spec (scaled or not);
// then all N × N dot products (presentation maths): every diagonal m − n = const holds one value.
// Both run in the compute worker (512 positions × 512 lanes is 134 million products).
import { Heatmap } from '../../plot/heatmap.js';
import { button, number } from '../../ui/control-specs.js';
import { num, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { redrawnPart } from './part.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

const TOOLS = {
  positions: number({ label: 'positions', value: 64, step: 1, min: 2, max: 512, slider: [4, 256] }),
  shuffle: button({ label: 'New random q, k' }),
};

/** @param {Section} section */
export function scoresPart(section) {
  const tools = section.panel('scores', TOOLS);
  const figure = section.figure('scores');
  /** @type {RopeState | null} */
  let rope = null;
  let seed = 1;
  /** @type {{ n: number, values: Float64Array } | null} */
  let scores = null;
  let cell = { row: 10, col: 4 };
  const heatmap = new Heatmap(figure.plot(), {
    label: 'q·k for every query position m and key position n', xLabel: 'key position n', yLabel: 'query position m', legendLabel: 'q·k (unitless)',
    onCursor: (c) => {
      cell = c;
      read();
    },
  });

  function read() {
    if (!scores) return;
    const { n, values } = scores;
    const { row: m, col: j } = cell;
    // every cell on this diagonal, to show they agree
    let lo = Infinity;
    let hi = -Infinity;
    let cells = 0;
    for (let a = Math.max(0, m - j); a < n && a - (m - j) < n; a++) {
      const v = values[a * n + (a - (m - j))];
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
      cells++;
    }
    setReadout(figure.readout(), [field('m', String(m)), '   ', field('n', String(j)), '   ', field('m − n', String(m - j), 'distance')],
      ['q_m · k_n = ', valueSpan('score', signed(values[m * n + j], 6)), `   the ${cells} cells with m − n = ${m - j} span `, valueSpan('spread', num(hi - lo, 2))]);
  }

  const update = section.updater({ status: section.status(tools), figures: [figure] }, async (current) => {
    if (!rope) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const n = tools.get('positions');
    const d = rope.spec.headDim;
    const result = await section.compute.run('rope-scores', 'ropeScores', { n, seed, options: { ...rope.apply, headDim: d } });
    if (!result || !current()) return false;
    const { values } = result;
    let max = 0;
    for (const v of values) max = Math.max(max, Math.abs(v));
    scores = { n, values };
    figure.element.dataset.seed = String(seed); // which random q and k (randomVector seeds 2·seed and 2·seed + 1)
    heatmap.setData({ values: Float32Array.from(values), rows: n, cols: n, range: [-max || -1, max || 1] }); // float64 stays for the readout
    cell = { row: Math.min(cell.row, n - 1), col: Math.min(cell.col, n - 1) };
    heatmap.setCursor(cell.row, cell.col);
    read();
    section.calls('scores', [`pe.rope.apply({ data: Q, dims: [${n}, ${d}] }, { data: K, dims: [${n}, ${d}] }, { ...spec, seqLen: ${rope.seqLen} });   // rows at positions 0..${n - 1}`]);
    return true;
  });
  tools.onChange(() => update());
  tools.on('shuffle', () => {
    seed += 1;
    update();
  });

  return redrawnPart(figure, (state) => {
    rope = state;
    update();
  });
}
