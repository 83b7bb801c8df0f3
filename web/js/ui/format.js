// The page's one number format: integers grouped with thin spaces, real numbers to a number of
// significant digits, written out between 1e-4 and 1e6 and as "m × 10ⁿ" beyond; true minus signs.
// Readouts, tick labels and messages all use these, so "131 072" never appears as "1.31072e5".

const THIN = '\u2009';
const MINUS = '−';
const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/** An exponent in superscript digits: -7 -> '⁻⁷'. @param {number} n */
export function superscript(n) {
  return String(n).replace(/[-\d]/g, (c) => SUPERSCRIPT[/** @type {keyof typeof SUPERSCRIPT} */ (c)]);
}

/** v's shortest mantissa (with a typographic minus) and its power of ten: 2.5e-7 -> ['2.5', '10⁻⁷']. @param {number} v @returns {[string, string]} */
function scientific(v) {
  const [mantissa, e] = v.toExponential().split('e');
  return [String(mantissa).replace('-', MINUS), `10${superscript(Number(e))}`];
}

/** '1234567.25' -> '1 234 567.25' (thin spaces in the integer part), '-3' -> '−3'. @param {string} text */
function grouped(text) {
  const negative = text.startsWith('-');
  const [whole, fraction] = (negative ? text.slice(1) : text).split('.');
  const groups = /** @type {string} */ (whole).replace(/\B(?=(\d{3})+(?!\d))/g, THIN);
  return `${negative ? MINUS : ''}${groups}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** Infinities and NaN, or null for a finite number. @param {number} v */
function special(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return `${MINUS}∞`;
  return null;
}

/** An integer (rounded), grouped: 131072 -> '131 072', -6 -> '−6'. @param {number} v */
export function int(v) {
  return special(v) ?? grouped(String(Math.round(v) || 0));
}

/**
 * A real number to `digits` significant digits, trailing zeros kept (they say how precise it is):
 * 0.486968, 4 096.00, 218 500, 1.38345 × 10⁶, 3.20000 × 10⁻⁷.
 * @param {number} v
 */
export function num(v, digits = 6) {
  const s = special(v);
  if (s !== null) return s;
  if (v === 0) return '0';
  const [mantissa, e] = v.toExponential(digits - 1).split('e');
  const exponent = Number(e);
  if (exponent >= 6 || exponent < -4) return `${String(mantissa).replace('-', MINUS)} × 10${superscript(exponent)}`;
  return grouped(Number(`${mantissa}e${exponent}`).toFixed(Math.max(0, digits - 1 - exponent)));
}

/**
 * A number as it was given (a setting, a config's value), in the shortest form that reads back
 * exactly: 500 000, 0.5, 1 × 10⁻⁷. Computed values use num() instead.
 * @param {number} v
 */
export function plain(v) {
  const s = special(v);
  if (s !== null) return s;
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-4) {
    const [m, power] = scientific(v);
    return `${m} × ${power}`;
  }
  return grouped(String(v));
}

/** A value with a sign and a fixed number of decimals, so columns line up: '+0.769231', '−0.125000'. @param {number} v */
export function signed(v, decimals = 6) {
  const s = special(v);
  if (s !== null) return s;
  const text = Math.abs(v).toFixed(decimals);
  return (v < 0 && Number(text) !== 0 ? MINUS : '+') + grouped(text);
}

/** A value with a fixed number of decimals and no plus sign: '0.50', '−3.14'. @param {number} v @param {number} decimals */
export function fixed(v, decimals) {
  const s = special(v);
  if (s !== null) return s;
  const text = v.toFixed(decimals);
  return grouped(Number(text) === 0 ? text.replace('-', '') : text);
}

/** A short axis label: up to four significant digits; powers of ten as 10ⁿ beyond 1e5 or below 1e-3. @param {number} v */
export function tick(v) {
  const s = special(v);
  if (s !== null) return s;
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) {
    const [m, power] = scientific(Number(v.toPrecision(2)));
    return m === '1' ? power : m === `${MINUS}1` ? `${MINUS}${power}` : `${m}×${power}`;
  }
  return grouped(String(Number(v.toPrecision(4))));
}

/** A byte count: '512 B', '12.3 KB', '32.0 MB'. @param {number} n */
export function bytes(n) {
  if (n < 1024) return `${int(n)} B`;
  if (n < 1024 * 1024) return `${fixed(n / 1024, 1)} KB`;
  return `${fixed(n / 1024 / 1024, 1)} MB`;
}

const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
/** An index in subscript digits: 12 -> '₁₂'. @param {number} i */
export function sub(i) {
  return String(i).replace(/\d/g, (d) => SUBSCRIPT[Number(d)] ?? d);
}
