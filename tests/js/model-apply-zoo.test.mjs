// pe.model.apply and pe.model.createCache on every zoo fixture (tests/fixtures/models), layer by
// layer: each layer's q and k against what transformers does with that model (model-zoo-expect.mjs:
// frequencies, attention factor, pairing, rotary lanes, NoPE layers, query scales, all derived from
// its code) applied as its modeling code applies them (hf-rope-reference.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';
import { applyAdjacentPairs, applyPartialHalf, qwen3vlFreqs } from './hf-rope-reference.mjs';
import { checkRows } from './model-apply-harness.mjs';
import { logFloorScale } from './model-formulas.mjs';
import { ZOO, fixture } from './model-zoo-expect.mjs';

const pe = await createPosEnc();
const POSITIONS = [0, 17, 4095];
// Past 16384 (Ministral 3's query-scale step) and past every LongRoPE original length (long factors).
const FAR = [...POSITIONS, 40000];

/** What layer `w` (a model-zoo-expect layer) does to one row at position p: its RoPE, then its query scale on q. */
function expected(w, row, p, isQuery, freqs = w.rope?.w) {
  let out = Float64Array.from(row);
  if (w.rope) {
    const angles = freqs.map((v) => p * v);
    out = w.rope.pairing === 'interleaved' ? applyAdjacentPairs(row, angles, w.rope.attention) : applyPartialHalf(row, angles, w.rope.attention);
  }
  if (isQuery && w.query) out = out.map((v) => v * logFloorScale(p, w.query.beta, w.query.floorScale, w.query.offset));
  return out;
}

/** The lanes a layer must leave as they are (NoPE layers: all of k, and of q without a query scale; lanes past rotaryDim). */
function untouched(w, headDim) {
  return (_row, _b, _s, isQuery) => {
    if (!w.rope) return isQuery && w.query ? [] : Array.from({ length: headDim }, (_, j) => j);
    return Array.from({ length: headDim - w.rope.rotaryDim }, (_, j) => w.rope.rotaryDim + j);
  };
}

for (const [name, want] of Object.entries(ZOO)) {
  test(`zoo ${name}: pe.model.apply does what transformers does, layer by layer (${want.rule})`, () => {
    const plan = pe.model.fromConfig(fixture(name));
    const d = want.headDim;
    for (const layer of plan.layers) {
      const w = want.layer(layer.index);
      const layout = layer.index % 2 === 0 ? 'bshd' : 'bhsd';
      for (const positions of [POSITIONS, FAR]) {
        // HF longrope_frequency_update: the long list once max(position_ids) + 1 exceeds the original length.
        const long = w.rope?.long && Math.max(...positions) + 1 > plan.longRope.originalMaxPositionEmbeddings;
        checkRows({ batch: 1, seq: positions.length, qHeads: 2, kHeads: 1, qDim: d, layout },
          (q, k, dims, kDims) => pe.model.apply(plan, layer.index, q, k, { layout, dims, kDims, positionIds: positions }),
          (row, _b, s, isQuery) => expected(w, row, positions[s], isQuery, long ? w.rope.long : w.rope?.w),
          { seed: layer.index + 1, exact: untouched(w, d) });
      }
    }
  });
}

test('zoo: LongRoPE fixtures rotate with the long factors once max(position) + 1 exceeds the original length (HF per call)', () => {
  for (const name of ['phi-3.5-mini-instruct.json', 'phi-4-mini-instruct.json']) {
    const plan = pe.model.fromConfig(fixture(name));
    const w = ZOO[name].layer(0);
    const pos = [10, 4096];
    checkRows({ batch: 1, seq: 2, qHeads: 2, kHeads: 1, qDim: ZOO[name].headDim },
      (q, k, dims, kDims) => pe.model.apply(plan, 0, q, k, { layout: 'bshd', dims, kDims, positionIds: pos }),
      (row, _b, s, isQuery) => expected(w, row, pos[s], isQuery, w.rope.long));
    // The same tokens in a call whose positions stay within the original length use the short factors.
    checkRows({ batch: 1, seq: 1, qHeads: 1, qDim: ZOO[name].headDim },
      (q, k, dims) => pe.model.apply(plan, 0, q, k, { layout: 'bshd', dims, positionIds: [10] }), (row) => expected(w, row, 10, true));
  }
});

test('zoo Qwen3-VL-2B: image positions [3, seq] through the interleaved slots on every layer', () => {
  const name = 'qwen3-vl-2b-instruct.json';
  const plan = pe.model.fromConfig(fixture(name));
  const ids = [[5, 5, 5, 5], [0, 0, 1, 1], [0, 1, 0, 1]]; // one frame, a 2 x 2 grid of patches
  for (const layer of plan.layers) {
    const w = ZOO[name].layer(layer.index).rope.w;
    checkRows({ batch: 1, seq: 4, qHeads: 2, kHeads: 1, qDim: 128 },
      (q, k, dims, kDims) => pe.model.apply(plan, layer.index, q, k, { layout: 'bshd', dims, kDims, positionIds: ids.flat() }),
      (row, _b, s) => applyPartialHalf(row, qwen3vlFreqs([0, 1, 2].map((a) => w.map((v) => ids[a][s] * v)), [24, 20, 20])), { seed: layer.index + 7 });
  }
});

test('zoo: a layer cache applies exactly what pe.model.apply does, and refuses M-RoPE', () => {
  const names = ['llama-3.1-8b-instruct.json', 'gemma-3-1b-it.json', 'aya-23-8b.json', 'ministral-3-3b-reasoning-2512.json', 'smollm3-3b.json',
    'phi-3.5-mini-instruct.json', 'stablelm-3b-4e1t.json', 'gpt2.json'];
  for (const name of names) {
    const plan = pe.model.fromConfig(fixture(name));
    for (const index of [0, 1, 3, 5].filter((i) => i < plan.layers.length)) {
      const w = ZOO[name].layer(index);
      const cache = pe.model.createCache(plan, index, { maxPositions: 4096 });
      try {
        checkRows({ batch: 1, seq: POSITIONS.length, qHeads: 2, kHeads: 1, qDim: ZOO[name].headDim },
          (q, k, dims, kDims) => cache.apply(q, k, { layout: 'bshd', dims, kDims, positionIds: POSITIONS }),
          (row, _b, s, isQuery) => expected(w, row, POSITIONS[s], isQuery), { seed: index + 3, exact: untouched(w, ZOO[name].headDim) });
        throwsPosEnc(() => cache.apply(new Float32Array(ZOO[name].headDim), null, { dims: [1, ZOO[name].headDim], offset: 4096 }), 'OUT_OF_RANGE');
      } finally {
        cache.dispose();
      }
      assert.equal(cache.bytes, 0);
    }
  }
  const vl = pe.model.fromConfig(fixture('qwen3-vl-2b-instruct.json'));
  throwsPosEnc(() => pe.model.createCache(vl, 0, { maxPositions: 16 }), 'INVALID_ARGUMENT', /several axes.*pe\.model\.apply/);
});
