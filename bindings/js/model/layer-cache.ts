// LayerRopeCache (pe.model.createCache): one layer's cos/sin rows for positions 0..maxPositions-1
// kept in WebAssembly memory, on the lanes the layer's form rotates, so that a decoding loop
// applies the layer (its RoPE, attention factor and query scale) without trigonometry.
import * as args from '../runtime/args.js';
import type { TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { HeapObject } from '../runtime/disposable.js';
import type { Heap } from '../runtime/heap.js';
import { withHeap } from '../runtime/scope.js';
import type { Ptr } from '../runtime/raw-module.js';
import { positionsOf } from '../runtime/positions.js';
import { readRopeLayerPairsBlock, ropeLayerPairsBlockLength, ropeLayerPairsBlockListStart } from '../generated/boundary.js';
import { PAIRINGS, resolveSpec, seqLenOf, specArgs } from '../families/rope/spec.js';
import { rotateInPlace, tensorArgs } from '../families/rope/shapes.js';
import type { RopeTensorOptions } from '../families/rope/shapes.js';
import { scaleQueriesOnly } from './layer-apply.js';
import { formArgs, layerSeqLen, layerSpec, queryScaleArgs } from './layer-form.js';
import type { LaneOrder } from './layer-form.js';
import { layerCalls } from './layer-tensors.js';
import type { LayerPlan, ModelPlan } from './plan.js';

/** Options of `pe.model.createCache`. */
export interface ModelCacheOptions {
  /** Positions to precompute: 0..maxPositions-1. */
  maxPositions: number;
  /** The current length for `dynamic`/`longrope` scaling (default maxPositions; a LongRoPE switch rule of the plan wins). */
  seqLen?: number;
  /** DeepSeek-V3 `rope_interleave` lanes: `'hf'` (default) or `'vllm'`, as in `pe.model.apply`. */
  laneOrder?: LaneOrder;
}

/** Options of {@link LayerRopeCache.apply}: shapes and one-axis positions, as for `pe.rope.apply` (integers inside the cache). */
export type LayerCacheApplyOptions = RopeTensorOptions;

interface Table {
  cos: Ptr;
  sin: Ptr;
  cos2: Ptr;
  sin2: Ptr;
  pairs: number;
  pairing: number;
  halfSpan: number;
  deinterleave: boolean;
  bytes: number;
}

/**
 * A model layer's RoPE rows for positions 0..maxPositions-1 (attention factor included) on its
 * form's lanes; `apply` does to q and k what `pe.model.apply` does for that layer, positions
 * being integers inside the cache (`OUT_OF_RANGE` otherwise). A layer without RoPE keeps no rows
 * and `apply` scales its queries (or does nothing). Call {@link LayerRopeCache.dispose} when done.
 */
export class LayerRopeCache extends HeapObject {
  /** Number of cached positions. */
  readonly maxPositions: number;
  /** The layer of the plan it caches. */
  readonly layer: number;
  #layer: LayerPlan;
  #table: Table | null;

  /** @internal Use `pe.model.createCache`. */
  constructor(heap: Heap, block: Ptr, layer: LayerPlan, maxPositions: number, table: Table | null) {
    super(heap, block, 'the layer cache');
    this.maxPositions = maxPositions;
    this.layer = layer.index;
    this.#layer = layer;
    this.#table = table;
  }

  /** Bytes of WebAssembly memory the cache holds (0 once disposed). */
  get bytes(): number {
    return this.disposed ? 0 : this.#table?.bytes ?? 8;
  }

  /** Applies the layer to q and (unless null) k in place using the cached rows. */
  apply(q: TensorInput, k: TensorInput | null | undefined, options: LayerCacheApplyOptions): void {
    const fn = 'LayerRopeCache.apply';
    const opts = args.options(fn, options, ['layout', 'dims', 'kDims', 'numHeads', 'offset', 'positionIds']);
    this.live(fn);
    const heap = this.heap;
    const calls = layerCalls(fn, this.#layer, q, k, opts);
    const { qh } = calls[0]!.qk;
    const pos = positionsOf(fn, opts, qh.batch, qh.seq);
    const t = this.#table;
    if (t === null) {
      checkCachedPositions(fn, pos, qh.seq, this.maxPositions);
      scaleQueriesOnly(heap, fn, this.#layer, calls[0]!.qk, { axes: 1, ...pos });
      return;
    }
    for (const c of calls) {
      rotateInPlace(heap, fn, c.qk, pos.ids, (qPtr, kPtr, idsPtr) => {
        this.live(fn); // the rows are still there: no getter of the caller's disposed the cache meanwhile
        return heap.call.ropeApplyLanesTable({
          cos: t.cos, sin: t.sin, cos2: t.cos2, sin2: t.sin2, rows: this.maxPositions, pairs: t.pairs, pairing: t.pairing,
          firstLane: c.firstLane, halfSpan: t.halfSpan, deinterleave: t.deinterleave, ...tensorArgs(c.qk, qPtr, kPtr),
          offset: pos.offset, ids: idsPtr, perBatch: pos.perBatch, ...queryScaleArgs(this.#layer, c.isQuery),
        });
      });
    }
  }
}

/** Positions of a cache without rows obey the same rule as those of a table: integers in [0, maxPositions). */
function checkCachedPositions(fn: string, pos: { offset: number; ids: Float64Array | undefined }, seq: number, rows: number): void {
  const ids = pos.ids ?? [pos.offset, pos.offset + seq - 1];
  for (const [i, p] of Array.from(ids).entries()) {
    if (!Number.isInteger(p) || p < 0 || p >= rows) {
      const what = pos.ids ? `positionIds[${i}]` : i === 0 ? 'offset' : `the last position (offset + ${seq - 1})`;
      throw new PosEncError(Number.isInteger(p) ? 'OUT_OF_RANGE' : 'INVALID_ARGUMENT',
        `${fn}: ${what} is ${p}, ${Number.isInteger(p) ? `outside the cache's positions 0..${rows - 1}` : 'not an integer position id'}`);
    }
  }
}

/** A cache of a layer without rotated pairs: it holds no rows (an 8-byte block, so that it disposes like the others). */
function emptyCache(heap: Heap, layer: LayerPlan, rows: number): LayerRopeCache {
  return withHeap(heap, (scope) => {
    const ptr = scope.alloc(8, 'the layer cache');
    const cache = new LayerRopeCache(heap, ptr, layer, rows, null);
    scope.keep(ptr);
    return cache;
  });
}

/** Builds the cache of `layer` (validated by the caller). */
export function createLayerCache(heap: Heap, plan: ModelPlan, layer: LayerPlan, rows: number, seqLen: number | undefined,
  laneOrder: LaneOrder): LayerRopeCache {
  const fn = 'model.createCache';
  const rope = layer.rope;
  if (!rope) return emptyCache(heap, layer, rows);
  if (rope.form.kind === 'mrope' || rope.form.kind === '2d') {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer.index}'s ${rope.form.kind === 'mrope' ? 'M-RoPE' : '2-D RoPE'} ` +
      'reads positions along several axes, and a cache holds one row per position: use pe.model.apply');
  }
  const spec = resolveSpec(fn, layerSpec(rope), undefined);
  const capacity = spec.rotaryDim / 2;
  return withHeap(heap, (scope) => {
    const out = scope.alloc(ropeLayerPairsBlockLength(capacity) * 8, 'the layer frequencies');
    heap.check(heap.call.ropeLayerPairs({
      ...specArgs(spec, scope), seqLen: seqLenOf(fn, layerSeqLen(plan, rope, seqLen ?? rows)),
      ...formArgs(rope, 0, laneOrder, scope), out,
    }), fn);
    const p = readRopeLayerPairsBlock(heap.f64(out, ropeLayerPairsBlockLength(capacity)), capacity);
    if (p.pairs === 0) return emptyCache(heap, layer, rows);
    // Interleaved rows are kept expanded too ([c c], [-s s] per pair), as pe.rope's caches keep them.
    const expanded = PAIRINGS[p.pairing] === 'interleaved';
    const block = rows * p.pairs * 4;
    const bytes = (expanded ? 6 : 2) * block;
    const base = scope.alloc(bytes, 'the layer cache'); // freed with the scope unless kept below
    const table: Table = {
      cos: base, sin: base + block, cos2: expanded ? base + 2 * block : 0, sin2: expanded ? base + 4 * block : 0,
      pairs: p.pairs, pairing: p.pairing, halfSpan: p.halfSpan, deinterleave: p.deinterleave === 1, bytes,
    };
    heap.check(heap.call.ropeFillTable({
      rotaryDim: 2 * p.pairs, invFreq: out + ropeLayerPairsBlockListStart('freq', capacity) * 8,
      attentionFactor: p.attentionFactor, rows, cos: table.cos, sin: table.sin,
    }), fn);
    if (expanded) heap.call.ropeExpandTable({ cos: table.cos, sin: table.sin, n: rows * p.pairs, cos2: table.cos2, sin2: table.sin2 });
    const cache = new LayerRopeCache(heap, base, layer, rows, table);
    scope.keep(base);
    return cache;
  });
}
