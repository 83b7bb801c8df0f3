// float16 from float64, rounded once (to nearest, ties to even): the tables posenc uploads as
// float16 are its float64 values rounded directly, never float64 -> float32 -> float16 (a double
// rounding that can land one ulp off).

/** `v` (>= 0) rounded to an integer, ties to even. Exact for every float64: v - floor(v) is representable. */
function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The IEEE 754 binary16 bit pattern nearest to `x` (NaN: the quiet NaN 0x7e00; beyond 65520 in magnitude: infinity). */
export function float16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00; // 65504 + half its ulp of 32: ties go to the even pattern, infinity
  if (a < 2 ** -14) return sign | roundHalfEven(a * 2 ** 24); // subnormal (1024 carries into the smallest normal)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1; // log2 may round across a power of two
  else if (2 ** (e + 1) <= a) e += 1;
  let m = roundHalfEven((a / 2 ** e) * 1024); // 1024..2048, scaled by powers of two only: exact
  if (m === 2048) {
    m = 1024;
    e += 1;
  }
  return sign | ((e + 15) << 10) | (m - 1024);
}

/** The value of a binary16 bit pattern. */
export function float16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0x1f) return m === 0 ? sign * Infinity : NaN;
  return sign * (e === 0 ? m * 2 ** -24 : (1024 + m) * 2 ** (e - 25));
}

/** `values` rounded once to float16, as the bit patterns a `array<f16>` storage buffer holds. */
export function toFloat16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = float16Bits(values[i]!);
  return out;
}
