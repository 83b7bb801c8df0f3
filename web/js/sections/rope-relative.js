// RoPE, part 2: q·k depends only on m − n. One random query is copied to positions 0..N-1 and one
// random key likewise; one pe.rope.apply call rotates both with the section's spec (scaled or not);
// the page then takes all N × N dot products (presentation maths) and shows that every diagonal
// m − n = const holds one value.
import { numberControl, perFrame } from '../lib/controls.js';
import { sig, signed } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';
import { randomVector } from '../lib/toy.js';

export function mountRelative(pe) {
  const $ = (id) => document.getElementById(id);
  let spec = null;
  let seed = 1;
  let scores = null; // { n, values: Float64Array }
  let cell = { row: 10, col: 4 };
  const count = numberControl('rope-qk-n', perFrame(() => recompute()));
  const heatmap = new Heatmap($('rope-qk'), {
    label: 'q·k for every query position m and key position n',
    xLabel: 'key position n', yLabel: 'query position m', legendLabel: 'q·k (unitless)',
    onCursor: (c) => {
      cell = c;
      showCell();
    },
  });
  $('rope-qk-new').addEventListener('click', () => {
    seed += 1;
    recompute();
  });

  function recompute() {
    if (!spec) return [];
    const n = Math.round(count.get());
    if (!(n >= 2 && n <= 512)) return [];
    const d = spec.spec.headDim;
    const q = randomVector(d, 2 * seed);
    const k = randomVector(d, 2 * seed + 1);
    const Q = new Float32Array(n * d);
    const K = new Float32Array(n * d);
    for (let r = 0; r < n; r++) {
      Q.set(q, r * d);
      K.set(k, r * d);
    }
    // Row r of Q and K is at position r (offset 0): q rotated to every m, k to every n, in one call.
    pe.rope.apply({ data: Q, dims: [n, d] }, { data: K, dims: [n, d] }, spec.apply);
    const values = new Float64Array(n * n);
    let max = 0;
    for (let m = 0; m < n; m++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let l = 0; l < d; l++) s += Q[m * d + l] * K[j * d + l];
        values[m * n + j] = s;
        max = Math.max(max, Math.abs(s));
      }
    }
    scores = { n, values };
    $('rope-qk').dataset.seed = String(seed); // which random q and k (randomVector seeds 2·seed and 2·seed + 1)
    heatmap.setData({ values, rows: n, cols: n, range: [-max || -1, max || 1] });
    cell = { row: Math.min(cell.row, n - 1), col: Math.min(cell.col, n - 1) };
    heatmap.setCursor(cell.row, cell.col);
    showCell();
    return [`pe.rope.apply({ data: Q, dims: [${n}, ${d}] }, { data: K, dims: [${n}, ${d}] }, { ...spec, seqLen: ${spec.seqLen} });   // rows at positions 0..${n - 1}`];
  }

  function showCell() {
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
    setReadout($('rope-qk-readout'),
      field('m', String(m)), '   ', field('n', String(j)), '   ', field('m − n', String(m - j), 'distance'), '\n',
      `q_m · k_n = `, valueSpan('score', signed(values[m * n + j], 6)),
      `   the ${cells} cells with m − n = ${m - j} span `, valueSpan('spread', sig(hi - lo, 2)),
    );
  }

  return {
    update(shared) {
      spec = shared;
      return recompute();
    },
  };
}
