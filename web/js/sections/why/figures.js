// "Why order matters", the two attention matrices: the sentence in order (A) and permuted (B), with
// one cursor on the same two words in both, and their readouts.
import { Heatmap } from '../../plot/heatmap.js';
import { fixed, signed } from '../../ui/format.js';
import { setReadout, valueSpan } from '../../ui/readout.js';

/** @typedef {ReturnType<typeof import('./model.js').compareAll>} Comparison */
/** @typedef {import('./model.js').EncodingId} EncodingId */
/** @typedef {import('../../ui/section.js').Figure} Figure */

/** @param {string} w */
const quote = (w) => `'${w}'`;

/** @param {Figure} original @param {Figure} permuted */
export function attentionFigures(original, permuted) {
  /** @type {Comparison | null} */
  let state = null;
  /** @type {EncodingId} */
  let encoding = 'none';
  let cell = { i: 0, j: 1 }; // original token indices
  const common = {
    xLabel: 'key token', yLabel: 'query token', legendLabel: 'attention weight', margin: { left: 78 },
    cellText: (/** @type {number} */ v) => fixed(v, 2),
  };
  const heatA = new Heatmap(original.plot(), {
    ...common, label: 'Attention weights of the sentence in its order', onCursor: ({ row, col }) => pick(row, col),
  });
  const heatB = new Heatmap(permuted.plot(), {
    ...common, label: 'Attention weights of the permuted sentence',
    onCursor: ({ row, col }) => state && pick(state.order[row], state.order[col]),
  });

  /** Puts both cursors on query word i and key word j (original indices) and reads them. @param {number} i @param {number} j */
  function pick(i, j) {
    if (!state) return;
    cell = { i, j };
    const { words, pos, results } = state;
    const r = results[encoding];
    const n = words.length;
    heatA.setCursor(i, j);
    heatB.setCursor(pos[i], pos[j]);
    const a = r.a[i * n + j];
    const b = r.b[pos[i] * n + pos[j]];
    setReadout(original.readout(),
      ['query ', valueSpan('query', quote(words[i])), ` (i = ${i}) → key `, valueSpan('key', quote(words[j])), ` (j = ${j})`],
      ['weight = ', valueSpan('weight', fixed(a, 6))]);
    setReadout(permuted.readout(),
      [`query ${quote(words[i])} (now ${pos[i]}) → key ${quote(words[j])} (now ${pos[j]})`],
      ['weight = ', valueSpan('weight', fixed(b, 6)), '   change = ', valueSpan('change', signed(b - a, 6))]);
  }

  return {
    /** Draws one encoding's two matrices. @param {Comparison} s @param {EncodingId} id */
    show(s, id) {
      state = s;
      encoding = id;
      const { words, permuted: moved, results } = s;
      const n = words.length;
      const r = results[id];
      let top = 0;
      for (let i = 0; i < n * n; i++) top = Math.max(top, r.a[i], r.b[i]);
      /** @type {[number, number]} */
      const range = [0, Math.min(1, Math.ceil(top * 10) / 10)];
      original.element.querySelector('q')?.replaceChildren(words.join(' '));
      permuted.element.querySelector('q')?.replaceChildren(moved.join(' '));
      heatA.setData({ values: r.a, rows: n, cols: n, range, colormap: 'sequential', rowLabels: words, colLabels: words });
      heatB.setData({ values: r.b, rows: n, cols: n, range, colormap: 'sequential', rowLabels: moved, colLabels: moved });
      pick(Math.min(cell.i, n - 1), Math.min(cell.j, n - 1));
    },
  };
}
