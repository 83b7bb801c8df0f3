// pe.rope.fromConfig: the one RoPE spec of a model from its Hugging Face config.json, for models
// whose RoPE layers all rotate the same way. It reads the config through the per-layer plan
// (bindings/js/model/hf-config.ts) and refuses, pointing to pe.model.fromConfig, a model whose
// layers differ (Gemma 3's two bases, Command R7B's layers without RoPE, Gemma 4's proportional RoPE).
import * as args from '../runtime/args.js';
import { PosEncError } from '../runtime/errors.js';
import { planFromConfig } from './hf-config.js';
import type { LayerRope } from './plan.js';
import type { RopeConfigOptions, RopeModelSpec } from '../families/rope/spec.js';

const FN = 'rope.fromConfig';

function invalid(message: string): PosEncError {
  return new PosEncError('INVALID_CONFIG', `${FN}: ${message}`);
}

function same(a: LayerRope, b: LayerRope): boolean {
  return JSON.stringify([a.spec, a.form]) === JSON.stringify([b.spec, b.form]);
}

/** Builds the RoPE spec of a model from its Hugging Face config (parsed object or JSON text). */
export function fromConfig(config: object | string, options?: RopeConfigOptions): RopeModelSpec {
  const opts = args.options(FN, options, ['layerType'], true);
  if (opts.layerType !== undefined && typeof opts.layerType !== 'string') {
    throw new PosEncError('INVALID_TYPE', `${FN}: layerType must be a string, got ${args.describe(opts.layerType)}`);
  }
  const layerType = opts.layerType as string | undefined;
  const plan = planFromConfig(FN, config, { layersOptional: true });
  if (plan.layers.every((l) => l.rope === null)) {
    const what = plan.layers[0]?.alibi ? 'ALiBi' : plan.absolute ? `${plan.absolute.kind} absolute positions` : 'no positions';
    throw invalid(`model_type '${plan.modelType}' does not use RoPE (it uses ${what})`);
  }
  let layers = plan.layers;
  if (layerType !== undefined) {
    const types = [...new Set(plan.layers.map((l) => l.attention))];
    layers = plan.layers.filter((l) => l.attention === layerType);
    if (layers.length === 0) {
      throw new PosEncError('INVALID_ARGUMENT', `${FN}: layerType '${layerType}' matches no layer (the model has ${types.join(', ')})`);
    }
    if (layers.some((l) => l.rope === null)) throw invalid(`the ${layerType} layers use no RoPE: see pe.model.fromConfig`);
  }
  const first = layers.find((l) => l.rope !== null)!.rope!;
  const differing = layers.filter((l) => l.rope === null || !same(l.rope, first));
  if (differing.length > 0) {
    const withoutRope = differing.filter((l) => l.rope === null).map((l) => l.index);
    const reference = layers.find((l) => l.rope !== null && same(l.rope, first))!.index;
    const why = withoutRope.length > 0 ? `layers ${withoutRope.slice(0, 8).join(', ')}${withoutRope.length > 8 ? ', ...' : ''} use no RoPE`
      : `layers ${differing[0]!.index} and ${reference} rotate differently`;
    const types = [...new Set(layers.map((l) => l.attention))];
    throw invalid(`the model's layers differ (${why}): use pe.model.fromConfig for the per-layer plan` +
      (types.length > 1 && layerType === undefined ? `, or pick layers with layerType: ${types.join(', ')}` : ''));
  }
  if (first.form.kind === 'proportional') {
    throw invalid(`the RoPE of these layers is proportional (Gemma 4: ${first.form.rotatedPairs} of ${first.spec.headDim / 2} pairs rotate ` +
      'with frequencies over the whole head), which one spec cannot express: use pe.model.fromConfig and pe.model.frequencies');
  }
  if (first.form.kind === 'mrope' && first.form.interleaved) {
    throw invalid("the M-RoPE of this model interleaves its t/h/w sections (Qwen3-VL), which pe.rope.applyMultimodal (Qwen2-VL's contiguous sections) does not do: use pe.model.fromConfig");
  }
  return { ...first.spec, ...(first.spec.scaling ? { scaling: { ...first.spec.scaling } } : {}) };
}
