// Shaw, Uszkoreit and Vaswani 2018 relative position representations: clipped relative indices
// (key minus query), gathers of the learned [2k+1, d] tables, and attention with the relative key
// and value terms. Maths in src/encodings/shaw.cpp.
import * as args from '../runtime/args.js';
import type { Tensor, TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import { bytes, expectSize, flag, headDims, int32Copy, lengthsOf, offsetOf, qkvTensors, scaleOf } from './relative-args.js';
import type { HeadsAttentionOptions, IndexTensor } from './relative-args.js';

/** Options of {@link ShawApi.relativeIndices}. */
export interface ShawIndexOptions {
  /** Number of queries (rows). */
  qLen: number;
  /** Number of keys (columns), at positions 0..kLen-1. */
  kLen: number;
  /** k: distances are clipped to [-k, k] (tensor2tensor `max_relative_position`). */
  maxRelativePosition: number;
  /** Absolute position of query 0 (default 0), e.g. the cache length when decoding. */
  queryOffset?: number;
}

/** Options of {@link ShawApi.gather}. */
export interface ShawGatherOptions {
  /** Number of queries (rows). */
  qLen: number;
  /** Number of keys (columns), at positions 0..kLen-1. */
  kLen: number;
  /** k (default: from the table's 2k+1 rows; if given it must match them). */
  maxRelativePosition?: number;
  /** Absolute position of query 0 (default 0). */
  queryOffset?: number;
  /** Shape `[2k+1, width]` of `table` when it is a bare Float32Array. */
  tableDims?: readonly number[];
}

/** Options of {@link ShawApi.logits} and {@link ShawApi.attention}. */
export interface ShawAttentionOptions extends HeadsAttentionOptions {
  /** k (default: from the tables' 2k+1 rows; if given it must match them). */
  maxRelativePosition?: number;
}

/** Shaw et al. relative positions: `pe.shaw`. */
export interface ShawApi {
  /** `clip(j - (queryOffset + i), -k, k) + k` as `[qLen, kLen]` int32: the table row of each (query, key) pair. */
  relativeIndices(options: ShawIndexOptions): IndexTensor;
  /** Gathers a relative table `[2k+1, width]` into `[qLen, kLen, width]` (the paper's a_ij). */
  gather(table: TensorInput, options: ShawGatherOptions): Tensor;
  /**
   * Logits `e_ij = q_i . (k_j + a^K_ij) * scale`, `[heads, qLen, kLen]` (`[qLen, kLen]` for 2-D q);
   * `relativeKeys` is `[2k+1, d]`, shared by all heads. Masked entries are -Infinity.
   */
  logits(q: TensorInput, k: TensorInput, relativeKeys: TensorInput, options?: ShawAttentionOptions): Tensor;
  /**
   * Output `z_i = sum_j softmax_j(e_ij) (v_j + a^V_ij)`, `[heads, qLen, dv]` (`[qLen, dv]` for 2-D q);
   * `relativeValues` `[2k+1, dv]` or null for plain values. Fully masked rows give zero rows.
   */
  attention(
    q: TensorInput, k: TensorInput, v: TensorInput, relativeKeys: TensorInput, relativeValues: TensorInput | null | undefined,
    options?: ShawAttentionOptions,
  ): Tensor;
}

const ATTENTION_OPTIONS = ['dims', 'kDims', 'vDims', 'maxRelativePosition', 'queryOffset', 'scale', 'causal'];

/** A relative table `[rows, width]`; a bare Float32Array is read as rows of `width`. */
function tableOf(fn: string, name: string, value: unknown, width: number) {
  const dims = args.isFloat32Array(value) ? [value.length / width, width] : undefined;
  if (dims && !Number.isInteger(dims[0])) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} has ${(value as Float32Array).length} values, not a whole number of rows of width ${width}`);
  }
  const t = args.tensor(fn, name, value, dims, `${name}.dims`);
  if (t.dims.length !== 2) throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} must be [2k+1, width], got [${t.dims.join(', ')}]`);
  expectSize(fn, `${name} width (its last dim)`, t.dims[1]!, width);
  return Object.assign(t, { rows: t.dims[0]! }); // not a spread: see headTensor in relative-args.ts
}

/** k from the option or from the table's rows (2k+1). */
function maxRelativeOf(fn: string, opts: Record<string, unknown>, rows: number, name: string): number {
  if (opts.maxRelativePosition !== undefined) return args.integer(fn, 'maxRelativePosition', opts.maxRelativePosition);
  if (rows % 2 !== 1 || rows < 3) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name} must have 2k+1 rows (an odd number >= 3), got ${rows}`);
  }
  return (rows - 1) / 2;
}

export function shawApi(heap: Heap): ShawApi {
  const call = heap.call;

  function relativeIndices(options: ShawIndexOptions): IndexTensor {
    const fn = 'shaw.relativeIndices';
    const opts = args.options(fn, options, ['qLen', 'kLen', 'maxRelativePosition', 'queryOffset']);
    const l = lengthsOf(fn, opts);
    const k = args.integer(fn, 'maxRelativePosition', args.required(fn, opts, 'maxRelativePosition'));
    return withHeap(heap, (scope) => {
      const out = scope.alloc(bytes(l.qLen, l.kLen), 'the indices');
      heap.check(call.shawRelativeIndices({ out, ...l, maxRelativePosition: k }), fn);
      return { data: int32Copy(heap, out, l.qLen * l.kLen), dims: [l.qLen, l.kLen] };
    });
  }

  function gather(table: TensorInput, options: ShawGatherOptions): Tensor {
    const fn = 'shaw.gather';
    const opts = args.options(fn, options, ['qLen', 'kLen', 'maxRelativePosition', 'queryOffset', 'tableDims']);
    const t = args.tensor(fn, 'table', table, opts.tableDims, 'tableDims');
    if (t.dims.length !== 2) throw new PosEncError('SHAPE_MISMATCH', `${fn}: table must be [2k+1, width], got [${t.dims.join(', ')}]`);
    const [rows, width] = [t.dims[0]!, t.dims[1]!];
    const l = lengthsOf(fn, opts);
    const k = maxRelativeOf(fn, opts, rows, 'table');
    return withHeap(heap, (scope) => {
      const tablePtr = scope.tensorIn(t, 'table');
      const out = scope.alloc(bytes(l.qLen, l.kLen, width), 'the gathered table');
      heap.check(call.shawGather({ table: tablePtr, rows, width, out, ...l, maxRelativePosition: k }), fn);
      return { data: heap.f32(out, l.qLen * l.kLen * width).slice(), dims: [l.qLen, l.kLen, width] };
    });
  }

  function logits(q: TensorInput, k: TensorInput, relativeKeys: TensorInput, options?: ShawAttentionOptions): Tensor {
    const fn = 'shaw.logits';
    const opts = args.options(fn, options, ATTENTION_OPTIONS, true);
    const { qt, kt } = qkvTensors(fn, opts, q, k, false, undefined, 'shaw.attention');
    const keys = tableOf(fn, 'relativeKeys', relativeKeys, qt.width);
    const maxRel = maxRelativeOf(fn, opts, keys.rows, 'relativeKeys');
    const offset = offsetOf(fn, opts);
    const s = scaleOf(fn, opts);
    const causal = flag(fn, opts, 'causal', false);
    return withHeap(heap, (scope) => {
      const qPtr = scope.tensorIn(qt, 'q');
      const kPtr = scope.tensorIn(kt, 'k');
      const keysPtr = scope.tensorIn(keys, 'relativeKeys');
      const out = scope.alloc(bytes(qt.heads, qt.len, kt.len), 'the logits');
      heap.check(
        call.shawLogits({
          q: qPtr, k: kPtr, heads: qt.heads, kvHeads: kt.heads, qLen: qt.len, kLen: kt.len, headDim: qt.width,
          relativeKeys: keysPtr, rows: keys.rows, maxRelativePosition: maxRel, queryOffset: offset, ...s, causal, out,
        }),
        fn,
      );
      return { data: heap.f32(out, qt.heads * qt.len * kt.len).slice(), dims: headDims(qt, qt.len, kt.len) };
    });
  }

  function attention(
    q: TensorInput, k: TensorInput, v: TensorInput, relativeKeys: TensorInput, relativeValues: TensorInput | null | undefined,
    options?: ShawAttentionOptions,
  ): Tensor {
    const fn = 'shaw.attention';
    const opts = args.options(fn, options, ATTENTION_OPTIONS, true);
    const { qt, kt, vt } = qkvTensors(fn, opts, q, k, true, v, 'shaw.attention');
    const valueDim = vt!.width;
    const keys = tableOf(fn, 'relativeKeys', relativeKeys, qt.width);
    const values = relativeValues === null || relativeValues === undefined ? undefined : tableOf(fn, 'relativeValues', relativeValues, valueDim);
    if (values) expectSize(fn, 'the rows of relativeValues (2k+1, as relativeKeys)', values.rows, keys.rows);
    const maxRel = maxRelativeOf(fn, opts, keys.rows, 'relativeKeys');
    const offset = offsetOf(fn, opts);
    const s = scaleOf(fn, opts);
    const causal = flag(fn, opts, 'causal', false);
    return withHeap(heap, (scope) => {
      const qPtr = scope.tensorIn(qt, 'q');
      const kPtr = scope.tensorIn(kt, 'k');
      const vPtr = scope.tensorIn(vt!, 'v');
      const keysPtr = scope.tensorIn(keys, 'relativeKeys');
      const valuesPtr = values ? scope.tensorIn(values, 'relativeValues') : 0;
      const out = scope.alloc(bytes(qt.heads, qt.len, valueDim), 'the output');
      heap.check(
        call.shawAttention({
          q: qPtr, k: kPtr, v: vPtr, heads: qt.heads, kvHeads: kt.heads, qLen: qt.len, kLen: kt.len, headDim: qt.width,
          valueDim, relativeKeys: keysPtr, relativeValues: valuesPtr, rows: keys.rows, maxRelativePosition: maxRel,
          queryOffset: offset, ...s, causal, out,
        }),
        fn,
      );
      return { data: heap.f32(out, qt.heads * qt.len * valueDim).slice(), dims: headDims(qt, qt.len, valueDim) };
    });
  }

  return { relativeIndices, gather, logits, attention };
}
