// A plan layer's RoPE as the layer bindings take it: the form's fields, the current length its
// scaling reads (with the plan's LongRoPE switch rule) and its query scale.
import { ROPE_FORMS } from '../generated/boundary.js';
import type { HeapScope } from '../runtime/scope.js';
import type { LayerPlan, LayerRope, ModelPlan } from './plan.js';

/** Which rotated-lane order a DeepSeek-V3 `rope_interleave` layer leaves: HF's (de-interleaved) or vLLM's (in place). */
export type LaneOrder = 'hf' | 'vllm';
export const LANE_ORDERS: readonly LaneOrder[] = ['hf', 'vllm'];

/**
 * The length a layer's scaling reads: `seqLen` when given (HF's per-call rule), else undefined
 * (max(position) + 1 of the call, or model load for frequencies). LongRoPE under the vLLM or
 * llama.cpp rule reads the length that selects the list the plan's switch fixed.
 */
export function layerSeqLen(plan: ModelPlan, rope: LayerRope, seqLen: number | undefined): number | undefined {
  const s = plan.longRope;
  if (rope.spec.scaling?.type !== 'longrope' || !s || (s.rule === 'hf' && seqLen === undefined)) return seqLen;
  const length = s.rule === 'hf' ? seqLen! : s.length!;
  return length > s.originalMaxPositionEmbeddings ? s.originalMaxPositionEmbeddings + 1 : s.originalMaxPositionEmbeddings;
}

/** The spec of a layer as pe.rope's resolver takes it (DeepSeek's tensors are wider than its rotary head). */
export function layerSpec(rope: LayerRope): Record<string, unknown> {
  const { mropeSection: _sections, ...spec } = rope.spec;
  if (rope.form.kind === 'decoupled') delete (spec as { headDim?: number }).headDim;
  return spec;
}

/** The form fields of a layer binding call (sections copied into `scope`). */
export function formArgs(rope: LayerRope, firstLane: number, laneOrder: LaneOrder, scope: HeapScope) {
  const f = rope.form;
  const sections = f.kind === 'mrope' ? Float64Array.from(f.section) : undefined;
  return {
    form: ROPE_FORMS.indexOf(f.kind === '2d' ? 'pixtral' : f.kind),
    rotatedPairs: f.kind === 'proportional' ? f.rotatedPairs : 0,
    firstLane,
    deinterleave: f.kind === 'decoupled' && f.deinterleave && laneOrder === 'hf',
    sections: scope.f64In(sections, 'mropeSection'),
    sectionCount: sections?.length ?? 0,
    interleavedSections: f.kind === 'mrope' && f.interleaved,
    patchesPerSide: f.kind === '2d' ? f.maxPatchesPerSide : 0,
  };
}

/** The query-scale fields of a layer binding call: the layer's scale on its query, none otherwise. */
export function queryScaleArgs(layer: LayerPlan, isQuery: boolean) {
  const q = isQuery ? layer.queryScaling : null;
  return {
    hasQueryScale: q !== null, queryScale: q?.scale ?? 0, queryFloorScale: q?.floorScale ?? 1,
    queryPositionOffset: q?.positionOffset ?? 0,
  };
}
