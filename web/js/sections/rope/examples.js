// Example config.json files for "paste a model's config": the RoPE-related fields of public
// Hugging Face configs (Llama 3.1 8B, Qwen2.5-7B-Instruct with the YaRN setting its model card
// recommends, GPT-NeoX-20B), and a Phi-3.5-mini-style LongRoPE config whose factor lists are made
// up for illustration (the right length: rotary_dim/2 = 48 each; not the model's values).

/** @param {number} n @param {(t: number) => number} f */
const ramp = (n, f) => Array.from({ length: n }, (_, i) => Math.round(f(i / (n - 1)) * 1e4) / 1e4);

/** @type {Record<'llama31' | 'phi35' | 'yarn' | 'neox', Record<string, any>>} */
export const EXAMPLE_CONFIGS = {
  llama31: {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, num_key_value_heads: 8,
    num_hidden_layers: 32, max_position_embeddings: 131072, rope_theta: 500000.0,
    rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
    torch_dtype: 'bfloat16', vocab_size: 128256,
  },
  phi35: {
    architectures: ['Phi3ForCausalLM'], model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, num_key_value_heads: 32,
    num_hidden_layers: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096, rope_theta: 10000.0,
    rope_scaling: {
      type: 'longrope',
      short_factor: ramp(48, (t) => 1 + 0.6 * t ** 4),
      long_factor: ramp(48, (t) => 1 + 50 * t ** 2.5),
    },
    sliding_window: 262144, vocab_size: 32064,
  },
  yarn: {
    architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_size: 3584, num_attention_heads: 28, num_key_value_heads: 4,
    num_hidden_layers: 28, max_position_embeddings: 32768, rope_theta: 1000000.0,
    rope_scaling: { type: 'yarn', factor: 4.0, original_max_position_embeddings: 32768 },
    vocab_size: 152064,
  },
  neox: {
    architectures: ['GPTNeoXForCausalLM'], model_type: 'gpt_neox', hidden_size: 6144, num_attention_heads: 64, num_hidden_layers: 44,
    rotary_pct: 0.25, rotary_emb_base: 10000, max_position_embeddings: 2048, use_parallel_residual: true, vocab_size: 50432,
  },
};

/** JSON with 2-space indents, but lists of plain values on one line (a LongRoPE list is 48 numbers). @param {unknown} value @returns {string} */
export function formatConfig(value, indent = '') {
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) {
    return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((v) => `${inner}${formatConfig(v, inner)}`)
    : Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatConfig(v, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return items.length ? `${open}\n${items.join(',\n')}\n${indent}${close}` : `${open}${close}`;
}

/**
 * The context length to show for a config: its max_position_embeddings, or the extended length a
 * YaRN setting reaches (original × factor) when that is longer (Qwen2.5 keeps 32768 and factor 4).
 * @param {Record<string, any>} config
 */
export function configContext(config) {
  const c = config.text_config && !config.num_attention_heads ? config.text_config : config;
  const max = c.max_position_embeddings ?? c.n_positions;
  const s = c.rope_scaling ?? c.rope_parameters;
  const extended = s?.factor && s?.original_max_position_embeddings ? s.factor * s.original_max_position_embeddings : 0;
  const best = Math.max(Number(max) || 0, extended);
  return best > 0 ? best : null;
}
