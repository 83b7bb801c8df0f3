// Float64 formulas for the relative-position suites, written from docs/encodings.md sections 3-7 (not
// from posenc's code), and a naive attention for checking the helpers.

/** T5 bucket of rel = key - query (docs/encodings.md#5-t5-relative-position-buckets). */
export function t5Bucket(rel, { bidirectional = true, numBuckets = 32, maxDistance = 128 } = {}) {
  let nb = numBuckets;
  let out = 0;
  let n;
  if (bidirectional) {
    nb = Math.floor(nb / 2);
    out += rel > 0 ? nb : 0;
    n = Math.abs(rel);
  } else {
    n = Math.max(-rel, 0);
  }
  const maxExact = Math.floor(nb / 2);
  if (n < maxExact) return out + n;
  const large = maxExact + Math.trunc((Math.log(n / maxExact) / Math.log(maxDistance / maxExact)) * (nb - maxExact));
  return out + Math.min(nb - 1, large);
}

/** DeBERTa log bucket of rel = query - key (docs/encodings.md#6-deberta-v2v3-log-buckets). */
export function debertaBucket(rel, bucketSize = 256, maxPosition = 512) {
  const mid = Math.floor(bucketSize / 2);
  const abs = rel > -mid && rel < mid ? mid - 1 : Math.abs(rel);
  const logPos = Math.ceil((Math.log(abs / mid) / Math.log((maxPosition - 1) / mid)) * (mid - 1)) + mid;
  return abs <= mid ? rel : Math.sign(rel) * logPos;
}

/** ALiBi slopes (docs/encodings.md#7-alibi): the power-of-two series, then odd terms of the doubled one. */
export function alibiSlopes(n, maxBias = 8) {
  const c = 2 ** Math.floor(Math.log2(n));
  const out = [];
  for (let h = 1; h <= c; h++) out.push(2 ** ((-maxBias * h) / c));
  for (let k = 1; k <= n - c; k++) out.push(2 ** ((-maxBias * (2 * k - 1)) / (2 * c)));
  return out;
}

/** Shaw table row of (query i at offset + i, key j): clip(j - (offset + i), -k, k) + k. */
export function shawIndex(i, j, k, offset = 0) {
  return Math.min(Math.max(j - (offset + i), -k), k) + k;
}

/** Row h of a head-major Float32Array [heads, rows, cols] as an array of Float64Array rows. */
export function rowsOf(data, h, rows, cols) {
  return Array.from({ length: rows }, (_, r) => Float64Array.from(data.subarray((h * rows + r) * cols, (h * rows + r + 1) * cols)));
}

export function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Softmax of a row; all -Infinity gives zeros (posenc's documented behaviour). */
export function softmax(row) {
  const m = Math.max(...row);
  if (m === -Infinity) return row.map(() => 0);
  const e = row.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** max |got - want| over flat arrays, treating equal infinities as exact and unequal ones as failure. */
export function maxError(got, want) {
  if (got.length !== want.length) throw new Error(`length ${got.length} != ${want.length}`);
  let m = 0;
  for (let i = 0; i < got.length; i++) {
    if (!Number.isFinite(want[i]) || !Number.isFinite(got[i])) {
      if (got[i] !== want[i]) return Infinity;
      continue;
    }
    m = Math.max(m, Math.abs(got[i] - want[i]));
  }
  return m;
}
