// The model zoo: real published config.json files (tests/fixtures/models, sources in SOURCES.md)
// read by pe.model.fromConfig, every layer checked against what transformers does with them
// (model-zoo-expect.mjs: layer kinds and windows from each configuration_*.py / modeling_*.py,
// inverse frequencies from modeling_rope_utils.py re-implemented in float64): frequencies rel 1e-9,
// cos/sin at a few positions abs 1e-6 (float64 plan and float32 pe.rope cache), attention factor,
// windows, no-RoPE layers, query scales and absolute tables.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc } from './helpers.mjs';
import { logFloorScale, worstRel } from './model-formulas.mjs';
import { ZOO, fixture } from './model-zoo-expect.mjs';

const pe = await createPosEnc();
const POSITIONS = [0, 1, 17, 4095, 4096, 100000];

function checkCosSin(at, cs, w, attention) {
  const pairs = w.length;
  POSITIONS.forEach((p, r) => {
    for (let i = 0; i < pairs; i++) {
      assert.ok(Math.abs(cs.cos[r * pairs + i] - Math.cos(p * w[i]) * attention) <= 1e-6, `${at}: cos at ${p}, pair ${i}`);
      assert.ok(Math.abs(cs.sin[r * pairs + i] - Math.sin(p * w[i]) * attention) <= 1e-6, `${at}: sin at ${p}, pair ${i}`);
    }
  });
}

test('zoo: every fixture file has expectations, and there are at least 25 real models', () => {
  const files = readdirSync(new URL('../fixtures/models/', import.meta.url)).filter((f) => f.endsWith('.json')).sort();
  assert.deepEqual(files, Object.keys(ZOO).sort());
  assert.ok(files.length >= 25, `${files.length} fixtures`);
});

for (const [name, want] of Object.entries(ZOO)) {
  test(`zoo ${name}: every layer matches transformers (${want.rule})`, () => {
    const plan = pe.model.fromConfig(fixture(name));
    assert.equal(plan.layers.length, want.layers);
    assert.deepEqual([plan.numHeads, plan.numKeyValueHeads, plan.headDim], [...want.heads, want.headDim]);
    assert.deepEqual(plan.absolute, want.absolute ?? null);
    for (const layer of plan.layers) {
      const w = want.layer(layer.index);
      const at = `${name} layer ${layer.index}`;
      assert.equal(layer.attention, w.attention, at);
      assert.equal(layer.window?.size ?? null, w.window, at);
      assert.equal(layer.alibi, null, at);
      if (w.query) {
        const q = pe.model.queryScales(plan, layer.index, POSITIONS);
        POSITIONS.forEach((p, k) => assert.ok(Math.abs(q[k] - logFloorScale(p, w.query.beta, w.query.floorScale, w.query.offset)) <= 1e-12, `${at}: query scale at ${p}`));
      } else {
        assert.equal(layer.queryScaling, null, at);
      }
      if (w.rope === null) {
        assert.equal(layer.rope, null, at);
        assert.equal(pe.model.frequencies(plan, layer.index), null, at);
        continue;
      }
      const s = layer.rope.spec;
      assert.deepEqual([s.headDim, s.rotaryDim, s.pairing], [w.rope.headDim, w.rope.rotaryDim, w.rope.pairing], at);
      assert.deepEqual(layer.rope.form, w.mrope ? { kind: 'mrope', ...w.mrope } : { kind: 'standard' }, at);
      const f = pe.model.frequencies(plan, layer.index);
      assert.ok(worstRel(f.invFreq, w.rope.w) <= 1e-9, `${at}: inverse frequencies`);
      assert.ok(Math.abs(f.attentionFactor - w.rope.attention) <= 1e-12, `${at}: attention factor ${f.attentionFactor}`);
      checkCosSin(at, pe.model.cosSin(plan, layer.index, POSITIONS), w.rope.w, w.rope.attention);
      if (w.rope.long) {
        // HF longrope_frequency_update: the long list once max(position_ids) + 1 exceeds the original length.
        const original = plan.longRope.originalMaxPositionEmbeddings;
        assert.ok(worstRel(pe.model.frequencies(plan, layer.index, { seqLen: original }).invFreq, w.rope.w) <= 1e-9, `${at}: short list at ${original}`);
        const long = pe.model.frequencies(plan, layer.index, { seqLen: original + 1 });
        assert.ok(worstRel(long.invFreq, w.rope.long) <= 1e-9, `${at}: long list at ${original + 1}`);
        assert.ok(Math.abs(long.attentionFactor - w.rope.attention) <= 1e-12, `${at}: attention factor with the long list`);
      }
    }
  });
}

test('zoo: the float32 cos/sin cache of each standard-form layer matches the float64 formula within 1e-6', () => {
  for (const [name, want] of Object.entries(ZOO)) {
    const plan = pe.model.fromConfig(fixture(name));
    const layer = plan.layers.find((l) => l.rope && l.rope.form.kind === 'standard');
    if (!layer) continue;
    const w = want.layer(layer.index).rope;
    const { mropeSection: _m, ...spec } = layer.rope.spec;
    const cache = pe.rope.createCache({ ...spec, maxPositions: 4096 });
    try {
      const { cos, sin } = cache.toTensors();
      const pairs = w.w.length;
      for (const p of [0, 1, 17, 4095]) {
        for (let i = 0; i < pairs; i++) {
          assert.ok(Math.abs(cos.data[p * pairs + i] - Math.cos(p * w.w[i]) * w.attention) <= 1e-6, `${name}: cos at ${p}, pair ${i}`);
          assert.ok(Math.abs(sin.data[p * pairs + i] - Math.sin(p * w.w[i]) * w.attention) <= 1e-6, `${name}: sin at ${p}, pair ${i}`);
        }
      }
    } finally {
      cache.dispose();
    }
  }
});

test('zoo: pe.rope.fromConfig gives the plan\'s spec for models with one RoPE on every layer, and refuses the others', () => {
  for (const name of Object.keys(ZOO)) {
    const cfg = fixture(name);
    const plan = pe.model.fromConfig(cfg);
    const specs = new Set(plan.layers.map((l) => JSON.stringify(l.rope?.spec ?? null)));
    const uniform = specs.size === 1 && plan.layers[0].rope && plan.layers.every((l) => l.rope.form.kind === 'standard');
    if (uniform) assert.deepEqual(pe.rope.fromConfig(cfg), plan.layers[0].rope.spec, name);
    else assert.throws(() => pe.rope.fromConfig(cfg), undefined, name);
  }
});
