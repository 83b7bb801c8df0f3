// Relative positions, part 3: DeBERTa's log buckets of i − j (query minus key) out to twice
// maxPosition, from pe.deberta.relativePositions: the exact region (a bucket per distance), the
// logarithmic region, and how the buckets go on growing past maxPosition while the row the c2p
// term reads (pe.deberta.c2pIndices) is clamped to the 2·attSpan rows of the relative table.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { numberControl, perFrame, showStatus } from '../lib/controls.js';
import { int } from '../lib/format.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';

const MAX_REACH = 16384;

export function mountDeberta(pe, showCalls) {
  const $ = (id) => document.getElementById(id);
  const status = $('rel-deb-status');
  const update = perFrame(() => recompute());
  const bucketSize = numberControl('rel-deb-bucket', update);
  const maxPosition = numberControl('rel-deb-maxpos', update);
  let state = null; // { params, reach, buckets: Int32Array (index = distance + reach), attSpan }
  let distance = 700;

  const plot = new LinePlot($('rel-deberta-plot'), {
    label: 'DeBERTa bucket against the distance i − j', xLabel: 'distance i − j (tokens)', yLabel: 'bucket',
    onCursor: (d) => select(d),
  });

  /** The c2p row (pe.deberta.c2pIndices) of query i and key j with i − j = d. */
  function c2pRow(d) {
    const { params } = state;
    return d >= 0
      ? pe.deberta.c2pIndices({ qLen: d + 1, kLen: 1, ...params }).data[d]
      : pe.deberta.c2pIndices({ qLen: 1, kLen: -d + 1, ...params }).data[-d];
  }

  function recompute() {
    const params = { bucketSize: bucketSize.get(), maxPosition: maxPosition.get() };
    const reach = Math.max(16, Math.min(MAX_REACH, 2 * Math.round(params.maxPosition) || 0));
    let after;
    let before;
    let attSpan;
    try {
      // one column (i = 0..reach, j = 0) and one row (i = 0, j = 0..reach): distances 0..reach and 0..−reach
      after = pe.deberta.relativePositions({ qLen: reach + 1, kLen: 1, ...params }).data;
      before = pe.deberta.relativePositions({ qLen: 1, kLen: reach + 1, ...params }).data;
      attSpan = pe.deberta.attentionSpan(params);
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    showStatus(status, null);
    const buckets = new Int32Array(2 * reach + 1);
    for (let k = 0; k <= reach; k++) {
      buckets[reach + k] = after[k];
      buckets[reach - k] = before[k];
    }
    state = { params, reach, buckets, attSpan };
    const x = Float64Array.from({ length: buckets.length }, (_, k) => k - reach);
    const exact = Float64Array.from(buckets, (b, k) => (b === k - reach ? b : NaN));
    const log = Float64Array.from(buckets, (b, k) => (b === k - reach ? NaN : b));
    plot.setSeries([
      { name: 'exact', color: SERIES_COLOURS[0], x, y: exact, style: 'line', width: 2.5 },
      { name: 'logarithmic', color: SERIES_COLOURS[1], x, y: log, style: 'line', width: 2 },
    ]);
    plot.setLines({
      hlines: [
        { at: attSpan - 1, label: `c2p row clamped above ${attSpan - 1}`, color: '#888', side: 'left' },
        { at: -attSpan, label: `… and below −${attSpan}`, color: '#888', side: 'right' },
      ],
      vlines: [{ at: -params.maxPosition, label: '', color: SERIES_COLOURS[2] }, { at: params.maxPosition, label: 'maxPosition', color: SERIES_COLOURS[2] }],
    });
    select(Math.max(-reach, Math.min(reach, distance)));
    showCalls('deberta', [
      `pe.deberta.relativePositions({ qLen, kLen, bucketSize: ${params.bucketSize}, maxPosition: ${params.maxPosition} });   // buckets of i − j, not clamped`,
      `pe.deberta.c2pIndices({ qLen, kLen, bucketSize: ${params.bucketSize}, maxPosition: ${params.maxPosition} });   // clamped to 0..${2 * attSpan - 1}`,
    ]);
  }

  function select(d) {
    if (!state) return;
    distance = d;
    plot.setCursorIndex(d + state.reach);
    const b = state.buckets[d + state.reach];
    const row = c2pRow(d);
    const region = b === d ? 'exact region: one bucket per distance' : 'logarithmic region: shared with nearby distances';
    const beyond = Math.abs(d) >= state.params.maxPosition ? `; past maxPosition, so |bucket| > ${state.params.bucketSize ? state.params.bucketSize - 1 : state.params.maxPosition - 1}: not clamped` : '';
    setReadout($('rel-deberta-readout'),
      field('i − j', int(d), 'distance'), ' → ', field('bucket', int(b)), ` (${region}${beyond})\n`,
      'c2p row = clamp(bucket + attSpan, 0, 2·attSpan − 1) = ', valueSpan('c2p', int(row)), `   (attSpan = ${state.attSpan})`,
    );
  }

  return {
    update() {
      if (!state) recompute(); // DeBERTa's buckets do not depend on the section's lengths
    },
  };
}
