// The convention doctor's measurements: from head rows before and after a rotation, the rotation of
// every lane pair at every position (a complex least-squares fit of (a', b') against (a, b) over the
// rows that share a position), for a candidate pairing and rotary width; then one frequency, phase
// and gain per pair (the angles unwrapped along the positions), the offset of the positions, and how
// well the candidate explains the data. Plain JavaScript in float64.

/** Head rows grouped by position. */
export interface RowGroups {
  headDim: number;
  /** Distinct positions, ascending. */
  positions: number[];
  /** Start (in elements) of every head row at each position. */
  rows: number[][];
  before: Float32Array;
  after: Float32Array;
}

/** Per-pair sums at one position: num = sum z' conj(z), den = sum |z|^2, out = sum |z'|^2. */
interface PairSums {
  re: Float64Array;
  im: Float64Array;
  den: Float64Array;
  out: Float64Array;
}

/** A candidate's fitted pairs. */
export interface PairFit {
  pairing: 'half' | 'interleaved';
  rotaryDim: number;
  /** Per pair: frequency (radians per position), phase at position 0, gain (the attention factor). */
  w: Float64Array;
  phase: Float64Array;
  gain: Float64Array;
  /**
   * Per pair: the uncertainty of w: the scatter of the angles about their line, or, at least, what
   * angles formed in float32 (as most pipelines form them) can bend the slope by: half an ulp of
   * the largest angle at each end of the span.
   */
  wError: Float64Array;
  /** sqrt(squared misfit / squared after), with one frequency, phase and gain per pair over every position. */
  residual: number;
  /** Per pair: its squared misfit (the residual's share), so that narrower candidates of the same pairs are prefixes. */
  misfit: Float64Array;
  /** sum of squared after over every lane (the residual's denominator). */
  total: number;
}

/** Work done by the fits: pair-rows summed (the doctor's cost; a test bounds it by the input size). */
export const fitWork = { pairRows: 0 };

const TWO_PI = 2 * Math.PI;

/** An angle wrapped to (-pi, pi]. */
export function wrap(angle: number): number {
  let a = angle % TWO_PI;
  if (a <= -Math.PI) a += TWO_PI;
  if (a > Math.PI) a -= TWO_PI;
  return a;
}

/** Lanes (a, b) of pair i. */
export function laneOf(pairing: 'half' | 'interleaved', rotaryDim: number, i: number): [number, number] {
  return pairing === 'half' ? [i, i + rotaryDim / 2] : [2 * i, 2 * i + 1];
}

/** Sum over every row of (after - before)^2 and after^2, lane by lane. */
export function laneSums(g: RowGroups): { diff: Float64Array; after: Float64Array } {
  const diff = new Float64Array(g.headDim);
  const after = new Float64Array(g.headDim);
  for (const group of g.rows) {
    for (const start of group) {
      for (let j = 0; j < g.headDim; j++) {
        const a = g.after[start + j]!;
        const d = a - g.before[start + j]!;
        diff[j] = diff[j]! + d * d;
        after[j] = after[j]! + a * a;
      }
    }
  }
  return { diff, after };
}

function pairSums(g: RowGroups, pairing: 'half' | 'interleaved', rotaryDim: number): PairSums[] {
  const pairs = rotaryDim / 2;
  return g.rows.map((group) => {
    fitWork.pairRows += pairs * group.length;
    const s: PairSums = { re: new Float64Array(pairs), im: new Float64Array(pairs), den: new Float64Array(pairs), out: new Float64Array(pairs) };
    for (const start of group) {
      for (let i = 0; i < pairs; i++) {
        const [ja, jb] = laneOf(pairing, rotaryDim, i);
        const a = g.before[start + ja]!, b = g.before[start + jb]!;
        const a2 = g.after[start + ja]!, b2 = g.after[start + jb]!;
        s.re[i] = s.re[i]! + a2 * a + b2 * b;
        s.im[i] = s.im[i]! + b2 * a - a2 * b;
        s.den[i] = s.den[i]! + a * a + b * b;
        s.out[i] = s.out[i]! + a2 * a2 + b2 * b2;
      }
    }
    return s;
  });
}

/**
 * One line theta = w p + c through angles known modulo 2 pi: unwrapped from the two closest
 * positions outwards, each new angle taken nearest to the line fitted so far (weighted least squares).
 */
export function unwrapLine(p: readonly number[], theta: readonly number[], weight: readonly number[]): { w: number; c: number; rms: number } {
  const n = p.length;
  let anchor = 0;
  for (let k = 1; k + 1 < n; k++) if (p[k + 1]! - p[k]! < p[anchor + 1]! - p[anchor]!) anchor = k;
  const origin = p[anchor]!;
  const order = Array.from({ length: n }, (_, k) => k).sort((x, y) => Math.abs(p[x]! - origin) - Math.abs(p[y]! - origin) || x - y);
  const y = new Float64Array(n);
  let [sw, sx, sy, sxx, sxy] = [0, 0, 0, 0, 0];
  let w = 0;
  let c = theta[anchor]!;
  for (const k of order) {
    const x = p[k]! - origin;
    y[k] = k === anchor ? theta[k]! : w * x + c + wrap(theta[k]! - (w * x + c));
    const wt = Math.max(weight[k]!, 1e-300);
    sw += wt; sx += wt * x; sy += wt * y[k]!; sxx += wt * x * x; sxy += wt * x * y[k]!;
    const det = sw * sxx - sx * sx;
    if (det > 0) {
      w = (sw * sxy - sx * sy) / det;
      c = (sy - w * sx) / sw;
    } else {
      c = sy / sw;
    }
  }
  let ss = 0;
  for (let k = 0; k < n; k++) ss += (y[k]! - (w * (p[k]! - origin) + c)) ** 2;
  return { w, c: c - w * origin, rms: Math.sqrt(ss / n) };
}

/** Fits one candidate (pairing, rotary width): a frequency, phase and gain per pair, and its residual. */
export function fitCandidate(g: RowGroups, lanes: { diff: Float64Array; after: Float64Array }, pairing: 'half' | 'interleaved', rotaryDim: number): PairFit {
  const pairs = rotaryDim / 2;
  const sums = pairSums(g, pairing, rotaryDim);
  const T = g.positions.length;
  const fit: PairFit = {
    pairing, rotaryDim, w: new Float64Array(pairs), phase: new Float64Array(pairs), gain: new Float64Array(pairs),
    wError: new Float64Array(pairs), residual: 0, misfit: new Float64Array(pairs), total: 0,
  };
  let misfit = 0;
  let total = 0;
  for (let j = 0; j < g.headDim; j++) total += lanes.after[j]!;
  for (let j = rotaryDim; j < g.headDim; j++) misfit += lanes.diff[j]!;
  const span = g.positions[T - 1]! - g.positions[0]!;
  for (let i = 0; i < pairs; i++) {
    const theta = sums.map((s) => Math.atan2(s.im[i]!, s.re[i]!));
    const weight = sums.map((s) => s.re[i]! ** 2 + s.im[i]! ** 2);
    let gainNum = 0, gainDen = 0;
    for (const s of sums) {
      const mag = Math.hypot(s.re[i]!, s.im[i]!);
      gainNum += mag;
      gainDen += s.den[i]!;
    }
    const gain = gainDen > 0 ? gainNum / gainDen : 1;
    const line = T > 1 ? unwrapLine(g.positions, theta, weight) : { w: 0, c: theta[0]!, rms: 0 };
    fit.w[i] = line.w;
    fit.phase[i] = wrap(line.c);
    fit.gain[i] = gain;
    const largest = Math.abs(line.w) * Math.max(Math.abs(g.positions[0]!), Math.abs(g.positions[T - 1]!));
    const float32Step = largest > 0 ? 2 ** (Math.floor(Math.log2(largest)) - 23) : 0;
    fit.wError[i] = span > 0 ? Math.max(line.rms, 1e-7, float32Step) / span : Infinity;
    // sum |z' - gain e^{i model} z|^2 = out - 2 gain Re(e^{-i model} num) + gain^2 den, per position
    let pairMisfit = 0;
    sums.forEach((s, t) => {
      const angle = line.w * g.positions[t]! + line.c;
      const re = Math.cos(angle) * s.re[i]! + Math.sin(angle) * s.im[i]!;
      pairMisfit += Math.max(0, s.out[i]! - 2 * gain * re + gain * gain * s.den[i]!);
    });
    fit.misfit[i] = pairMisfit;
    misfit += pairMisfit;
  }
  fit.total = total;
  fit.residual = total > 0 ? Math.sqrt(misfit / total) : 0;
  return fit;
}

/**
 * The fit of the first `rotaryDim / 2` pairs of `fit` (interleaved pairs are the same lanes at every
 * width): its arrays cut, and its residual with the lanes past the width counted as unrotated.
 */
export function narrowed(fit: PairFit, lanes: { diff: Float64Array }, rotaryDim: number): PairFit {
  if (rotaryDim === fit.rotaryDim) return fit;
  const pairs = rotaryDim / 2;
  let misfit = 0;
  for (let i = 0; i < pairs; i++) misfit += fit.misfit[i]!;
  for (let j = rotaryDim; j < lanes.diff.length; j++) misfit += lanes.diff[j]!;
  return {
    pairing: fit.pairing, rotaryDim, w: fit.w.slice(0, pairs), phase: fit.phase.slice(0, pairs), gain: fit.gain.slice(0, pairs),
    wError: fit.wError.slice(0, pairs), misfit: fit.misfit.slice(0, pairs), total: fit.total,
    residual: fit.total > 0 ? Math.sqrt(misfit / fit.total) : 0,
  };
}

/**
 * The offset o with phase_i = w_i o (mod 2 pi) for every pair: from the lowest frequency (where the
 * phase wraps least) upwards, each pair's phase unwrapped next to the estimate so far.
 */
export function offsetOf(fit: PairFit): { offset: number; spread: number } {
  const order = Array.from(fit.w.keys()).filter((i) => fit.w[i]! > 1e-12 && Number.isFinite(fit.wError[i]!))
    .sort((x, y) => fit.w[x]! - fit.w[y]!);
  if (order.length === 0) return { offset: 0, spread: Infinity };
  let offset = fit.phase[order[0]!]! / fit.w[order[0]!]!;
  let sum = 0, weights = 0;
  const estimates: number[] = [];
  for (const i of order) {
    const w = fit.w[i]!;
    const k = Math.round((offset * w - fit.phase[i]!) / TWO_PI);
    const o = (fit.phase[i]! + TWO_PI * k) / w;
    estimates.push(o);
    const wt = w * w; // a phase error moves o by error / w: higher frequencies pin o down best
    sum += wt * o;
    weights += wt;
    offset = sum / weights;
  }
  const spread = Math.sqrt(estimates.reduce((acc, o) => acc + (o - offset) ** 2, 0) / estimates.length);
  return { offset, spread };
}
