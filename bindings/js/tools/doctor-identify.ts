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
import { fitCandidate, laneSums, offsetOf } from './doctor-fit.js';
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

/** The candidate fits, best first: every pairing and even rotary width that covers the changed lanes. */
function candidatesOf(g: RowGroups): PairFit[] {
  const lanes = laneSums(g);
  let changed = 0;
  for (let j = 0; j < g.headDim; j++) if (lanes.diff[j]! > 1e-14 * Math.max(lanes.after[j]!, 1e-30)) changed = j + 1;
  const fits: PairFit[] = [];
  for (let r = Math.max(2, changed + (changed % 2)); r <= g.headDim - (g.headDim % 2); r += 2) {
    for (const pairing of ['half', 'interleaved'] as const) fits.push(fitCandidate(g, lanes, pairing, r));
  }
  return fits.sort((a, b) => a.residual - b.residual || a.rotaryDim - b.rotaryDim);
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
    const best = fits.filter((f) => f.residual <= 1.5 * best0.residual + 1e-9).sort((a, b) => a.rotaryDim - b.rotaryDim)[0]!;
    const otherPairing = fits.find((f) => f.pairing !== best.pairing);
    const notes: string[] = [];
    if (best.residual === 0 && best.w.every((w) => w === 0)) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: the tensors before and after are equal: there is no rotation to identify`);
    }
    let gap = Infinity;
    for (let k = 1; k < g.positions.length; k++) gap = Math.min(gap, g.positions[k]! - g.positions[k - 1]!);
    if (gap > 1) notes.push(`the closest positions are ${gap} apart: frequencies above pi/${gap} rad per position would alias`);

    const { offset: rawOffset, spread } = offsetOf(best);
    const offset = (Math.abs(rawOffset - Math.round(rawOffset)) < 0.01 ? Math.round(rawOffset) : nice(rawOffset)) + 0; // + 0: no -0
    if (offset !== Math.round(offset)) notes.push(`the offset ${offset} is not an integer (spread between pairs ${nice(spread, 3)})`);

    let gainSum = 0;
    for (const v of best.gain) gainSum += v;
    const gain = snap(gainSum / best.gain.length, 1e-8);
    const law = fitLaw({ rotaryDim: best.rotaryDim, w: best.w, wError: best.wError, gain });
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
      rope.apply(model, null, { ...spec, ...shape });
      attentionFactor = rope.frequencies(spec).attentionFactor;
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
