// "Why order matters", the figures: the attention weights of the sentence (A) and of the permuted
// sentence (B), the outputs O = A·V and O′, and the differences once the permutation is undone.
// One cursor sits on the same words in every figure: a pair of words in the weights, a word and an
// output column in the outputs. "Undo the permutation" shows B and O′ with their rows (and B's
// columns) put back in the sentence's order, so that they can be compared cell by cell with A and O.
import { Heatmap } from '../../plot/heatmap.js';
import { fixed, num, signed } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { undoPermutation } from './model.js';

/** @typedef {ReturnType<typeof import('./model.js').compareAll>} Comparison */
/** @typedef {import('./model.js').EncodingId} EncodingId */
/** @typedef {import('../../ui/section.js').Figure} Figure */

/** @param {string} w */
const quote = (w) => `'${w}'`;

/** The largest |value| of some matrices (1 if all are 0). @param {...Float32Array} ms */
function largest(...ms) {
  let top = 0;
  for (const m of ms) for (const v of m) top = Math.max(top, Math.abs(v));
  return top || 1;
}

/** Entry-wise a − b. @param {Float32Array} a @param {Float32Array} b */
function minus(a, b) {
  return a.map((v, k) => v - b[k]);
}

/**
 * @param {{ original: Figure, permuted: Figure, output: Figure, output2: Figure, difference: Figure }} figures
 */
export function whyFigures({ original, permuted, output, output2, difference }) {
  /** @type {Comparison | null} */
  let state = null;
  /** @type {EncodingId} */
  let encoding = 'none';
  let undo = false;
  let cell = { i: 0, j: 1 }; // original token indices: query i, key j
  let column = 0; // the output column
  const words = { xLabel: 'key token', yLabel: 'query token', margin: { left: 78 } };
  const heatA = new Heatmap(original.plot(), {
    ...words, legendLabel: 'attention weight', cellText: (v) => fixed(v, 2),
    label: 'Attention weights of the sentence in its order', onCursor: ({ row, col }) => pick(row, col),
  });
  const heatB = new Heatmap(permuted.plot(), {
    ...words, legendLabel: 'attention weight', cellText: (v) => fixed(v, 2),
    label: 'Attention weights of the permuted sentence',
    onCursor: ({ row, col }) => state && (undo ? pick(row, col) : pick(state.order[row], state.order[col])),
  });
  const outputs = { xLabel: 'output column c', yLabel: 'token', legendLabel: 'output value', margin: { left: 78 } };
  const heatO = new Heatmap(output.plot(), {
    ...outputs, label: 'Attention output of the sentence, one row per word', onCursor: ({ row, col }) => pickOutput(row, col),
  });
  const heatO2 = new Heatmap(output2.plot(), {
    ...outputs, label: 'Attention output of the permuted sentence',
    onCursor: ({ row, col }) => state && pickOutput(undo ? row : state.order[row], col),
  });
  const diffA = new Heatmap(difference.plot('weights'), {
    ...words, legendLabel: 'A − B put back', label: 'Attention weights of the sentence minus those of the permuted sentence put back in order',
    onCursor: ({ row, col }) => pick(row, col),
  });
  const diffO = new Heatmap(difference.plot('outputs'), {
    ...outputs, legendLabel: 'O − O′ put back', label: 'Outputs of the sentence minus those of the permuted sentence put back in order',
    onCursor: ({ row, col }) => pickOutput(row, col),
  });

  /** Puts the weight cursors on query word i and key word j (original indices) and reads them. @param {number} i @param {number} j */
  function pick(i, j) {
    if (!state) return;
    cell = { i, j };
    const { words: w, pos, results } = state;
    const r = results[encoding];
    const n = w.length;
    heatA.setCursor(i, j);
    heatB.setCursor(undo ? i : pos[i], undo ? j : pos[j]);
    diffA.setCursor(i, j);
    const a = r.a[i * n + j];
    const b = r.b[pos[i] * n + pos[j]];
    setReadout(original.readout(),
      ['query ', valueSpan('query', quote(w[i])), ` (i = ${i}) → key `, valueSpan('key', quote(w[j])), ` (j = ${j})`],
      ['weight = ', valueSpan('weight', fixed(a, 6))]);
    setReadout(permuted.readout(),
      [`query ${quote(w[i])} (now ${pos[i]}) → key ${quote(w[j])} (now ${pos[j]})`],
      ['weight = ', valueSpan('weight', fixed(b, 6)), '   change = ', valueSpan('change', signed(b - a, 6))]);
    readDifference();
  }

  /** Puts the output cursors on word i (original index) and column c. @param {number} i @param {number} c */
  function pickOutput(i, c) {
    if (!state) return;
    cell = { i, j: cell.j };
    column = c;
    const { words: w, pos, results, dim } = state;
    const r = results[encoding];
    heatO.setCursor(i, c);
    heatO2.setCursor(undo ? i : pos[i], c);
    diffO.setCursor(i, c);
    const o = r.o[i * dim + c];
    const o2 = r.o2[pos[i] * dim + c];
    setReadout(output.readout(), ['word ', valueSpan('word', quote(w[i])), ` (row ${i})   `, field('c', String(c))],
      [`O[${i}, ${c}] = `, valueSpan('output', signed(o, 6))]);
    setReadout(output2.readout(), [`word ${quote(w[i])} (now row ${pos[i]})   c = ${c}`],
      [`O′[${pos[i]}, ${c}] = `, valueSpan('output', signed(o2, 6)), '   change = ', valueSpan('change', signed(o2 - o, 6))]);
    readDifference();
  }

  function readDifference() {
    if (!state) return;
    const r = state.results[encoding];
    setReadout(difference.readout(),
      ['largest |A − B put back| = ', valueSpan('weights-gap', num(r.gap, 3)), '   largest |O − O′ put back| = ', valueSpan('outputs-gap', num(r.outGap, 3))],
      [r.outGap <= 1e-6 ? 'every word’s output is what it was, only in another row: attention is permutation-equivariant here'
        : 'the words’ outputs changed: the position information reached them']);
  }

  /** The two sentences' labels and the rows of the permuted figures as they are drawn. */
  function permutedView() {
    const s = /** @type {Comparison} */ (state);
    return undo ? { labels: s.words, rows: s.words.map((_, i) => s.pos[i]) } : { labels: s.permuted, rows: s.permuted.map((_, k) => k) };
  }

  function draw() {
    if (!state) return;
    const { words: w, pos, results, dim } = state;
    const n = w.length;
    const r = results[encoding];
    /** @type {[number, number]} */
    const range = [0, Math.min(1, Math.ceil(largest(r.a, r.b) * 10) / 10)];
    const view = permutedView();
    original.element.querySelector('q')?.replaceChildren(w.join(' '));
    permuted.element.querySelector('q')?.replaceChildren(view.labels.join(' '));
    output2.element.querySelector('q')?.replaceChildren(view.labels.join(' '));
    permuted.element.dataset.undo = String(undo);
    const b = undo ? undoPermutation(r.b, pos, n, true) : r.b;
    const o2 = undo ? undoPermutation(r.o2, pos, dim, false) : r.o2;
    heatA.setData({ values: r.a, rows: n, cols: n, range, colormap: 'sequential', rowLabels: w, colLabels: w });
    heatB.setData({ values: b, rows: n, cols: n, range, colormap: 'sequential', rowLabels: view.labels, colLabels: view.labels });
    const top = largest(r.o, r.o2);
    heatO.setData({ values: r.o, rows: n, cols: dim, range: [-top, top], rowLabels: w });
    heatO2.setData({ values: o2, rows: n, cols: dim, range: [-top, top], rowLabels: view.labels });
    // the differences on the scale of the values compared: zero is white, a real change shows
    const backB = undoPermutation(r.b, pos, n, true);
    const backO = undoPermutation(r.o2, pos, dim, false);
    diffA.setData({ values: minus(r.a, backB), rows: n, cols: n, range: [-range[1], range[1]], rowLabels: w, colLabels: w });
    diffO.setData({ values: minus(r.o, backO), rows: n, cols: dim, range: [-top, top], rowLabels: w });
    pick(Math.min(cell.i, n - 1), Math.min(cell.j, n - 1));
    pickOutput(Math.min(cell.i, n - 1), Math.min(column, dim - 1));
  }

  return {
    /** Draws one encoding's figures. @param {Comparison} s @param {EncodingId} id @param {boolean} undone */
    show(s, id, undone) {
      state = s;
      encoding = id;
      undo = undone;
      draw();
    },
  };
}
