// Deterministic test and benchmark data, the same on every run and machine.

/** Uniform floats in [lo, hi) from a xorshift generator (the same data on every run). */
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
