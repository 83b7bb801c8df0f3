// How each model family's attention pairs the lanes it rotates, read from its modeling file at the
// pinned transformers snapshot (the commit in ./transformers/families.ts): the families whose file
// defines one `rotate_half`, and applies it with `apply_rotary_pos_emb` to the leading lanes of the
// head, and has no other rotation (no complex multiply, no M-RoPE, no per-layer RoPE switch, no
// multi-head latent attention).
// - half: `rotate_half` = cat(-x[d/2:], x[:d/2]): lane i pairs with lane i + d/2 (Llama's rule);
// - interleaved: `rotate_half` = stack(-x[1::2], x[::2]).flatten(-2): lanes 2i and 2i + 1.
// Families not listed here rotate in their own way; the plan reader handles some by hand
// (hf-config.ts) and refuses the rest, saying so.

/** Families whose attention rotates the leading lanes with Llama's rotate_half (lane i with i + d/2). */
export const HALF_PAIRING: ReadonlySet<string> = new Set([
  'afmoe', 'apertus', 'arcee', 'aria', 'aria_text', 'bamba', 'bitnet', 'chameleon', 'clvp', 'clvp_decoder',
  'clvp_encoder', 'csm', 'csm_depth_decoder_model', 'cwm', 'dbrx', 'deepseek_ocr2', 'deepseek_ocr2_encoder',
  'deepseek_ocr2_text', 'dia', 'dia_decoder', 'dia_encoder', 'diffllama', 'doge', 'dots1', 'emu3', 'emu3_text_model',
  'esm', 'eurobert', 'evolla', 'falcon', 'falcon_h1', 'flex_olmo', 'gemma', 'gemma2', 'glm4_moe', 'glmasr',
  'gpt_neox', 'gpt_neox_japanese', 'granite', 'granite4_vision', 'granite4_vision_text', 'granitemoe',
  'granitemoeshared', 'higgs_audio_v2', 'hrm_text', 'hunyuan_v1_dense', 'hunyuan_v1_moe', 'hy_v3', 'hyperclovax',
  'idefics', 'jais2', 'jamba', 'jetmoe', 'jina_embeddings_v3', 'kimi_k25', 'laguna', 'lasr_ctc', 'lfm2', 'lfm2_moe',
  'llama', 'mellum', 'mimo_v2_flash', 'minimax', 'minimax_m2', 'minimax_m3_vl', 'minimax_m3_vl_text', 'ministral',
  'ministral3', 'mistral', 'mixtral', 'mllama', 'mllama_text_model', 'modernbert', 'nemotron',
  'nemotron_asr_streaming', 'nemotron_h', 'nomic_bert', 'olmo', 'olmo2', 'olmo3', 'olmoe', 'parakeet_ctc',
  'parakeet_rnnt', 'parakeet_tdt', 'persimmon', 'phi', 'phi3', 'phimoe', 'qwen2', 'qwen2_moe', 'qwen3', 'qwen3_moe',
  'qwen3_next', 'recurrent_gemma', 'seed_oss', 'solar_open', 'stablelm', 'starcoder2', 'step3p5', 'step3p7',
  't5_gemma_module', 't5gemma', 'vaultgemma', 'video_llama_3', 'voxtral_realtime', 'voxtral_realtime_encoder',
  'voxtral_realtime_text', 'zamba2', 'zaya',
]);

/** Families whose rotate_half pairs adjacent lanes (stack(-x[1::2], x[::2]).flatten(-2)). */
export const INTERLEAVED_PAIRING: ReadonlySet<string> = new Set([
  'blt', 'blt_local_decoder', 'blt_local_encoder', 'blt_patcher', 'cohere', 'cohere2', 'cohere2_moe', 'ernie4_5',
  'ernie4_5_moe', 'glm', 'glm4', 'helium', 'moonshine', 'moonshine_streaming',
]);
