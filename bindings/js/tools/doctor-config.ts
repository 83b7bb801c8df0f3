// pe.doctor.config: every place a model's config.json leaves room for more than one reading of its
// positions, and the choice the plan made there. Starts from the plan's own notes (defaults filled
// in, old spellings, keys not read) and adds what the plan encodes silently: which pairing and why,
// partial rotary truncation, head_dim against hidden_size / heads, both config generations at once,
// and what each scaling leaves to the runtime (LongRoPE's switch, dynamic NTK's moving base, YaRN's
// factor and attention factor).
import { isObject } from '../model/config-fields.js';
import type { Obj } from '../model/config-fields.js';
import { parseConfig } from '../model/hf-config.js';
import type { ModelConfigOptions } from '../model/hf-config.js';
import type { ModelApi, ModelPlan } from '../model/model-api.js';
import type { LayerRope } from '../model/plan.js';
import { ranges } from '../model/summary.js';
import { PosEncError } from '../runtime/errors.js';

/** One ambiguity of a config and what the plan chose. */
export interface DoctorFinding {
  /** The config key it is about (`'rope_scaling.type'`, `'partial_rotary_factor'`...), or `''` for the model as a whole. */
  key: string;
  /** The ambiguity and the choice made. */
  text: string;
}

/** What {@link DoctorApi.config} returns. */
export interface DoctorConfigReport {
  /** The plan the findings are about (pe.model.fromConfig's). */
  plan: ModelPlan;
  /** Every ambiguity of the config and the choice made, in the order the plan met them. */
  findings: DoctorFinding[];
}

/** The language-model part of a config (multimodal wrappers keep it in text_config), as the plan reads it. */
function languagePart(top: Obj): { obj: Obj; prefix: string } {
  const shaped = ['num_attention_heads', 'n_head', 'n_heads', 'head_dim', 'qk_rope_head_dim'].some((k) => top[k] !== undefined);
  return isObject(top.text_config) && !shaped ? { obj: top.text_config, prefix: 'text_config.' } : { obj: top, prefix: '' };
}

/** The key a plan note is about: its first word when that is a config key. */
function keyOfNote(note: string): string {
  const m = /^([A-Za-z_][\w.]*)(?=[ :'])/.exec(note);
  return m && /[_.]/.test(m[1]!) ? m[1]! : '';
}

/**
 * Architectures whose GGUF files (llama.cpp convert_hf_to_gguf.py LlamaModel, which permutes q_proj
 * and k_proj) and original Meta checkpoints pair adjacent lanes, while transformers pairs halves.
 */
const PERMUTED_ELSEWHERE = new Set(['llama', 'mistral', 'mixtral']);

/** The findings about one RoPE (of the layers that share it), without naming the layers. */
function ropeFindings(plan: ModelPlan, rope: LayerRope, c: Obj, prefix: string, model: ModelApi, layerIndex: number): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const s = rope.spec;
  const mt = plan.modelType || '(no model_type)';
  if (s.pairing === 'half') {
    out.push({ key: `${prefix}model_type`, text: `pairing 'half': lane i with lane i + ${s.rotaryDim / 2} (transformers' rotate_half for model_type '${mt}')` +
      (PERMUTED_ELSEWHERE.has(plan.modelType) ? ". Meta's original checkpoints and llama.cpp's GGUF files of this architecture pair adjacent lanes instead, " +
        'their q_proj/k_proj rows permuted to match (convert_hf_to_gguf.py LlamaModel.permute): pe.rope.permuteWeights converts them' : '') });
  } else {
    out.push({ key: `${prefix}model_type`, text: `pairing 'interleaved': lanes 2i and 2i + 1 (transformers pairs adjacent lanes for model_type '${mt}'); most other models use 'half'` });
  }
  const partialKey = ['partial_rotary_factor', 'rotary_pct'].find((k) => typeof c[k] === 'number');
  if (s.rotaryDim < s.headDim && rope.form.kind === 'standard') {
    const factor = partialKey ? (c[partialKey] as number) : undefined;
    const exact = factor === undefined ? undefined : factor * s.headDim;
    out.push({
      key: partialKey ? `${prefix}${partialKey}` : `${prefix}rotary_dim`,
      text: factor === undefined
        ? `rotary_dim ${s.rotaryDim} of ${s.headDim} lanes: the other ${s.headDim - s.rotaryDim} pass through unrotated`
        : `${partialKey} ${factor} x head dim ${s.headDim} = ${Number(exact!.toPrecision(12))}${Number.isInteger(exact) ? '' : `, truncated by int() to ${s.rotaryDim}`}: rotary_dim ${s.rotaryDim} of ${s.headDim} lanes; the other ${s.headDim - s.rotaryDim} pass through unrotated`,
    });
  }
  if (rope.form.kind === 'mrope') {
    out.push({ key: `${prefix}${isObject(c.rope_parameters) ? 'rope_parameters' : 'rope_scaling'}.mrope_section`, text: `M-RoPE sections [${rope.form.section.join(', ')}]` +
      `${rope.form.interleaved ? ', interleaved t/h/w over the pairs (apply_interleaved_mrope)' : ', contiguous blocks'}: text tokens, whose three position ids are equal, get the standard RoPE; image and video tokens need pe.rope.applyMultimodal` });
  }
  const sc = s.scaling;
  const scaleKey = `${prefix}${isObject(c.rope_parameters) ? 'rope_parameters' : 'rope_scaling'}`;
  if (sc?.type === 'longrope') {
    const original = sc.originalMaxPositionEmbeddings!;
    const rule = plan.longRope?.rule ?? 'hf';
    out.push({ key: scaleKey, text: `LongRoPE: short factors up to ${original} tokens, long factors beyond. Rule '${rule}'` +
      (rule === 'hf' ? ': chosen per call from max(position_ids) + 1 (transformers longrope_frequency_update), so keys cached before the switch keep their short-factor rotation'
        : `: fixed from length ${plan.longRope!.length} (${plan.longRope!.length! > original ? 'long' : 'short'} factors)`) +
      ". vLLM fixes the list from max_model_len and llama.cpp from the context size: pe.model.fromConfig(config, { longRope: 'vllm' | 'llama.cpp', contextLength })" });
    const f = model.frequencies(plan, layerIndex)!;
    if (sc.attentionFactor === undefined) out.push({ key: scaleKey, text: `LongRoPE attention factor ${Number(f.attentionFactor.toPrecision(6))}: sqrt(1 + ln(factor) / ln(${original})) with factor ${Number(f.factor.toPrecision(6))} (given, or max_position_embeddings / original_max_position_embeddings)` });
  }
  if (sc?.type === 'dynamic') {
    out.push({ key: scaleKey, text: `dynamic NTK: transformers recomputes the base from the current length at every call longer than ${sc.maxPositionEmbeddings} (dynamic_rope_update); keys already cached keep the base of their call, and a context shift cannot be exact` });
  }
  if (sc?.type === 'yarn') {
    const f = model.frequencies(plan, layerIndex)!;
    const maxPos = plan.maxPositionEmbeddings;
    if (maxPos !== undefined && sc.factor !== undefined && sc.originalMaxPositionEmbeddings !== undefined && Math.abs(maxPos / sc.originalMaxPositionEmbeddings - sc.factor) > 1e-9) {
      out.push({ key: scaleKey, text: `YaRN factor ${sc.factor} differs from max_position_embeddings / original_max_position_embeddings = ${maxPos / sc.originalMaxPositionEmbeddings}: transformers v5 uses the factor (the plan does); the 2025 transformers 4.x revision used the ratio (scaling option hfV4Factor)` });
    }
    out.push({ key: scaleKey, text: `YaRN attention factor ${Number(f.attentionFactor.toPrecision(6))}` +
      (sc.attentionFactor !== undefined ? ' (given)' : sc.mscale !== undefined && sc.mscaleAllDim ? ` (mscale ${sc.mscale} / mscale_all_dim ${sc.mscaleAllDim})` : ' (0.1 ln(factor) + 1)') +
      ` multiplies cos and sin of the rotated lanes (transformers attention_scaling; ggml's mscale). Correction range: pairs ${Number(f.yarn!.low.toPrecision(6))} to ${Number(f.yarn!.high.toPrecision(6))}` +
      (sc.truncate === false ? ' (not truncated: truncate false)' : ' (floor/ceil, truncate true by default; gpt-oss sets false)') });
  }
  if (sc?.type === 'llama3') {
    const f = model.frequencies(plan, layerIndex)!;
    const count = (band: string) => f.llama3!.band.filter((b) => b === band).length;
    out.push({ key: scaleKey, text: `Llama 3.1 scaling: ${count('unchanged')} pairs keep their frequency (wavelength below ${sc.originalMaxPositionEmbeddings! / sc.highFreqFactor!}), ${count('divided')} are divided by ${sc.factor} (wavelength above ${sc.originalMaxPositionEmbeddings! / sc.lowFreqFactor!}), ${count('blended')} are blended` });
  }
  return out;
}

export function configFn(model: ModelApi) {
  return function config(configInput: object | string, options?: ModelConfigOptions): DoctorConfigReport {
    const fn = 'doctor.config';
    const config = parseConfig(fn, configInput); // read once: the plan and the checks below read this snapshot
    let plan: ModelPlan;
    try {
      plan = model.fromConfig(config, options);
    } catch (error) { // the caller called doctor.config: its messages start with that name
      if (!(error instanceof PosEncError) || !error.message.startsWith('model.fromConfig: ')) throw error;
      throw new PosEncError(error.code, `${fn}: ${error.message.slice('model.fromConfig: '.length)}`, { cause: error });
    }
    const { obj: c, prefix } = languagePart(config);
    const findings: DoctorFinding[] = plan.notes.map((text) => ({ key: keyOfNote(text), text }));
    const has = (k: string) => c[k] !== undefined && c[k] !== null;
    if (isObject(c.rope_parameters) && isObject(c.rope_scaling)) {
      findings.push({ key: `${prefix}rope_scaling`, text: 'both rope_parameters (transformers v5) and rope_scaling (v4) are given: the plan reads rope_parameters, as v5 does' });
    }
    if (isObject(c.rope_parameters) && has('rope_theta') && typeof (c.rope_parameters as Obj).rope_theta === 'number' && (c.rope_parameters as Obj).rope_theta !== c.rope_theta) {
      findings.push({ key: `${prefix}rope_theta`, text: `rope_theta ${String(c.rope_theta)} and rope_parameters.rope_theta ${String((c.rope_parameters as Obj).rope_theta)} differ: the plan uses rope_parameters.rope_theta` });
    }
    const heads = [c.num_attention_heads, c.n_head, c.n_heads].find((v) => typeof v === 'number') as number | undefined;
    const hidden = [c.hidden_size, c.n_embd, c.d_model].find((v) => typeof v === 'number') as number | undefined;
    if (typeof c.head_dim === 'number' && heads && hidden && c.head_dim * heads !== hidden) {
      findings.push({ key: `${prefix}head_dim`, text: `head_dim ${c.head_dim} is not hidden_size / num_attention_heads = ${hidden / heads}: the plan uses head_dim, as transformers' attention and rotary embedding do; code that derives the head size from hidden_size (older transformers releases, some ports) would rotate ${hidden / heads} lanes` });
    }
    if (!has('num_key_value_heads') && !has('num_kv_heads') && plan.layers.some((l) => l.rope)) {
      findings.push({ key: `${prefix}num_key_value_heads`, text: `num_key_value_heads is absent: ${plan.numKeyValueHeads} key/value heads (one per query head)` });
    }
    // The findings of each RoPE, once for the layers that share it (and once for all when they agree)
    const groups = new Map<string, number[]>();
    plan.layers.forEach((l) => {
      if (!l.rope) return;
      const id = JSON.stringify([l.rope.spec, l.rope.form]);
      const group = groups.get(id); // in place: a plan may hold 65536 layers
      if (group) group.push(l.index);
      else groups.set(id, [l.index]);
    });
    const byText = new Map<string, { finding: DoctorFinding; layers: number[] }>();
    for (const indices of groups.values()) {
      for (const finding of ropeFindings(plan, plan.layers[indices[0]!]!.rope!, c, prefix, model, indices[0]!)) {
        const seen = byText.get(finding.text);
        if (seen) for (const i of indices) seen.layers.push(i); // no spread: a group may be longer than the argument limit
        else byText.set(finding.text, { finding, layers: indices.slice() });
      }
    }
    const ropeLayerCount = plan.layers.filter((l) => l.rope).length;
    for (const { finding, layers } of byText.values()) {
      const label = layers.length < ropeLayerCount ? `layers ${ranges(layers.sort((a, b) => a - b))}: ` : '';
      findings.push({ key: finding.key, text: label + finding.text });
    }
    const summary = model.summarize(plan).filter((line) => !line.startsWith('note: '));
    const layerLines = summary.filter((line) => /^layers? /.test(line));
    if (layerLines.length > 1) {
      findings.push({ key: '', text: `layers differ (${layerLines.length} kinds): pe.rope.fromConfig refuses this model; pe.model.fromConfig plans each layer: ${layerLines.join('; ')}` });
    }
    return { plan, findings };
  };
}
