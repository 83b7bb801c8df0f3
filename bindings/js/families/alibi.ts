// ALiBi (Press, Smith and Lewis 2022): per-head slopes and linear distance biases added to the
// attention logits, in the paper/ggml causal form, a symmetric encoder form, and BLOOM's form.
// Maths in src/encodings/alibi.cpp.
import { ALIBI_FORMS } from '../generated/boundary.js';
import * as args from '../runtime/args.js';
import type { Tensor } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { WasmTensor } from '../runtime/wasm-tensor.js';
import { Heap } from '../runtime/heap.js';
import { HeapScope, withHeap } from '../runtime/scope.js';
import { checkResultSize, flag, lengthsOf } from './relative-args.js';

/**
 * Which values the bias holds (query i at queryOffset + i, key j at j, slope m_h):
 * - `'causal'` (paper, ggml/llama.cpp): `-m_h (i - j)`
 * - `'symmetric'` (bidirectional encoders): `-m_h |i - j|`
 * - `'bloom'` (BLOOM, fairseq): `m_h keyPos_j`, the same for every query (equal to `'causal'` plus
 *   `m_h i`, a per-row constant that softmax ignores on causal rows)
 */
export type AlibiForm = (typeof ALIBI_FORMS)[number];

/** A 0/1 attention mask `[kLen]` or `[batch, kLen]` (1 = real token): numbers, typed arrays or `{ data, dims }`. */
export type AttentionMaskInput =
  | readonly (number | boolean)[]
  | Int32Array | Uint8Array | Int8Array | Float32Array | Float64Array | BigInt64Array
  | { readonly data: readonly (number | boolean)[] | Int32Array | Uint8Array | Int8Array | Float32Array | Float64Array | BigInt64Array; readonly dims?: readonly number[] };

/** Options of {@link AlibiApi.slopes}. */
export interface AlibiSlopeOptions extends AlibiHeads {
  /** A Float64Array of `numHeads` values to write the slopes into (reused from call to call). Default: a new one. */
  out?: Float64Array;
}

/** The heads and slope base of {@link AlibiSlopeOptions} and {@link AlibiBiasOptions}. */
export interface AlibiHeads {
  /** Number of heads (any count >= 1; non-powers of two use the paper's interleaved rule). */
  numHeads: number;
  /** The 8 of `2^(-8h/n)` (`alibi_bias_max` in MPT, `max_bias` in ggml; default 8). */
  maxBias?: number;
}

/** Options of {@link AlibiApi.bias}. */
export interface AlibiBiasOptions extends AlibiHeads {
  /** Number of queries (rows). */
  qLen: number;
  /** Number of keys (columns), at positions 0..kLen-1. */
  kLen: number;
  /** Absolute position of query 0 (default 0), e.g. the cache length when decoding. */
  queryOffset?: number;
  /** The bias values (default `'causal'`). */
  form?: AlibiForm;
  /**
   * Keys after the query (`j > queryOffset + i`) hold `-Infinity`, so the bias is also the causal
   * mask. Default: true for `'causal'`, false for `'symmetric'` and `'bloom'` (then those entries
   * hold the form's formula, e.g. `+m (j - i)` for `'causal'`).
   */
  maskFuture?: boolean;
  /**
   * `'bloom'` only: 0/1 mask `[kLen]` or `[batch, kLen]`. Key positions become
   * `(cumsum(mask) - 1) * mask` per row, so left padding does not shift them; a `[batch, kLen]`
   * mask gives a `[batch, heads, qLen, kLen]` result.
   */
  attentionMask?: AttentionMaskInput;
  /**
   * Where to write the result: a Float32Array of the result's size, or a WasmTensor of its dims
   * (`pe.memory.tensor`), written in place with no copy. Default: a new Float32Array.
   */
  out?: Float32Array | WasmTensor;
}

/** ALiBi: `pe.alibi`. */
export interface AlibiApi {
  /** The `numHeads` slopes in float64. */
  slopes(options: AlibiSlopeOptions): Float64Array;
  /** The bias `[heads, qLen, kLen]` (or `[batch, heads, qLen, kLen]` with a 2-D attentionMask), rounded once to float32. */
  bias(options: AlibiBiasOptions): Tensor;
}

function slopeParams(fn: string, opts: Record<string, unknown>) {
  return {
    numHeads: args.integer(fn, 'numHeads', args.required(fn, opts, 'numHeads')),
    maxBias: opts.maxBias === undefined ? 8 : args.finite(fn, 'maxBias', opts.maxBias, true),
  };
}

export function alibiApi(heap: Heap): AlibiApi {
  const call = heap.call;

  function slopes(options: AlibiSlopeOptions): Float64Array {
    const fn = 'alibi.slopes';
    const opts = args.options(fn, options, ['numHeads', 'maxBias', 'out']);
    const p = slopeParams(fn, opts);
    const target = HeapScope.float64Out(fn, opts.out, p.numHeads, 'the slopes');
    return withHeap(heap, (scope) => {
      const out = scope.alloc(p.numHeads * 8, 'the slopes');
      heap.check(call.alibiSlopes({ ...p, out }), fn);
      return scope.float64Result(target, out, p.numHeads, fn);
    });
  }

  function bias(options: AlibiBiasOptions): Tensor {
    const fn = 'alibi.bias';
    const opts = args.options(fn, options, ['numHeads', 'maxBias', 'qLen', 'kLen', 'queryOffset', 'form', 'maskFuture', 'attentionMask', 'out']);
    const p = slopeParams(fn, opts);
    const l = lengthsOf(fn, opts);
    const form = opts.form === undefined ? 0 : args.choice(fn, 'form', opts.form, ALIBI_FORMS);
    const maskFuture = flag(fn, opts, 'maskFuture', form === 0);
    const mask = opts.attentionMask === undefined ? undefined : maskOf(fn, opts.attentionMask, l.kLen);
    if (mask && ALIBI_FORMS[form] !== 'bloom') {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: attentionMask is only used by form 'bloom', got form '${ALIBI_FORMS[form]}'`);
    }
    const batch = mask?.batch ?? 1;
    return withHeap(heap, (scope) => {
      const dims = mask?.batched ? [batch, p.numHeads, l.qLen, l.kLen] : [p.numHeads, l.qLen, l.kLen];
      checkResultSize(fn, 'the bias', dims);
      let maskPtr = 0;
      if (mask) {
        maskPtr = scope.alloc(mask.values.length * 4, 'attentionMask');
        new Int32Array(heap.raw.HEAPU8.buffer, maskPtr, mask.values.length).set(mask.values);
      }
      // Query rows from `start` on are the bias of queryOffset + start.
      return scope.generate(fn, opts.out, dims, 'the bias', { axis: dims.length - 2 }, (ptr, start, n) => heap.check(
        call.alibiBias({ out: ptr, ...p, form, maskFuture, ...l, qLen: n, queryOffset: l.queryOffset + start, attentionMask: maskPtr, batch }),
        fn,
      ));
    });
  }

  return { slopes, bias };
}

/** Reads a 0/1 mask of `batch` rows of kLen; `batched` when it is 2-D (dims) or longer than one row. */
function maskOf(fn: string, value: unknown, kLen: number): { values: Int32Array; batch: number; batched: boolean } {
  let data: unknown = value;
  let dims: number[] | undefined;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value) && 'data' in value) {
    data = (value as { data: unknown }).data;
    const d = (value as { dims?: unknown }).dims;
    if (d !== undefined) dims = args.shapeOf(fn, 'attentionMask.dims', d);
  }
  if (!Array.isArray(data) && !(ArrayBuffer.isView(data) && !(data instanceof DataView))) {
    throw new PosEncError('INVALID_TYPE', `${fn}: attentionMask must be an array or a typed array of 0/1 values, got ${args.describe(value)}`);
  }
  const list = data as ArrayLike<unknown>;
  const values = new Int32Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (v === 1 || v === 1n || v === true) values[i] = 1;
    else if (!(v === 0 || v === 0n || v === false)) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: attentionMask[${i}] must be 0 or 1, got ${args.describe(v)}`);
    }
  }
  if (dims !== undefined) {
    if ((dims.length !== 1 && dims.length !== 2) || dims[dims.length - 1] !== kLen || dims.reduce((a, b) => a * b, 1) !== list.length) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: attentionMask dims [${dims.join(', ')}] must be [kLen] or [batch, kLen] with kLen ${kLen}, holding its ${list.length} values`);
    }
    return { values, batch: dims.length === 2 ? dims[0]! : 1, batched: dims.length === 2 };
  }
  if (list.length === 0 || list.length % kLen !== 0) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: attentionMask has ${list.length} values; expected kLen (${kLen}) or batch * kLen`);
  }
  return { values, batch: list.length / kLen, batched: list.length > kLen };
}
