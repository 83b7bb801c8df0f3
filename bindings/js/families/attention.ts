// Attention helpers for small sizes: logits, softmax scores and outputs of scaled dot-product
// attention with an optional causal mask, an additive bias (T5, ALiBi, ...) or RoPE on q and k.
// Evaluated in double precision in src/encodings/attention.cpp; meant for checking a setup and
// for teaching, not as a fast attention kernel.
import { ATTENTION_MATRICES } from '../generated/boundary.js';
import * as args from '../runtime/args.js';
import type { Tensor, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import { bytes, flag, headDims, offsetOf, qkvTensors, scaleOf } from './relative-args.js';
import type { HeadsAttentionOptions } from './relative-args.js';
import { PAIRINGS } from './rope/spec.js';
import type { RopePairing } from './rope/spec.js';

/** RoPE applied to q (positions queryOffset + i) and k (positions j) before the products. */
export interface AttentionRopeOptions {
  /** Leading lanes that rotate (even, 2..headDim; default headDim). */
  rotaryDim?: number;
  /** Frequency base (default 10000). */
  base?: number;
  /** Lane pairing (default `'half'`). */
  pairing?: RopePairing;
}

/** Options of the attention helpers. */
export interface AttentionOptions extends HeadsAttentionOptions {
  /**
   * Additive bias: `[heads, qLen, kLen]` (e.g. `pe.t5.bias`, `pe.alibi.bias`), `[1, heads, qLen, kLen]`,
   * or `[qLen, kLen]` shared by every head. `-Infinity` entries mask; NaN and +Infinity are errors.
   */
  bias?: TensorInput;
  /** Shape of `bias` when it is a bare Float32Array (default: inferred from its length). */
  biasDims?: readonly number[];
  /** Rotate q and k with RoPE first (`true` for the defaults). */
  rope?: boolean | AttentionRopeOptions;
}

/** Attention helpers: `pe.attention`. */
export interface AttentionApi {
  /** Logits `q_i . k_j * scale + bias`, `[heads, qLen, kLen]` (`[qLen, kLen]` for 2-D q); masked entries are -Infinity. */
  logits(q: TensorInput, k: TensorInput, options?: AttentionOptions): Tensor;
  /**
   * `softmax(logits)` over keys, computed in double. A row whose entries are all masked has no
   * softmax: it is returned as zeros (never NaN).
   */
  scores(q: TensorInput, k: TensorInput, options?: AttentionOptions): Tensor;
  /** `scores v`: `[heads, qLen, dv]` (`[qLen, dv]` for 2-D q); fully masked rows give zero rows. */
  output(q: TensorInput, k: TensorInput, v: TensorInput, options?: AttentionOptions): Tensor;
}

const OPTIONS = ['dims', 'kDims', 'vDims', 'scale', 'causal', 'queryOffset', 'bias', 'biasDims', 'rope'];

/** RoPE settings as the binding takes them: rotaryDim 0 means none. */
function ropeOf(fn: string, value: unknown, headDim: number) {
  if (value === undefined || value === false) return { rotaryDim: 0, base: 10000, pairing: 0 };
  const opts = value === true ? {} : args.options(`${fn} (rope)`, value, ['rotaryDim', 'base', 'pairing']);
  return {
    rotaryDim: opts.rotaryDim === undefined ? headDim : args.integer(fn, 'rope.rotaryDim', opts.rotaryDim),
    base: opts.base === undefined ? 10000 : args.finite(fn, 'rope.base', opts.base, true),
    pairing: opts.pairing === undefined ? 0 : args.choice(fn, 'rope.pairing', opts.pairing, PAIRINGS),
  };
}

/** The bias and its head count (1 = shared); `[heads, qLen, kLen]`, `[1, heads, qLen, kLen]` or `[qLen, kLen]`. */
function biasOf(fn: string, value: unknown, biasDims: unknown, heads: number, qLen: number, kLen: number) {
  let dims = biasDims;
  if (args.isFloat32Array(value) && dims === undefined) {
    if (value.length === qLen * kLen) dims = [qLen, kLen];
    else if (value.length === heads * qLen * kLen) dims = [heads, qLen, kLen];
    else {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: bias has ${value.length} values; expected [heads, qLen, kLen] = [${heads}, ${qLen}, ${kLen}] or [qLen, kLen]`);
    }
  }
  const t = args.tensor(fn, 'bias', value, dims, 'biasDims');
  const d = t.dims[0] === 1 && t.dims.length === 4 ? t.dims.slice(1) : t.dims;
  const matches = d.length >= 2 && d[d.length - 2] === qLen && d[d.length - 1] === kLen;
  if (!matches || d.length > 3 || (d.length === 3 && d[0] !== heads && d[0] !== 1)) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: bias dims [${t.dims.join(', ')}] do not fit [heads, qLen, kLen] = [${heads}, ${qLen}, ${kLen}] (or [qLen, kLen])`);
  }
  return { tensor: t, heads: d.length === 3 ? d[0]! : 1 };
}

export function attentionApi(heap: Heap): AttentionApi {
  const call = heap.call;

  function run(fn: string, q: TensorInput, k: TensorInput, v: TensorInput | undefined, options: AttentionOptions | undefined, mode: 0 | 1 | 2): Tensor {
    const opts = args.options(fn, options, OPTIONS, true);
    const { qt, kt, vt } = qkvTensors(fn, opts, q, k, mode === 2, v, 'attention.output');
    const s = scaleOf(fn, opts);
    const causal = flag(fn, opts, 'causal', false);
    const offset = offsetOf(fn, opts);
    const bias = opts.bias === undefined ? undefined : biasOf(fn, opts.bias, opts.biasDims, qt.heads, qt.len, kt.len);
    if (!bias && opts.biasDims !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: biasDims given without bias`);
    if (opts.rope !== undefined && typeof opts.rope !== 'boolean' && (opts.rope === null || typeof opts.rope !== 'object')) {
      throw new PosEncError('INVALID_TYPE', `${fn}: rope must be true/false or an options object, got ${args.describe(opts.rope)}`);
    }
    const rope = ropeOf(fn, opts.rope, qt.width);
    return withHeap(heap, (scope) => {
      const qPtr = scope.tensorIn(qt, 'q');
      const kPtr = scope.tensorIn(kt, 'k');
      const biasPtr = bias ? scope.tensorIn(bias.tensor, 'bias') : 0;
      const common = {
        q: qPtr, k: kPtr, heads: qt.heads, kvHeads: kt.heads, qLen: qt.len, kLen: kt.len, headDim: qt.width, ...s, causal,
        queryOffset: offset, bias: biasPtr, biasHeads: bias?.heads ?? 0, rotaryDim: rope.rotaryDim, ropeBase: rope.base,
        pairing: rope.pairing,
      };
      if (mode === 2) {
        const dv = vt!.width;
        const vPtr = scope.tensorIn(vt!, 'v');
        const out = scope.alloc(bytes(qt.heads, qt.len, dv), 'the output');
        heap.check(call.attentionOutput({ ...common, v: vPtr, valueDim: dv, out, scoresOut: 0 }), fn);
        return { data: heap.f32(out, qt.heads * qt.len * dv).slice(), dims: headDims(qt, qt.len, dv) };
      }
      const out = scope.alloc(bytes(qt.heads, qt.len, kt.len), mode === 0 ? 'the logits' : 'the scores');
      heap.check(call.attentionMatrix({ ...common, kind: ATTENTION_MATRICES.indexOf(mode === 0 ? 'logits' : 'scores'), out }), fn);
      return { data: heap.f32(out, qt.heads * qt.len * kt.len).slice(), dims: headDims(qt, qt.len, kt.len) };
    });
  }

  return {
    logits: (q, k, options) => run('attention.logits', q, k, undefined, options, 0),
    scores: (q, k, options) => run('attention.scores', q, k, undefined, options, 1),
    output: (q, k, v, options) => run('attention.output', q, k, v, options, 2),
  };
}
