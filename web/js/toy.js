// Toy inputs for the demos: deterministic pseudo-random numbers, so that a given seed (or word)
// always gives the same vector in the page and in the tests. These are stand-ins for a trained
// model's embeddings and weights, not part of any encoding.

/**
 * Deterministic numbers in [lo, hi) (xorshift32), so a given seed always draws the same vector; the
 * tests and the benchmark draw their data from it too.
 * @param {number} n @param {number} seed @param {number} [lo] @param {number} [hi]
 */
export function randomFloats(n, seed, lo = -1, hi = 1) {
  const out = new Float32Array(n);
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = lo + ((hi - lo) * s) / 4294967296;
  }
  return out;
}

/** Deterministic numbers in [-1, 1): the toy vector of a seed. @param {number} n @param {number} seed */
export function randomVector(n, seed) {
  return randomFloats(n, seed);
}

/** FNV-1a hash of a word (case-insensitive): the seed of its toy embedding. @param {string} word */
export function wordSeed(word) {
  let h = 2166136261;
  for (const ch of word.toLowerCase()) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619) >>> 0;
  return h;
}

/** The toy embedding of a word: `dim` numbers in [-1, 1), the same for the same word. @param {string} word @param {number} dim */
export function wordEmbedding(word, dim) {
  return randomVector(dim, wordSeed(word));
}

/** Width of the toy model of the "why order matters" demo. */
export const TOY_DIM = 16;
/** Longest sentence the demo takes (the toy learned table has rows for 0..TOY_MAX_TOKENS-1). */
export const TOY_MAX_TOKENS = 16;

/** Toy query, key and value projections [dim, dim] (row-major), the same on every load. */
export function toyProjections(dim = TOY_DIM) {
  const scale = 2.5 / Math.sqrt(dim);
  return {
    wq: randomVector(dim * dim, 101).map((v) => v * scale),
    wk: randomVector(dim * dim, 202).map((v) => v * scale),
    wv: randomVector(dim * dim, 505).map((v) => v * (1.5 / Math.sqrt(dim))),
  };
}

/** x [n, dim] times w [dim, dim]: the toy model's projection (not part of any encoding). @param {Float32Array} x @param {Float32Array} w @param {number} n @param {number} dim */
export function project(x, w, n, dim) {
  const out = new Float32Array(n * dim);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < dim; c++) {
      let s = 0;
      for (let k = 0; k < dim; k++) s += x[r * dim + k] * w[k * dim + c];
      out[r * dim + c] = s;
    }
  }
  return out;
}

/** A toy learned position table [TOY_MAX_TOKENS, dim]: random rows, as a table starts before training. */
export function toyLearnedTable(dim = TOY_DIM) {
  return { data: randomVector(TOY_MAX_TOKENS * dim, 303), dims: [TOY_MAX_TOKENS, dim] };
}

/** A toy T5 bias table [numBuckets, 1 head]: one random scalar per bucket. */
export function toyT5Table(numBuckets = 32) {
  return { data: randomVector(numBuckets, 404).map((v) => 2 * v), dims: [numBuckets, 1] };
}

/** The toy embeddings of a list of words: [words.length, dim] row-major. @param {string[]} words */
export function embedWords(words, dim = TOY_DIM) {
  const x = new Float32Array(words.length * dim);
  words.forEach((w, r) => x.set(wordEmbedding(w, dim), r * dim));
  return x;
}
