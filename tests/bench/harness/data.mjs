// Deterministic inputs for the benchmark cases.

export { randomFloats } from '../../support/random.mjs';

/** max |a - b|; equal values (infinities included) differ by 0, any other NaN or infinity gives Infinity. */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

/** The largest finite magnitude (masks hold -Infinity). */
export function maxAbs(a) {
  let m = 0;
  for (let i = 0; i < a.length; i++) if (Number.isFinite(a[i])) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/** Human-readable byte count. */
export function formatBytes(n) {
  if (n >= 1 << 20) return `${+(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${+(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}
