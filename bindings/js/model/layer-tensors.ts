// The q/k tensors and positions of one model layer's call (pe.model.apply, a layer cache): which
// lanes of each tensor the form starts at (DeepSeek's q holds content lanes before its rotary
// block, its shared key part may come alone) and the position axes each form reads.
import * as args from '../runtime/args.js';
import type { TensorInput } from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { positionCount, positionsOf } from '../runtime/positions.js';
import { axisIds } from '../families/rope/forms.js';
import { kHeads, qHeads, qkOf } from '../families/rope/shapes.js';
import type { QK } from '../families/rope/shapes.js';
import type { LayerPlan } from './plan.js';

/** One binding call of a layer: the tensors it rotates and the lane their rotary block starts at. */
export interface LayerCall {
  qk: QK;
  firstLane: number;
  /** Whether q in this call is the layer's query (its query scale applies). */
  isQuery: boolean;
}

/** Positions of a layer call: axis-major ids over `axes` axes, or a range from `offset`. */
export interface LayerPositions {
  axes: number;
  offset: number;
  ids: Float64Array | undefined;
  perBatch: boolean;
}

/** The lane a DeepSeek tensor's rotary block starts at, from its head size. */
function decoupledLane(fn: string, name: string, headDim: number, nope: number, rope: number): number {
  if (headDim === nope + rope) return nope;
  if (headDim === rope) return 0;
  throw new PosEncError('SHAPE_MISMATCH', `${fn}: ${name}'s head size ${headDim} is neither qk_nope_head_dim + qk_rope_head_dim ` +
    `(${nope} + ${rope}) nor qk_rope_head_dim (${rope})`);
}

/**
 * The calls that rotate q and k on `layer`. Usually one (q and k together, as pe.rope.apply
 * takes them); for DeepSeek's decoupled form, k may hold the shared rotary part alone
 * (`[batch, 1, seq, qk_rope_head_dim]`, HF's k_rot) while q holds whole heads: then two.
 */
export function layerCalls(fn: string, layer: LayerPlan, q: TensorInput, k: TensorInput | null | undefined, opts: Record<string, unknown>): LayerCall[] {
  const form = layer.rope?.form;
  if (form?.kind !== 'decoupled') return [{ qk: qkOf(fn, q, k, opts), firstLane: 0, isQuery: true }];
  const { nopeHeadDim: nope, ropeHeadDim: rope } = form;
  const only = qkOf(fn, q, null, opts);
  const qLane = decoupledLane(fn, 'q', only.qh.headDim, nope, rope);
  if (k === null || k === undefined) return [{ qk: only, firstLane: qLane, isQuery: true }];
  const kt = args.tensor(fn, 'k', k, opts.kDims ?? opts.dims, opts.kDims === undefined ? 'dims' : 'kDims');
  const last = kt.dims[kt.dims.length - 1]!;
  // A 3-D k [batch, seq, hidden] holds whole heads when hidden is a multiple of their size, else rotary parts.
  const kHeadDim = kt.dims.length !== 3 ? last : last % (nope + rope) === 0 ? nope + rope : rope;
  if (last % kHeadDim !== 0) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: k's last dim ${last} is a multiple of neither a whole head (${nope + rope}) nor qk_rope_head_dim (${rope})`);
  }
  if (kHeadDim === only.qh.headDim) {
    return [{ qk: { ...only, kt, kh: kHeads(fn, kt, only.qt, only.qh) }, firstLane: qLane, isQuery: true }];
  }
  const kh = qHeads(fn, kt, opts.layout, kt.dims.length === 3 ? last / kHeadDim : undefined);
  if (kh.batch !== only.qh.batch || kh.seq !== only.qh.seq) {
    throw new PosEncError('SHAPE_MISMATCH', `${fn}: k dims [${kt.dims.join(', ')}] do not fit q dims [${only.qt.dims.join(', ')}]: batch and seq must match`);
  }
  const kLane = decoupledLane(fn, 'k', kh.headDim, nope, rope);
  return [
    { qk: only, firstLane: qLane, isQuery: true },
    { qk: { qt: kt, qh: kh, kt: undefined, kh: undefined }, firstLane: kLane, isQuery: false },
  ];
}

/**
 * The positions `layer` reads: one axis (offset or positionIds, as pe.rope.apply), M-RoPE's
 * axis-major `[3, (batch,) seq]` ids (or an offset: text, every axis equal), Pixtral's `[2,
 * (batch,) seq]` row and column ids or a `grid` of `[rows, cols]` patches in row-major order.
 */
export function layerPositions(fn: string, layer: LayerPlan, opts: Record<string, unknown>, batch: number, seq: number): LayerPositions {
  const form = layer.rope?.form;
  if (opts.grid !== undefined && form?.kind !== '2d') {
    throw new PosEncError('INVALID_ARGUMENT', `${fn}: grid is for Pixtral's 2-D RoPE; layer ${layer.index} has ${form ? `form '${form.kind}'` : 'no RoPE'}`);
  }
  if (form?.kind === 'mrope' && opts.positionIds !== undefined) {
    if (opts.offset !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: give either offset or positionIds, not both`);
    // HF's M-RoPE position_ids are three axes (temporal, height, width) whatever the section count:
    // [3, (batch,) seq] ids, or text ids [seq] / [batch, seq] (HF expands 2-D position_ids to every axis).
    const count = positionCount(opts.positionIds);
    if (count !== 3 * seq && count !== 3 * batch * seq) return { axes: 1, ...positionsOf(fn, opts, batch, seq) };
    const hf = axisIds(fn, opts.positionIds, 3, batch, seq);
    if (form.interleaved) return { axes: 3, offset: 0, ...hf };
    return { axes: form.section.length, offset: 0, perBatch: hf.perBatch, ids: sectionIds(fn, layer.index, form.section, hf.ids, (hf.perBatch ? batch : 1) * seq) };
  }
  if (form?.kind === '2d') {
    if (opts.offset !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: Pixtral's 2-D RoPE takes grid or positionIds ([2, seq] rows, then columns), not offset`);
    if (opts.grid !== undefined && opts.positionIds !== undefined) throw new PosEncError('INVALID_ARGUMENT', `${fn}: give either grid or positionIds, not both`);
    if (opts.grid !== undefined) return { axes: 2, offset: 0, ids: gridIds(fn, opts.grid, seq), perBatch: false };
    if (opts.positionIds === undefined) {
      throw new PosEncError('MISSING_OPTION', `${fn}: option 'grid' ([rows, cols]) or 'positionIds' ([2, seq] row and column ids) is required for Pixtral's 2-D RoPE`);
    }
    return { axes: 2, offset: 0, ...axisIds(fn, opts.positionIds, 2, batch, seq) };
  }
  return { axes: 1, ...positionsOf(fn, opts, batch, seq) };
}

const AXIS_NAMES = ['temporal', 'height', 'width'];

/**
 * The ids of each section of a (non-interleaved) M-RoPE from HF's three axes, as transformers takes
 * them (modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb): the cos/sin rows, two copies of the
 * pairs, are split into the sections twice over and chunk k takes axis k % 3. Section k's pairs
 * thus take axis k % 3 on their first lane and (n + k) % 3 on their second: the same axis when the
 * section count n is a multiple of 3 (Qwen2-VL's three). Otherwise the two lanes of a pair read
 * different ids, which is a rotation only where those ids are equal (text tokens): there it is
 * applied exactly, and elsewhere refused, as posenc rotates pairs. `n` axes of `per` ids come back,
 * section k's being HF's axis k % 3.
 */
function sectionIds(fn: string, layer: number, section: readonly number[], hf: Float64Array, per: number): Float64Array {
  const n = section.length;
  const ids = new Float64Array(n * per);
  for (let k = 0; k < n; k++) {
    const a = k % 3;
    ids.set(hf.subarray(a * per, (a + 1) * per), k * per);
    const b = (n + k) % 3;
    if (section[k] === 0 || a === b) continue;
    for (let t = 0; t < per; t++) {
      if (hf[a * per + t] !== hf[b * per + t]) {
        throw new PosEncError('INVALID_ARGUMENT', `${fn}: layer ${layer}'s mrope_section [${section.join(', ')}] has ${n} entries: ` +
          `transformers cycles its chunks over the three axes (apply_multimodal_rotary_pos_emb), so the two lanes of section ${k}'s pairs take the ` +
          `${AXIS_NAMES[a]} and ${AXIS_NAMES[b]} ids, which differ at position id ${t} (${hf[a * per + t]} and ${hf[b * per + t]}): that is no rotation of a pair. ` +
          'Give equal ids there (text tokens), or a config whose mrope_section has 3 entries');
      }
    }
  }
  return ids;
}

/** Row and column ids of a `[rows, cols]` grid of patches in row-major order (HF position_ids_in_meshgrid). */
function gridIds(fn: string, value: unknown, seq: number): Float64Array {
  const grid = args.shapeOf(fn, 'grid', value);
  if (grid.length !== 2) throw new PosEncError('INVALID_ARGUMENT', `${fn}: grid must be [rows, cols], got [${grid.join(', ')}]`);
  const [rows, cols] = grid as [number, number];
  if (rows * cols !== seq) throw new PosEncError('SHAPE_MISMATCH', `${fn}: grid [${rows}, ${cols}] holds ${rows * cols} patches, but the tensors have seq ${seq}`);
  const ids = new Float64Array(2 * seq);
  for (let s = 0; s < seq; s++) {
    ids[s] = Math.floor(s / cols);
    ids[seq + s] = s % cols;
  }
  return ids;
}
