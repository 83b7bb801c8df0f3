// pe.doctor.identify: which RoPE convention turned `before` into `after`. Every candidate pairing and
// rotary width is fitted (doctor-fit.ts), the best explains the data with one frequency, phase and
// gain per pair; the frequencies then give the base and the scaling law (doctor-law.ts), the phases
// the offset of the positions. The result is checked end to end: pe.rope.apply with the identified
// spec at the offset positions against `after`.
import * as args from '../runtime/args.js';
import type { PositionIdsInput, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { positionsOf } from '../runtime/positions.js';
import type { RopeApi } from '../families/rope/rope.js';
import { qHeads } from '../families/rope/shapes.js';
import type { HeadLayout } from '../families/rope/shapes.js';
import type { RopePairing, RopeScaling } from '../families/rope/spec.js';
import { fitCandidate, laneSums, narrowed, offsetOf, wrap } from './doctor-fit.js';
import type { PairFit, RowGroups } from './doctor-fit.js';
import { fitLaw, nice, snap } from './doctor-law.js';

/** Options of {@link DoctorApi.identify}: the tensors' shape and the positions they were rotated at. */
export interface DoctorIdentifyOptions {
  /** Memory order of 4-D tensors: `'bshd'` or `'bhsd'`. */
  layout?: HeadLayout;
  /** Shape of bare Float32Arrays (both tensors): `[seq, headDim]`, `[batch, seq, hidden]` (with numHeads) or 4-D. */
  dims?: readonly number[];
  /** Heads of 3-D `[batch, seq, hidden]` tensors. */
  numHeads?: number;
  /** The position of the first token as you believe it (default 0); the doctor reports the offset from it. */
  offset?: number;
  /** Or one position per token (`[seq]` or `[batch, seq]`). Two adjacent positions pin down every frequency. */
  positionIds?: PositionIdsInput;
}

/** What {@link DoctorApi.identify} found. */
export interface DoctorIdentification {
  /** The RoPE that explains the data: spread it into pe.rope.apply (with `offset` added to the positions). */
  spec: { headDim: number; rotaryDim: number; base: number; pairing: RopePairing; scaling?: RopeScaling };
  /** The positions the rotation used, minus the ones given (0 when they agree). */
  offset: number;
  /** The scaling type (`'default'` without scaling). */
  scalingType: string;
  /** The common gain of the rotated pairs (YaRN's and LongRoPE's attention factor; 1 for most). */
  attentionFactor: number;
  /** The measured frequency of every pair (radians per position). */
  invFreq: Float64Array;
  /** sqrt(sum (after - pe.rope.apply(before, spec))^2 / sum after^2): how well the identified spec reproduces `after`. */
  residual: number;
  /** The same with every pair's frequency, phase and gain fitted freely: the floor for any RoPE law. */
  fitResidual: number;
  /** `'high'`: the pairing stands out, the law explains the data as well as free frequencies, nothing was assumed. */
  confidence: 'high' | 'medium' | 'low';
  /** What the data could not tell apart and what was assumed. */
  notes: string[];
  /** The best candidates (pairing, rotary width) with their fit residuals, best first. */
  candidates: { pairing: RopePairing; rotaryDim: number; residual: number }[];
}

/** Head rows of `before`/`after` grouped by the positions given. */
function groupRows(fn: string, before: Float32Array, after: Float32Array, h: { batch: number; seq: number; heads: number; headDim: number; layout: number }, pos: { offset: number; ids: Float64Array | undefined; perBatch: boolean }): RowGroups {
  const byPosition = new Map<number, number[]>();
  for (let b = 0; b < h.batch; b++) {
    for (let s = 0; s < h.seq; s++) {
      const p = pos.ids === undefined ? pos.offset + s : pos.ids[pos.perBatch ? b * h.seq + s : s]!;
      if (!Number.isFinite(p)) throw new PosEncError('INVALID_ARGUMENT', `${fn}: the position of token ${s} must be finite, got ${p}`);
      // the fits sum squares of position differences: beyond 2^53 (where positions stop being
      // integers) they would overflow, and no pipeline rotates there
      if (Math.abs(p) > 2 ** 53) throw new PosEncError('INVALID_ARGUMENT', `${fn}: the position of token ${s} is ${p}, beyond the ±2^53 the doctor can fit angles over`);
      const list = byPosition.get(p) ?? [];
      for (let k = 0; k < h.heads; k++) {
        list.push(h.layout === 0 ? ((b * h.seq + s) * h.heads + k) * h.headDim : ((b * h.heads + k) * h.seq + s) * h.headDim);
      }
      byPosition.set(p, list);
    }
  }
  const positions = [...byPosition.keys()].sort((a, b) => a - b);
  return { headDim: h.headDim, positions, rows: positions.map((p) => byPosition.get(p)!), before, after };
}

/** A candidate (pairing, rotary width) with its residual; its fit is made when asked for. */
interface Candidate {
  pairing: RopePairing;
  rotaryDim: number;
  residual: number;
  fit(): PairFit;
}

/** At most this many half-pairing widths are fitted (each costs a pass over the rows). */
const MAX_HALF_FITS = 16;

/**
 * The candidates, best first: every pairing and even rotary width that covers the changed lanes.
 * Linear in the head width: the interleaved pairs are the same lanes at every width, so one fit at
 * the full width gives every narrower one (its prefix); a half-pairing width r pairs lane i with
 * i + r/2, and only widths whose pairs join changed lanes with changed lanes (and unchanged with
 * unchanged) are fitted, at most MAX_HALF_FITS of them, plus the narrowest for comparison.
 */
function candidatesOf(g: RowGroups): Candidate[] {
  const lanes = laneSums(g);
  const width = g.headDim - (g.headDim % 2);
  const moved = new Uint8Array(g.headDim);
  let changed = 0;
  for (let j = 0; j < g.headDim; j++) {
    if (lanes.diff[j]! > 1e-14 * Math.max(lanes.after[j]!, 1e-30)) {
      moved[j] = 1;
      changed = j + 1;
    }
  }
  const narrowest = Math.max(2, changed + (changed % 2));
  if (narrowest > width) return [];
  const out: Candidate[] = [];
  const full = fitCandidate(g, lanes, 'interleaved', width);
  // running sums: the pairs' misfits below the width, the unrotated lanes' changes above it
  let pairMisfit = 0;
  for (let i = 0; i < narrowest / 2; i++) pairMisfit += full.misfit[i]!;
  let tail = 0;
  for (let j = narrowest; j < g.headDim; j++) tail += lanes.diff[j]!;
  for (let r = narrowest; r <= width; r += 2) {
    if (r > narrowest) {
      pairMisfit += full.misfit[r / 2 - 1]!;
      tail -= lanes.diff[r - 2]! + lanes.diff[r - 1]!;
    }
    const misfit = pairMisfit + Math.max(0, tail);
    const rotaryDim = r;
    out.push({ pairing: 'interleaved', rotaryDim, residual: full.total > 0 ? Math.sqrt(misfit / full.total) : 0, fit: () => narrowed(full, lanes, rotaryDim) });
  }
  // Half pairing: prefix counts of moved lanes filter the widths, an exact lane check confirms them.
  const count = new Int32Array(g.headDim + 1);
  for (let j = 0; j < g.headDim; j++) count[j + 1] = count[j]! + moved[j]!;
  const halfWidths: number[] = [];
  for (let r = narrowest; r <= width && halfWidths.length < MAX_HALF_FITS; r += 2) {
    const h = r / 2;
    if (count[h]! !== count[r]! - count[h]!) continue;
    let same = true;
    for (let i = 0; i < h && same; i++) same = moved[i] === moved[i + h];
    if (same) halfWidths.push(r);
  }
  if (!halfWidths.includes(narrowest)) halfWidths.push(narrowest);
  for (const r of halfWidths) {
    const fit = fitCandidate(g, lanes, 'half', r);
    out.push({ pairing: 'half', rotaryDim: r, residual: fit.residual, fit: () => fit });
  }
  // ties (a 2-lane rotation is both pairings): the default pairing, half, first
  return out.sort((a, b) => a.residual - b.residual || a.rotaryDim - b.rotaryDim || Number(a.pairing === 'interleaved') - Number(b.pairing === 'interleaved'));
}

/**
 * Positions on a lattice of step `gap` see each frequency only modulo 2 pi / gap: the pairs before
 * the run of slow ones (below pi / (2 gap), falling) are set aside, the law is fitted on the slower ones, and each fast pair's
 * frequency is moved by the multiple of 2 pi / gap that brings it nearest to the law (its phase at
 * position 0 moved to agree at the lattice's positions). Returns how many pairs were moved.
 */
function dealias(rope: RopeApi, fit: PairFit, gap: number, first: number): number {
  const step = (2 * Math.PI) / gap;
  // Every law's frequencies fall with the pair index: the slow pairs are the longest run at the end
  // that falls and stays below step / 4; an aliased fast pair can look slow, but not in order.
  let slow = fit.w.length;
  while (slow > 0 && fit.w[slow - 1]! > 0 && fit.w[slow - 1]! < step / 4 && (slow === fit.w.length || fit.w[slow - 1]! > fit.w[slow]!)) slow--;
  const fast = Array.from({ length: slow }, (_, i) => i);
  if (fast.length === 0 || fast.length === fit.w.length) return 0;
  const wError = fit.wError.slice();
  for (const i of fast) wError[i] = Infinity;
  let gainSum = 0;
  for (const v of fit.gain) gainSum += v;
  const law = fitLaw({ rotaryDim: fit.rotaryDim, w: fit.w, wError, gain: gainSum / fit.gain.length });
  if (!Number.isFinite(law.base) || law.scaling?.type === 'longrope') return 0;
  let predicted: Float64Array;
  try {
    predicted = rope.frequencies({ rotaryDim: fit.rotaryDim, base: law.base, ...(law.scaling ? { scaling: law.scaling } : {}) }).invFreq;
  } catch (error) {
    if (error instanceof PosEncError) return 0;
    throw error;
  }
  let moved = 0;
  for (const i of fast) {
    const k = Math.round((predicted[i]! - fit.w[i]!) / step);
    if (k === 0) continue;
    fit.w[i] = fit.w[i]! + k * step;
    fit.phase[i] = wrap(fit.phase[i]! - k * step * first);
    moved++;
  }
  return moved;
}

/** The doctor fits angles to the values: one NaN or Infinity would poison every sum it enters. */
function finiteValues(fn: string, name: string, data: Float32Array): void {
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i]!)) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${name}[${i}] is ${data[i]}: the tensors must hold finite values`);
    }
  }
}

export function identifyFn(rope: RopeApi) {
  return function identify(before: TensorInput, after: TensorInput, options?: DoctorIdentifyOptions): DoctorIdentification {
    const fn = 'doctor.identify';
    const opts = args.options(fn, options, ['layout', 'dims', 'numHeads', 'offset', 'positionIds'], true);
    const bt = args.tensor(fn, 'before', before, opts.dims);
    const at = args.tensor(fn, 'after', after, opts.dims);
    if (bt.dims.join() !== at.dims.join()) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: before has dims [${bt.dims.join(', ')}] but after [${at.dims.join(', ')}]`);
    }
    finiteValues(fn, 'before', bt.data);
    finiteValues(fn, 'after', at.data);
    const h = qHeads(fn, bt, opts.layout, opts.numHeads, 'before');
    const pos = positionsOf(fn, opts, h.batch, h.seq);
    const g = groupRows(fn, bt.data, at.data, h, pos);
    if (g.positions.length < 2) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: every token is at position ${g.positions[0]}; frequencies need tokens at two positions at least (ideally adjacent ones)`);
    }
    const fits = candidatesOf(g);
    if (fits.length === 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: a head of ${h.headDim} lanes has no lane pair to rotate`);
    const best0 = fits[0]!;
    // Wider candidates that only add still pairs fit as well: the narrowest within 50% wins
    const chosen = fits.filter((f) => f.residual <= 1.5 * best0.residual + 1e-9).sort((a, b) => a.rotaryDim - b.rotaryDim)[0]!;
    const best = chosen.fit();
    // with one pair (2 lanes) the two pairings are the same lanes: nothing to tell apart
    const otherPairing = best.rotaryDim === 2 ? undefined : fits.find((f) => f.pairing !== best.pairing);
    const notes: string[] = [];
    if (best.residual === 0 && best.w.every((w) => w === 0)) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: the tensors before and after are equal: there is no rotation to identify`);
    }
    let gap = Infinity;
    for (let k = 1; k < g.positions.length; k++) gap = Math.min(gap, g.positions[k]! - g.positions[k - 1]!);
    if (gap > 1) {
      const lattice = g.positions.every((p) => Number.isInteger((p - g.positions[0]!) / gap));
      const resolved = lattice ? dealias(rope, best, gap, g.positions[0]!) : 0;
      notes.push(resolved > 0
        ? `the positions are ${gap} apart: ${resolved} pairs turn faster than pi/${gap} rad per position, and their measured frequencies (aliased by multiples of 2 pi/${gap}) were unwrapped to the law the slower pairs follow`
        : `the closest positions are ${gap} apart: frequencies above pi/${gap} rad per position would alias`);
    }

    const { offset: rawOffset, spread } = offsetOf(best);
    const offset = (Math.abs(rawOffset - Math.round(rawOffset)) < 0.01 ? Math.round(rawOffset) : nice(rawOffset)) + 0; // + 0: no -0
    if (offset !== Math.round(offset)) notes.push(`the offset ${offset} is not an integer (spread between pairs ${nice(spread, 3)})`);

    let gainSum = 0;
    for (const v of best.gain) gainSum += v;
    const gain = snap(gainSum / best.gain.length, 1e-8);
    const law = fitLaw({ rotaryDim: best.rotaryDim, w: best.w, wError: best.wError, gain });
    if (!Number.isFinite(law.base)) { // no base to report: say why rather than return NaN
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: ${law.notes.join('; ')}: tokens at more positions, adjacent ones among them, measure the frequencies`);
    }
    notes.push(...law.notes);
    const spec: DoctorIdentification['spec'] = { headDim: h.headDim, rotaryDim: best.rotaryDim, base: law.base, pairing: best.pairing };
    if (law.scaling) spec.scaling = law.scaling;

    // End to end: the identified spec applied to `before` at the offset positions
    let residual = Infinity;
    let attentionFactor = gain;
    if (Number.isFinite(law.base)) {
      const model = Float32Array.from(bt.data);
      const shifted = pos.ids === undefined ? { offset: pos.offset + offset } : { positionIds: pos.ids.map((p) => p + offset) };
      const shape = { dims: bt.dims, layout: opts.layout as HeadLayout | undefined, numHeads: h.heads, ...shifted };
      try {
        rope.apply(model, null, { ...spec, ...shape });
        attentionFactor = rope.frequencies(spec).attentionFactor;
      } catch (error) { // the measured frequencies made a spec no RoPE has: say what about the data allowed that
        if (!(error instanceof PosEncError)) throw error;
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: the frequencies measured from these tensors fit no RoPE law (${
          gap > 1 ? `the closest positions are ${gap} apart, so frequencies above pi/${gap} rad per position alias` : 'the rotation is not one RoPE at these positions'
        }); tokens at adjacent positions measure every frequency`, { cause: error });
      }
      let miss = 0, total = 0;
      for (let k = 0; k < model.length; k++) {
        miss += (at.data[k]! - model[k]!) ** 2;
        total += at.data[k]! ** 2;
      }
      residual = total > 0 ? Math.sqrt(miss / total) : 0;
    }
    const pairingClear = !otherPairing || otherPairing.residual > 10 * best.residual + 1e-6;
    if (!pairingClear) notes.push(`the ${otherPairing!.pairing} pairing fits almost as well (residual ${otherPairing!.residual.toExponential(1)} against ${best.residual.toExponential(1)})`);
    // A pipeline that forms its angles in float32 is off by about p * 2^-24 radians at position p,
    // which no float64 law reproduces: that much is allowed beyond the free fit
    const maxAbsPosition = Math.max(Math.abs(g.positions[0]! + offset), Math.abs(g.positions[g.positions.length - 1]! + offset));
    const lawExplains = residual <= 4 * best.residual + 2e-7 + 1.2e-7 * maxAbsPosition;
    if (!lawExplains) notes.push(`the identified spec reproduces after only to ${residual.toExponential(1)}, where free per-pair frequencies reach ${best.residual.toExponential(1)}`);
    const assumed = law.ambiguous || gap > 1 || offset !== Math.round(offset);
    const confidence = !lawExplains || !pairingClear || !Number.isFinite(residual) ? 'low' : assumed ? 'medium' : 'high';
    return {
      spec, offset, scalingType: spec.scaling?.type ?? 'default', attentionFactor, invFreq: best.w.slice(), residual,
      fitResidual: best.residual, confidence, notes,
      candidates: fits.slice(0, 4).map((f) => ({ pairing: f.pairing, rotaryDim: f.rotaryDim, residual: f.residual })),
    };
  };
}
