// Float64 RoPE formulas for the scaling and forms suites, written from docs/encodings.md section 8
// independently of posenc (nothing here calls the package).

/** w_i = base^(-2i/r), i < r/2. */
export function defaultFreq(r, base = 10000) {
  return Float64Array.from({ length: r / 2 }, (_, i) => 1 / base ** ((2 * i) / r));
}

/** YaRN frequencies, correction range and attention factor (docs/encodings.md#86-yarn, HF v5). */
export function yarnFreq(r, base, { factor, original, betaFast = 32, betaSlow = 1, truncate = true }) {
  const corr = (n) => (r * Math.log(original / (n * 2 * Math.PI))) / (2 * Math.log(base));
  let low = corr(betaFast);
  let high = corr(betaSlow);
  if (truncate) {
    low = Math.floor(low);
    high = Math.ceil(high);
  }
  low = Math.max(low, 0);
  high = Math.min(high, r - 1);
  if (low === high) high += 0.001;
  const ramp = Float64Array.from({ length: r / 2 }, (_, i) => Math.min(Math.max((i - low) / (high - low), 0), 1));
  const w = defaultFreq(r, base).map((v, i) => v * (1 - ramp[i]) + (v / factor) * ramp[i]);
  return { w, low, high, ramp };
}

/** Llama 3.1 frequencies and bands (docs/encodings.md#87-llama-31-llama3). */
export function llama3Freq(r, base, { factor = 8, low = 1, high = 4, original = 8192 } = {}) {
  const band = [];
  const w = defaultFreq(r, base).map((v) => {
    const wavelen = (2 * Math.PI) / v;
    if (wavelen < original / high) {
      band.push('unchanged');
      return v;
    }
    if (wavelen > original / low) {
      band.push('divided');
      return v / factor;
    }
    band.push('blended');
    const s = (original / wavelen - low) / (high - low);
    return ((1 - s) * v) / factor + s * v;
  });
  return { w, band };
}

/**
 * Rotates pair i of a head row by angles[i] and multiplies it by scales[i] (a number or an array);
 * lanes from rotaryDim on are copied. Returns a Float64Array.
 */
export function rotateRow(x, rotaryDim, interleaved, angles, scales = 1) {
  const out = Float64Array.from(x);
  const pairs = rotaryDim / 2;
  for (let i = 0; i < pairs; i++) {
    const m = typeof scales === 'number' ? scales : scales[i];
    const c = Math.cos(angles[i]) * m;
    const s = Math.sin(angles[i]) * m;
    const ia = interleaved ? 2 * i : i;
    const ib = interleaved ? 2 * i + 1 : i + pairs;
    out[ia] = x[ia] * c - x[ib] * s;
    out[ib] = x[ia] * s + x[ib] * c;
  }
  return out;
}

/** Worst |a - b| / scale. */
export function worstRelative(a, b, scale) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / scale);
  return worst;
}
