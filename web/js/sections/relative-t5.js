// Relative positions, part 2: T5's distance buckets. The bucket of every (query, key) pair from
// pe.t5.buckets, the bucket as a function of the distance j − i (one pe.t5.buckets row reaching
// ±reach), and the list of distances each bucket holds, read off that row.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { choiceControl, numberControl, perFrame, showStatus } from '../lib/controls.js';
import { int } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';

/**
 * The distances (key − query) each bucket holds, from `curve` = the buckets of distances
 * −reach..reach. Returns [{ lo, hi, count }] by bucket (undefined for a bucket no distance reaches);
 * a range touching ±reach goes on beyond it (every farther distance shares the bucket).
 */
export function bucketRanges(curve, reach, numBuckets) {
  const ranges = new Array(numBuckets);
  for (let k = 0; k < curve.length; k++) {
    const b = curve[k];
    const d = k - reach;
    const r = ranges[b];
    if (!r) ranges[b] = { lo: d, hi: d, count: 1 };
    else {
      r.lo = Math.min(r.lo, d);
      r.hi = Math.max(r.hi, d);
      r.count++;
    }
  }
  return ranges;
}

/** '−22 … −16', '≤ −91', '≥ 91', '5'. */
export function rangeText(r, reach) {
  if (!r) return 'no distance';
  if (r.lo === -reach && r.hi === reach) return 'every distance';
  if (r.lo === -reach) return `≤ ${int(r.hi)}`;
  if (r.hi === reach) return `≥ ${int(r.lo)}`;
  return r.lo === r.hi ? int(r.lo) : `${int(r.lo)} … ${int(r.hi)}`;
}

export function mountT5(pe, showCalls) {
  const $ = (id) => document.getElementById(id);
  const status = $('rel-t5-status');
  const update = perFrame(() => recompute());
  const numBuckets = numberControl('rel-t5-buckets', update);
  const maxDistance = numberControl('rel-t5-maxdist', update);
  const direction = choiceControl('rel-t5-dir', update, $('relative'));
  const list = $('rel-t5-list');
  let shared = null;
  let state = null; // { params, map, curve, reach, ranges }
  let cell = { row: 3, col: 20 };
  let distance = -20; // selected in the curve / list

  const map = new Heatmap($('rel-t5-map'), {
    label: 'The T5 bucket of every query and key pair', xLabel: 'key j', yLabel: 'query i', legendLabel: 'bucket',
    onCursor: (c) => {
      cell = c;
      selectDistance(c.col - (shared.queryOffset + c.row));
      showCell();
    },
  });
  const curve = new LinePlot($('rel-t5-curve'), {
    label: 'T5 bucket against the distance j − i', xLabel: 'distance j − i (tokens)', yLabel: 'bucket',
    onCursor: (d) => selectDistance(d),
  });
  list.addEventListener('click', (e) => {
    const item = e.target.closest('li[data-bucket]');
    if (item) selectBucket(Number(item.dataset.bucket));
  });
  list.addEventListener('keydown', (e) => {
    const step = { ArrowDown: 1, ArrowUp: -1 }[e.key];
    if (!step || !state) return;
    e.preventDefault();
    const b = state.curve[distance + state.reach] + step;
    if (b >= 0 && b < state.params.numBuckets) selectBucket(b);
  });

  function recompute() {
    if (!shared) return;
    const params = { numBuckets: numBuckets.get(), maxDistance: maxDistance.get(), bidirectional: direction.get() === 'bidirectional' };
    let buckets;
    let row;
    const reach = Math.max(16, Math.min(4096, 2 * Math.round(params.maxDistance) || 0));
    try {
      buckets = pe.t5.buckets({ ...shared, ...params });
      row = pe.t5.buckets({ qLen: 1, kLen: 2 * reach + 1, queryOffset: reach, ...params }).data;
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    showStatus(status, null);
    const { qLen, kLen } = shared;
    const keep = distance; // setData moves the map's cursor, which selects its distance: keep the chosen one
    state = { params, reach, curve: row, ranges: bucketRanges(row, reach, params.numBuckets) };
    map.setData({ values: Float32Array.from(buckets.data), rows: qLen, cols: kLen, range: [0, params.numBuckets - 1], colormap: 'sequential' });
    cell = { row: Math.min(cell.row, qLen - 1), col: Math.min(cell.col, kLen - 1) };
    map.setCursor(cell.row, cell.col);
    const x = Float64Array.from({ length: row.length }, (_, k) => k - reach);
    curve.setSeries([{ name: `bucket (${params.bidirectional ? 'bidirectional' : 'causal'})`, color: SERIES_COLOURS[0], x, y: Float64Array.from(row), style: 'line' }]);
    curve.setLines({ vlines: [{ at: -params.maxDistance, label: '', color: '#999' }, { at: params.maxDistance, label: 'maxDistance', color: '#999' }] });
    fillList();
    selectDistance(keep);
    showCell();
    showCalls('t5', [
      `pe.t5.buckets({ qLen: ${qLen}, kLen: ${kLen}, queryOffset: ${shared.queryOffset}, numBuckets: ${params.numBuckets}, maxDistance: ${params.maxDistance}, bidirectional: ${params.bidirectional} });`,
    ]);
  }

  function fillList() {
    const { ranges, reach } = state;
    // Array.from, not map: a bucket no distance reaches (bidirectional: numBuckets/2) is a hole in `ranges`
    list.replaceChildren(...Array.from(ranges, (r, b) => {
      const li = document.createElement('li');
      li.dataset.bucket = String(b);
      li.dataset.range = rangeText(r, reach);
      li.append(Object.assign(document.createElement('span'), { className: 'b', textContent: String(b) }),
        Object.assign(document.createElement('span'), { className: 'r', textContent: li.dataset.range }),
        Object.assign(document.createElement('span'), { className: 'n', textContent: r ? (r.lo === -reach || r.hi === reach ? '∞' : String(r.count)) : '0' }));
      return li;
    }));
  }

  function selectBucket(b) {
    const r = state.ranges[b];
    if (!r) return;
    selectDistance(r.lo === -state.reach ? r.hi : r.lo);
  }

  function selectDistance(wanted) {
    if (!state) return;
    // beyond ±reach (≥ 2 maxDistance) every distance shares the bucket of ±reach
    const d = Math.max(-state.reach, Math.min(state.reach, wanted));
    distance = d;
    curve.setCursorIndex(d + state.reach);
    const b = state.curve[d + state.reach];
    for (const li of list.children) {
      const on = Number(li.dataset.bucket) === b;
      li.classList.toggle('current', on);
      if (on) {
        li.setAttribute('aria-current', 'true');
        // keep it in view inside the list without scrolling the page
        if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
          list.scrollTop = li.offsetTop - list.clientHeight / 2;
        }
      } else li.removeAttribute('aria-current');
    }
    setReadout($('rel-t5-curve-readout'),
      field('j − i', int(d), 'distance'), ' → ', field('bucket', String(b)), '\n',
      'shared by j − i: ', valueSpan('range', rangeText(state.ranges[b], state.reach)),
    );
  }

  function showCell() {
    if (!state) return;
    const { row: i, col: j } = cell;
    const d = j - (shared.queryOffset + i);
    const b = map.value(i, j);
    const r = state.ranges[b];
    setReadout($('rel-t5-readout'),
      field('i', String(i)), '   ', field('j', String(j)), '   ', field('j − i', int(d), 'distance'), '\n',
      'bucket = ', valueSpan('bucket', String(b)), ', shared by j − i: ', valueSpan('range', rangeText(r, state.reach)),
    );
  }

  return {
    update(s) {
      shared = s;
      recompute();
    },
  };
}
