// A readable per-layer summary of a plan, identical layers grouped: what `posenc plan` prints.
import type { RopeFrequencies } from '../families/rope/spec.js';
import type { LayerPlan, ModelPlan } from './plan.js';

function num(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) >= 1e5 && /^[1-9]0+$/.test(String(v))) return `${String(v)[0]}e${String(v).length - 1}`;
  return String(Number.isInteger(v) ? v : Number(v.toPrecision(6)));
}

/** Index ranges: [0,1,2,4] -> "0-2, 4". */
export function ranges(indices: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < indices.length; i++) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j]! + 1) j++;
    parts.push(j === i ? `${indices[i]}` : `${indices[i]}-${indices[j]}`);
    i = j;
  }
  return parts.join(', ');
}

function ropeText(l: LayerPlan, f: RopeFrequencies | null): string {
  const r = l.rope!;
  const s = r.spec;
  const parts = [`RoPE base ${num(s.base)}`];
  if (r.form.kind === 'proportional') parts.push(`proportional: ${r.form.rotatedPairs} of ${s.headDim / 2} pairs rotate`);
  else if (s.rotaryDim !== s.headDim) parts.push(`rotary ${s.rotaryDim} of ${s.headDim} lanes`);
  else parts.push(`head ${s.headDim}`);
  parts.push(s.pairing);
  const sc = s.scaling;
  if (sc && sc.type !== 'default') {
    const factor = 'factor' in sc && sc.factor !== undefined ? ` ×${num(sc.factor)}` : '';
    const original = 'originalMaxPositionEmbeddings' in sc && sc.originalMaxPositionEmbeddings !== undefined ? ` (original ${sc.originalMaxPositionEmbeddings})` : '';
    parts.push(`${sc.type}${factor}${original}`);
  }
  if (r.form.kind === 'mrope') parts.push(`M-RoPE sections [${r.form.section.join(', ')}]${r.form.interleaved ? ' interleaved' : ''}`);
  if (r.form.kind === 'decoupled') {
    parts.push(`decoupled: ${r.form.nopeHeadDim} content + ${r.form.ropeHeadDim} rotary lanes${r.form.deinterleave ? ' (de-interleaved)' : ''}, ` +
      `softmax scale ×${num(r.form.softmaxScaleFactor)}`);
  }
  if (r.form.kind === '2d') parts.push(`2-D (row/column), ${r.form.maxPatchesPerSide} patches per side`);
  if (f && f.attentionFactor !== 1) parts.push(`attention factor ${num(f.attentionFactor)}`);
  if (f?.longrope) parts.push(`${f.longrope.list} factors`);
  return parts.join(', ');
}

function layerText(l: LayerPlan, f: RopeFrequencies | null): string {
  const parts: string[] = [];
  const w = l.window;
  if (w?.kind === 'sliding') parts.push(`sliding window ${w.size}${w.bidirectional ? ' (bidirectional)' : ''}`);
  else if (w?.kind === 'chunked') parts.push(`chunked attention ${w.size}`);
  else if (l.attention === 'linear_attention') parts.push('linear attention');
  else parts.push('global');
  if (l.rope) parts.push(ropeText(l, f));
  else if (l.alibi) parts.push(`ALiBi (${l.alibi.numHeads} heads, max bias ${num(l.alibi.maxBias)}, ${l.alibi.form} form)`);
  else parts.push('no position encoding');
  const q = l.queryScaling;
  if (q) parts.push(`queries ×(1 + ${num(q.scale)} ln(1 + floor((p${q.positionOffset ? ` + ${q.positionOffset}` : ''}) / ${num(q.floorScale)})))`);
  return parts.join('; ');
}

/**
 * Lines describing the model, then one line per group of identical layers. Linear in the layers:
 * each distinct RoPE's frequencies are computed once, and a layer joins its group's list in place.
 */
export function summarizePlan(plan: ModelPlan, frequencies: (layer: LayerPlan) => RopeFrequencies | null, seqLen?: number): string[] {
  const head = [`${plan.modelType || '(no model_type)'}: ${plan.numLayers} layers, ${plan.numHeads} heads (${plan.numKeyValueHeads} key/value), head ${plan.headDim}` +
    (plan.maxPositionEmbeddings !== undefined ? `, ${plan.maxPositionEmbeddings} positions` : '')];
  const a = plan.absolute;
  if (a?.kind === 'learned') head.push(`absolute: learned table of ${a.size} rows${a.offset ? `, position p at row p + ${a.offset}` : ''}`);
  if (a?.kind === 'sinusoidal') head.push(`absolute: sinusoidal, dim ${a.dim}, base ${num(a.base)}`);
  if (plan.longRope) {
    const s = plan.longRope;
    head.push(`LongRoPE switch (${s.rule}): long factors ${s.rule === 'hf' ? `when max(position) + 1 > ${s.originalMaxPositionEmbeddings}` : `${s.length! > s.originalMaxPositionEmbeddings ? 'always' : 'never'} (length ${s.length})`}` +
      (seqLen !== undefined ? `; at ${seqLen}: ${s.rule === 'hf' ? (seqLen > s.originalMaxPositionEmbeddings ? 'long' : 'short') : s.length! > s.originalMaxPositionEmbeddings ? 'long' : 'short'}` : ''));
  }
  const texts = new Map<string, string>(); // a layer's fields (without its index) -> its text
  const groups = new Map<string, number[]>();
  for (const l of plan.layers) {
    const key = JSON.stringify([l.attention, l.rope, l.alibi, l.window, l.queryScaling]);
    let text = texts.get(key);
    if (text === undefined) {
      text = layerText(l, l.rope ? frequencies(l) : null);
      texts.set(key, text);
    }
    const group = groups.get(text);
    if (group) group.push(l.index);
    else groups.set(text, [l.index]);
  }
  const lines = [...groups].map(([text, idx]) => `${idx.length === 1 ? 'layer' : 'layers'} ${ranges(idx)}: ${text}`);
  return [...head, ...lines, ...plan.notes.map((n) => `note: ${n}`)];
}
