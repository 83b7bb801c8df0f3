// Which keys of a config.json decide positions, decided the way transformers decides them, from
// what its config class defines (generated data, ./transformers/families.ts) and what its rotary
// embedding reads (traced by the reference generator):
// - a key posenc reads for this family is read (the plan reader does that);
// - a key the modeling code reads for positions that posenc does not read is an error (no plan
//   could be right without it);
// - any other key the class defines is known and does not touch positions: ignored;
// - a key the class does not define is ignored, as transformers ignores it, and listed in a note;
// - except a key that is positional in another dialect (MLC-LLM, TensorRT-LLM, llama.cpp's GGUF
//   names, nanotron, ...): transformers would ignore it, so a checkpoint that relies on it wants
//   something the transformers model does not do, unless its value says what transformers does anyway.
import type { Fields } from './config-fields.js';
import { classDefines } from './family-table.js';
import type { FamilyFacts } from './family-table.js';

/** Keys the plan reader reads for every family. */
const READ_KEYS: ReadonlySet<string> = new Set([
  'model_type', 'text_config', 'num_hidden_layers', 'n_layer', 'n_layers', 'num_layers', 'num_attention_heads', 'n_head', 'n_heads',
  'hidden_size', 'n_embd', 'd_model', 'head_dim', 'num_key_value_heads', 'num_kv_heads', 'multi_query',
  'rope_theta', 'rope_scaling', 'rope_parameters', 'partial_rotary_factor', 'rotary_pct', 'rotary_emb_base',
  'sliding_window', 'layer_types', 'max_position_embeddings', 'n_positions', 'max_seq_len', 'original_max_position_embeddings',
  'use_alibi', 'alibi',
]);

const QWEN_WINDOW = ['qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe', 'qwen2_vl', 'qwen2_vl_text', 'qwen2_5_vl', 'qwen2_5_vl_text', 'smollm3'];
const GEMMA = ['gemma3', 'gemma3_text', 'gemma4', 'gemma4_text', 'cohere2'];

/** Keys the plan reader reads only for some families (hf-config.ts, hf-layers.ts): for the others they are like any other key. */
const FAMILY_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map(([
  ['rope_local_base_freq', ['gemma3', 'gemma3_text']],
  ['global_rope_theta', ['modernbert']], ['local_rope_theta', ['modernbert']], ['global_attn_every_n_layers', ['modernbert']],
  ['local_attention', ['modernbert']],
  ['no_rope_layers', ['llama4', 'llama4_text', 'smollm3']], ['no_rope_layer_interval', ['llama4', 'llama4_text', 'smollm3']],
  ['attn_temperature_tuning', ['llama4', 'llama4_text']], ['floor_scale', ['llama4', 'llama4_text']], ['attn_scale', ['llama4', 'llama4_text']],
  ['attention_chunk_size', ['llama4', 'llama4_text']],
  ['sliding_window_pattern', GEMMA], ['use_sliding_window', QWEN_WINDOW], ['max_window_layers', QWEN_WINDOW],
  ['full_attention_interval', ['qwen3_next', 'qwen3_5', 'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text']],
  ['rope_interleave', ['deepseek_v2', 'deepseek_v3']], ['qk_rope_head_dim', ['deepseek_v2', 'deepseek_v3']],
  ['qk_nope_head_dim', ['deepseek_v2', 'deepseek_v3']],
  ['global_head_dim', ['gemma4', 'gemma4_text']], ['image_size', ['pixtral']], ['patch_size', ['pixtral']],
  ['rotary_dim', ['gptj', 'codegen']], ['attn_config', ['mpt']], ['pad_token_id', ['roberta', 'xlm-roberta']],
  ['position_embedding_type', ['bert', 'roberta', 'xlm-roberta']],
  // the layer schedules of hybrids (hf-layers.ts)
  ['attn_layer_period', ['jamba']], ['attn_layer_offset', ['jamba']], ['attn_layer_indices', ['bamba']],
  ['layers_block_type', ['nemotron_h', 'zamba2', 'falcon_h1', 'bamba']], ['hybrid_override_pattern', ['nemotron_h']],
  ['full_attn_idxs', ['lfm2', 'lfm2_moe']], ['use_mem_rope', ['zamba2']],
] as const).map(([key, types]) => [key, new Set<string>(types)]));

/** Whether the plan reader reads `key` for `modelType`. */
export function readsKey(key: string, modelType: string): boolean {
  return READ_KEYS.has(key) || FAMILY_KEYS.get(key)?.has(modelType) === true;
}

/**
 * Keys that are positional in another dialect, not in transformers' config classes (where a
 * family's class defines one, it is that class's key instead). `agrees` says when the value asks
 * for what the transformers model does anyway (then it is a note, not an error).
 */
interface ForeignKey {
  dialect: string;
  meaning: string;
  agrees?: (value: unknown, ctx: KeyContext, f: Fields) => boolean;
}

const FOREIGN: ReadonlyMap<string, ForeignKey> = new Map<string, ForeignKey>([
  ['context_window_size', { dialect: "MLC-LLM's mlc-chat-config.json", meaning: 'the context length it compiles for' }],
  ['sliding_window_size', {
    dialect: "MLC-LLM's mlc-chat-config.json", meaning: 'a sliding attention window',
    // Gemma 2 checkpoints carry it beside sliding_window with the same value
    agrees: (v, _ctx, f) => v === -1 || (typeof v === 'number' && v === f.get('sliding_window')),
  }],
  ['attention_sink_size', { dialect: "MLC-LLM's mlc-chat-config.json", meaning: 'attention-sink tokens kept past the window' }],
  ['prefill_chunk_size', { dialect: "MLC-LLM's mlc-chat-config.json", meaning: 'chunked prefill' }],
  ['rotary_base', { dialect: 'TensorRT-LLM', meaning: 'the RoPE base' }],
  ['rotary_scaling', { dialect: 'TensorRT-LLM', meaning: 'RoPE scaling' }],
  ['rope_freq_base', { dialect: 'llama.cpp', meaning: 'the RoPE base' }],
  ['rope_freq_scale', { dialect: 'llama.cpp', meaning: 'linear RoPE scaling' }],
  ['rope_scaling_type', { dialect: 'llama.cpp', meaning: 'the RoPE scaling type' }],
  ['yarn_orig_ctx', { dialect: 'llama.cpp', meaning: "YaRN's original context" }],
  ['n_ctx_orig', { dialect: 'llama.cpp', meaning: "the training context of RoPE scaling" }],
  ['max_model_len', { dialect: 'vLLM', meaning: 'the context length, which selects LongRoPE lists (pass it as the contextLength option)' }],
  ['is_neox_style', { dialect: 'vLLM', meaning: 'the lane pairing', agrees: (v, ctx) => v === !ctx.interleaved }],
  ['rope_interleaved', { dialect: 'nanotron', meaning: 'the lane pairing', agrees: (v, ctx) => v === ctx.interleaved }],
  ['use_mrope', { dialect: "Qwen's original code", meaning: 'multimodal RoPE', agrees: (v, ctx) => v === false || ctx.mrope }],
  ['position_embedding_type', {
    dialect: 'TensorRT-LLM', meaning: 'the kind of positions',
    agrees: (v, ctx) => (v === 'rope_gptj' && ctx.interleaved) || (v === 'rope_gpt_neox' && !ctx.interleaved) || v === 'rope' || v === 'rotary',
  }],
]);

/** Keys PreTrainedConfig itself takes from a config.json (and generation settings it drops): never positional. */
const BASE_KWARGS: ReadonlySet<string> = new Set(['torch_dtype', 'dtype', 'name_or_path', '_name_or_path', '_commit_hash', 'output_attentions',
  'attn_implementation', 'experts_implementation', 'num_labels', 'auto_map', 'quantization_config', 'transformers_version', 'architectures',
  'use_cache', 'bos_token_id', 'eos_token_id', 'pad_token_id', 'tie_word_embeddings', 'vocab_size', 'initializer_range', 'temperature',
  'top_p', 'top_k', 'max_length', 'do_sample', 'num_beams', 'repetition_penalty']);

/** GGUF metadata keys written out as JSON (`llama.rope.freq_base`, `general.architecture`). */
const GGUF_KEY = /^(general|[a-z0-9_]+\.(rope|attention|context_length|embedding_length|block_count))(\.|$)/;

/** What the key decisions need from the reader. */
export interface KeyContext {
  modelType: string;
  /** The family's config class facts (undefined: no model_type, or a model posenc plans by hand). */
  family: FamilyFacts | undefined;
  /** Whether transformers pairs adjacent lanes for this model. */
  interleaved: boolean;
  /** Whether the model has M-RoPE. */
  mrope: boolean;
  notes: string[];
}

function describeValue(v: unknown): string {
  const text = JSON.stringify(v);
  return text === undefined ? String(v) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Decides every key of `f` (the language-model part or the file's top level): throws INVALID_CONFIG
 * for a key no plan can be right without, and notes the keys transformers ignores.
 */
export function decideKeys(f: Fields, ctx: KeyContext, alsoRead: readonly string[] = []): void {
  const family = ctx.family;
  const ignored: string[] = []; // names of the keys no class defines and no code reads
  for (const key of Object.keys(f.obj)) {
    if (readsKey(key, ctx.modelType) || alsoRead.includes(key)) continue;
    const value = f.obj[key];
    if (key === 'per_layer_config') {
      throw f.invalid(`${f.name(key)} overrides attributes layer by layer (transformers' heterogeneous configs); posenc does not read it, ` +
        'and the layers it changes could rotate differently');
    }
    if (BASE_KWARGS.has(key)) continue;
    if (key === 'is_heterogeneous' && (value === false || value === null)) continue; // what a default instance says: no per-layer overrides
    if (family && family.ropeReads.includes(key)) {
      throw f.invalid(`${f.name(key)} is read by transformers' ${family.rotaryClasses.join('/') || family.configClass} for positions, ` +
        'and posenc does not read it: no plan would be right without it');
    }
    if (family && classDefines(family, key)) continue; // a field of the class that positions do not use
    const foreign = FOREIGN.get(key);
    if (foreign || GGUF_KEY.test(key)) {
      const { dialect, meaning } = foreign ?? { dialect: "llama.cpp's GGUF metadata", meaning: 'a GGUF key' };
      if (foreign?.agrees?.(value, ctx, f)) {
        ctx.notes.push(`${f.name(key)} ${describeValue(value)} is ${dialect}'s key for ${meaning}; transformers does not read it, and it agrees with what the model does`);
        continue;
      }
      throw f.invalid(`${f.name(key)} ${describeValue(value)} is ${dialect}'s key for ${meaning}: transformers` +
        `${family ? `' ${family.configClass}` : ''} does not read it, so the checkpoint asks for something the transformers model does not do; ` +
        'refusing to build a plan that could be wrong');
    }
    ignored.push(f.name(key));
  }
  for (const name of ignored) {
    const key = name.slice(name.lastIndexOf('.') + 1);
    const near = [...READ_KEYS].find((k) => k !== key && editDistance(k, key) <= 2);
    ctx.notes.push(`${name} is not read: ${family ? `${family.configClass} does not define it` : 'posenc knows no class for a config without model_type'}` +
      ` and no position code reads it, so transformers ignores it${near ? ` (close to ${near}: a misspelt key is ignored too)` : ''}`);
  }
}

/** Levenshtein distance, for "close to" hints (keys are short). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
