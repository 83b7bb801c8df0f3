// The model zoo: real published config.json files (tests/fixtures/models, sources in SOURCES.md)
// read by pe.model.fromConfig, every layer checked against what transformers does with them:
// layer kinds and windows from each configuration_*.py, inverse frequencies from
// modeling_rope_utils.py re-implemented in float64 (model-formulas.mjs), rel 1e-9, and cos/sin at
// a few positions abs 1e-6, through both the plan's float64 cos/sin and pe.rope.createCache.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc } from './helpers.mjs';
import { defaultFreq, llama3Freq, worstRel } from './model-formulas.mjs';

const pe = await createPosEnc();
const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/models/${name}`, import.meta.url), 'utf8'));
const POSITIONS = [0, 1, 17, 4095, 4096, 100000];

/**
 * Expected per-layer facts: attention kind, window, RoPE (null = none) with its head/rotary dims,
 * pairing and float64 frequencies, attention factor.
 */
const ZOO = {
  // Gemma2Config: layer_types[i] = sliding if (i + 1) % 2 (even layers), sliding_window 4096;
  // every layer RoPE with rope_theta, head_dim 256 (modeling_gemma2.py Gemma2RotaryEmbedding).
  'gemma-2-9b-it.json': {
    layers: 42, heads: [16, 8], headDim: 256,
    layer: (i) => ({ attention: i % 2 === 0 ? 'sliding_attention' : 'full_attention', window: i % 2 === 0 ? 4096 : null,
      rope: { headDim: 256, rotaryDim: 256, pairing: 'half', w: defaultFreq(256, 10000), attention: 1 } }),
  },
  // MistralConfig with sliding_window null: no window; rope_theta 1e6, head_dim 128 (not hidden/heads = 160).
  'mistral-nemo-base-2407.json': {
    layers: 40, heads: [32, 8], headDim: 128,
    layer: () => ({ attention: 'full_attention', window: null, rope: { headDim: 128, rotaryDim: 128, pairing: 'half', w: defaultFreq(128, 1e6), attention: 1 } }),
  },
  // _compute_llama3_parameters with factor 32, low 1, high 4, original 8192; head_dim 64.
  'llama-3.2-1b-instruct.json': {
    layers: 16, heads: [32, 8], headDim: 64,
    layer: () => ({ attention: 'full_attention', window: null,
      rope: { headDim: 64, rotaryDim: 64, pairing: 'half', w: llama3Freq(64, 500000, { factor: 32 }).w, attention: 1 } }),
  },
  'meta-llama-3-8b-instruct.json': {
    layers: 32, heads: [32, 8], headDim: 128,
    layer: () => ({ attention: 'full_attention', window: null, rope: { headDim: 128, rotaryDim: 128, pairing: 'half', w: defaultFreq(128, 500000), attention: 1 } }),
  },
  // Qwen3VLTextRotaryEmbedding: default frequencies over head_dim 128, theta 5e6, M-RoPE sections
  // [24, 20, 20] interleaved over pairs (apply_interleaved_mrope); text_config holds the language model.
  'qwen3-vl-2b-instruct.json': {
    layers: 28, heads: [16, 8], headDim: 128,
    layer: () => ({ attention: 'full_attention', window: null, mrope: { section: [24, 20, 20], interleaved: true },
      rope: { headDim: 128, rotaryDim: 128, pairing: 'half', w: defaultFreq(128, 5e6), attention: 1 } }),
  },
};

for (const [name, want] of Object.entries(ZOO)) {
  test(`zoo ${name}: every layer's kind, window and RoPE frequencies match transformers`, () => {
    const plan = pe.model.fromConfig(fixture(name));
    assert.equal(plan.layers.length, want.layers);
    assert.deepEqual([plan.numHeads, plan.numKeyValueHeads, plan.headDim], [...want.heads, want.headDim]);
    for (const layer of plan.layers) {
      const w = want.layer(layer.index);
      const at = `layer ${layer.index}`;
      assert.equal(layer.attention, w.attention, at);
      assert.equal(layer.window?.size ?? null, w.window, at);
      if (w.rope === null) {
        assert.equal(layer.rope, null, at);
        continue;
      }
      const s = layer.rope.spec;
      assert.deepEqual([s.headDim, s.rotaryDim, s.pairing], [w.rope.headDim, w.rope.rotaryDim, w.rope.pairing], at);
      if (w.mrope) assert.deepEqual(layer.rope.form, { kind: 'mrope', ...w.mrope }, at);
      const f = pe.model.frequencies(plan, layer.index);
      assert.ok(worstRel(f.invFreq, w.rope.w) <= 1e-9, `${at}: inverse frequencies`);
      assert.ok(Math.abs(f.attentionFactor - w.rope.attention) <= 1e-12, `${at}: attention factor`);
      const cs = pe.model.cosSin(plan, layer.index, POSITIONS);
      const pairs = w.rope.w.length;
      POSITIONS.forEach((p, r) => {
        for (let i = 0; i < pairs; i++) {
          assert.ok(Math.abs(cs.cos[r * pairs + i] - Math.cos(p * w.rope.w[i])) <= 1e-6, `${at}: cos at ${p}, pair ${i}`);
          assert.ok(Math.abs(cs.sin[r * pairs + i] - Math.sin(p * w.rope.w[i])) <= 1e-6, `${at}: sin at ${p}, pair ${i}`);
        }
      });
    }
  });
}

test('zoo: the float32 cos/sin cache of each standard-form layer matches the float64 formula within 1e-6', () => {
  for (const name of Object.keys(ZOO)) {
    const plan = pe.model.fromConfig(fixture(name));
    const w = ZOO[name].layer(0).rope;
    const { mropeSection: _m, ...spec } = plan.layers[0].rope.spec;
    const cache = pe.rope.createCache({ ...spec, maxPositions: 4100 });
    try {
      const { cos, sin } = cache.toTensors();
      const pairs = w.w.length;
      for (const p of [0, 1, 17, 4095]) {
        for (let i = 0; i < pairs; i++) {
          assert.ok(Math.abs(cos.data[p * pairs + i] - Math.cos(p * w.w[i])) <= 1e-6, `${name}: cos at ${p}`);
          assert.ok(Math.abs(sin.data[p * pairs + i] - Math.sin(p * w.w[i])) <= 1e-6, `${name}: sin at ${p}`);
        }
      }
    } finally {
      cache.dispose();
    }
  }
});

test('zoo: pe.rope.fromConfig gives the same spec as the plan for single-RoPE models, and refuses Qwen3-VL', () => {
  for (const name of ['gemma-2-9b-it.json', 'mistral-nemo-base-2407.json', 'llama-3.2-1b-instruct.json', 'meta-llama-3-8b-instruct.json']) {
    assert.deepEqual(pe.rope.fromConfig(fixture(name)), pe.model.fromConfig(fixture(name)).layers[0].rope.spec, name);
  }
  assert.throws(() => pe.rope.fromConfig(fixture('qwen3-vl-2b-instruct.json')), /interleaves its t\/h\/w sections/);
});
