// Other RoPE forms: 2-D axial RoPE for image patches (lucidrains), xPos (Sun et al. 2022) and
// M-RoPE (Qwen2-VL sections, Qwen3-VL interleaved slots). The C++ core (src/encodings/rope_forms.cpp) computes their angles and scales
// in double precision; this file resolves options and positions and moves the data.
import * as args from '../../runtime/args.js';
import type { PositionIdsInput, TensorInput } from '../../runtime/args.js';
import { PosEncError } from '../../runtime/errors.js';
import type { Heap } from '../../runtime/heap.js';
import { positionCount, positionsOf } from '../../runtime/positions.js';
import { AXIAL_FREQUENCIES } from '../../generated/boundary.js';
import { qkOf, rotateInPlace, tensorArgs } from './shapes.js';
import type { HeadLayout } from './shapes.js';
import { resolveSpec, SPEC_KEYS, seqLenOf, specArgs } from './spec.js';
import type { RopeSpec } from './spec.js';

/** Shapes of the q/k tensors, as in {@link RopeApplyOptions}. */
interface TensorShapeOptions {
  /** Memory order of 4-D q/k (required for them). */
  layout?: HeadLayout;
  /** Shape of q when it is a bare Float32Array. */
  dims?: readonly number[];
  /** Shape of k when it is a bare Float32Array (default: `dims`). */
  kDims?: readonly number[];
  /** Heads of q for 3-D `[batch, seq, hidden]` tensors. */
  numHeads?: number;
}

/** Frequencies of 2-D RoPE, named as lucidrains' `freqs_for`. */
export type Rope2dFrequencies = (typeof AXIAL_FREQUENCIES)[number];

/**
 * Options of {@link RopeApi.apply2d}. Lane layout of a head (lucidrains `get_axial_freqs`, rows
 * first): lanes `[0, rotaryDim/2)` rotate by the row position, `[rotaryDim/2, rotaryDim)` by the
 * column position, each block with adjacent pairs (2k, 2k+1) and frequencies
 * w_k = base^(-2k/(rotaryDim/2)); lanes from rotaryDim on pass through.
 */
export interface Rope2dOptions extends TensorShapeOptions {
  /** Lanes per head; if given, it must match the tensors. */
  headDim?: number;
  /** Lanes of both axis blocks (lucidrains' `dim` times 2): a multiple of 4, default headDim. */
  rotaryDim?: number;
  /** Frequency base for `'lang'` (default 10000). */
  base?: number;
  /** `'lang'` (default): w_k = base^(-2k/axisDim), integer positions. `'pixel'`: w_k = π·linspace(1, maxFreq/2, axisDim/2), positions linspace(-1, 1, n) over the grid. */
  freqs?: Rope2dFrequencies;
  /** `'pixel'` only (default 10). */
  maxFreq?: number;
  /** `[rows, cols]`: tokens are the grid's patches in row-major order (seq = rows * cols). */
  grid?: readonly [number, number] | readonly number[];
  /** Explicit positions instead of `grid`, axis-major: `[2, seq]` (row ids, then column ids) or `[2, batch, seq]`. */
  positionIds?: PositionIdsInput;
}

/** Options of {@link RopeApi.applyXPos}: a RoPE spec (default pairing `'interleaved'`, as lucidrains and torchscale) plus the xPos scale. */
export interface RopeXPosOptions extends RopeSpec, TensorShapeOptions {
  /** γ of zeta_i = (2i + γ·rotaryDim) / ((1 + γ)·rotaryDim) (default 0.4). */
  gamma?: number;
  /** B, the scale base (default 512, lucidrains `xpos_scale_base`). */
  scaleBase?: number;
  /** c, the position where the scale is 1 (default floor(seq / 2), as lucidrains' `len // 2`). */
  center?: number;
  /** Position of the first token (default 0). */
  offset?: number;
  /** Explicit positions: `[seq]` or `[batch, seq]`. */
  positionIds?: PositionIdsInput;
  /** The current length for `dynamic`/`longrope` scaling (default max(position) + 1). */
  seqLen?: number;
}

/** Options of {@link RopeApi.applyMultimodal}: a RoPE spec plus the Qwen2-VL section split. */
export interface RopeMultimodalOptions extends RopeSpec, TensorShapeOptions {
  /**
   * Pairs per position axis, e.g. `[16, 24, 24]` (Qwen2-VL, head 128): pairs [0, 16) follow the
   * temporal id, [16, 40) the height id, [40, 64) the width id. Must sum to rotaryDim/2.
   */
  mropeSection: readonly number[];
  /**
   * Qwen3-VL / Qwen3.5 (HF `apply_interleaved_mrope`, config `mrope_interleaved`): the 3 axes take
   * interleaved slots instead of blocks, pair i following the height id if i % 3 == 1 and
   * i < 3·mropeSection[1], the width id if i % 3 == 2 and i < 3·mropeSection[2], the temporal id
   * otherwise. Default false (Qwen2-VL's blocks).
   */
  mropeInterleaved?: boolean;
  /** Axis-major ids: `[3, batch, seq]` (HF's `position_ids`) or `[3, seq]` shared by the batch. */
  positionIds?: PositionIdsInput;
  /** Without positionIds: every axis at offset + s (text tokens). Default 0. */
  offset?: number;
  /** The current length for `dynamic`/`longrope` scaling (default max over all ids + 1). */
  seqLen?: number;
}

const SHAPE_KEYS = ['layout', 'dims', 'kDims', 'numHeads'];

/** Axis-major position ids for `axes` axes: `[axes, seq]` (shared) or `[axes, batch, seq]`. */
export function axisIds(fn: string, value: unknown, axes: number, batch: number, seq: number): { ids: Float64Array; perBatch: boolean } {
  const count = positionCount(value);
  const { ids } = args.positionIds(fn, value, 1, Math.max(count, 1));
  if (ids.length === axes * seq) return { ids, perBatch: false };
  if (ids.length === axes * batch * seq) return { ids, perBatch: batch > 1 };
  throw new PosEncError('SHAPE_MISMATCH', `${fn}: positionIds has ${ids.length} values; expected ${axes * seq} ([${axes}, seq = ${seq}])` +
    (batch > 1 ? ` or ${axes * batch * seq} ([${axes}, batch = ${batch}, seq])` : ''));
}

export function ropeFormsApi(heap: Heap) {
  const call = heap.call;

  function apply2d(q: TensorInput, k: TensorInput | null | undefined, options: Rope2dOptions): void {
    const fn = 'rope.apply2d';
    const opts = args.options(fn, options, ['headDim', 'rotaryDim', 'base', 'freqs', 'maxFreq', 'grid', 'positionIds', ...SHAPE_KEYS]);
    const t = qkOf(fn, q, k, opts);
    const { qh } = t;
    const { rotaryDim, base } = resolveSpec(fn, { headDim: opts.headDim, rotaryDim: opts.rotaryDim, base: opts.base }, qh.headDim);
    const freqs = opts.freqs === undefined ? 0 : args.choice(fn, 'freqs', opts.freqs, AXIAL_FREQUENCIES);
    const maxFreq = opts.maxFreq === undefined ? 10 : args.finite(fn, 'maxFreq', opts.maxFreq, true);
    let rows = 0;
    let cols = 0;
    let pos: { ids: Float64Array | undefined; perBatch: boolean } = { ids: undefined, perBatch: false };
    if (opts.grid !== undefined && opts.positionIds !== undefined) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: give either grid or positionIds, not both`);
    } else if (opts.grid !== undefined) {
      const grid = args.shapeOf(fn, 'grid', opts.grid);
      if (grid.length !== 2) throw new PosEncError('INVALID_ARGUMENT', `${fn}: grid must be [rows, cols], got [${grid.join(', ')}]`);
      [rows, cols] = grid as [number, number];
      if (rows * cols !== qh.seq) {
        throw new PosEncError('SHAPE_MISMATCH', `${fn}: grid [${rows}, ${cols}] holds ${rows * cols} patches, but the tensors have seq ${qh.seq}`);
      }
    } else if (opts.positionIds !== undefined) {
      pos = axisIds(fn, opts.positionIds, 2, qh.batch, qh.seq);
    } else {
      throw new PosEncError('MISSING_OPTION', `${fn}: option 'grid' ([rows, cols]) or 'positionIds' ([2, seq] row and column ids) is required`);
    }
    rotateInPlace(heap, fn, t, pos.ids, (qPtr, kPtr, idsPtr) => call.ropeApplyAxial({
      ...tensorArgs(t, qPtr, kPtr), rotaryDim, base, freqs, maxFreq, ids: idsPtr, perBatch: pos.perBatch, gridRows: rows,
      gridCols: cols,
    }));
  }

  function applyXPos(q: TensorInput, k: TensorInput | null | undefined, options: RopeXPosOptions): void {
    const fn = 'rope.applyXPos';
    const opts = args.options(fn, options, [...SPEC_KEYS, ...SHAPE_KEYS, 'gamma', 'scaleBase', 'center', 'offset', 'positionIds', 'seqLen']);
    const t = qkOf(fn, q, k, opts);
    const { qh } = t;
    const spec = resolveSpec(fn, opts, qh.headDim, 1);
    const seqLen = seqLenOf(fn, opts.seqLen);
    const gamma = opts.gamma === undefined ? 0.4 : args.finite(fn, 'gamma', opts.gamma, true);
    const scaleBase = opts.scaleBase === undefined ? 512 : args.finite(fn, 'scaleBase', opts.scaleBase, true);
    const center = opts.center === undefined ? NaN : args.finite(fn, 'center', opts.center);
    const pos = positionsOf(fn, opts, qh.batch, qh.seq);
    rotateInPlace(heap, fn, t, pos.ids, (qPtr, kPtr, idsPtr, scope) => call.ropeApplyXPos({
      ...tensorArgs(t, qPtr, kPtr), ...specArgs(spec, scope), seqLen, gamma, scaleBase, center, offset: pos.offset,
      ids: idsPtr, perBatch: pos.perBatch,
    }));
  }

  function applyMultimodal(q: TensorInput, k: TensorInput | null | undefined, options: RopeMultimodalOptions): void {
    const fn = 'rope.applyMultimodal';
    const opts = args.options(fn, options, [...SPEC_KEYS, ...SHAPE_KEYS, 'mropeSection', 'mropeInterleaved', 'positionIds', 'offset', 'seqLen']);
    const t = qkOf(fn, q, k, opts);
    const { qh } = t;
    const spec = resolveSpec(fn, opts, qh.headDim);
    const seqLen = seqLenOf(fn, opts.seqLen);
    const sections = Float64Array.from(args.listOf(fn, 'mropeSection', args.required(fn, opts, 'mropeSection'),
      (v, name) => args.integer(fn, name, v, 0), { typed: true }));
    if (sections.length === 0) throw new PosEncError('INVALID_ARGUMENT', `${fn}: mropeSection must hold at least one section`);
    const interleaved = opts.mropeInterleaved ?? false;
    if (typeof interleaved !== 'boolean') {
      throw new PosEncError('INVALID_TYPE', `${fn}: mropeInterleaved must be true or false, got ${args.describe(interleaved)}`);
    }
    let pos: { offset: number; ids: Float64Array | undefined; perBatch: boolean };
    if (opts.positionIds !== undefined) {
      if (opts.offset !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: give either offset or positionIds, not both`);
      pos = { offset: 0, ...axisIds(fn, opts.positionIds, sections.length, qh.batch, qh.seq) };
    } else {
      pos = { offset: opts.offset === undefined ? 0 : args.finite(fn, 'offset', opts.offset), ids: undefined, perBatch: false };
    }
    rotateInPlace(heap, fn, t, pos.ids, (qPtr, kPtr, idsPtr, scope) => call.ropeApplyMultimodal({
      ...tensorArgs(t, qPtr, kPtr), ...specArgs(spec, scope), seqLen, sections: scope.f64In(sections, 'mropeSection'),
      sectionCount: sections.length, offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch, interleaved,
    }));
  }

  return { apply2d, applyXPos, applyMultimodal };
}
