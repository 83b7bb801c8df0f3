// Transformer-XL relative attention (Dai et al. 2019, eq. 3; Hugging Face transfo_xl): the relative
// sinusoid R, the relative shift, and the unscaled four-term score
// (q_i + u).k_j + (q_i + v).(W_kR R)_{i-j}. Maths in src/encodings/transformer_xl.cpp.
import * as args from '../runtime/args.js';
import type { WasmTensor } from '../runtime/wasm-tensor.js';
import type { Tensor, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import { bytes, checkResultSize, expectSize, flag, headDims, headTensor, integerOr, sameRank } from './relative-args.js';
import type { HeadTensor } from './relative-args.js';

/** Options of {@link TransformerXLApi.relativeSinusoid}. */
export interface TxlSinusoidOptions {
  /** New tokens (queries). */
  qLen: number;
  /** Cached tokens before them (default 0); R has memLen + qLen rows. */
  memLen?: number;
  /** Width of R (`d_model`, even). */
  dModel: number;
  /** Distances above clampLen use clampLen (`clamp_len`; default 0 = no clamping; HF's config default is 1000). */
  clampLen?: number;
  /** Frequency base (default 10000). */
  base?: number;
  /** Where to write R: a Float32Array of `(memLen + qLen) * dModel` values (reused from call to call) or a WasmTensor of dims `[memLen + qLen, dModel]`. Default: a new Float32Array. */
  out?: Float32Array | WasmTensor;
}

/** Options of {@link TransformerXLApi.relShift}. */
export interface TxlRelShiftOptions {
  /** Shape of `bd` when it is a bare Float32Array: `[qLen, kLen]` or `[heads, qLen, kLen]`. */
  dims?: readonly number[];
  /** Write -Infinity where `j > kLen - qLen + i` instead of the values Hugging Face's view arithmetic leaves there (default false). */
  maskFuture?: boolean;
}

/** Options of {@link TransformerXLApi.score}. */
export interface TxlScoreOptions {
  /** Shape of q when it is a bare Float32Array: `[qLen, d]` or `[heads, qLen, d]`. */
  dims?: readonly number[];
  /** Shape of k when it is a bare Float32Array: `[kLen, d]` or `[heads, kLen, d]` (kLen = memLen + qLen). */
  kDims?: readonly number[];
  /** Shape of r when it is a bare Float32Array (default: `kDims`). */
  rDims?: readonly number[];
  /** -Infinity for keys after the query (`j > memLen + i`) instead of the shift's leftovers (default false). */
  maskFuture?: boolean;
}

/** Transformer-XL: `pe.transformerXL`. */
export interface TransformerXLApi {
  /**
   * R `[memLen + qLen, dModel]`: row r is the half-layout sinusoid `[sin(t w), cos(t w)]` of distance
   * `t = min(memLen + qLen - 1 - r, clampLen)` (descending, as HF's `pos_seq`), `w_i = base^(-2i/dModel)`.
   */
  relativeSinusoid(options: TxlSinusoidOptions): Tensor;
  /**
   * Hugging Face's `_rel_shift` of `bd` `[qLen, kLen]` per head: `out[i, j] = bd[i, j + qLen - 1 - i]`
   * for `j <= kLen - qLen + i`; the entries after it are what the pad/reshape leaves (0, then
   * values of row i + 1), or -Infinity with `maskFuture`.
   */
  relShift(bd: TensorInput, options?: TxlRelShiftOptions): Tensor;
  /**
   * The unscaled score `(q_i + u).k_j + rel_shift((q_i + v).r_m)` per head, `[heads, qLen, kLen]`
   * (`[qLen, kLen]` for 2-D q). `r` is R projected per head (HF `r_head_k`, `[heads, kLen, d]`),
   * `u` and `v` are `r_w_bias` and `r_r_bias` (`[heads, d]`). HF multiplies by 1/sqrt(d) afterwards.
   */
  score(q: TensorInput, k: TensorInput, r: TensorInput, u: TensorInput, v: TensorInput, options?: TxlScoreOptions): Tensor;
}

/** A per-head bias vector: `heads * d` values (`[heads, d]`, or `[d]` for one head). */
function perHead(fn: string, name: string, value: unknown, heads: number, d: number) {
  const dims = args.isFloat32Array(value) ? (heads === 1 ? [d] : [heads, d]) : undefined;
  const t = args.tensor(fn, name, value, dims, `${name}.dims`);
  const ok = (t.dims.length === 2 && t.dims[0] === heads && t.dims[1] === d) || (heads === 1 && t.dims.length === 1 && t.dims[0] === d);
  if (!ok) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} must be [heads, d] = [${heads}, ${d}]${heads === 1 ? ` or [${d}]` : ''}, got [${t.dims.join(', ')}]`);
  }
  return t;
}

export function transformerXLApi(heap: Heap): TransformerXLApi {
  const call = heap.call;

  function relativeSinusoid(options: TxlSinusoidOptions): Tensor {
    const fn = 'transformerXL.relativeSinusoid';
    const opts = args.options(fn, options, ['qLen', 'memLen', 'dModel', 'clampLen', 'base', 'out']);
    const qLen = args.integer(fn, 'qLen', args.required(fn, opts, 'qLen'));
    const memLen = integerOr(fn, opts, 'memLen', 0, 0);
    const dModel = args.integer(fn, 'dModel', args.required(fn, opts, 'dModel'));
    const clampLen = integerOr(fn, opts, 'clampLen', 0, 0);
    const base = opts.base === undefined ? 10000 : args.finite(fn, 'base', opts.base, true);
    const kLen = memLen + qLen;
    if (kLen > 2 ** 31 - 1) throw new PosEncError('SIZE_OVERFLOW', `${fn}: memLen + qLen (${kLen}) is too large`);
    checkResultSize(fn, 'R', [kLen, dModel]);
    return withHeap(heap, (scope) => scope.generate(fn, opts.out, [kLen, dModel], 'R', { axis: 0, whole: true }, (out) =>
      heap.check(call.txlRelativeSinusoid({ out, kLen, dModel, clampLen, base }), fn)));
  }

  function relShift(bd: TensorInput, options?: TxlRelShiftOptions): Tensor {
    const fn = 'transformerXL.relShift';
    const opts = args.options(fn, options, ['dims', 'maskFuture'], true);
    const t = headTensor(fn, 'bd', bd, opts.dims, 'dims');
    const maskFuture = flag(fn, opts, 'maskFuture', false);
    return withHeap(heap, (scope) => {
      const bdPtr = scope.tensorIn(t, 'bd');
      const out = scope.alloc(t.size * 4, 'the shifted matrix');
      heap.check(call.txlRelShift({ bd: bdPtr, heads: t.heads, qLen: t.len, kLen: t.width, maskFuture, out }), fn);
      return { data: heap.f32(out, t.size).slice(), dims: t.dims.slice() };
    });
  }

  function score(q: TensorInput, k: TensorInput, r: TensorInput, u: TensorInput, v: TensorInput, options?: TxlScoreOptions): Tensor {
    const fn = 'transformerXL.score';
    const opts = args.options(fn, options, ['dims', 'kDims', 'rDims', 'maskFuture'], true);
    const qt = headTensor(fn, 'q', q, opts.dims, 'dims');
    const kt = headTensor(fn, 'k', k, opts.kDims, 'kDims');
    const rt: HeadTensor = headTensor(fn, 'r', r, opts.rDims ?? opts.kDims, opts.rDims === undefined ? 'kDims' : 'rDims');
    for (const [name, t] of [['k', kt], ['r', rt]] as const) {
      sameRank(fn, qt, name, t);
      expectSize(fn, `the heads of ${name}`, t.heads, qt.heads);
      expectSize(fn, `the width of ${name} (d)`, t.width, qt.width);
    }
    expectSize(fn, 'the length of r (kLen, as k)', rt.len, kt.len);
    const ut = perHead(fn, 'u', u, qt.heads, qt.width);
    const vt = perHead(fn, 'v', v, qt.heads, qt.width);
    const maskFuture = flag(fn, opts, 'maskFuture', false);
    return withHeap(heap, (scope) => {
      const ptrs = { q: scope.tensorIn(qt, 'q'), k: scope.tensorIn(kt, 'k'), r: scope.tensorIn(rt, 'r'), u: scope.tensorIn(ut, 'u'), v: scope.tensorIn(vt, 'v') };
      const out = scope.alloc(bytes(qt.heads, qt.len, kt.len), 'the score');
      heap.check(call.txlScore({ ...ptrs, heads: qt.heads, qLen: qt.len, kLen: kt.len, headDim: qt.width, maskFuture, out }), fn);
      return { data: heap.f32(out, qt.heads * qt.len * kt.len).slice(), dims: headDims(qt, qt.len, kt.len) };
    });
  }

  return { relativeSinusoid, relShift, score };
}
