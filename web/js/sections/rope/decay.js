// RoPE, the long-term decay of RoFormer (Su et al. 2021, section 3.4.3): grouping the pairs, the
// score of a query and a key whose lanes vary smoothly is bounded by a factor
// (1/(d/2)) Σ_j |S_j|, S_j = Σ_{k<j} e^{i(m−n)θ_k}, that shrinks as the distance m − n grows. The
// curve, for the section's frequencies (scaled ones included), runs in the compute worker
// (jobs.js ropeDecay, angles from pe.rope.angles).
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { number } from '../../ui/control-specs.js';
import { int, num } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { redrawnPart } from './part.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

/** The most points the curve computes (longer ranges are sampled evenly). */
export const DECAY_POINTS = 2048;

const TOOLS = {
  distance: number({ label: 'distance up to', unit: 'tokens', value: 512, step: 1, min: 16, max: 1_000_000, slider: [16, 8192] }),
};

/** The step between the distances computed for a range. @param {number} max */
export const decayStep = (max) => Math.max(1, Math.ceil(max / DECAY_POINTS));

/** @param {Section} section */
export function decayPart(section) {
  const tools = section.panel('decay', TOOLS);
  const figure = section.figure('decay');
  /** @type {RopeState | null} */
  let rope = null;
  /** @type {{ x: Float64Array, bound: Float64Array } | null} */
  let curve = null;
  const plot = new LinePlot(figure.plot(), {
    label: 'RoFormer relative upper bound against the relative distance', xLabel: 'relative distance m − n (tokens)',
    yLabel: '(1/(d/2)) Σ |S_j|', yZero: true, onCursor: (_, k) => read(k),
  });

  /** @param {number} k */
  function read(k) {
    if (!curve) return;
    const at = Math.max(0, Math.min(k, curve.x.length - 1));
    setReadout(figure.readout(),
      [field('m − n', int(curve.x[at]), 'distance'), '   bound factor = ', valueSpan('bound', num(curve.bound[at], 6))],
      ['at distance 0 every S_j = j, so the factor is (d/2 + 1)/2 = ', valueSpan('at-zero', num(curve.bound[0], 6))]);
  }

  const update = section.updater({ status: section.status(tools), figures: [figure] }, async (current) => {
    if (!rope) return false;
    const problem = tools.problem();
    if (problem) throw new PageError(problem);
    const maxDistance = tools.get('distance');
    if (!Number.isInteger(maxDistance)) throw new PageError(`distance up to must be a whole number, got ${maxDistance}`);
    const step = decayStep(maxDistance);
    const result = await section.compute.run('rope-decay', 'ropeDecay', { spec: rope.spec, seqLen: rope.seqLen, maxDistance, step });
    if (!result || !current()) return false;
    curve = result;
    plot.setSeries([{ name: 'relative upper bound', color: seriesColour(0), x: result.x, y: result.bound, width: 1.5 }]);
    plot.setLines({ vlines: rope.seqLen <= maxDistance ? [{ at: rope.seqLen, label: `context ${int(rope.seqLen)}`, color: '#888' }] : [] });
    const k = plot.cursorIndex ?? Math.round(result.x.length / 4);
    plot.setCursorIndex(k);
    read(k);
    section.calls('decay', [`pe.rope.angles(spec, [0, ${step}, …, ${int(maxDistance)}], { seqLen: ${rope.seqLen} });   // float64 [${result.x.length}, ${rope.freqs.invFreq.length}]: r·θ_k, then |S_j| summed`]);
    return true;
  });
  tools.onChange(() => update());

  return redrawnPart(figure, (state) => {
    rope = state;
    update();
  });
}
