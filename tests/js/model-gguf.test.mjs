// pe.model.fromGguf / toGguf: GGUF headers built byte by byte in this file (ggml docs/gguf.md,
// version 3, little-endian; no file is downloaded) read into the same plan as the HF config, the
// rules of llama.cpp's src/llama-model.cpp (rope type per architecture, SWA pattern, gemma3's SWA
// base), and malformed files as INVALID_FILE errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';
import { defaultFreq, worstRel, yarnFreq } from './model-formulas.mjs';

const pe = await createPosEnc();

/** A GGUF v3 header with the given [key, type, value] entries (types: 'u32', 'f32', 'str', 'bools'). */
function gguf(entries, { version = 3, tensors = [] } = {}) {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  parts.push(Buffer.from('GGUF'));
  u32(version);
  u64(tensors.length);
  u64(entries.length);
  for (const [key, type, value] of entries) {
    str(key);
    if (type === 'u32') { u32(4); u32(value); }
    if (type === 'f32') { u32(6); const b = Buffer.alloc(4); b.writeFloatLE(value); parts.push(b); }
    if (type === 'str') { u32(8); str(value); }
    if (type === 'bools') { u32(9); u32(7); u64(value.length); parts.push(Buffer.from(value.map((v) => (v ? 1 : 0)))); }
  }
  for (const name of tensors) { str(name); u32(1); u64(4); u32(0); u64(0); }
  return new Uint8Array(Buffer.concat(parts));
}

const llama = [['general.architecture', 'str', 'llama'], ['llama.block_count', 'u32', 4], ['llama.context_length', 'u32', 32768],
  ['llama.embedding_length', 'u32', 4096], ['llama.attention.head_count', 'u32', 32], ['llama.attention.head_count_kv', 'u32', 8],
  ['llama.rope.dimension_count', 'u32', 128], ['llama.rope.freq_base', 'f32', 1000000]];

test('a llama GGUF: NORM rope (interleaved on the permuted weights), base and dims from the keys', () => {
  const plan = pe.model.fromGguf(gguf(llama));
  assert.deepEqual([plan.source, plan.modelType, plan.numLayers, plan.numHeads, plan.numKeyValueHeads, plan.headDim, plan.maxPositionEmbeddings],
    ['gguf', 'llama', 4, 32, 8, 128, 32768]);
  assert.deepEqual(plan.layers[3].rope.spec, { headDim: 128, rotaryDim: 128, base: 1000000, pairing: 'interleaved' });
  assert.ok(worstRel(pe.model.frequencies(plan, 0).invFreq, defaultFreq(128, 1e6)) <= 1e-9);
  assert.deepEqual(pe.model.fromGguf(gguf(llama).buffer).layers.length, 4, 'an ArrayBuffer works too');
});

test('YaRN keys, and a plan written as GGUF keys reads back to the same layers', () => {
  const plan = pe.model.fromGguf(gguf([...llama, ['llama.rope.scaling.type', 'str', 'yarn'], ['llama.rope.scaling.factor', 'f32', 4],
    ['llama.rope.scaling.original_context_length', 'u32', 8192]]));
  const f = pe.model.frequencies(plan, 0);
  assert.ok(worstRel(f.invFreq, yarnFreq(128, 1e6, { factor: 4, original: 8192 }).w) <= 1e-9);
  assert.ok(Math.abs(f.attentionFactor - (1 + 0.1 * Math.log(4))) < 1e-12);
  const keys = pe.model.toGguf(plan);
  assert.deepEqual(keys['llama.rope.scaling.type'], { type: 'string', value: 'yarn' });
  const entries = Object.entries(keys).map(([k, v]) => [k, v.type === 'string' ? 'str' : v.type === 'float32' ? 'f32' : v.type === 'uint32' ? 'u32' : 'bools', v.value]);
  const again = pe.model.fromGguf(gguf(entries));
  assert.deepEqual(again.layers.map((l) => l.rope.spec), plan.layers.map((l) => l.rope.spec));
});

test('gemma3 GGUF: SWA pattern 6 by default, sliding layers on freq_base_swa (10000) unscaled; HF and GGUF plans agree', () => {
  const plan = pe.model.fromGguf(gguf([['general.architecture', 'str', 'gemma3'], ['gemma3.block_count', 'u32', 12], ['gemma3.embedding_length', 'u32', 2560],
    ['gemma3.attention.head_count', 'u32', 8], ['gemma3.attention.key_length', 'u32', 256], ['gemma3.rope.freq_base', 'f32', 1000000],
    ['gemma3.attention.sliding_window', 'u32', 1024], ['gemma3.rope.scaling.type', 'str', 'linear'], ['gemma3.rope.scaling.factor', 'f32', 8]]));
  const hf = pe.model.fromConfig({ model_type: 'gemma3_text', num_hidden_layers: 12, hidden_size: 2560, num_attention_heads: 8, head_dim: 256,
    rope_theta: 1e6, rope_local_base_freq: 10000, rope_scaling: { factor: 8.0, rope_type: 'linear' }, sliding_window: 1024 });
  assert.deepEqual(plan.layers.map((l) => [l.attention, l.window, l.rope.spec]), hf.layers.map((l) => [l.attention, l.window, l.rope.spec]));
  // An explicit per-layer pattern wins.
  const flags = Array.from({ length: 12 }, (_, i) => i < 2);
  const explicit = pe.model.fromGguf(gguf([['general.architecture', 'str', 'gemma3'], ['gemma3.block_count', 'u32', 12], ['gemma3.embedding_length', 'u32', 2560],
    ['gemma3.attention.head_count', 'u32', 8], ['gemma3.attention.sliding_window', 'u32', 512], ['gemma3.attention.sliding_window_pattern', 'bools', flags]]));
  assert.deepEqual(explicit.layers.map((l) => l.attention === 'sliding_attention'), flags);
});

test('bloom GGUF: ALiBi with max_alibi_bias', () => {
  const plan = pe.model.fromGguf(gguf([['general.architecture', 'str', 'bloom'], ['bloom.block_count', 'u32', 2], ['bloom.embedding_length', 'u32', 1024],
    ['bloom.attention.head_count', 'u32', 16], ['bloom.attention.max_alibi_bias', 'f32', 8]]));
  assert.deepEqual(plan.layers[1].alibi, { numHeads: 16, maxBias: 8, form: 'bloom' });
});

test('malformed or unknown GGUF content is INVALID_FILE naming what is wrong', () => {
  throwsPosEnc(() => pe.model.fromGguf(new Uint8Array([1, 2, 3, 4, 5])), 'INVALID_FILE', /magic "GGUF" is missing/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama, { version: 7 })), 'INVALID_FILE', /version 7 is not supported/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama).subarray(0, 60)), 'INVALID_FILE', /ends inside/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([...llama, ['llama.rope.scaling.magic', 'f32', 2]])), 'INVALID_FILE', /llama\.rope\.scaling\.magic may change/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([['general.architecture', 'str', 'rwkv6']])), 'INVALID_FILE', /'rwkv6' is not one posenc knows/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama, { tensors: ['rope_freqs.weight'] })), 'INVALID_FILE', /rope_freqs\.weight holds per-pair/);
  throwsPosEnc(() => pe.model.fromGguf('model.gguf'), 'INVALID_TYPE', /Uint8Array or ArrayBuffer/);
});
