// "Why order matters", the computation: self-attention over toy embeddings of a sentence and of a
// permutation of it, with each way of giving positions. Encodings and attention are posenc calls
// (pe.sinusoidal.addTo, pe.learned.addTo, pe.attention.scores and .output with rope or a bias from
// pe.alibi / pe.t5); this module only makes the toy inputs and compares the results: the weights A
// and the outputs O = A·V of the sentence with those of the permuted sentence, put back in order.
import {
  TOY_DIM as D, TOY_MAX_TOKENS, embedWords, project, randomVector, toyLearnedTable, toyProjections, toyT5Table,
} from '../../toy.js';

/** @typedef {import('posenc').PosEnc} PosEnc */
/** @typedef {'none' | 'sinusoidal' | 'learned' | 'rope' | 'alibi' | 't5'} EncodingId */
/** @typedef {'reverse' | 'swap' | 'rotate' | 'shuffle'} PermutationId */

/** Largest difference still counted as "the same" (scores are float32, rows summed in another order). */
export const SAME_TOLERANCE = 1e-6;

/** @type {ReadonlyArray<{ id: EncodingId, name: string }>} */
export const ENCODINGS = [
  { id: 'none', name: 'no position information' },
  { id: 'sinusoidal', name: 'sinusoidal, added to the embeddings' },
  { id: 'learned', name: 'learned table (toy), added' },
  { id: 'rope', name: 'RoPE on q and k' },
  { id: 'alibi', name: 'ALiBi bias (symmetric, slope ½)' },
  { id: 't5', name: 'T5 bias (toy table)' },
];

/** @param {number} n */
const rotate = (n) => Array.from({ length: n }, (_, k) => (k + 1) % n);

/** Orders of the tokens: order[k] = the original index of the word now at position k. @type {Record<PermutationId, (n: number) => number[]>} */
export const PERMUTATIONS = {
  reverse: (n) => Array.from({ length: n }, (_, k) => n - 1 - k),
  swap: (n) => Array.from({ length: n }, (_, k) => (k === 0 ? n - 1 : k === n - 1 ? 0 : k)),
  rotate,
  shuffle: (n) => {
    const r = randomVector(n, 77 + n);
    const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => r[a] - r[b]);
    return order.every((v, k) => v === k) ? rotate(n) : order;
  },
};

/** The words of a sentence (split at white space). @param {string} sentence */
export function tokenize(sentence) {
  return sentence.trim().split(/\s+/).filter(Boolean);
}

const TOY = { ...toyProjections(), learned: toyLearnedTable(), t5: toyT5Table() };

/**
 * Self-attention weights [n, n] and outputs [n, dim] of `words` with one encoding, and the posenc
 * calls that made them.
 * @param {PosEnc} pe @param {string[]} words @param {EncodingId} encoding
 */
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
  calls.push('const q = x·Wq, k = x·Wk, v = x·Wv;   // toy projections');
  const q = { data: project(x, TOY.wq, n, D), dims: [n, D] };
  const k = { data: project(x, TOY.wk, n, D), dims: [n, D] };
  const v = { data: project(x, TOY.wv, n, D), dims: [n, D] };
  /** @type {import('posenc').AttentionOptions} */
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
  const scores = pe.attention.scores(q, k, options).data;
  const output = pe.attention.output(q, k, v, options).data;
  calls.push(`const A = pe.attention.scores(q, k${optionText});   // [${n}, ${n}], rows sum to 1`);
  calls.push(`const O = pe.attention.output(q, k, v${optionText});   // [${n}, ${D}] = A·v: one output row per word`);
  return { scores, output, calls };
}

/**
 * max |A[i, j] − B[pos[i], pos[j]]|: zero when B is A with rows and columns permuted.
 * @param {ArrayLike<number>} a @param {ArrayLike<number>} b @param {number[]} pos  where each original token now stands
 */
export function permutationGap(a, b, pos) {
  const n = pos.length;
  let gap = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) gap = Math.max(gap, Math.abs(a[i * n + j] - b[pos[i] * n + pos[j]]));
  }
  return gap;
}

/**
 * max |O[i, c] − O′[pos[i], c]| over words i and columns c: zero when the permuted sentence's
 * outputs are the sentence's, rows permuted (equivariance).
 * @param {ArrayLike<number>} o @param {ArrayLike<number>} o2 @param {number[]} pos @param {number} cols
 */
export function outputGap(o, o2, pos, cols) {
  let gap = 0;
  for (let i = 0; i < pos.length; i++) {
    for (let c = 0; c < cols; c++) gap = Math.max(gap, Math.abs(o[i * cols + c] - o2[pos[i] * cols + c]));
  }
  return gap;
}

/**
 * A matrix of the permuted sentence put back in the sentence's order: row (and, for a square
 * matrix of token pairs, column) i of the result is row pos[i] of `m`.
 * @param {Float32Array} m @param {number[]} pos @param {number} cols @param {boolean} square  permute the columns too
 */
export function undoPermutation(m, pos, cols, square) {
  const n = pos.length;
  const out = new Float32Array(n * cols);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < cols; c++) out[i * cols + c] = m[pos[i] * cols + (square ? pos[c] : c)];
  }
  return out;
}

/** Whether a permutation keeps every distance |i − j| (reversal does). @param {number[]} pos */
export function keepsDistances(pos) {
  for (let i = 0; i < pos.length; i++) {
    for (let j = 0; j < pos.length; j++) if (Math.abs(pos[i] - pos[j]) !== Math.abs(i - j)) return false;
  }
  return true;
}

/**
 * Every encoding on a sentence and a permutation of it: both attention matrices, the gap, the calls.
 * @param {PosEnc} pe @param {string[]} words @param {PermutationId} permutation
 */
export function compareAll(pe, words, permutation) {
  const n = words.length;
  const order = PERMUTATIONS[permutation](n);
  /** @type {number[]} */
  const pos = new Array(n);
  order.forEach((original, k) => { pos[original] = k; });
  const permuted = order.map((i) => words[i]);
  /** @type {Partial<Record<EncodingId, Result>>} */
  const results = {};
  for (const { id } of ENCODINGS) {
    const a = attentionOf(pe, words, id);
    const b = attentionOf(pe, permuted, id);
    results[id] = {
      a: a.scores, b: b.scores, gap: permutationGap(a.scores, b.scores, pos),
      o: a.output, o2: b.output, outGap: outputGap(a.output, b.output, pos, D), calls: a.calls,
    };
  }
  return { words, permuted, order, pos, dim: D, results: /** @type {Record<EncodingId, Result>} */ (results) };
}

/**
 * One encoding on the two sentences: weights a (the sentence) and b (permuted), outputs o and o2,
 * and the largest differences once the permutation is undone.
 * @typedef {{ a: Float32Array, b: Float32Array, gap: number, o: Float32Array, o2: Float32Array, outGap: number, calls: string[] }} Result
 */
