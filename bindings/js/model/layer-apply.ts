// pe.model.apply: what one layer of a model does to q and k at their positions, in place — its
// RoPE form with its scaling and attention factor (or nothing) and its query scale — through the
// C++ core's layer entry (src/encodings/rope_layer.cpp).
import * as args from '../runtime/args.js';
import type { PositionIdsInput, TensorInput } from '../runtime/args.js';
import type { Heap } from '../runtime/heap.js';
import { resolveSpec, seqLenOf, specArgs } from '../families/rope/spec.js';
import { rotateInPlace, tensorArgs } from '../families/rope/shapes.js';
import type { QK, RopeTensorOptions } from '../families/rope/shapes.js';
import { formArgs, LANE_ORDERS, layerSeqLen, layerSpec, queryScaleArgs } from './layer-form.js';
import type { LaneOrder } from './layer-form.js';
import { layerCalls, layerPositions } from './layer-tensors.js';
import type { LayerPositions } from './layer-tensors.js';
import type { LayerPlan, ModelPlan } from './plan.js';

/** Options of `pe.model.apply`: the tensors' shapes and positions, as for `pe.rope.apply`, plus the multi-axis forms' ids. */
export interface ModelApplyOptions extends Omit<RopeTensorOptions, 'positionIds'> {
  /**
   * Positions: `[seq]` or `[batch, seq]` for one-axis layers (as pe.rope.apply); axis-major
   * `[3, seq]` / `[3, batch, seq]` temporal, height and width ids for M-RoPE (HF's `position_ids`;
   * `[seq]`, `[batch, seq]` or an `offset` mean text, every axis equal — a flat `[batch, seq]` list
   * of a batch of 3 reads as `[3, seq]`); `[2, seq]` / `[2, batch, seq]` row and
   * column ids for Pixtral's 2-D RoPE. The query scale of Llama 4's NoPE layers reads them too (HF
   * reads `cache_position`, the same ids unless a batch is padded).
   */
  positionIds?: PositionIdsInput;
  /** Pixtral: the patches are a `[rows, cols]` grid in row-major order (HF `position_ids_in_meshgrid` of one image). */
  grid?: readonly [number, number] | readonly number[];
  /** The current length for `dynamic` and `longrope` scaling (default max(position) + 1, HF's per-call rule). */
  seqLen?: number;
  /**
   * DeepSeek-V3 with `rope_interleave`: `'hf'` (default) leaves the rotary block in HF's
   * de-interleaved lane order (apply_rotary_pos_emb_interleave), `'vllm'` rotates the adjacent
   * pairs in place (vLLM's DeepseekV2Attention, `is_neox_style=False`). q·k is the same. No effect on other layers.
   */
  laneOrder?: LaneOrder;
}

export const APPLY_KEYS = ['layout', 'dims', 'kDims', 'numHeads', 'offset', 'positionIds', 'grid', 'seqLen', 'laneOrder'];

/** The laneOrder option (default 'hf'). */
export function laneOrderOf(fn: string, value: unknown): LaneOrder {
  return value === undefined ? 'hf' : LANE_ORDERS[args.choice(fn, 'laneOrder', value, LANE_ORDERS)]!;
}

/** Applies `layer` of `plan` to q and k (k may be null) in place. */
export function applyLayer(heap: Heap, plan: ModelPlan, layer: LayerPlan, q: TensorInput, k: TensorInput | null | undefined,
  options: ModelApplyOptions): void {
  const fn = 'model.apply';
  const call = heap.call;
  const opts = args.options(fn, options, APPLY_KEYS);
  const laneOrder = laneOrderOf(fn, opts.laneOrder);
  const seqLen = opts.seqLen === undefined ? undefined : args.integer(fn, 'seqLen', opts.seqLen);
  const calls = layerCalls(fn, layer, q, k, opts);
  const { qh } = calls[0]!.qk;
  const pos = layerPositions(fn, layer, opts, qh.batch, qh.seq);
  const rope = layer.rope;
  if (!rope) {
    scaleQueriesOnly(heap, fn, layer, calls[0]!.qk, pos);
    return;
  }
  const spec = resolveSpec(fn, layerSpec(rope), rope.form.kind === 'decoupled' ? undefined : qh.headDim);
  const length = seqLenOf(fn, layerSeqLen(plan, rope, seqLen));
  for (const c of calls) {
    rotateInPlace(heap, fn, c.qk, pos.ids, (qPtr, kPtr, idsPtr, scope) => call.ropeApplyLayer({
      ...tensorArgs(c.qk, qPtr, kPtr), ...specArgs(spec, scope), seqLen: length, ...formArgs(rope, c.firstLane, laneOrder, scope),
      axes: pos.axes, offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch, ...queryScaleArgs(layer, c.isQuery),
    }));
  }
}

/** A layer without RoPE: its query scale on q (Llama 4's NoPE layers), or nothing; k is left as it is. */
export function scaleQueriesOnly(heap: Heap, fn: string, layer: LayerPlan, qk: QK, pos: LayerPositions): void {
  const scale = layer.queryScaling;
  if (!scale) return;
  const qOnly = { ...qk, kt: undefined, kh: undefined };
  rotateInPlace(heap, fn, qOnly, pos.ids, (qPtr, _k, idsPtr) => heap.call.ropeScaleQueries({
    ...tensorArgs(qOnly, qPtr, 0), offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch, queryScale: scale.scale,
    queryFloorScale: scale.floorScale, queryPositionOffset: scale.positionOffset,
  }));
}
