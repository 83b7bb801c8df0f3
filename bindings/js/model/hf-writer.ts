// A plan written as a Hugging Face config.json fragment (v5 keys: `rope_parameters`, per layer
// type when layer types differ, and `layer_types`), so one model can be read in either dialect.
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import type { LayerRope, ModelPlan } from './plan.js';

function ropeParameters(rope: LayerRope): Record<string, unknown> {
  const s = rope.spec;
  const out: Record<string, unknown> = { rope_type: 'default', rope_theta: s.base };
  if (rope.form.kind === 'proportional') {
    out.rope_type = 'proportional';
    out.partial_rotary_factor = (2 * rope.form.rotatedPairs) / s.headDim;
    if (s.scaling?.type === 'linear') out.factor = s.scaling.factor;
    return out;
  }
  if (s.rotaryDim !== s.headDim) out.partial_rotary_factor = s.rotaryDim / s.headDim;
  const sc = s.scaling;
  if (sc && sc.type !== 'default') {
    const map = new Map(Object.entries({
      factor: 'factor', originalMaxPositionEmbeddings: 'original_max_position_embeddings', betaFast: 'beta_fast', betaSlow: 'beta_slow',
      mscale: 'mscale', mscaleAllDim: 'mscale_all_dim', attentionFactor: 'attention_factor', truncate: 'truncate',
      lowFreqFactor: 'low_freq_factor', highFreqFactor: 'high_freq_factor', shortFactor: 'short_factor', longFactor: 'long_factor',
      alpha: 'alpha',
    }));
    if (sc.type === 'ntk') {
      throw new PosEncError('INVALID_ARGUMENT', 'model.toConfig: static NTK scaling has no Hugging Face rope_type (HunYuan\'s "dynamic" with alpha changes past max_position_embeddings)');
    }
    out.rope_type = sc.type;
    for (const [key, value] of Object.entries(sc)) {
      if (key === 'type' || key === 'maxPositionEmbeddings') continue;
      const hf = map.get(key);
      if (!hf) throw new PosEncError('INVALID_ARGUMENT', `model.toConfig: scaling.${key} has no Hugging Face key`);
      out[hf] = ArrayBuffer.isView(value) ? Array.from(value as Float64Array) : Array.isArray(value) ? value.slice() : value;
    }
  }
  if (rope.form.kind === 'mrope') {
    out.mrope_section = rope.form.section.slice();
    if (rope.form.interleaved) out.mrope_interleaved = true;
  }
  return out;
}

/** The position keys of a Hugging Face config that describe `plan`. */
export function planToConfig(fn: string, plan: ModelPlan): Record<string, unknown> {
  if (plan === null || typeof plan !== 'object' || !Array.isArray(plan.layers)) {
    throw new PosEncError('INVALID_TYPE', `${fn}: plan must be a plan from pe.model.fromConfig or fromGguf, got ${args.describe(plan)}`);
  }
  const out: Record<string, unknown> = {
    model_type: plan.modelType, num_hidden_layers: plan.numLayers, num_attention_heads: plan.numHeads,
    num_key_value_heads: plan.numKeyValueHeads, head_dim: plan.headDim,
  };
  if (plan.maxPositionEmbeddings !== undefined) out.max_position_embeddings = plan.maxPositionEmbeddings;
  const types = plan.layers.map((l) => l.attention);
  if (types.some((t) => t !== 'full_attention')) out.layer_types = types;
  const sliding = plan.layers.find((l) => l.window?.kind === 'sliding')?.window;
  if (sliding) out.sliding_window = sliding.size;
  const chunked = plan.layers.find((l) => l.window?.kind === 'chunked')?.window;
  if (chunked) out.attention_chunk_size = chunked.size;
  if (plan.layers.some((l) => l.alibi)) out.alibi = true;
  const ropeLayers = plan.layers.filter((l) => l.rope);
  if (ropeLayers.length === 0) return out;
  if (ropeLayers.length < plan.layers.length) {
    const withoutRope = new Set(plan.layers.filter((l) => !l.rope).map((l) => l.attention));
    const withRope = new Set(ropeLayers.map((l) => l.attention));
    // Layer types that never rotate (Cohere2 global layers, linear attention) say so through layer_types;
    // otherwise say which layers skip RoPE (Llama 4, SmolLM3).
    if ([...withoutRope].some((t) => withRope.has(t))) out.no_rope_layers = plan.layers.map((l) => (l.rope ? 1 : 0));
  }
  const byType = new Map<string, Record<string, unknown>>();
  for (const l of ropeLayers) {
    const params = ropeParameters(l.rope!);
    const seen = byType.get(l.attention);
    if (seen && JSON.stringify(seen) !== JSON.stringify(params)) {
      throw new PosEncError('INVALID_ARGUMENT', `${fn}: layers of type ${l.attention} rotate differently, which rope_parameters cannot say`);
    }
    byType.set(l.attention, params);
  }
  const distinct = new Set([...byType.values()].map((p) => JSON.stringify(p)));
  out.rope_parameters = distinct.size === 1 && !plan.modelType.startsWith('gemma') ? [...byType.values()][0] : Object.fromEntries(byType);
  return out;
}
