// Number formatting for readouts: fixed widths so that text does not jump as values change.

/** A signed value with a fixed number of decimals, e.g. '+0.769231' / '−0.125000'. */
export function signed(v, decimals = 6) {
  if (Number.isNaN(v)) return 'NaN';
  const s = Math.abs(v).toFixed(decimals);
  return (v < 0 && Number(s) !== 0 ? '−' : '+') + s;
}

/** A positive quantity with `digits` significant digits, switching to exponent form when large or small. */
export function sig(v, digits = 5) {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-4) return v.toExponential(digits - 1).replace('e+', 'e').replace('-', '−');
  return v.toPrecision(digits).replace('-', '−');
}

/** An integer with thin-space thousands separators. */
export function int(v) {
  return Math.round(v).toLocaleString('en-US').replace(/,/g, '\u2009').replace('-', '−');
}

/** Pads `text` on the left to `width` characters (readouts use a monospace font). */
export function pad(text, width) {
  return String(text).padStart(width, ' ');
}

/** A byte count as B / KB / MB. */
export function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
