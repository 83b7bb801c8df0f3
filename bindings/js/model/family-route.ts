// Which reader a model family's positions take: RoPE (the families read by hand in hf-config.ts,
// and every family whose modeling file rotates the way rope-pairing.ts lists), ALiBi, learned
// absolute tables, Falcon's switch, MPT's attn_config. Every other family is refused with the
// reason: what transformers' modeling code does for it, from the generated facts.
import type { Fields } from './config-fields.js';
import { readsKey } from './config-keys.js';
import type { FamilyFacts } from './family-table.js';
import { HALF_PAIRING, INTERLEAVED_PAIRING } from './rope-pairing.js';

/** `'none'`: a model whose layers give text tokens no positions (NoPE attention beside recurrent layers). */
export type Route = 'rope' | 'alibi' | 'learned' | 'falcon' | 'mpt' | 'none';

/** Families whose positions posenc reads by hand (hf-config.ts, hf-layers.ts, hf-rope.ts cite the code each follows). */
const BY_HAND: ReadonlyMap<string, Route> = new Map<string, Route>([
  ...['llama', 'mistral', 'mixtral', 'ministral', 'ministral3', 'qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'qwen3_next', 'qwen2_vl',
    'qwen2_vl_text', 'qwen2_5_vl', 'qwen2_5_vl_text', 'qwen3_vl', 'qwen3_vl_text', 'qwen3_vl_moe', 'qwen3_vl_moe_text', 'qwen3_5',
    'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text', 'gemma', 'gemma2', 'gemma3', 'gemma3_text', 'gemma4', 'gemma4_text', 'phi', 'phi3', 'stablelm', 'gpt_neox', 'gptj',
    'codegen', 'cohere', 'cohere2', 'glm', 'glm4', 'deepseek_v2', 'deepseek_v3', 'gpt_oss', 'llama4', 'llama4_text', 'smollm3',
    'modernbert', 'starcoder2', 'olmo2', 'pixtral', 'hunyuan_v1_dense', 'hunyuan_v1_moe'].map((t) => [t, 'rope'] as const),
  // modeling_jamba.py and modeling_nemotron_h.py define apply_rotary_pos_emb and never call it: NoPE attention.
  ['jamba', 'none'], ['nemotron_h', 'none'],
  ['falcon', 'falcon'], ['RefinedWeb', 'falcon'], ['RefinedWebModel', 'falcon'], ['bloom', 'alibi'], ['mpt', 'mpt'],
  ['gpt2', 'learned'], ['opt', 'learned'], ['bert', 'learned'], ['roberta', 'learned'], ['xlm-roberta', 'learned'],
]);

/** What every rotary class reads to find per-layer overrides (config-keys.ts refuses a per_layer_config). */
const HETEROGENEOUS: ReadonlySet<string> = new Set(['per_layer_config', 'is_heterogeneous']);

/** Layer kinds whose layers give text tokens no positions (recurrent, convolution, MLP-only). */
export const NO_POSITION_LAYERS: ReadonlySet<string> = new Set(['linear_attention', 'conv', 'moe', 'mlp']);

/** Families whose modeling file rotates like the others in rope-pairing.ts but which posenc refuses, and why. */
const EXCLUDED: ReadonlyMap<string, string> = new Map([
  ['recurrent_gemma', "its rotary class has its own compute_default_rope_parameters (over the whole head, ignoring partial_rotary_factor) " +
    "and its recurrent/attention schedule (layers_block_type) is not read by posenc"],
  ['evolla', "transformers' own EvollaSaProtRotaryEmbedding fails on EvollaConfig (no rope_theta), so there is no reference to match"],
  ['musicflamingo', "transformers' own MusicFlamingoRotaryEmbedding fails on its default config, so there is no reference to match"],
]);

/** Whether posenc reads `modelType` by hand (its rules cited in hf-config.ts). */
export function readByHand(modelType: string): boolean {
  return BY_HAND.has(modelType);
}

/** Whether the family is read by the data-driven RoPE path (its pairing known, nothing else special). */
export function isGenericRope(modelType: string): boolean {
  return !BY_HAND.has(modelType) && (HALF_PAIRING.has(modelType) || INTERLEAVED_PAIRING.has(modelType));
}

const WHY: Readonly<Record<FamilyFacts['positions'], string>> = {
  rope: 'applies RoPE in a way posenc has not been checked against (its rotation is not the Llama rotate_half or the adjacent-pair one on the leading lanes)',
  alibi: 'adds ALiBi biases in its own way',
  absolute: 'adds a learned or fixed absolute table whose layout posenc does not know for it',
  relative: 'uses relative-position biases',
  none: 'gives no positions that posenc recognises in its modeling code',
  'vision-only': 'is a vision model (no text decoder)',
  'audio-only': 'is an audio model (no text decoder)',
  unknown: 'has no modeling code posenc could classify',
};

/** The reader of `modelType`, or an INVALID_CONFIG error that says why there is none. */
export function routeOf(c: Fields, modelType: string, family: FamilyFacts | undefined, wrapper: FamilyFacts | undefined, wrapperType = ''): Route {
  const wrapperExcluded = EXCLUDED.get(wrapperType);
  if (wrapperExcluded) throw c.invalid(`model_type '${wrapperType}' (${wrapper?.configClass}): ${wrapperExcluded}; posenc does not plan it (docs/models.md lists every family and why)`);
  if (modelType === '') return 'rope';
  const hand = BY_HAND.get(modelType);
  if (hand) return hand;
  if (!family) {
    throw c.invalid(`model_type '${modelType}' is not a model_type of transformers ${wrapper ? '' : '(at the snapshot posenc was built from) '}` +
      'and posenc does not know how its positions are used; a plan from a guess could be wrong');
  }
  const excluded = EXCLUDED.get(modelType);
  if (excluded) throw c.invalid(`model_type '${modelType}' (${family.configClass}): ${excluded}; posenc does not plan it (docs/models.md lists every family and why)`);
  if (family.positions === 'rope' && isGenericRope(modelType) && family.rotaryClasses.length > 0) {
    const unread = family.ropeReads.filter((k) => !readsKey(k, modelType) && !HETEROGENEOUS.has(k));
    if (unread.length === 0) return 'rope';
    throw c.invalid(`model_type '${modelType}' (${family.configClass}): its rotary embedding (${family.rotaryClasses.join(', ')}) reads ` +
      `${unread.join(', ')}, which posenc does not read; posenc does not plan it (docs/models.md lists every family and why)`);
  }
  const file = family.modelingFile ?? family.folder;
  throw c.invalid(`model_type '${modelType}' (${family.configClass}): ${file} ${WHY[family.positions] ?? 'is not planned'}; ` +
    'posenc does not plan it (docs/models.md lists every family and why)');
}
