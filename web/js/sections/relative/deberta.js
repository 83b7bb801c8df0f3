// Relative positions, part 3: DeBERTa's log buckets of i − j (query minus key) out to twice
// maxPosition, from pe.deberta.relativePositions: the exact region (a bucket per distance), the
// logarithmic region, and how the buckets go on growing past maxPosition while the row the c2p
// term reads (pe.deberta.c2pIndices) is clamped to the 2·attSpan rows of the relative table.
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { number } from '../../ui/control-specs.js';
import { int } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';

/** @typedef {import('../../ui/section.js').Section} Section */

const MAX_REACH = 16384;
const SETTINGS = {
  bucketSize: number({ label: 'bucketSize', unit: '0 = no buckets', value: 256, step: 2, max: 4096 }),
  maxPosition: number({ label: 'maxPosition', value: 512, step: 1, max: 8192 }),
};

/** @param {Section} section */
export function debertaPart(section) {
  const { pe } = section;
  const settings = section.panel('deberta', SETTINGS);
  const figure = section.figure('deberta');
  /** @type {{ params: { bucketSize: number, maxPosition: number }, reach: number, buckets: Int32Array, attSpan: number } | null} */
  let state = null;
  let distance = 700;
  const plot = new LinePlot(figure.plot(), {
    label: 'DeBERTa bucket against the distance i − j', xLabel: 'distance i − j (tokens)', yLabel: 'bucket', onCursor: (d) => select(d),
  });

  /** The c2p row (pe.deberta.c2pIndices) of query i and key j with i − j = d. @param {number} d */
  function c2pRow(d) {
    const { params } = /** @type {NonNullable<typeof state>} */ (state);
    return d >= 0
      ? pe.deberta.c2pIndices({ qLen: d + 1, kLen: 1, ...params }).data[d]
      : pe.deberta.c2pIndices({ qLen: 1, kLen: -d + 1, ...params }).data[-d];
  }

  /** @param {number} wanted */
  function select(wanted) {
    if (!state) return;
    const d = Math.max(-state.reach, Math.min(state.reach, wanted));
    distance = d;
    plot.setCursorIndex(d + state.reach);
    const b = state.buckets[d + state.reach];
    const { bucketSize, maxPosition } = state.params;
    const region = b === d ? 'exact region: one bucket per distance' : 'logarithmic region: shared with nearby distances';
    const beyond = Math.abs(d) >= maxPosition ? `; past maxPosition, so |bucket| > ${bucketSize ? bucketSize - 1 : maxPosition - 1}: not clamped` : '';
    setReadout(figure.readout(), [field('i − j', int(d), 'distance'), ' → ', field('bucket', int(b)), ` (${region}${beyond})`],
      ['c2p row = clamp(bucket + attSpan, 0, 2·attSpan − 1) = ', valueSpan('c2p', int(c2pRow(d))), `   (attSpan = ${state.attSpan})`]);
  }

  const update = section.updater({ status: section.status(settings), figures: [figure] }, () => {
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const params = settings.values();
    const reach = Math.max(16, Math.min(MAX_REACH, 2 * Math.round(params.maxPosition) || 0));
    // one column (i = 0..reach, j = 0) and one row (i = 0, j = 0..reach): distances 0..reach and 0..−reach
    const after = pe.deberta.relativePositions({ qLen: reach + 1, kLen: 1, ...params }).data;
    const before = pe.deberta.relativePositions({ qLen: 1, kLen: reach + 1, ...params }).data;
    const attSpan = pe.deberta.attentionSpan(params);
    const buckets = new Int32Array(2 * reach + 1);
    for (let k = 0; k <= reach; k++) {
      buckets[reach + k] = after[k];
      buckets[reach - k] = before[k];
    }
    state = { params, reach, buckets, attSpan };
    const x = Float64Array.from({ length: buckets.length }, (_, k) => k - reach);
    plot.setSeries([
      { name: 'exact', color: seriesColour(0), x, y: Float64Array.from(buckets, (b, k) => (b === k - reach ? b : NaN)), width: 2.5 },
      { name: 'logarithmic', color: seriesColour(1), x, y: Float64Array.from(buckets, (b, k) => (b === k - reach ? NaN : b)), width: 2 },
    ]);
    plot.setLines({
      hlines: [{ at: attSpan - 1, label: `c2p row clamped above ${attSpan - 1}`, color: '#888' }, { at: -attSpan, label: `… and below −${attSpan}`, color: '#888' }],
      vlines: [{ at: -params.maxPosition, label: '', color: seriesColour(2) }, { at: params.maxPosition, label: 'maxPosition', color: seriesColour(2) }],
    });
    select(distance);
    section.calls('deberta', [
      `pe.deberta.relativePositions({ qLen, kLen, bucketSize: ${params.bucketSize}, maxPosition: ${params.maxPosition} });   // buckets of i − j, not clamped`,
      `pe.deberta.c2pIndices({ qLen, kLen, bucketSize: ${params.bucketSize}, maxPosition: ${params.maxPosition} });   // clamped to 0..${2 * attSpan - 1}`,
    ]);
  });
  settings.onChange(() => update());
  update(); // DeBERTa's buckets do not depend on the section's lengths
  return { figures: [figure] };
}
