// Section "Why order matters": self-attention over toy embeddings of a typed sentence and of a
// permutation of it. Without position information the attention matrix is only permuted (every
// token attends to every other token exactly as before); each encoding changes that. Encodings
// and attention are posenc calls (pe.sinusoidal.addTo, pe.learned.addTo, pe.attention.scores with
// rope or a bias from pe.alibi / pe.t5); the page only makes the toy inputs and compares.
import { choiceControl, perFrame, showStatus } from '../lib/controls.js';
import { sig } from '../lib/format.js';
import { Heatmap } from '../lib/heatmap.js';
import { setReadout, showCall, valueSpan } from '../lib/readout.js';
import {
  TOY_DIM as D, TOY_MAX_TOKENS, embedWords, project, randomVector, toyLearnedTable, toyProjections, toyT5Table,
} from '../lib/toy.js';

/** Largest difference still counted as "the same" (scores are float32, rows summed in another order). */
export const SAME_TOLERANCE = 1e-6;

export const ENCODINGS = [
  { id: 'none', name: 'no position information' },
  { id: 'sinusoidal', name: 'sinusoidal, added to the embeddings', href: '#sinusoidal' },
  { id: 'learned', name: 'learned table (toy), added', href: '#learned' },
  { id: 'rope', name: 'RoPE on q and k', href: '#rope' },
  { id: 'alibi', name: 'ALiBi bias (symmetric, slope ½)', href: '#rel-alibi' },
  { id: 't5', name: 'T5 bias (toy table)', href: '#rel-t5' },
];

/** Orders of the tokens: order[k] = the original index of the word now at position k. */
export const PERMUTATIONS = {
  reverse: (n) => Array.from({ length: n }, (_, k) => n - 1 - k),
  swap: (n) => Array.from({ length: n }, (_, k) => (k === 0 ? n - 1 : k === n - 1 ? 0 : k)),
  rotate: (n) => Array.from({ length: n }, (_, k) => (k + 1) % n),
  shuffle: (n) => {
    const r = randomVector(n, 77 + n);
    const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => r[a] - r[b]);
    return order.every((v, k) => v === k) ? PERMUTATIONS.rotate(n) : order;
  },
};

/** The words of a sentence (split at white space). */
export function tokenize(sentence) {
  return sentence.trim().split(/\s+/).filter(Boolean);
}

const TOY = { ...toyProjections(), learned: toyLearnedTable(), t5: toyT5Table() };

/** Self-attention weights [n, n] of `words` with one encoding, and the posenc calls that made them. */
export function attentionOf(pe, words, encoding) {
  const n = words.length;
  const x = embedWords(words);
  const dims = `[${n}, ${D}]`;
  const calls = [`const x = toyEmbeddings(words);   // ${dims}: one vector per word, hashed from the word (toy)`];
  if (encoding === 'none' || encoding === 'rope') {
    calls.push(encoding === 'none' ? '// nothing is added: x holds no position' : '// nothing is added to x: RoPE acts inside attention');
  } else if (encoding === 'sinusoidal') {
    pe.sinusoidal.addTo({ data: x, dims: [n, D] });
    calls.push(`pe.sinusoidal.addTo({ data: x, dims: ${dims} });   // x + PE: the position is now part of each vector`);
  } else if (encoding === 'learned') {
    pe.learned.addTo({ data: x, dims: [n, D] }, TOY.learned);
    calls.push(`pe.learned.addTo({ data: x, dims: ${dims} }, toyTable);   // x + E[p], toy table [${TOY_MAX_TOKENS}, ${D}]`);
  }
  const q = { data: project(x, TOY.wq, n, D), dims: [n, D] };
  const k = { data: project(x, TOY.wk, n, D), dims: [n, D] };
  const options = {};
  let optionText = '';
  if (encoding === 'rope') {
    options.rope = true;
    optionText = ', { rope: true }';
  } else if (encoding === 'alibi') {
    options.bias = pe.alibi.bias({ numHeads: 1, qLen: n, kLen: n, form: 'symmetric', maxBias: 1 });
    calls.push(`const bias = pe.alibi.bias({ numHeads: 1, qLen: ${n}, kLen: ${n}, form: 'symmetric', maxBias: 1 });   // −½·|i − j|`);
    optionText = ', { bias }';
  } else if (encoding === 't5') {
    options.bias = pe.t5.bias(TOY.t5, { qLen: n, kLen: n });
    calls.push(`const bias = pe.t5.bias(toyBuckets, { qLen: ${n}, kLen: ${n} });   // a scalar per distance bucket (toy table [32, 1])`);
    optionText = ', { bias }';
  }
  calls.splice(2, 0, 'const q = x·Wq, k = x·Wk;   // toy projections');
  const scores = pe.attention.scores(q, k, options).data;
  calls.push(`const A = pe.attention.scores(q, k${optionText});   // [${n}, ${n}], rows sum to 1`);
  return { scores, calls };
}

/** max |A[i, j] − B[pos[i], pos[j]]|: zero when B is A with rows and columns permuted. */
export function permutationGap(a, b, pos) {
  const n = pos.length;
  let gap = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) gap = Math.max(gap, Math.abs(a[i * n + j] - b[pos[i] * n + pos[j]]));
  }
  return gap;
}

const quote = (w) => `'${w}'`;

export function mount(root, pe) {
  const $ = (id) => document.getElementById(id);
  const status = $('why-status');
  const update = perFrame(() => recompute());
  const sentence = $('why-sentence');
  sentence.addEventListener('input', update);
  const permutation = choiceControl('why-perm', update);
  const encoding = choiceControl('why-encoding', () => show(), root);
  $('why-controls').addEventListener('submit', (e) => e.preventDefault());

  let state = null; // { words, order, pos, results: { [encoding]: { a, b, gap, calls } } }
  let cell = { i: 0, j: 1 }; // original token indices

  const common = { xLabel: 'key token', yLabel: 'query token', legendLabel: 'attention weight', margin: { left: 78 }, cellText: (v) => v.toFixed(2) };
  const heatA = new Heatmap($('why-a'), {
    ...common, label: 'Attention weights of the sentence in its order',
    onCursor: ({ row, col }) => pick(row, col),
  });
  const heatB = new Heatmap($('why-b'), {
    ...common, label: 'Attention weights of the permuted sentence',
    onCursor: ({ row, col }) => pick(state.order[row], state.order[col]),
  });

  function recompute() {
    const words = tokenize(sentence.value);
    if (words.length < 2) {
      showStatus(status, 'Type a sentence of at least two words.');
      return;
    }
    if (words.length > TOY_MAX_TOKENS) {
      showStatus(status, `The demo takes up to ${TOY_MAX_TOKENS} words (its toy learned table has ${TOY_MAX_TOKENS} rows); this sentence has ${words.length}.`);
      return;
    }
    showStatus(status, null);
    const n = words.length;
    const order = PERMUTATIONS[permutation.get()](n);
    const pos = new Array(n);
    order.forEach((original, k) => { pos[original] = k; });
    const permuted = order.map((i) => words[i]);
    const results = {};
    for (const { id } of ENCODINGS) {
      const a = attentionOf(pe, words, id);
      const b = attentionOf(pe, permuted, id);
      results[id] = { a: a.scores, b: b.scores, gap: permutationGap(a.scores, b.scores, pos), calls: a.calls };
    }
    state = { words, permuted, order, pos, results };
    cell = { i: Math.min(cell.i, n - 1), j: Math.min(cell.j, n - 1) };
    $('why-original').textContent = words.join(' ');
    $('why-permuted').textContent = permuted.join(' ');
    root.dataset.permuted = permuted.join(' ');
    showSummary();
    show();
  }

  /** Draws the chosen encoding's two matrices and its verdict. */
  function show() {
    if (!state) return;
    const { words, permuted, results, pos } = state;
    const n = words.length;
    const r = results[encoding.get()];
    let top = 0;
    for (let i = 0; i < n * n; i++) top = Math.max(top, r.a[i], r.b[i]);
    const range = [0, Math.min(1, Math.ceil(top * 10) / 10)];
    const keep = cell; // setData moves the cursors; put them back on the same tokens
    heatA.setData({ values: r.a, rows: n, cols: n, range, colormap: 'sequential', rowLabels: words, colLabels: words });
    heatB.setData({ values: r.b, rows: n, cols: n, range, colormap: 'sequential', rowLabels: permuted, colLabels: permuted });
    pick(keep.i, keep.j);
    const same = r.gap <= SAME_TOLERANCE;
    const id = encoding.get();
    const why = same
      ? id === 'none' ? 'each token attends to every other token exactly as before: nothing tells the model the order'
        : keepsDistances(pos) ? 'this permutation keeps every distance |i − j|, and this bias sees nothing else'
          : 'this permutation changes nothing this encoding can see'
      : 'the weights change with the order: the model can tell the two sentences apart';
    const verdict = $('why-verdict');
    verdict.dataset.same = String(same);
    setReadout(verdict,
      `${ENCODINGS.find((e) => e.id === id).name}: `, valueSpan('verdict', same ? 'same up to permutation' : 'different'), '\n',
      'largest |A[i, j] − B[π(i), π(j)]| = ', valueSpan('gap', sig(r.gap, 3)), `\n${why}`,
    );
    showCall($('why-call'), r.calls);
  }

  function pick(i, j) {
    if (!state) return;
    cell = { i, j };
    const { words, pos, results } = state;
    const r = results[encoding.get()];
    const n = words.length;
    heatA.setCursor(i, j);
    heatB.setCursor(pos[i], pos[j]);
    const a = r.a[i * n + j];
    const b = r.b[pos[i] * n + pos[j]];
    setReadout($('why-a-readout'),
      'query ', valueSpan('query', quote(words[i])), ` (i = ${i}) → key `, valueSpan('key', quote(words[j])), ` (j = ${j})\n`,
      'weight = ', valueSpan('weight', a.toFixed(6)),
    );
    setReadout($('why-b-readout'),
      `query ${quote(words[i])} (now ${pos[i]}) → key ${quote(words[j])} (now ${pos[j]})\n`,
      'weight = ', valueSpan('weight', b.toFixed(6)), '   change = ', valueSpan('change', (b - a >= 0 ? '+' : '−') + Math.abs(b - a).toFixed(6)),
    );
  }

  function showSummary() {
    for (const { id } of ENCODINGS) {
      const row = $('why-summary').querySelector(`tr[data-encoding="${id}"]`);
      const { gap } = state.results[id];
      const same = gap <= SAME_TOLERANCE;
      row.dataset.same = String(same);
      row.querySelector('[data-field="verdict"]').textContent = same ? 'same up to permutation' : 'different';
      row.querySelector('[data-field="gap"]').textContent = sig(gap, 3);
    }
  }

  recompute();
}

/** Whether a permutation keeps every distance |i − j| (reversal does). */
function keepsDistances(pos) {
  for (let i = 0; i < pos.length; i++) {
    for (let j = 0; j < pos.length; j++) if (Math.abs(pos[i] - pos[j]) !== Math.abs(i - j)) return false;
  }
  return true;
}
