// The attention kind of every layer of a Hugging Face config (`layer_types`, or the rule each
// model's configuration_*.py uses to derive it), which layers skip RoPE, and their windows.
import type { Fields } from './config-fields.js';
import type { AttentionWindow } from './plan.js';

/**
 * The `layer_types` values posenc knows: attention (full, sliding, chunked; `hybrid` = attention
 * beside a Mamba mixer, Falcon-H1 and Zamba2) and the kinds that give text tokens no positions
 * (recurrent `linear_attention`, LFM2's `conv`, Nemotron-H's `moe` and `mlp` blocks).
 */
export const LAYER_TYPES = ['full_attention', 'sliding_attention', 'chunked_attention', 'hybrid', 'linear_attention', 'conv', 'moe', 'mlp'] as const;

/** The older layer names configuration_utils.remap_legacy_layer_types maps to the current ones. */
const LEGACY_LAYER_TYPES: ReadonlyMap<string, string> = new Map([['mamba', 'linear_attention'], ['attention', 'full_attention']]);

/** Families whose configuration remaps legacy layer names (their __post_init__ calls remap_legacy_layer_types). */
const REMAPS_LEGACY = new Set(['nemotron_h', 'zamba2', 'jamba']);

/** Nemotron-H's hybrid_override_pattern letters (NemotronHConfig._pattern_to_list). */
const NEMOTRON_PATTERN: ReadonlyMap<string, string> = new Map([['M', 'linear_attention'], ['E', 'moe'], ['*', 'full_attention'], ['-', 'mlp']]);

/**
 * The schedule of a hybrid the config derives (when layer_types is not given), as its class does:
 * JambaConfig.layers_block_type (attention where i % attn_layer_period == attn_layer_offset),
 * BambaConfig.layers_block_type (attention at attn_layer_indices), Lfm2Config.__post_init__
 * (attention at full_attn_idxs, default every layer, else conv), NemotronHConfig (hybrid_override_pattern),
 * FalconH1Config.layers_block_type (every layer hybrid). Undefined for the other families.
 */
export function hybridSchedule(c: Fields, modelType: string, numLayers: number): string[] | undefined {
  const each = (f: (i: number) => string) => Array.from({ length: numLayers }, (_, i) => f(i));
  switch (modelType) {
    case 'jamba': {
      const period = c.from('attn_layer_period').integer('attn_layer_period') ?? 8;
      const offset = c.from('attn_layer_offset').integer('attn_layer_offset', 'nonnegative') ?? 4;
      if (offset >= period) throw c.invalid(`${c.name('attn_layer_offset')} ${offset} must be smaller than ${c.name('attn_layer_period')} ${period} (JambaConfig)`);
      return each((i) => (i % period === offset ? 'full_attention' : 'linear_attention'));
    }
    case 'bamba': {
      const at = new Set(c.integers('attn_layer_indices', 0) ?? []);
      return each((i) => (at.has(i) ? 'full_attention' : 'linear_attention'));
    }
    case 'lfm2':
    case 'lfm2_moe': {
      const at = c.integers('full_attn_idxs', 0);
      return each((i) => (at === undefined || at.includes(i) ? 'full_attention' : 'conv'));
    }
    case 'nemotron_h': {
      const pattern = c.string('hybrid_override_pattern');
      if (pattern === undefined) return ['linear_attention', 'moe', 'full_attention', 'mlp']; // NemotronHConfig's default
      return Array.from(pattern, (ch, i) => {
        const t = NEMOTRON_PATTERN.get(ch);
        if (t === undefined) throw c.invalid(`${c.name('hybrid_override_pattern')}[${i}] '${ch}' is not one of M, E, *, -`);
        return t;
      });
    }
    case 'falcon_h1':
      return each(() => 'hybrid');
    case 'zamba2': {
      // Zamba2Config's default layers_block_type is one fixed list (of its default 54 layers).
      const list = c.from('layers_block_type').strings('layers_block_type');
      if (list !== undefined && list.length !== numLayers) throw c.invalid(`${c.name('layers_block_type')} is absent, and Zamba2Config's default list has ${list.length} layers, not ${numLayers}`);
      return list;
    }
    default:
      return undefined;
  }
}

/** Models whose HF attention applies `sliding_window` on every layer when it is set. */
const WINDOW_ON_EVERY_LAYER = new Set(['mistral', 'mixtral', 'phi3', 'starcoder2']);
/** Models whose HF configuration derives layer_types from sliding_window/max_window_layers (Qwen2Config). */
const QWEN_WINDOW_RULE = new Set(['qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'qwen2_vl', 'qwen2_vl_text', 'qwen2_5_vl', 'qwen2_5_vl_text']);
/** Models with a sliding_window_pattern (every pattern-th layer full): default pattern per model. */
const PATTERN_DEFAULTS = new Map(Object.entries({ gemma3: 6, gemma3_text: 6, cohere2: 4, gemma4: 6, gemma4_text: 6 }));

/** Which layers skip RoPE, as a 0/1 list (1 = RoPE), from `no_rope_layers` or `no_rope_layer_interval`. */
export function ropeLayers(c: Fields, modelType: string, numLayers: number): number[] | undefined {
  if (!['llama4', 'llama4_text', 'smollm3'].includes(modelType)) return undefined;
  let list = c.integers('no_rope_layers', 0);
  // Llama4TextConfig: an empty list (Llama 4 Scout) means "not given" (its backwards-compatibility branch).
  if (list !== undefined && list.length === 0 && modelType !== 'smollm3') list = undefined;
  if (list === undefined) {
    const interval = c.integer('no_rope_layer_interval') ?? 4; // both configs default to 4
    // Llama4TextConfig / SmolLM3Config: int((i + 1) % interval != 0)
    return Array.from({ length: numLayers }, (_, i) => ((i + 1) % interval !== 0 ? 1 : 0));
  }
  if (list.length !== numLayers || list.some((v) => v !== 0 && v !== 1)) {
    throw c.invalid(`${c.name('no_rope_layers')} must hold num_hidden_layers (${numLayers}) values of 0 (no RoPE) or 1 (RoPE)`);
  }
  return list;
}

/** The attention kind of every layer. */
export function layerTypes(c: Fields, modelType: string, numLayers: number, rope: number[] | undefined, notes: string[]): string[] {
  let given = c.strings('layer_types');
  if (given !== undefined && REMAPS_LEGACY.has(modelType)) given = given.map((t) => LEGACY_LAYER_TYPES.get(t) ?? t);
  given ??= hybridSchedule(c, modelType, numLayers);
  if (given !== undefined) {
    if (given.length !== numLayers) throw c.invalid(`${c.name('layer_types')} has ${given.length} entries for ${numLayers} layers`);
    given.forEach((t, i) => {
      if (!(LAYER_TYPES as readonly string[]).includes(t)) {
        throw c.invalid(`${c.name(`layer_types[${i}]`)} '${t}' is not a layer type posenc knows (${LAYER_TYPES.join(', ')})`);
      }
    });
    if (modelType.startsWith('gemma4') && given[numLayers - 1] !== 'full_attention') {
      notes.push('layer_types: Gemma 4 forces its last layer to full_attention (Gemma4TextConfig.__post_init__)');
      given[numLayers - 1] = 'full_attention';
    }
    return given;
  }
  const all = (t: string) => Array.from({ length: numLayers }, () => t);
  if (PATTERN_DEFAULTS.has(modelType)) {
    const pattern = c.integer('sliding_window_pattern') ?? PATTERN_DEFAULTS.get(modelType)!;
    const types = Array.from({ length: numLayers }, (_, i) => ((i + 1) % pattern !== 0 ? 'sliding_attention' : 'full_attention'));
    if (modelType.startsWith('gemma4')) types[numLayers - 1] = 'full_attention';
    return types;
  }
  if (modelType === 'gemma2') return Array.from({ length: numLayers }, (_, i) => (i % 2 === 0 ? 'sliding_attention' : 'full_attention'));
  if (modelType === 'modernbert') {
    const every = c.integer('global_attn_every_n_layers') ?? 3;
    return Array.from({ length: numLayers }, (_, i) => (i % every === 0 ? 'full_attention' : 'sliding_attention'));
  }
  if (modelType === 'qwen3_next' || modelType.startsWith('qwen3_5')) {
    const every = c.integer('full_attention_interval') ?? 4;
    return Array.from({ length: numLayers }, (_, i) => ((i + 1) % every !== 0 ? 'linear_attention' : 'full_attention'));
  }
  if (modelType === 'llama4' || modelType === 'llama4_text') {
    // Llama4TextConfig: "chunked_attention" if no_rope_layers[i] (a RoPE layer) else "full_attention".
    return rope!.map((r) => (r ? 'chunked_attention' : 'full_attention'));
  }
  if (modelType === 'smollm3') {
    const sliding = c.boolean('use_sliding_window') === true && c.has('sliding_window');
    return rope!.map((r) => (sliding && !r ? 'sliding_attention' : 'full_attention'));
  }
  if (QWEN_WINDOW_RULE.has(modelType)) {
    // Qwen2Config: sliding_window only with use_sliding_window; layers from max_window_layers on slide.
    if (c.boolean('use_sliding_window') !== true || !c.has('sliding_window')) {
      if (c.has('sliding_window')) notes.push(`${c.name('sliding_window')} is not used: use_sliding_window is not true (Qwen2Config)`);
      return all('full_attention');
    }
    const from = c.integer('max_window_layers', 'nonnegative') ?? 28;
    return Array.from({ length: numLayers }, (_, i) => (i >= from ? 'sliding_attention' : 'full_attention'));
  }
  if (WINDOW_ON_EVERY_LAYER.has(modelType) && c.has('sliding_window')) return all('sliding_attention');
  if (c.has('sliding_window')) notes.push(`${c.name('sliding_window')} is not used by model_type '${modelType || '(none)'}' in transformers`);
  return all('full_attention');
}

/** The window of a layer of the given kind. */
export function windowOf(c: Fields, modelType: string, type: string): AttentionWindow | null {
  if (type === 'sliding_attention') {
    if (modelType === 'modernbert') {
      // ModernBERT: local_attention (default 128) keys in total, |i - j| <= local_attention // 2.
      return { kind: 'sliding', size: c.integer('local_attention') ?? 128, bidirectional: true };
    }
    const size = c.from('sliding_window').integer('sliding_window');
    if (size === undefined) throw c.invalid(`${c.name('sliding_window')} is required: some layers are sliding_attention`);
    return { kind: 'sliding', size, bidirectional: false };
  }
  if (type === 'chunked_attention') {
    const size = c.from('attention_chunk_size').integer('attention_chunk_size');
    if (size === undefined) throw c.invalid(`${c.name('attention_chunk_size')} is required: some layers are chunked_attention`);
    return { kind: 'chunked', size };
  }
  return null;
}
