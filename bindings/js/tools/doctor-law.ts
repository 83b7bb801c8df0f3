// The convention doctor's frequency law: which RoPE scaling produced measured per-pair frequencies.
// The base comes from the ratio of neighbouring frequencies (the same for every pair under every
// law but where a band or ramp bends it), a linear factor from the first pair, and the ratio to the
// unscaled law then tells the rest apart: flat (default or linear), 1 then 1/F with a blend linear
// in the frequency (Llama 3.1) or linear in the pair index (YaRN, whose attention factor also
// differs), or anything else (per-pair factors, LongRoPE's form).
import type { RopeScaling } from '../families/rope/spec.js';

/** A law fitted to the frequencies. */
export interface FrequencyLaw {
  base: number;
  scaling: RopeScaling | undefined;
  /** What the frequencies could not tell apart, and the assumptions made. */
  notes: string[];
  /** Whether something was assumed or left ambiguous (the notes say what). */
  ambiguous: boolean;
}

/** Measured frequencies of the rotated pairs and how sure each is. */
export interface MeasuredFrequencies {
  rotaryDim: number;
  w: Float64Array;
  /** Standard error of each w. */
  wError: Float64Array;
  /** The common gain of the pairs (the attention factor). */
  gain: number;
}

/** A number shown with `digits` significant digits (and as an integer when it is one within them). */
export function nice(v: number, digits = 6): number {
  return Number(v.toPrecision(digits));
}

/** The shortest decimal (fewest significant digits) within 3 standard errors of v (relative error rel). */
export function snap(v: number, rel: number): number {
  for (let digits = 1; digits <= 8; digits++) {
    const c = Number(v.toPrecision(digits));
    if (Math.abs(c - v) <= 3 * rel * Math.abs(v) + 1e-12 * Math.abs(v)) return c;
  }
  return nice(v, 8);
}

/** Weighted least squares y = a x + b, and the standard error of a. */
function weightedLine(x: number[], y: number[], wt: number[]): { a: number; b: number; aError: number } {
  let sw = 0, sx = 0, sy = 0;
  for (let k = 0; k < x.length; k++) {
    sw += wt[k]!; sx += wt[k]! * x[k]!; sy += wt[k]! * y[k]!;
  }
  const mx = sx / sw, my = sy / sw;
  let sxx = 0, sxy = 0;
  for (let k = 0; k < x.length; k++) {
    sxx += wt[k]! * (x[k]! - mx) ** 2;
    sxy += wt[k]! * (x[k]! - mx) * (y[k]! - my);
  }
  const a = sxx > 0 ? sxy / sxx : 0;
  return { a, b: my - a * mx, aError: sxx > 0 ? 1 / Math.sqrt(sxx) : Infinity };
}

const median = (values: number[]) => {
  const s = values.slice().sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Least squares y = a x + b. */
function line(x: number[], y: number[]): { a: number; b: number } {
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxx = 0, sxy = 0;
  for (let k = 0; k < n; k++) {
    sxx += (x[k]! - mx) ** 2;
    sxy += (x[k]! - mx) * (y[k]! - my);
  }
  const a = sxx > 0 ? sxy / sxx : 0;
  return { a, b: my - a * mx };
}

/** Relative tolerance of pair i: its measurement error, or 1e-6 at least. */
function tolerance(m: MeasuredFrequencies, i: number): number {
  return Math.max(1e-6, (6 * m.wError[i]!) / Math.max(m.w[i]!, 1e-300));
}

/** YaRN's original context from its correction range (HF find_correction_range with betas 32 and 1, truncated). */
function yarnOriginal(rotaryDim: number, base: number, low: number, high: number): number | undefined {
  // low = floor(r ln(L / (32 * 2 pi)) / (2 ln base)) -> L in [32 2pi base^(2 low / r), 32 2pi base^(2 (low + 1) / r))
  const lo = Math.max(low > 0 ? 32 * 2 * Math.PI * base ** ((2 * low) / rotaryDim) : 0,
    high < rotaryDim - 1 ? 2 * Math.PI * base ** ((2 * (high - 1)) / rotaryDim) : 0);
  const hi = Math.min(32 * 2 * Math.PI * base ** ((2 * (low + 1)) / rotaryDim),
    high < rotaryDim - 1 ? 2 * Math.PI * base ** ((2 * high) / rotaryDim) : Infinity);
  if (!(hi > lo)) return undefined;
  for (let k = 8; k <= 24; k++) if (2 ** k >= lo && 2 ** k < hi) return 2 ** k; // contexts are powers of two
  return Math.round(Math.sqrt(Math.max(lo, 1) * hi));
}

/**
 * YaRN's original context from a correction range that was not truncated: low = r ln(L / (32 2 pi)) /
 * (2 ln base) and high = r ln(L / (2 pi)) / (2 ln base) each give L; they must agree (to 1%), and a
 * power of two within 1% of their mean is taken (contexts are), else the nearest integer.
 */
function yarnOriginalUntruncated(rotaryDim: number, base: number, low: number, high: number): number | undefined {
  if (!(low > 0 && high < rotaryDim / 2 - 1)) return undefined; // a clamped end does not tell L
  const fromLow = 32 * 2 * Math.PI * base ** ((2 * low) / rotaryDim);
  const fromHigh = 2 * Math.PI * base ** ((2 * high) / rotaryDim);
  if (!(Math.abs(fromLow / fromHigh - 1) < 0.01)) return undefined;
  const L = Math.sqrt(fromLow * fromHigh);
  const power = 2 ** Math.round(Math.log2(L));
  return Math.abs(power / L - 1) < 0.01 ? power : Math.round(L);
}

/** The law of measured frequencies: base, and the scaling that bends it. */
export function fitLaw(m: MeasuredFrequencies): FrequencyLaw {
  const r = m.rotaryDim;
  const pairs = r / 2;
  const notes: string[] = [];
  const reliable = (i: number) => m.w[i]! > 0 && tolerance(m, i) < 1e-2;
  if (pairs === 1) return onePair(m);
  // Neighbouring ratios: -2 ln(base) / r for every pair outside a band or ramp
  const steps: number[] = [];
  for (let i = 0; i + 1 < pairs; i++) if (reliable(i) && reliable(i + 1)) steps.push(Math.log(m.w[i + 1]! / m.w[i]!));
  if (steps.length === 0) {
    notes.push('too few pairs are measured precisely enough to fit a base (positions too close together or too small)');
    return { base: NaN, scaling: undefined, notes, ambiguous: true };
  }
  const unmeasured = Array.from({ length: pairs }, (_, i) => i).filter((i) => !reliable(i));
  if (unmeasured.length) {
    notes.push(`${unmeasured.length} of ${pairs} pairs turn too little between the positions given to measure their frequency (pairs ${unmeasured[0]}..${unmeasured[unmeasured.length - 1]}); ` +
      'the law is fitted on the others: positions farther apart measure them');
  }
  const step = median(steps);
  let base = Math.exp((-step * r) / 2);
  const rel = (i: number) => Math.max(1e-12, m.wError[i]! / Math.max(m.w[i]!, 1e-300));
  const plain = (i: number) => base ** ((-2 * i) / r);
  // w_0 = 1 / factor under linear interpolation, 1 otherwise; when pair 0 is not measured (aliased
  // by positions far apart), the first pair that is tells it, against the unscaled law
  const first = reliable(0) ? 0 : Array.from({ length: pairs }, (_, i) => i).find(reliable)!;
  const linear = snap(plain(first) / m.w[first]!, rel(first));
  // Refine the base on the pairs that follow the law, each weighted by its precision, and keep the
  // shortest decimal the data allow (bases are round numbers: 10000, 500000, 1e6...)
  const onLaw = Array.from({ length: pairs }, (_, i) => i).filter((i) => reliable(i) && Math.abs((m.w[i]! * linear) / plain(i) - 1) < 1e-3);
  if (onLaw.length >= 2) {
    const fit = weightedLine(onLaw.map((i) => (2 * i) / r), onLaw.map((i) => Math.log(m.w[i]! * linear)), onLaw.map((i) => 1 / rel(i) ** 2));
    base = snap(Math.exp(-fit.a), fit.aError);
  }
  const ratio = Array.from({ length: pairs }, (_, i) => (m.w[i]! * linear) / plain(i));
  const flat = ratio.every((v, i) => !reliable(i) || Math.abs(v - 1) <= tolerance(m, i));
  const factor = linear;
  if (flat) {
    notes.push('static NTK-aware scaling (or dynamic NTK at one length) is this law with base * factor^(r/(r-2)): it cannot be told from a larger base');
    const ambiguous = unmeasured.length > 0;
    if (Math.abs(factor - 1) < 1e-5) return { base, scaling: undefined, notes, ambiguous };
    return { base, scaling: { type: 'linear', factor }, notes, ambiguous };
  }
  // A band from 1 down to 1/F: F from the plateau of the last pairs, weighted by precision
  const tail = ratio.filter((_, i) => reliable(i)).slice(-3);
  const F0 = 1 / median(tail);
  const plateau = Array.from({ length: pairs }, (_, i) => i).filter((i) => reliable(i) && Math.abs(ratio[i]! * F0 - 1) < 1e-3);
  let num = 0, den = 0;
  for (const i of plateau) {
    num += ratio[i]! / rel(i) ** 2;
    den += 1 / rel(i) ** 2;
  }
  const F = plateau.length ? snap(den / num, 1 / Math.sqrt(den)) : nice(F0, 5);
  const blend = Array.from({ length: pairs }, (_, i) => i).filter((i) => reliable(i) && ratio[i]! < 1 - tolerance(m, i) && ratio[i]! > 1 / F + tolerance(m, i));
  const steady = ratio.every((v, i) => !reliable(i) || v <= 1 + tolerance(m, i)) && F > 1;
  if (!steady || Math.abs(linear - 1) > 1e-4) return perPair(m, base, notes);
  const share = (i: number) => (ratio[i]! - 1 / F) / (1 - 1 / F); // 1 = unchanged, 0 = divided by F
  const yarnFactor = 0.1 * Math.log(F) + 1;
  const gainSaysYarn = Math.abs(m.gain - 1) > 1e-4;
  const candidates: { scaling: RopeScaling; misfit: number }[] = [];
  if (blend.length >= 2) {
    // YaRN: 1 - share linear in the pair index; Llama 3.1: share linear in the frequency
    const y = line(blend, blend.map((i) => 1 - share(i)));
    const low = -y.b / y.a;
    const high = low + 1 / y.a;
    const ll = line(blend.map((i) => plain(i)), blend.map(share));
    const misfitOf = (predict: (i: number) => number) =>
      Math.max(...Array.from({ length: pairs }, (_, i) => (reliable(i) ? Math.abs(predict(i) - ratio[i]!) : 0)));
    const llamaRatio = (i: number) => 1 / F + (1 - 1 / F) * Math.min(1, Math.max(0, ll.a * plain(i) + ll.b));
    const lowInt = Math.round(low), highInt = Math.round(high);
    const rampRatio = (lo: number, hi: number) => (i: number) => 1 - (1 - 1 / F) * Math.min(1, Math.max(0, (i - lo) / (hi - lo)));
    const original = yarnOriginal(r, base, lowInt, highInt);
    if (original !== undefined) {
      const yarn: RopeScaling = { type: 'yarn', factor: F, originalMaxPositionEmbeddings: original };
      if (Math.abs(m.gain - yarnFactor) > 1e-4) yarn.attentionFactor = nice(m.gain);
      candidates.push({ scaling: yarn, misfit: misfitOf(rampRatio(Math.max(lowInt, 0), Math.min(highInt, r - 1))) });
    }
    // Without truncation (gpt-oss, `truncate: false`) the ramp ends where the correction dims fall:
    // the original context from each end (betas 32 and 1, HF find_correction_dim) must agree
    const untruncated = yarnOriginalUntruncated(r, base, low, high);
    if (untruncated !== undefined) {
      const yarn: RopeScaling = { type: 'yarn', factor: F, originalMaxPositionEmbeddings: untruncated, truncate: false };
      if (Math.abs(m.gain - yarnFactor) > 1e-4) yarn.attentionFactor = nice(m.gain);
      const dimOf = (rotations: number) => (r * Math.log(untruncated / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
      candidates.push({ scaling: yarn, misfit: misfitOf(rampRatio(Math.max(dimOf(32), 0), Math.min(dimOf(1), r - 1))) });
    }
    // With lowFreqFactor 1: high - low = -1 / beta, original = alpha 2 pi (high - low)
    const highFactor = nice(1 - 1 / ll.b, 4);
    const llamaOriginal = Math.round((ll.a * 2 * Math.PI * (highFactor - 1)));
    if (highFactor > 1 && llamaOriginal > 0) {
      candidates.push({ scaling: { type: 'llama3', factor: F, lowFreqFactor: 1, highFreqFactor: highFactor, originalMaxPositionEmbeddings: llamaOriginal }, misfit: misfitOf(llamaRatio) });
    }
    candidates.sort((a, b) => a.misfit - b.misfit);
    // of the two YaRN readings (with and without truncation), the one that fits better stays
    const yarns = candidates.filter((c) => c.scaling.type === 'yarn');
    if (yarns.length === 2) candidates.splice(candidates.indexOf(yarns[1]!), 1);
    if (candidates.length === 2 && candidates[1]!.misfit < 3 * candidates[0]!.misfit) {
      notes.push(`the blend of ${blend.length} pairs fits both YaRN and Llama 3.1 (misfits ${candidates[0]!.misfit.toExponential(1)} and ${candidates[1]!.misfit.toExponential(1)}); the attention factor ${nice(m.gain, 4)} decided`);
      candidates.sort((a, b) => Number(a.scaling.type === 'yarn') === Number(gainSaysYarn) ? -1 : 1);
    }
    if (candidates[0]?.scaling.type === 'llama3') notes.push('llama3: the blend fixes originalMaxPositionEmbeddings / (highFreqFactor - lowFreqFactor) and lowFreqFactor / (highFreqFactor - lowFreqFactor); lowFreqFactor 1 is assumed (Llama 3.1)');
  } else {
    // At most one blended pair: the band's edges only; the attention factor tells YaRN from Llama 3.1
    notes.push(`only ${blend.length} pair lies between unchanged and divided frequencies: the band's shape cannot be measured`);
    const firstDivided = ratio.findIndex((v, i) => reliable(i) && Math.abs(v - 1 / F) <= tolerance(m, i));
    const lastKept = ratio.reduce((k, v, i) => (reliable(i) && Math.abs(v - 1) <= tolerance(m, i) ? i : k), -1);
    if (gainSaysYarn) {
      const original = yarnOriginal(r, base, Math.max(lastKept, 0), firstDivided < 0 ? r - 1 : firstDivided);
      if (original !== undefined) candidates.push({ scaling: { type: 'yarn', factor: F, originalMaxPositionEmbeddings: original }, misfit: 0 });
    } else {
      notes.push('llama3 with Llama 3.1\'s lowFreqFactor 1 and highFreqFactor 4 is assumed; the original context is the power of two that puts the band where it is measured');
      const lambda = (i: number) => (2 * Math.PI) / plain(i);
      for (let k = 8; k <= 24; k++) {
        const L = 2 ** k; // kept pairs: wavelength < L / 4; divided: wavelength > L
        if (lastKept >= 0 && lambda(lastKept) >= L / 4) continue;
        if (firstDivided >= 0 && lambda(firstDivided) <= L) continue;
        candidates.push({ scaling: { type: 'llama3', factor: F, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: L }, misfit: 0 });
        break;
      }
    }
  }
  if (candidates.length === 0) return perPair(m, base, notes);
  return { base, scaling: candidates[0]!.scaling, notes, ambiguous: notes.length > 0 };
}

/**
 * One rotated pair: its frequency is base^0 = 1 under every base, so no base is measurable; the
 * default 10000 is reported (any base reproduces the data) and a frequency other than 1 is linear
 * interpolation by 1 / w.
 */
function onePair(m: MeasuredFrequencies): FrequencyLaw {
  const notes = ['one rotated pair (2 lanes) turns by base^0 = 1 per position whatever the base: the data cannot determine a base, so posenc\'s default 10000 is given (any base reproduces them)'];
  const w = m.w[0]!;
  if (!(w > 0) || !Number.isFinite(w)) {
    notes.push('the pair\'s frequency could not be measured (positions too close together or too small)');
    return { base: 10000, scaling: undefined, notes, ambiguous: true };
  }
  const factor = snap(1 / w, Math.max(1e-12, m.wError[0]! / w));
  return { base: 10000, scaling: Math.abs(factor - 1) < 1e-5 ? undefined : { type: 'linear', factor }, notes, ambiguous: true };
}

/** No closed-form law: per-pair divisors of the unscaled law (LongRoPE's form) reproduce the frequencies. */
function perPair(m: MeasuredFrequencies, fallbackBase: number, notes: string[]): FrequencyLaw {
  const r = m.rotaryDim;
  // LongRoPE's factors start near 1: the base from the first two pairs, when they are measured
  const rel = (i: number) => Math.max(1e-12, m.wError[i]! / Math.max(m.w[i]!, 1e-300));
  const fromFirst = m.w.length > 1 && m.w[1]! > 0 ? snap((m.w[0]! / m.w[1]!) ** (r / 2), (r / 2) * (rel(0) + rel(1))) : NaN;
  const base = Number.isFinite(fromFirst) ? fromFirst : fallbackBase;
  const factors = Array.from(m.w, (w, i) => base ** ((-2 * i) / r) / w);
  notes.push(`no scaling law fits the frequencies: they are given as per-pair factors of base ${nice(base)} (LongRoPE's form, the same list for short and long; the base from the first two pairs)`);
  return {
    base,
    scaling: { type: 'longrope', shortFactor: factors, longFactor: factors, originalMaxPositionEmbeddings: 2 ** 30, attentionFactor: snap(m.gain, 1e-9) },
    notes,
    ambiguous: true,
  };
}
