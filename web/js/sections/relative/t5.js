// Relative positions, part 2: T5's distance buckets. The bucket of every (query, key) pair from
// pe.t5.buckets, the bucket as a function of the distance j − i (one pe.t5.buckets row reaching
// ±reach), and the list of distances each bucket holds, read off that row (t5-list.js).
import { seriesColour } from '../../plot/colormap.js';
import { Heatmap } from '../../plot/heatmap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { choice, number } from '../../ui/control-specs.js';
import { int } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { PageError } from '../../ui/section.js';
import { bucketList, bucketRanges, rangeText } from './t5-list.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').Lengths} Lengths */

const SETTINGS = {
  numBuckets: number({ label: 'numBuckets', value: 32, step: 1, max: 512 }),
  maxDistance: number({ label: 'maxDistance', unit: 'tokens', value: 128, step: 1, max: 100000 }),
  direction: choice({ label: 'direction', as: 'radio', value: 'bidirectional', options: [['bidirectional', 'bidirectional (encoder)'], ['causal', 'causal (decoder)']] }),
};

/** @param {Section} section */
export function t5Part(section) {
  const { pe } = section;
  const settings = section.panel('t5', SETTINGS);
  const mapFig = section.figure('t5-map');
  const curveFig = section.figure('t5-curve');
  /** @type {Lengths | null} */
  let lengths = null;
  /** @type {{ curve: Int32Array, reach: number, ranges: ReturnType<typeof bucketRanges> } | null} */
  let state = null;
  let cell = { row: 3, col: 20 };
  let distance = -20; // selected in the curve or the list

  const map = new Heatmap(mapFig.plot(), {
    label: 'The T5 bucket of every query and key pair', xLabel: 'key j', yLabel: 'query i', legendLabel: 'bucket',
    onCursor: (c) => {
      cell = c;
      selectDistance(c.col - ((lengths?.queryOffset ?? 0) + c.row));
      readCell();
    },
  });
  const curve = new LinePlot(curveFig.plot(), {
    label: 'T5 bucket against the distance j − i', xLabel: 'distance j − i (tokens)', yLabel: 'bucket', onCursor: (d) => selectDistance(d),
  });
  const list = bucketList(section.part('t5-list'), (b) => {
    const r = state?.ranges[b];
    if (state && r) selectDistance(r.lo === -state.reach ? r.hi : r.lo);
  }, (step) => state?.curve[distance + state.reach] === undefined ? null : state.curve[distance + state.reach] + step);

  /** @param {number} wanted */
  function selectDistance(wanted) {
    if (!state) return;
    // beyond ±reach (≥ 2 maxDistance) every distance shares the bucket of ±reach
    const d = Math.max(-state.reach, Math.min(state.reach, wanted));
    distance = d;
    curve.setCursorIndex(d + state.reach);
    const b = state.curve[d + state.reach];
    list.select(b);
    setReadout(curveFig.readout(), [field('j − i', int(d), 'distance'), ' → ', field('bucket', String(b))],
      ['shared by j − i: ', valueSpan('range', rangeText(state.ranges[b], state.reach))]);
  }

  function readCell() {
    if (!state || !lengths) return;
    const { row: i, col: j } = cell;
    const b = map.value(i, j);
    setReadout(mapFig.readout(), [field('i', String(i)), '   ', field('j', String(j)), '   ', field('j − i', int(j - (lengths.queryOffset + i)), 'distance')],
      ['bucket = ', valueSpan('bucket', String(b)), ', shared by j − i: ', valueSpan('range', rangeText(state.ranges[b], state.reach))]);
  }

  const update = section.updater({ status: section.status(settings), figures: [mapFig, curveFig] }, () => {
    if (!lengths) return false;
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const { numBuckets, maxDistance } = settings.values();
    const params = { numBuckets, maxDistance, bidirectional: settings.get('direction') === 'bidirectional' };
    const reach = Math.max(16, Math.min(4096, 2 * Math.round(maxDistance) || 0));
    const buckets = pe.t5.buckets({ ...lengths, ...params });
    const row = pe.t5.buckets({ qLen: 1, kLen: 2 * reach + 1, queryOffset: reach, ...params }).data;
    const { qLen, kLen, queryOffset } = lengths;
    const keep = distance; // setData moves the map's cursor, which selects its distance: keep the chosen one
    state = { curve: row, reach, ranges: bucketRanges(row, reach, numBuckets) };
    map.setData({ values: Float32Array.from(buckets.data), rows: qLen, cols: kLen, range: [0, numBuckets - 1], colormap: 'sequential' });
    cell = { row: Math.min(cell.row, qLen - 1), col: Math.min(cell.col, kLen - 1) };
    map.setCursor(cell.row, cell.col);
    const x = Float64Array.from({ length: row.length }, (_, k) => k - reach);
    curve.setSeries([{ name: `bucket (${params.bidirectional ? 'bidirectional' : 'causal'})`, color: seriesColour(0), x, y: Float64Array.from(row) }]);
    curve.setLines({ vlines: [{ at: -maxDistance, label: '', color: '#999' }, { at: maxDistance, label: 'maxDistance', color: '#999' }] });
    list.fill(state.ranges, reach);
    selectDistance(keep);
    readCell();
    section.calls('t5', [
      `pe.t5.buckets({ qLen: ${qLen}, kLen: ${kLen}, queryOffset: ${queryOffset}, numBuckets: ${numBuckets}, maxDistance: ${maxDistance}, bidirectional: ${params.bidirectional} });`,
    ]);
    return true;
  });
  settings.onChange(() => update());

  return {
    figures: [mapFig, curveFig],
    /** @param {Lengths} s */
    update(s) {
      lengths = s;
      update();
    },
  };
}
