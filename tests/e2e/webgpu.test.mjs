// posenc/webgpu in headless Chromium with WebGPU on SwiftShader (no GPU needed; tests/webgpu/):
// every table bit for bit against posenc's WebAssembly tables, every kernel against the WASM
// results and the float64 formulas in the same page (compute and buffer readback only), bad
// arguments as PosEncErrors before any GPU work, and UNSUPPORTED where WebGPU gives no adapter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { oneNodeModel } from '../bench/onnx-writer.mjs';
import { openChecks } from '../webgpu/browser.mjs';

let page;
before(async () => {
  page = await openChecks();
});
after(async () => {
  await page?.close();
});

/** The float32 rotation bound: 3 roundings of 2^-24 (|x c| + |y s|) (the table's two values and the arithmetic). */
const ROTATION_UNITS = 3;

test('the page gets a SwiftShader adapter and a device', async () => {
  const s = await page.run('status');
  assert.equal(s.setupError, undefined, JSON.stringify(s.setupError));
  assert.equal(page.status, 'ready');
});

test('RoPE tables: every scaling type, both pairings, partial rotary: the same bits as pe.rope.createCache', async () => {
  const specs = [
    { headDim: 64 },
    { headDim: 64, pairing: 'interleaved', rotaryDim: 32 },
    { headDim: 128, scaling: { type: 'linear', factor: 4 } },
    { headDim: 64, scaling: { type: 'ntk', factor: 2 } },
    { headDim: 64, scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 1024 } },
    { headDim: 64, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 1024 } },
    { headDim: 128, base: 500000, scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 1024 } },
    { headDim: 32, scaling: { type: 'longrope', shortFactor: Array(16).fill(1.5), longFactor: Array.from({ length: 16 }, (_, i) => 1 + i / 4), originalMaxPositionEmbeddings: 1024, maxPositionEmbeddings: 8192 } },
  ];
  const results = await page.run('ropeTables', specs, 2048);
  for (const r of results) {
    assert.equal(r.cosDiffs, 0, r.spec);
    assert.equal(r.sinDiffs, 0, r.spec);
    if (r.f16FromFormula !== undefined) {
      assert.equal(r.f16NotNearest, 0, `${r.spec}: a float16 value not the nearest to float64`);
      assert.ok(r.f16EngineDiffs === null || r.f16EngineDiffs === 0, `${r.spec}: differs from Math.f16round`);
    }
  }
});

/** A rotation case; the numbers the page returns are judged here. */
async function rotation(c, name) {
  const r = await page.run('rope', c);
  assert.ok(r.worst <= ROTATION_UNITS, `${name}: error ${r.worst} units of 2^-24 (|x c| + |y s|)`);
  assert.equal(r.touched, 0, `${name}: a lane outside the rotary block changed`);
  assert.equal(r.nanWrong, 0, `${name}: a pair at a position outside the table is not NaN (or a good one is)`);
  assert.ok(r.vUntouched, `${name}: v heads of the packed qkv changed`);
  if (r.wasmMaxDiff !== undefined) {
    // the WASM cache's rotation of the same table: the same float32 products, up to a fused multiply-add
    assert.ok(r.wasmWorst <= ROTATION_UNITS, `${name}: the WASM reference itself is off: ${r.wasmWorst}`);
    assert.ok(r.wasmMaxDiff <= 2 ** -20 * 8, `${name}: GPU and WASM differ by ${r.wasmMaxDiff}`);
  }
  return r;
}

test('RoPE on q and k in one dispatch: bshd, bhsd, 3-D and packed QKV, GQA, both pairings, partial rotary, scaling', async () => {
  const base = { rows: 512, batch: 2, seq: 7, qHeads: 8, kHeads: 2, headDim: 64, positions: { offset: 100 } };
  await rotation({ ...base, spec: { headDim: 64 }, layout: 'bshd' }, 'bshd half');
  await rotation({ ...base, spec: { headDim: 64, pairing: 'interleaved' }, layout: 'bhsd' }, 'bhsd interleaved');
  await rotation({ ...base, spec: { headDim: 64, rotaryDim: 16, pairing: 'interleaved' }, layout: '3d' }, '3-D partial interleaved');
  await rotation({ ...base, spec: { headDim: 64, rotaryDim: 32 }, layout: 'qkv' }, 'packed qkv partial half');
  await rotation({ ...base, spec: { headDim: 64, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 128 } }, layout: 'bshd' }, 'yarn (attention factor)');
  await rotation({ ...base, kHeads: 0, spec: { headDim: 64 }, layout: 'bshd' }, 'q only');
  await rotation({ ...base, batch: 1, seq: 1, qHeads: 32, kHeads: 8, headDim: 128, spec: { headDim: 128 }, layout: 'bshd', positions: { offset: 511 } }, 'a decode step');
});

test('RoPE at per-token position ids (int32, uint32, int64; shared or per batch row) up to 10^6, within one float32 rotation of float64', async () => {
  const rows = 1_000_001;
  const ids = [0, 1, 999_999, 1_000_000, 65_536, 777_777, 12];
  const c = { rows, batch: 2, seq: 7, qHeads: 4, kHeads: 2, headDim: 16, spec: { headDim: 16 }, layout: 'bshd' };
  await rotation({ ...c, positions: { ids, dims: [7], dtype: 'int32' } }, 'int32 [seq]');
  await rotation({ ...c, positions: { ids: [...ids, ...ids.map((p) => rows - 1 - p)], dims: [2, 7], dtype: 'uint32' } }, 'uint32 [batch, seq]');
  await rotation({ ...c, layout: 'bhsd', positions: { ids, dims: [7], dtype: 'int64' } }, 'int64 [seq] bhsd');
});

test('position ids outside the table (past its end, negative) make their pairs NaN, never clamped', async () => {
  const r = await rotation({ rows: 64, batch: 1, seq: 4, qHeads: 2, kHeads: 1, headDim: 16, spec: { headDim: 16, rotaryDim: 8 }, layout: 'bshd',
    positions: { ids: [3, 64, -1, 63], dims: [4], dtype: 'int32' } }, 'ids outside');
  assert.equal(r.wasmMaxDiff, undefined);
});

test('plan layers: standard, proportional, M-RoPE (sections and interleaved), decoupled: tables as pe.model.cosSin, rotations as float64 and pe.model.apply', async () => {
  const cases = [
    { name: 'llama 3.1 (llama3 scaling)', config: { model_type: 'llama', num_hidden_layers: 1, hidden_size: 256, num_attention_heads: 4, num_key_value_heads: 2, rope_theta: 500000,
      max_position_embeddings: 131072, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
      layer: 0, headDim: 64, qHeads: 4, kHeads: 2, layout: 'bshd', positions: { offset: 9000 } },
    { name: 'gemma 4 proportional', config: { model_type: 'gemma4_text', num_hidden_layers: 6, hidden_size: 64, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16,
      global_head_dim: 32, sliding_window: 512, rope_parameters: { full_attention: { partial_rotary_factor: 0.25, rope_theta: 1000000.0, rope_type: 'proportional' },
        sliding_attention: { rope_theta: 10000.0, rope_type: 'default' } } }, layer: 5, headDim: 32, qHeads: 4, kHeads: 2, layout: 'bhsd', positions: { offset: 1000 } },
    { name: 'qwen2-vl M-RoPE sections', config: { model_type: 'qwen2_vl', num_hidden_layers: 1, hidden_size: 1536, num_attention_heads: 12, rope_theta: 1000000,
      rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } }, layer: 0, headDim: 128, qHeads: 2, kHeads: 2, layout: 'bshd', axes: 3,
      positions: { ids: [0, 1, 2, 3, 4, 5, 0, 0, 1, 1, 2, 2, 0, 1, 0, 1, 0, 1], dims: [3, 6] } },
    { name: 'qwen3-vl M-RoPE interleaved', config: { model_type: 'qwen3_vl_text', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 4, rope_theta: 1e6,
      rope_scaling: { rope_type: 'default', mrope_section: [4, 2, 2], mrope_interleaved: true } }, layer: 0, headDim: 16, qHeads: 4, kHeads: 4, layout: 'bshd', axes: 3,
      positions: { ids: [7, 8, 9, 10, 11, 12, 3, 3, 4, 4, 5, 5, 1, 2, 1, 2, 1, 2], dims: [3, 6] } },
    { name: 'qwen3-vl text ids', config: { model_type: 'qwen3_vl_text', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 4, rope_theta: 1e6,
      rope_scaling: { rope_type: 'default', mrope_section: [4, 2, 2], mrope_interleaved: true } }, layer: 0, headDim: 16, qHeads: 4, kHeads: 4, layout: 'bshd', axes: 3,
      positions: { offset: 40 } },
    { name: 'deepseek-v3 decoupled (vLLM lanes), shared key part', config: { model_type: 'deepseek_v3', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 4,
      qk_nope_head_dim: 8, qk_rope_head_dim: 16, v_head_dim: 8, rope_theta: 10000, max_position_embeddings: 16384,
      rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 256, type: 'yarn' } },
      layer: 0, headDim: 24, kHeadDim: 16, qHeads: 4, kHeads: 1, layout: 'bshd', laneOrder: 'vllm', positions: { offset: 700 } },
  ];
  for (const { name, ...c } of cases) {
    const r = await page.run('layer', { rows: 1024 * 10, batch: 1, seq: 6, ...c });
    assert.equal(r.tableDiffs, 0, `${name}: table differs from pe.model.cosSin rounded once`);
    assert.ok(r.worst <= ROTATION_UNITS, `${name}: error ${r.worst} units`);
    assert.equal(r.touched, 0, `${name}: a lane outside the rotary block changed`);
    assert.ok(r.wasmMaxDiff <= 2 ** -20 * 8, `${name}: GPU and pe.model.apply differ by ${r.wasmMaxDiff}`);
    if (name.startsWith('gemma')) assert.deepEqual([r.pairs, r.span], [4, 16], 'proportional: 4 pairs, lanes i and i + 16');
  }
});

test('the naive float32 WGSL sin/cos pipeline against posenc\'s table: its error grows with position, the table stays within half an ulp', async () => {
  const rows = await page.run('naive', { headDim: 32, positions: [10, 1000, 100_000, 999_999] });
  for (const r of rows) assert.ok(r.posenc <= 2 ** -24 * 1.0001, `posenc table at ${r.position}: ${r.posenc}`);
  const far = rows.at(-1);
  assert.ok(far.naive > 1e-3, `the naive pipeline at ${far.position} is off by ${far.naive} (expected > 1e-3)`);
  assert.ok(far.naive > 1000 * far.posenc);
});

test('sinusoidal and learned tables: uploaded bit for bit, added to embeddings as pe adds them; ids outside the table give NaN rows', async () => {
  const r = await page.run('add');
  assert.deepEqual(r, { sinusoidalTableDiffs: 0, sinusoidalAddDiffs: 0, learnedAddDiffs: 0, badRowsNaN: true, goodRowsFinite: true });
});

test('ALiBi: slopes bit for bit; biases within one ulp of pe.alibi.bias (slope times distance in float32)', async () => {
  const cases = [
    { numHeads: 8, qLen: 5, kLen: 40, queryOffset: 35 },
    { numHeads: 12, qLen: 6, kLen: 30, queryOffset: 24, form: 'symmetric' },
    { numHeads: 12, qLen: 4, kLen: 30, form: 'bloom', maxBias: 6 },
    { numHeads: 5, qLen: 3, kLen: 10, queryOffset: 2, form: 'causal', maskFuture: false },
  ];
  for (const r of await page.run('alibi', cases)) {
    assert.equal(r.slopeDiffs, 0);
    assert.ok(r.worstUlps <= 1, `${JSON.stringify(r)}`);
  }
});

test('T5: buckets and biases bit for bit as pe.t5, distances past maxDistance included', async () => {
  const cases = [
    { numBuckets: 32, maxDistance: 128, qLen: 7, kLen: 300, queryOffset: 250, heads: 6 },
    { numBuckets: 32, maxDistance: 128, bidirectional: false, qLen: 5, kLen: 400, queryOffset: 395, heads: 3 },
    { numBuckets: 8, maxDistance: 20, qLen: 30, kLen: 30, heads: 2 },
  ];
  for (const r of await page.run('t5', cases)) {
    assert.equal(r.biasDiffs, 0, JSON.stringify(r));
    assert.equal(r.bucketDiffs, 0, JSON.stringify(r));
  }
});

test('bad arguments are PosEncErrors with their codes, found on the CPU: no GPU validation error', async () => {
  const r = await page.run('errors');
  const codes = Object.fromEntries(r.map((e) => [e.name, e.code]));
  assert.deepEqual(codes, {
    'device not a GPUDevice': 'INVALID_TYPE',
    'pe not posenc': 'INVALID_TYPE',
    'buffer without STORAGE': 'INVALID_ARGUMENT',
    'buffer too small': 'SHAPE_MISMATCH',
    'not a buffer': 'INVALID_TYPE',
    'offset past the table': 'OUT_OF_RANGE',
    'head size not the table\'s': 'SHAPE_MISMATCH',
    'unknown option': 'UNKNOWN_OPTION',
    '3-D without numHeads': 'MISSING_OPTION',
    'ids of the wrong shape': 'SHAPE_MISMATCH',
    'ids in q\'s buffer': 'INVALID_ARGUMENT',
    'q and k the same tensor': 'INVALID_ARGUMENT',
    'misaligned offset': 'INVALID_ARGUMENT',
    'mapped buffer': 'INVALID_ARGUMENT',
    'not a table': 'INVALID_TYPE',
    'bad dtype': 'INVALID_ARGUMENT',
    'table larger than the binding limit': 'SIZE_OVERFLOW',
    'bad alibi out shape': 'SHAPE_MISMATCH',
    'layer without rope': 'INVALID_ARGUMENT',
    'bad wgsl prefix': 'INVALID_ARGUMENT',
    'destroyed table': 'DISPOSED',
    'unsupported: no adapter': 'UNSUPPORTED',
    'float16 without shader-f16': 'UNSUPPORTED',
  });
  assert.ok(r.every((e) => e.code === 'UNSUPPORTED' || e.isPosEncError), 'every error is a PosEncError');
  assert.match(r.find((e) => e.name === 'unsupported: no adapter').message, /no adapter/);
  assert.match(r.find((e) => e.name === 'float16 without shader-f16').message, /shader-f16/);
  assert.deepEqual(await page.run('gpuErrors'), []);
});

test('onnxruntime-web WebGPU: posenc\'s table as RotaryEmbedding cos_cache/sin_cache GPU tensors, its output rotated in place by posenc, no CPU copy', async () => {
  const heads = 4;
  const headDim = 32;
  const rows = 256;
  for (const interleaved of [false, true]) {
    const io = (name, type, dims) => ({ name, type, dims });
    const model = await oneNodeModel({ opType: 'RotaryEmbedding', domain: 'com.microsoft', opset: 1,
      inputs: [io('X', 'FLOAT', ['batch', 'seq', heads * headDim]), io('pos', 'INT64', ['batch', 'seq']), io('cos', 'FLOAT', [rows, headDim / 2]),
        io('sin', 'FLOAT', [rows, headDim / 2])],
      outputs: [io('Y', 'FLOAT', ['batch', 'seq', heads * headDim])], attributes: { num_heads: heads, interleaved: interleaved ? 1 : 0 } });
    const r = await page.run('ortInterop', Array.from(model), { heads, headDim, seq: 5, rows, offset: 200, interleaved });
    assert.equal(r.location, 'gpu-buffer', 'the output stays on the GPU');
    assert.deepEqual(r.errors, []);
    // the same float32 products from the same table: onnxruntime's kernel and posenc's agree to the bit here
    assert.ok(r.ortVsPosenc <= 2 ** -20 * 8, `interleaved ${interleaved}: onnxruntime and posenc differ by ${r.ortVsPosenc}`);
    assert.ok(r.twiceWorst < 1e-5, `interleaved ${interleaved}: rotated twice, off by ${r.twiceWorst}`);
  }
});

test('ropeWgsl: the emitted functions compile on the device, for every layout kind', async () => {
  const layout = { rows: 4096, pairs: 32, pairing: 'half', span: 32, axes: null, dtype: 'float32', width: 64, nopeHeadDim: 0, headDim: 64 };
  const r = await page.run('wgsl', [layout, { ...layout, pairing: 'interleaved' }, { ...layout, axes: { kind: 'sections', section: [8, 12, 12] } },
    { ...layout, axes: { kind: 'interleaved', section: [16, 8, 8] } }, { ...layout, pairs: 4, span: 16 }]);
  for (const w of r) {
    assert.deepEqual(w.messages, []);
    assert.ok(w.functions);
    assert.deepEqual(w.bindings, { cos: { group: 1, binding: 2 }, sin: { group: 1, binding: 3 } });
  }
  assert.deepEqual(await page.run('gpuErrors'), []);
  assert.deepEqual(page.problems, []);
});
