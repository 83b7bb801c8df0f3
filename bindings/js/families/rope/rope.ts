// Rotary position embedding (Su et al. 2021, RoFormer): in-place rotation of q/k lane pairs by
// position * frequency, with the scaling variants of spec.ts. Frequencies, angles and their
// cos/sin are computed in double precision in the C++ core (src/encodings/rope.cpp and
// rope_scaling.cpp); this file resolves shapes and options and moves the data.
import * as args from '../../runtime/args.js';
import type { PositionIdsInput, Tensor, TensorInput } from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import { Heap } from '../../runtime/heap.js';
import { HeapScope, withHeap } from '../../runtime/scope.js';
import { positionCount, positionsOf } from '../../runtime/positions.js';
import { RopeCache } from './cache.js';
import { ropeFormsApi } from './forms.js';
import type { Rope2dOptions, RopeMultimodalOptions, RopeXPosOptions } from './forms.js';
import { inPieceRange, qHeads, qkOf, rotateInPlace, rotateTokenPieces } from './shapes.js';
import { permuteWeights } from './permute.js';
import type { RopePermuteOptions, WeightData, WeightTensor } from './permute.js';
import { ropeShiftApi } from './shift.js';
import type { RopeShiftOptions } from './shift.js';
import type { RopeTensorOptions } from './shapes.js';
import { readRopeFrequencyBlock, ropeFrequencyBlockListStart } from '../../generated/boundary.js';
import { frequencyBlockLength, PAIRINGS, readFrequencies, resolveSpec, SPEC_KEYS, seqLenOf } from './spec.js';
import type { ResolvedSpec, RopeConfigOptions, RopeFrequencies, RopeModelSpec, RopeSpec } from './spec.js';

export type { HeadLayout, RopeTensorOptions } from './shapes.js';
export { RopeCache } from './cache.js';
export type { RopeCacheApplyOptions, RopeCacheCopyOptions } from './cache.js';
export { PAIRINGS } from './spec.js';
export type {
  DefaultRopeScaling, DynamicRopeScaling, LinearRopeScaling, Llama3Band, Llama3RopeScaling, LongRopeScaling, NtkRopeScaling,
  RopeFrequencies, RopePairing, RopeScaling, RopeScalingType, RopeSpec, YarnRopeScaling,
} from './spec.js';
export type { Rope2dOptions, RopeMultimodalOptions, RopeXPosOptions } from './forms.js';
export type { RopeConfigOptions, RopeModelSpec } from './spec.js';
export type { RopeShiftMoveOptions, RopeShiftOptions } from './shift.js';
export type { RopePermuteOptions, WeightData, WeightTensor } from './permute.js';

/** Options of {@link RopeApi.apply}. */
export interface RopeApplyOptions extends RopeSpec, RopeTensorOptions {
  /**
   * The current sequence length, read by `dynamic` and `longrope` scaling. Default: max(position) + 1
   * over the call's tokens, as Hugging Face's forward derives it from `position_ids`.
   */
  seqLen?: number;
}

/** Options of {@link RopeApi.frequencies} and {@link RopeApi.angles}. */
export interface RopeLengthOptions {
  /**
   * The current sequence length (`dynamic`, `longrope`). `frequencies` without it: as at model load
   * in Hugging Face (dynamic NTK unscaled, LongRoPE short list); `angles` without it: max(positionIds) + 1.
   */
  seqLen?: number;
}

/** Options of {@link RopeApi.angles}. */
export interface RopeAnglesOptions extends RopeLengthOptions {
  /** A Float64Array of `positions * rotaryDim/2` values to write the angles into (reused from call to call). Default: a new one. */
  out?: Float64Array;
}

/** Options of {@link RopeApi.createCache}. */
export interface RopeCacheOptions extends RopeSpec {
  /** Positions to precompute: 0..maxPositions-1. */
  maxPositions: number;
  /** The current length for `dynamic`/`longrope` scaling (default maxPositions). */
  seqLen?: number;
}

/** A float64 result: row-major data and its dims. */
export interface Float64Tensor {
  /** The values, row-major. */
  data: Float64Array;
  /** The shape. */
  dims: number[];
}

/** Options of {@link RopeApi.rotaryEmbedding}, named after the ONNX RotaryEmbedding attributes. */
export interface RotaryEmbeddingOptions {
  /** `[batch, seq]` row ids into the caches; without them the caches are `[batch, seq, rotaryDim/2]`. */
  positionIds?: PositionIdsInput;
  /** Adjacent-pair rotation (ONNX `interleaved = 1`); default false (half pairing). */
  interleaved?: boolean | 0 | 1;
  /** Rotated lanes per head; 0 or absent means the whole head. */
  rotaryEmbeddingDim?: number;
  /** Heads in a 3-D `[batch, seq, hidden]` input (required for it). */
  numHeads?: number;
  /** Shape of `x` when it is a bare Float32Array. */
  dims?: readonly number[];
  /** Shape of `cosCache` when it is a bare Float32Array. */
  cosDims?: readonly number[];
  /** Shape of `sinCache` when it is a bare Float32Array. */
  sinDims?: readonly number[];
}

/** Rotary position embedding: `pe.rope`. */
export interface RopeApi {
  /**
   * Rotates q and (unless null) k in place, in one call. Both keep their shapes. With `scaling`,
   * the scaled frequencies are used and the attention factor multiplies the rotated lanes.
   */
  apply(q: TensorInput, k: TensorInput | null | undefined, options: RopeApplyOptions): void;
  /** The inverse frequencies, attention factor and variant diagnostics (docs/encodings.md#811-what-each-variant-exposes) the spec defines. */
  frequencies(spec: RopeSpec & RopeLengthOptions, options?: RopeLengthOptions): RopeFrequencies;
  /** The rotation angles position * invFreq in float64, `[positions, rotaryDim/2]`. */
  angles(spec: RopeSpec & RopeLengthOptions, positionIds: PositionIdsInput, options?: RopeAnglesOptions): Float64Tensor;
  /** Precomputes cos/sin (attention factor included) for positions 0..maxPositions-1 in WebAssembly memory, for repeated calls. */
  createCache(options: RopeCacheOptions): RopeCache;
  /**
   * The ONNX RotaryEmbedding operator (opset 23): rotates `x` with the given cos/sin caches (used
   * as given) and returns a new tensor. 4-D `x` is `[batch, heads, seq, headDim]`; 3-D is `[batch, seq, hidden]` with `numHeads`.
   */
  rotaryEmbedding(x: TensorInput, cosCache: TensorInput, sinCache: TensorInput, options?: RotaryEmbeddingOptions): Tensor;
  /**
   * 2-D axial RoPE for image patches (lucidrains order): lanes [0, rotaryDim/2) rotate by the
   * row, [rotaryDim/2, rotaryDim) by the column, adjacent pairs inside each block; in place.
   */
  apply2d(q: TensorInput, k: TensorInput | null | undefined, options: Rope2dOptions): void;
  /** xPos (Sun et al. 2022): RoPE plus a per-pair scale zeta^((m-c)/B) on queries and its inverse on keys; in place. */
  applyXPos(q: TensorInput, k: TensorInput | null | undefined, options: RopeXPosOptions): void;
  /** Qwen2-VL M-RoPE: pair sections (`mropeSection`) rotated by temporal, height and width ids `[3, batch, seq]`; in place. */
  applyMultimodal(q: TensorInput, k: TensorInput | null | undefined, options: RopeMultimodalOptions): void;
  /** The RoPE spec of a model from its Hugging Face `config.json` (object or JSON text). Throws `INVALID_CONFIG` naming the field. */
  fromConfig(config: object | string, options?: RopeConfigOptions): RopeModelSpec;
  /**
   * KV-cache context shift: re-rotates keys `k` already rotated with this spec from their positions
   * (`offset`/`positionIds`) to new ones (`delta`, `newOffset` or `newPositionIds`), in place. Each
   * pair turns by (new - old) * w_i, formed and evaluated in float64 from the absolute positions and
   * rounded once; the attention factor is not applied again. `dynamic` scaling and a LongRoPE list
   * switch are refused (`INVALID_ARGUMENT`).
   */
  shift(k: TensorInput, options: RopeShiftOptions): void;
  /**
   * A q/k projection weight `[outFeatures, inFeatures]` (or bias `[outFeatures]`) with the rows of
   * each head reordered for the other pairing (`to: 'half'`: Hugging Face's permute of Meta
   * checkpoints; `to: 'interleaved'`: llama.cpp's, back), as a new array of the same element type.
   * A permutation: `to` one pairing and back is the identity, bit for bit.
   */
  permuteWeights<T extends WeightData>(weight: T | WeightTensor<T>, options: RopePermuteOptions): WeightTensor<T>;
}

const APPLY_OPTIONS = [...SPEC_KEYS, 'layout', 'dims', 'kDims', 'numHeads', 'offset', 'positionIds', 'seqLen', 'mropeSection'];

/** M-RoPE specs (from fromConfig) need their own entry point: refuse them instead of ignoring the sections. */
export function refuseMrope(fn: string, opts: Record<string, unknown>): void {
  if (opts.mropeSection !== undefined) {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: mropeSection (Qwen2-VL M-RoPE) needs pe.rope.applyMultimodal with [3, batch, seq] positionIds`);
  }
}

/**
 * The rope family over one heap. `fromConfig` (pe.rope.fromConfig) reads a config through the
 * per-layer plan, which lives above the families (bindings/js/model): posenc.ts passes it in.
 */
export function ropeApi(heap: Heap, fromConfig: RopeApi['fromConfig']): RopeApi {
  const call = heap.call;

  /** Writes the scaling block (if any) into the scope; returns its address or 0. */
  function scalingIn(spec: ResolvedSpec, scope: HeapScope): number {
    return scope.f64In(spec.scaling.block, 'the scaling parameters');
  }

  /**
   * Computes the frequencies of `spec` into the scope: the block's address, the address of its
   * inverse frequencies and the attention factor.
   */
  function frequencyBlock(fn: string, spec: ResolvedSpec, seqLen: number, scope: HeapScope) {
    const pairs = Math.floor(spec.rotaryDim / 2);
    const ptr = scope.alloc(frequencyBlockLength(pairs) * 8, 'inverse frequencies');
    const { rotaryDim, base } = spec;
    heap.check(call.ropeFrequencies({ rotaryDim, base, scaling: scalingIn(spec, scope), seqLen, out: ptr }), fn);
    const invFreq = ptr + ropeFrequencyBlockListStart('invFreq', pairs) * 8;
    return { ptr, invFreq, attentionFactor: readRopeFrequencyBlock(heap.f64(ptr, frequencyBlockLength(pairs)), pairs).attentionFactor };
  }

  /** seqLen from `options` or (as a convenience) from the spec object, not both. */
  function lengthOf(fn: string, spec: Record<string, unknown>, options: unknown, keys = ['seqLen']): { seqLen: number; opts: Record<string, unknown> } {
    const opts = args.options(fn, options, keys, true);
    if (spec.seqLen !== undefined && opts.seqLen !== undefined) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: give seqLen once, in the spec or in the options`);
    }
    return { seqLen: seqLenOf(fn, opts.seqLen ?? spec.seqLen), opts };
  }

  function apply(q: TensorInput, k: TensorInput | null | undefined, options: RopeApplyOptions): void {
    const fn = 'rope.apply';
    const opts = args.options(fn, options, APPLY_OPTIONS);
    refuseMrope(fn, opts);
    const qk = qkOf(fn, q, k, opts);
    const { qh, kh } = qk;
    const spec = resolveSpec(fn, opts, qh.headDim);
    const seqLen = seqLenOf(fn, opts.seqLen);
    const pos = positionsOf(fn, opts, qh.batch, qh.seq);
    // Consecutive positions that cannot give a non-finite angle, and a length the scaling does not
    // derive from the positions: the pieces' rotations are the whole call's (scope.ts, rotateTokenPieces).
    const readsLength = Number.isNaN(seqLen) && (spec.scaling.type === 'dynamic' || spec.scaling.type === 'longrope');
    if (pos.ids === undefined && !readsLength && inPieceRange(pos.offset, qh.seq) &&
      rotateTokenPieces(heap, fn, qk, true, (qPtr, kPtr, piece, scope) => call.ropeApply({
        q: qPtr, qHeads: qh.heads, k: kPtr, kHeads: kh?.heads ?? 0, batch: 1, seq: piece.seq, headDim: qh.headDim,
        layout: qh.layout, pairing: spec.pairing, rotaryDim: spec.rotaryDim, base: spec.base, scaling: scalingIn(spec, scope),
        seqLen, offset: pos.offset + piece.start, ids: 0, perBatch: false,
      }))) return;
    rotateInPlace(heap, fn, qk, pos.ids, (qPtr, kPtr, idsPtr, scope) => call.ropeApply({
      q: qPtr, qHeads: qh.heads, k: kPtr, kHeads: kh?.heads ?? 0, batch: qh.batch, seq: qh.seq, headDim: qh.headDim,
      layout: qh.layout, pairing: spec.pairing, rotaryDim: spec.rotaryDim, base: spec.base, scaling: scalingIn(spec, scope),
      seqLen, offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch,
    }));
  }

  function frequencies(spec: RopeSpec & RopeLengthOptions, options?: RopeLengthOptions): RopeFrequencies {
    const fn = 'rope.frequencies';
    const opts = args.options(fn, spec, [...SPEC_KEYS, 'seqLen', 'mropeSection']);
    const { seqLen } = lengthOf(fn, opts, options);
    const resolved = resolveSpec(fn, opts, undefined);
    return withHeap(heap, (scope) => {
      const freq = frequencyBlock(fn, resolved, seqLen, scope);
      return readFrequencies(heap, freq.ptr, resolved.rotaryDim / 2, resolved.scaling);
    });
  }

  function angles(spec: RopeSpec & RopeLengthOptions, positionIds: PositionIdsInput, options?: RopeAnglesOptions): Float64Tensor {
    const fn = 'rope.angles';
    const opts = args.options(fn, spec, [...SPEC_KEYS, 'seqLen', 'mropeSection']);
    refuseMrope(fn, opts);
    const { seqLen, opts: callOpts } = lengthOf(fn, opts, options, ['seqLen', 'out']);
    const resolved = resolveSpec(fn, opts, undefined);
    const count = positionCount(positionIds);
    const ids = args.positionIds(fn, positionIds, 1, Math.max(count, 1)).ids;
    const pairs = resolved.rotaryDim / 2;
    const target = HeapScope.float64Out(fn, callOpts.out, ids.length * pairs, `the angles [${ids.length}, ${pairs}]`);
    return withHeap(heap, (scope) => {
      const idsPtr = scope.f64In(ids, 'positionIds');
      const block = scope.alloc(ids.length * Math.max(pairs, 1) * 8, 'the angles');
      heap.check(call.ropeAngles({
        rotaryDim: resolved.rotaryDim, base: resolved.base, scaling: scalingIn(resolved, scope), seqLen, ids: idsPtr,
        count: ids.length, out: block,
      }), fn);
      return { data: scope.float64Result(target, block, ids.length * pairs, fn), dims: [ids.length, pairs] };
    });
  }

  function createCache(options: RopeCacheOptions): RopeCache {
    const fn = 'rope.createCache';
    const opts = args.options(fn, options, [...SPEC_KEYS, 'maxPositions', 'seqLen', 'mropeSection']);
    refuseMrope(fn, opts);
    const spec = resolveSpec(fn, opts, undefined);
    const headDim = opts.headDim === undefined ? undefined : args.integer(fn, 'headDim', opts.headDim);
    const rows = args.integer(fn, 'maxPositions', args.required(fn, opts, 'maxPositions'));
    const seqLen = opts.seqLen === undefined ? rows : seqLenOf(fn, opts.seqLen);
    return withHeap(heap, (scope) => {
      const freq = frequencyBlock(fn, spec, seqLen, scope);
      const pairs = spec.rotaryDim / 2;
      // The interleaved pairing rotates with expanded rows ([c c], [-s s] per pair): a cache keeps
      // them too (3x the memory) so that no call expands its tokens' rows again.
      const expanded = PAIRINGS[spec.pairing] === 'interleaved';
      const block = rows * pairs * 4;
      const bytes = (expanded ? 6 : 2) * block;
      const table = scope.alloc(bytes, 'the cos/sin cache'); // freed with the scope unless kept below
      const cos = table;
      const sin = table + block;
      const cos2 = expanded ? table + 2 * block : 0;
      const sin2 = expanded ? table + 4 * block : 0;
      heap.check(call.ropeFillTable({ rotaryDim: spec.rotaryDim, invFreq: freq.invFreq, attentionFactor: freq.attentionFactor, rows, cos, sin }), fn);
      if (expanded) call.ropeExpandTable({ cos, sin, n: rows * pairs, cos2, sin2 });
      const invFreq = heap.f64(freq.invFreq, pairs).slice();
      const cache = new RopeCache(heap, { table, cos, sin, cos2, sin2, rows, pairs, rotaryDim: spec.rotaryDim, headDim, pairing: spec.pairing, invFreq });
      scope.keep(table);
      return cache;
    });
  }

  function rotaryEmbedding(x: TensorInput, cosCache: TensorInput, sinCache: TensorInput, options?: RotaryEmbeddingOptions): Tensor {
    const fn = 'rope.rotaryEmbedding';
    const opts = args.options(fn, options, ['positionIds', 'interleaved', 'rotaryEmbeddingDim', 'numHeads', 'dims', 'cosDims', 'sinDims'], true);
    const xt = args.tensor(fn, 'x', x, opts.dims);
    const cos = args.tensor(fn, 'cosCache', cosCache, opts.cosDims, 'cosDims');
    const sin = args.tensor(fn, 'sinCache', sinCache, opts.sinDims, 'sinDims');
    if (xt.dims.length !== 3 && xt.dims.length !== 4) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: x must be 4-D [batch, heads, seq, headDim] or 3-D [batch, seq, hidden], got [${xt.dims.join(', ')}]`);
    }
    const h = qHeads(fn, xt, xt.dims.length === 4 ? 'bhsd' : undefined, opts.numHeads);
    const interleaved = opts.interleaved === undefined ? 0 : interleavedFlag(fn, opts.interleaved);
    const r = opts.rotaryEmbeddingDim === undefined ? 0 : args.integer(fn, 'rotaryEmbeddingDim', opts.rotaryEmbeddingDim, 0);
    const rotaryDim = r === 0 ? h.headDim : r;
    if (cos.dims.join() !== sin.dims.join()) {
      throw new PosEncError('SHAPE_MISMATCH', `${fn}: cosCache dims [${cos.dims.join(', ')}] and sinCache dims [${sin.dims.join(', ')}] differ`);
    }
    const pairs = cos.dims[cos.dims.length - 1]!;
    let rows: number;
    let pos: { offset: number; ids: Float64Array | undefined; perBatch: boolean };
    if (opts.positionIds !== undefined) {
      if (cos.dims.length !== 2) {
        throw new PosEncError('SHAPE_MISMATCH', `${fn}: with positionIds the caches must be [maxPositions, rotaryDim/2], got [${cos.dims.join(', ')}]`);
      }
      rows = cos.dims[0]!;
      pos = positionsOf(fn, { positionIds: opts.positionIds }, h.batch, h.seq);
    } else {
      if (cos.dims.length !== 3 || cos.dims[0] !== h.batch || cos.dims[1] !== h.seq) {
        throw new PosEncError('SHAPE_MISMATCH', `${fn}: without positionIds the caches must be [batch, seq, rotaryDim/2] = [${h.batch}, ${h.seq}, ${rotaryDim / 2}], got [${cos.dims.join(', ')}]`);
      }
      rows = h.batch * h.seq;
      pos = { offset: 0, ids: Float64Array.from({ length: rows }, (_, i) => i), perBatch: true };
    }
    return withHeap(heap, (scope) => {
      const xPtr = scope.tensorCopy(xt, 'x'); // returns a new tensor: x itself stays as it is
      const cosPtr = scope.tensorIn(cos, 'cosCache');
      const sinPtr = scope.tensorIn(sin, 'sinCache');
      const idsPtr = scope.f64In(pos.ids, 'positionIds');
      heap.check(
        call.ropeApplyTable({
          cos: cosPtr, sin: sinPtr, cos2: 0, sin2: 0, rows, pairs, pairing: interleaved, rotaryDim, q: xPtr, qHeads: h.heads,
          k: 0, kHeads: 0, batch: h.batch, seq: h.seq, headDim: h.headDim, layout: h.layout, offset: pos.offset, ids: idsPtr,
          perBatch: pos.perBatch,
        }),
        fn,
      );
      return { data: heap.f32(xPtr, xt.size).slice(), dims: xt.dims.slice() };
    });
  }

  /** pe.rope.fromConfig: the spec of a config, refused when its frequencies or attention factor are not finite. */
  function fromConfigChecked(config: object | string, options?: RopeConfigOptions): RopeModelSpec {
    const fn = 'rope.fromConfig';
    const spec = fromConfig(config, options);
    const { mropeSection: _sections, ...rest } = spec as RopeModelSpec & { mropeSection?: unknown };
    const resolved = resolveSpec(fn, args.options(fn, rest, [...SPEC_KEYS, 'seqLen']), undefined);
    withHeap(heap, (scope) => {
      frequencyBlock(fn, resolved, seqLenOf(fn, undefined), scope); // the model-load frequencies, checked where formed
    });
    return spec;
  }

  return {
    apply, frequencies, angles, createCache, rotaryEmbedding, ...ropeFormsApi(heap), fromConfig: fromConfigChecked, ...ropeShiftApi(heap),
    permuteWeights,
  };
}

function interleavedFlag(fn: string, value: unknown): number {
  if (value === true || value === 1) return 1;
  if (value === false || value === 0) return 0;
  throw new PosEncError('INVALID_ARGUMENT', `${fn}: interleaved must be true/false or 1/0, got ${args.describe(value)}`);
}
