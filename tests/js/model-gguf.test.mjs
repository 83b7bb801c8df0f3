// pe.model.fromGguf / toGguf: GGUF headers built byte by byte in this file (ggml docs/gguf.md,
// version 3, little-endian; no file is downloaded) read into the same plan as the HF config, the
// rules of llama.cpp's src/llama-model.cpp (rope type per architecture, SWA pattern, gemma3's SWA
// base), and malformed files as INVALID_FILE errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';
import { defaultFreq, llama3RopeFreqs, worstRel, yarnFreq } from './model-formulas.mjs';
import { fixture } from './model-zoo-expect.mjs';
import { gguf } from './gguf-bytes.mjs';

const pe = await createPosEnc();
const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));

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
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama).subarray(0, 60)), 'INVALID_FILE', /claims 8 key\/values, more than its 36 remaining bytes/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama).subarray(0, 200)), 'INVALID_FILE', /ends inside/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([...llama, ['llama.rope.scaling.magic', 'f32', 2]])), 'INVALID_FILE', /llama\.rope\.scaling\.magic may change/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([['general.architecture', 'str', 'rwkv6']])), 'INVALID_FILE', /'rwkv6' is not one posenc knows/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama, { tensors: ['rope_freqs.weight'] })), 'INVALID_FILE', /rope_freqs\.weight has dims \[4\]; the RoPE needs 64 values/);
  throwsPosEnc(() => pe.model.fromGguf('model.gguf'), 'INVALID_TYPE', /Uint8Array or ArrayBuffer/);
});

/** llama.cpp src/llama-model.cpp llama_model_rope_type (ggml-org/llama.cpp 00342301): NORM and NEOX architectures posenc maps. */
const NORM = ['llama', 'llama4', 'smollm3', 'glm4', 'command-r', 'cohere2'];
const NEOX = ['qwen2', 'qwen2moe', 'qwen3', 'qwen3moe', 'phi2', 'phi3', 'gemma', 'gemma2', 'gemma3', 'stablelm', 'starcoder2', 'gptneox', 'falcon', 'olmo2', 'gpt-oss'];

test('every RoPE architecture posenc reads pairs lanes as llama_model_rope_type says (NORM adjacent, NEOX offset by n_rot/2)', () => {
  for (const arch of [...NORM, ...NEOX]) {
    const plan = pe.model.fromGguf(gguf([['general.architecture', 'str', arch], [`${arch}.block_count`, 'u32', 4], [`${arch}.embedding_length`, 'u32', 512],
      [`${arch}.attention.head_count`, 'u32', 4], [`${arch}.context_length`, 'u32', 4096], [`${arch}.attention.sliding_window`, 'u32', 128]]));
    const rope = plan.layers.find((l) => l.rope).rope;
    assert.equal(rope.spec.pairing, NORM.includes(arch) ? 'interleaved' : 'half', arch);
  }
});

test('Llama 3.1 GGUF: rope_freqs.weight (float32 divisors from the published config) gives the HF llama3 frequencies', () => {
  // convert_hf_to_gguf.py LlamaModel.generate_extra_tensors writes rope_freqs from rope_scaling (float32);
  // ggml rope divides theta_i by freq_factors[i]. Parameters from tests/fixtures/models/llama-3.1-8b.json.
  const cfg = fixture('llama-3.1-8b.json');
  const rs = cfg.rope_scaling;
  const divisors = llama3RopeFreqs(128, cfg.rope_theta, { factor: rs.factor, low: rs.low_freq_factor, high: rs.high_freq_factor, original: rs.original_max_position_embeddings });
  const keys = [['general.architecture', 'str', 'llama'], ['llama.block_count', 'u32', cfg.num_hidden_layers], ['llama.context_length', 'u32', cfg.max_position_embeddings],
    ['llama.embedding_length', 'u32', cfg.hidden_size], ['llama.attention.head_count', 'u32', cfg.num_attention_heads], ['llama.attention.head_count_kv', 'u32', cfg.num_key_value_heads],
    ['llama.rope.dimension_count', 'u32', 128], ['llama.rope.freq_base', 'f32', cfg.rope_theta]];
  const file = gguf(keys, { tensors: [{ name: 'token_embd.weight', values: [1, 2, 3] }, { name: 'rope_freqs.weight', values: Array.from(divisors) }] });
  const plan = pe.model.fromGguf(file);
  const hf = pe.model.fromConfig(cfg);
  assert.ok(plan.notes.some((n) => /rope_freqs\.weight: per-pair divisors/.test(n)));
  assert.equal(plan.longRope, undefined);
  for (const i of [0, 31]) {
    const f = pe.model.frequencies(plan, i);
    // Exactly the stored float32 divisors: w_i * divisor_i = base^(-2i/d).
    defaultFreq(128, cfg.rope_theta).forEach((w, k) => assert.ok(Math.abs((f.invFreq[k] * divisors[k]) / w - 1) <= 1e-12, `pair ${k}`));
    // And the HF plan of the same model, up to float32 storage of the divisors.
    const rel = worstRel(f.invFreq, pe.model.frequencies(hf, i).invFreq);
    assert.ok(rel <= 1e-6, `layer ${i}: rel ${rel}`);
    assert.equal(f.attentionFactor, 1);
    for (const seqLen of [10, 131072]) assert.deepEqual(pe.model.frequencies(plan, i, { seqLen }).invFreq, f.invFreq, 'no switch');
  }
  // The tensor data must be there: a file cut after the header, and a non-F32 tensor, are refused.
  throwsPosEnc(() => pe.model.fromGguf(file.subarray(0, file.length - 64)), 'INVALID_FILE', /pass the whole file, or at least its first \d+ bytes/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(keys, { tensors: [{ name: 'rope_freqs.weight', values: Array.from(divisors), type: 1 }] })), 'INVALID_FILE', /ggml type 1; posenc reads RoPE factor tensors only as F32/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([...keys, ['llama.rope.scaling.type', 'str', 'linear'], ['llama.rope.scaling.factor', 'f32', 2]],
    { tensors: [{ name: 'rope_freqs.weight', values: Array.from(divisors) }] })), 'INVALID_FILE', /does not combine them/);
});

test('Phi-3.5 GGUF: rope_factors_long/short and attn_factor give HF LongRoPE, the list picked once by llama.cpp\'s context size', () => {
  // convert_hf_to_gguf.py Phi3MiniModel: the two lists as F32 tensors, rope.scaling.attn_factor = sqrt(1 + ln(max/orig) / ln(orig)),
  // rope.scaling.original_context_length; llama.cpp uses the long list when n_ctx > n_ctx_orig. Values from phi-3.5-mini-instruct.json.
  const cfg = fixture('phi-3.5-mini-instruct.json');
  const scale = cfg.max_position_embeddings / cfg.original_max_position_embeddings;
  const attn = Math.sqrt(1 + Math.log(scale) / Math.log(cfg.original_max_position_embeddings));
  const file = gguf([['general.architecture', 'str', 'phi3'], ['phi3.block_count', 'u32', cfg.num_hidden_layers], ['phi3.context_length', 'u32', cfg.max_position_embeddings],
    ['phi3.embedding_length', 'u32', cfg.hidden_size], ['phi3.attention.head_count', 'u32', cfg.num_attention_heads], ['phi3.rope.dimension_count', 'u32', 96],
    ['phi3.rope.freq_base', 'f32', cfg.rope_theta], ['phi3.rope.scaling.original_context_length', 'u32', cfg.original_max_position_embeddings],
    ['phi3.rope.scaling.attn_factor', 'f32', attn]],
  { tensors: [{ name: 'rope_factors_long.weight', values: cfg.rope_scaling.long_factor }, { name: 'rope_factors_short.weight', values: cfg.rope_scaling.short_factor }] });
  const hf = pe.model.fromConfig(cfg);
  const long = pe.model.fromGguf(file);
  assert.deepEqual(long.longRope, { rule: 'llama.cpp', originalMaxPositionEmbeddings: 4096, length: 131072 });
  assert.equal(pe.model.longRopeList(long, 10), 'long');
  const short = pe.model.fromGguf(file, { contextLength: 4096 });
  assert.equal(pe.model.longRopeList(short, 10), 'short');
  for (const [plan, seqLen] of [[long, 4097], [short, 4096]]) {
    const f = pe.model.frequencies(plan, 0);
    const h = pe.model.frequencies(hf, 0, { seqLen });
    assert.ok(worstRel(f.invFreq, h.invFreq) <= 1e-6, `seqLen ${seqLen}`);
    assert.ok(Math.abs(f.attentionFactor / h.attentionFactor - 1) <= 1e-7, `attention factor ${f.attentionFactor} vs ${h.attentionFactor}`);
  }
  throwsPosEnc(() => pe.model.fromGguf(file, { contextLength: 0 }), 'INVALID_ARGUMENT', /contextLength/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([['general.architecture', 'str', 'phi3'], ['phi3.block_count', 'u32', 2], ['phi3.embedding_length', 'u32', 3072],
    ['phi3.attention.head_count', 'u32', 32], ['phi3.rope.dimension_count', 'u32', 96], ['phi3.rope.scaling.original_context_length', 'u32', 4096]],
  { tensors: [{ name: 'rope_factors_long.weight', values: cfg.rope_scaling.long_factor }] })), 'INVALID_FILE', /rope_factors_short\.weight is missing/);
});

test('smollm3 and llama4 GGUF: NoPE every 4th layer (llama.cpp n_no_rope_layer_step 4); llama4 chunks RoPE layers and tunes NoPE queries as HF does', () => {
  const cfg = fixture('smollm3-3b.json');
  const smol = pe.model.fromGguf(gguf([['general.architecture', 'str', 'smollm3'], ['smollm3.block_count', 'u32', cfg.num_hidden_layers],
    ['smollm3.embedding_length', 'u32', cfg.hidden_size], ['smollm3.attention.head_count', 'u32', cfg.num_attention_heads], ['smollm3.rope.freq_base', 'f32', cfg.rope_theta]]));
  const hf = pe.model.fromConfig(cfg);
  assert.deepEqual(smol.layers.map((l) => l.rope === null), hf.layers.map((l) => l.rope === null));
  assert.ok(worstRel(pe.model.frequencies(smol, 0).invFreq, pe.model.frequencies(hf, 0).invFreq) <= 1e-9);
  // Llama 4 Scout's published values (llama3 factor 16, low = high = 1); convert_hf_to_gguf.py writes them as rope_freqs.
  const divisors = llama3RopeFreqs(128, 500000, { factor: 16, low: 1, high: 1, original: 8192 });
  const scout = pe.model.fromGguf(gguf([['general.architecture', 'str', 'llama4'], ['llama4.block_count', 'u32', 8], ['llama4.context_length', 'u32', 10485760],
    ['llama4.embedding_length', 'u32', 5120], ['llama4.attention.head_count', 'u32', 40], ['llama4.attention.head_count_kv', 'u32', 8],
    ['llama4.rope.dimension_count', 'u32', 128], ['llama4.rope.freq_base', 'f32', 500000]], { tensors: [{ name: 'rope_freqs.weight', values: Array.from(divisors) }] }));
  const hfScout = pe.model.fromConfig({ model_type: 'llama4_text', num_hidden_layers: 8, hidden_size: 5120, num_attention_heads: 40, num_key_value_heads: 8,
    head_dim: 128, rope_theta: 500000.0, attention_chunk_size: 8192, no_rope_layers: [], attn_temperature_tuning: true, floor_scale: 8192, attn_scale: 0.1,
    max_position_embeddings: 10485760, rope_scaling: { factor: 16.0, high_freq_factor: 1.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' } });
  scout.layers.forEach((l, i) => {
    const h = hfScout.layers[i];
    assert.deepEqual([l.attention, l.window, l.rope === null], [h.attention, h.window, h.rope === null], `layer ${i}`);
    const positions = [0, 8190, 8191, 16383, 100000];
    assert.deepEqual(pe.model.queryScales(scout, i, positions), pe.model.queryScales(hfScout, i, positions), `layer ${i} query scales`);
    if (l.rope) assert.ok(worstRel(pe.model.frequencies(scout, i).invFreq, pe.model.frequencies(hfScout, i).invFreq) <= 1e-6, `layer ${i}`);
  });
});

test('gpt-oss GGUF: llama.cpp set_swa_pattern(2) slides the even layers, as HF gpt-oss layer_types do', () => {
  const plan = pe.model.fromGguf(gguf([['general.architecture', 'str', 'gpt-oss'], ['gpt-oss.block_count', 'u32', 4], ['gpt-oss.embedding_length', 'u32', 2880],
    ['gpt-oss.attention.head_count', 'u32', 64], ['gpt-oss.attention.key_length', 'u32', 64], ['gpt-oss.attention.sliding_window', 'u32', 128]]));
  assert.deepEqual(plan.layers.map((l) => l.attention), ['sliding_attention', 'full_attention', 'sliding_attention', 'full_attention']);
  assert.deepEqual(plan.layers[0].window, { kind: 'sliding', size: 128, bidirectional: false });
});

test('names from the file are never looked up in an object with a prototype: constructor, __proto__, toString are plain strings', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    throwsPosEnc(() => pe.model.fromGguf(gguf([['general.architecture', 'str', name], ...llama.slice(1)])), 'INVALID_FILE',
      new RegExp(`general\\.architecture '${name}' is not one posenc knows`));
    // A key or tensor of that name is one entry like any other: read once, refused when it appears twice.
    const plan = pe.model.fromGguf(gguf([...llama, [name, 'u32', 1], [`general.${name}`, 'u32', 2]], { tensors: [name] }));
    assert.equal(plan.layers.length, 4, name);
    assert.equal(plan.modelType, 'llama');
    throwsPosEnc(() => pe.model.fromGguf(gguf([...llama, [name, 'u32', 1], [name, 'u32', 1]])), 'INVALID_FILE', new RegExp(`key '${name}' appears twice`));
    throwsPosEnc(() => pe.model.fromGguf(gguf(llama, { tensors: [name, name] })), 'INVALID_FILE', new RegExp(`tensor '${name}' appears twice`));
  }
  // A plan's model_type is looked up the same way when it is written back.
  const plan = pe.model.fromGguf(gguf(llama));
  for (const modelType of ['constructor', '__proto__', 'toString']) {
    throwsPosEnc(() => pe.model.toGguf({ ...plan, modelType }), 'INVALID_ARGUMENT', new RegExp(`model_type '${modelType}' has no llama.cpp architecture`));
  }
});

test('posenc plan of a GGUF whose architecture is "constructor" fails with INVALID_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-gguf-'));
  const path = join(dir, 'proto.gguf');
  writeFileSync(path, gguf([['general.architecture', 'str', 'constructor'], ...llama.slice(1)]));
  const r = spawnSync(process.execPath, [cli, 'plan', path], { encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /general\.architecture 'constructor' is not one posenc knows .*\[INVALID_FILE\]/);
});

/** The Llama 3.1 keys and rope_freqs divisors (see the Llama 3.1 test above), as a file. */
function llama31({ alignment, extra = [], tensors } = {}) {
  const cfg = fixture('llama-3.1-8b.json');
  const rs = cfg.rope_scaling;
  const divisors = Array.from(llama3RopeFreqs(128, cfg.rope_theta, { factor: rs.factor, low: rs.low_freq_factor, high: rs.high_freq_factor, original: rs.original_max_position_embeddings }));
  const keys = [...llama, ...extra];
  return { divisors, file: gguf(keys, { alignment, tensors: tensors ?? [{ name: 'token_embd.weight', values: [1, 2, 3] }, { name: 'rope_freqs.weight', values: divisors }] }) };
}

test('a GGUF given as a view of a larger buffer is read from the view only: the same plan as its bytes copied, never the bytes around it', () => {
  const { file } = llama31();
  const expected = pe.model.fromGguf(file.slice());
  for (const before of [1, 8, 1000]) {
    // Canary bytes around the view: float32 2.0, a valid RoPE divisor, so reading them would go unnoticed.
    const big = new Uint8Array(before + file.length + 4096);
    new DataView(big.buffer).setFloat32(0, 2, true);
    for (let i = 0; i + 4 <= big.length; i += 4) big.set(big.subarray(0, 4), i);
    big.set(file, before);
    assert.deepEqual(pe.model.fromGguf(big.subarray(before, before + file.length)), expected, `view at ${before}`);
    // Cut inside the factor tensor: refused, though the bytes after the view would complete it.
    throwsPosEnc(() => pe.model.fromGguf(big.subarray(before, before + file.length - 64)), 'INVALID_FILE', /pass the whole file/);
  }
  // Node's Buffers of small files share one pool: the view is all posenc may read.
  const pooled = Buffer.from(file);
  assert.deepEqual(pe.model.fromGguf(pooled), expected);
  throwsPosEnc(() => pe.model.fromGguf(Buffer.from(file.subarray(0, file.length - 64))), 'INVALID_FILE', /pass the whole file/);
  // A subclass's overridden accessors are not used.
  class Lying extends Uint8Array {
    get length() { return 1 << 30; }
    get byteOffset() { return 0; }
    subarray() { throw new Error('caller code ran'); }
  }
  const liar = new Lying(file.length);
  Uint8Array.prototype.set.call(liar, file);
  assert.deepEqual(pe.model.fromGguf(liar), expected);
});

test('general.alignment must be a uint32 power of two up to 65536 (gguf.cpp), and tensor offsets multiples of it', () => {
  const { file, divisors } = llama31({ alignment: 64, extra: [['general.alignment', 'u32', 64]] });
  const plan = pe.model.fromGguf(file);
  assert.deepEqual(Array.from(pe.model.frequencies(plan, 0).invFreq).length, 64);
  assert.deepEqual(plan.layers[0].rope.spec.scaling.shortFactor, Array.from(Float32Array.from(divisors)));
  for (const [value, type, pattern] of [[0, 'u32', /general\.alignment is 0; it must be a power of two from 1 to 65536/], [3, 'u32', /general\.alignment is 3/],
    [2 ** 31, 'u32', /general\.alignment is 2147483648/], [32, 'f32', /general\.alignment must be a uint32, got a float32/], [32, 'i32', /must be a uint32/]]) {
    const bad = llama31({ extra: [['general.alignment', type, value]] }).file;
    throwsPosEnc(() => pe.model.fromGguf(bad), 'INVALID_FILE', pattern);
    // As a view of a larger buffer too (alignment 0 used to make the data offset NaN: a read from byte 0 of the buffer).
    const big = new Uint8Array(bad.length + 512).fill(0x40);
    big.set(bad, 256);
    throwsPosEnc(() => pe.model.fromGguf(big.subarray(256, 256 + bad.length)), 'INVALID_FILE', pattern);
  }
  throwsPosEnc(() => pe.model.fromGguf(llama31({ tensors: [{ name: 'rope_freqs.weight', values: new Array(64).fill(1), offset: 4 }] }).file), 'INVALID_FILE',
    /tensor 'rope_freqs\.weight' has offset 4, not a multiple of the alignment 32/);
  throwsPosEnc(() => pe.model.fromGguf(llama31({ tensors: [{ name: 'rope_freqs.weight', values: new Array(64).fill(1), offset: 2 ** 52 }] }).file), 'INVALID_FILE',
    /rope_freqs\.weight lies at bytes \d+-\d+, past the end of the bytes given/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama, { tensors: [{ name: 'w', dims: [1, 1, 1, 1, 1] }] })), 'INVALID_FILE', /tensor 'w' has 5 dims/);
});

test('a second rope_freqs tensor, or any repeated key or tensor, is INVALID_FILE', () => {
  const { divisors } = llama31();
  throwsPosEnc(() => pe.model.fromGguf(llama31({ tensors: [{ name: 'rope_freqs.weight', values: divisors }, { name: 'rope_freqs.weight', values: divisors.map((d) => 2 * d) }] }).file),
    'INVALID_FILE', /tensor 'rope_freqs\.weight' appears twice/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([...llama, ['llama.rope.freq_base', 'f32', 10000]])), 'INVALID_FILE', /key 'llama\.rope\.freq_base' appears twice/);
});

test('counts that the file cannot hold are refused before anything is read', () => {
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama, { kvCount: 2 ** 40 })), 'INVALID_FILE', /claims 1099511627776 key\/values/);
  throwsPosEnc(() => pe.model.fromGguf(gguf(llama, { tensorCount: 2 ** 50 })), 'INVALID_FILE', /claims 1125899906842624 tensors/);
  throwsPosEnc(() => pe.model.fromGguf(gguf([...llama, ['tokenizer.ggml.tokens', 'strs', ['a', 'b']]], { kvCount: 9 }).subarray(0, 400)), 'INVALID_FILE', /ends inside|claims/);
});

test('numeric keys are range-checked as config.json\'s are: counts are integers from 1 to 2^31 - 1, bases and factors > 0', () => {
  const gemma2 = [['general.architecture', 'str', 'gemma2'], ['gemma2.block_count', 'u32', 4], ['gemma2.embedding_length', 'u32', 512],
    ['gemma2.attention.head_count', 'u32', 4], ['gemma2.attention.sliding_window', 'u32', 128]];
  assert.equal(pe.model.fromGguf(gguf(gemma2)).layers[0].window.size, 128);
  const edit = (base, key, type, value) => base.map((e) => (e[0] === key ? [key, type, value] : e)).concat(base.some((e) => e[0] === key) ? [] : [[key, type, value]]);
  const cases = [
    [llama, 'llama.attention.head_count', 'i32', -4, /llama\.attention\.head_count must be > 0, got -4/],
    [llama, 'llama.attention.head_count', 'u32', 0, /llama\.attention\.head_count must be > 0, got 0/],
    [llama, 'llama.attention.head_count_kv', 'u32', 0, /llama\.attention\.head_count_kv must be > 0, got 0/],
    [llama, 'llama.attention.head_count_kv', 'f32', 2.5, /llama\.attention\.head_count_kv must be an integer, got 2\.5/],
    [llama, 'llama.attention.head_count_kv', 'u32s', [8, 8, 8, 8], /llama\.attention\.head_count_kv differs per layer/],
    [llama, 'llama.rope.freq_base', 'f32', 0, /llama\.rope\.freq_base must be > 0, got 0/],
    [llama, 'llama.rope.freq_base', 'f32', -10000, /llama\.rope\.freq_base must be > 0/],
    [llama, 'llama.rope.freq_base', 'f32', NaN, /llama\.rope\.freq_base must be a number, got NaN/],
    [llama, 'llama.rope.freq_base', 'str', '10000', /llama\.rope\.freq_base must be a number/],
    [llama, 'llama.rope.dimension_count', 'u32', 256, /llama\.rope\.dimension_count is 256; it must be an even number from 2 to the head size 128/],
    [llama, 'llama.rope.dimension_count', 'u32', 63, /dimension_count is 63; it must be an even number/],
    [llama, 'llama.rope.dimension_count', 'u32', 0, /dimension_count must be > 0/],
    [llama, 'llama.context_length', 'u32', 0, /llama\.context_length must be > 0/],
    [llama, 'llama.block_count', 'f32', 2.5, /llama\.block_count must be an integer/],
    [llama, 'llama.block_count', 'u32', 70000, /llama\.block_count is 70000; a plan holds at most 65536 layers/],
    [llama, 'llama.embedding_length', 'u32', 2 ** 32 - 1, /llama\.embedding_length is 4294967295, more than any size posenc can address/],
    [llama, 'llama.attention.key_length', 'u32', 0, /llama\.attention\.key_length must be > 0/],
    [llama, 'llama.rope.scaling.factor', 'f32', 0, /llama\.rope\.scaling\.factor must be > 0/],
    [llama, 'llama.rope.scale_linear', 'f32', -2, /llama\.rope\.scale_linear must be > 0/],
    [edit(llama, 'llama.rope.scaling.type', 'str', 'yarn').concat([['llama.rope.scaling.factor', 'f32', 4]]), 'llama.rope.scaling.yarn_beta_fast', 'f32', -1, /yarn_beta_fast must be >= 0/],
    [edit(llama, 'llama.rope.scaling.type', 'str', 'yarn').concat([['llama.rope.scaling.factor', 'f32', 4]]), 'llama.rope.scaling.original_context_length', 'u32', 0, /original_context_length must be > 0/],
    [llama, 'llama.rope.scaling.type', 'u32', 1, /llama\.rope\.scaling\.type must be a string/],
    [gemma2, 'gemma2.attention.sliding_window', 'i32', -5, /gemma2\.attention\.sliding_window must be > 0, got -5/],
    [gemma2, 'gemma2.attention.sliding_window', 'u32', 0, /gemma2\.attention\.sliding_window must be > 0, got 0/],
    [[['general.architecture', 'str', 'bloom'], ['bloom.block_count', 'u32', 2], ['bloom.embedding_length', 'u32', 1024], ['bloom.attention.head_count', 'u32', 16]],
      'bloom.attention.max_alibi_bias', 'f32', 0, /bloom\.attention\.max_alibi_bias must be > 0/],
  ];
  for (const [base, key, type, value, pattern] of cases) {
    throwsPosEnc(() => pe.model.fromGguf(gguf(edit(base, key, type, value))), 'INVALID_FILE', pattern);
  }
});
