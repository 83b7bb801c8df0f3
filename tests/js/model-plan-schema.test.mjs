// Issue 22, item 5: one plan schema, checked on entry by every function that takes a plan. A
// malformed plan is INVALID_ARGUMENT naming the path of the wrong field (never INTERNAL, never a
// silent no-op); plans pe.model returns are deep-frozen and accepted as they are.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

const llama = pe.model.fromConfig({ model_type: 'llama', num_hidden_layers: 4, hidden_size: 64, num_attention_heads: 4, rope_theta: 10000 });
const qwenvl = pe.model.fromConfig(JSON.parse(readFileSync(new URL('../fixtures/models/qwen3-vl-2b-instruct.json', import.meta.url), 'utf8')));
const q = () => new Float32Array(2 * 16);

/** Every function that takes a plan, called with `plan` (layer 0 or 3 where a layer is asked for). */
function everyCall(plan, layer = 3) {
  return {
    apply: () => pe.model.apply(plan, layer, q(), null, { dims: [2, 16] }),
    createCache: () => pe.model.createCache(plan, layer, { maxPositions: 4 }).dispose(),
    frequencies: () => pe.model.frequencies(plan, layer),
    cosSin: () => pe.model.cosSin(plan, layer, [0, 1]),
    alibiSlopes: () => pe.model.alibiSlopes(plan, layer),
    queryScales: () => pe.model.queryScales(plan, layer, [0, 1]),
    softmaxScaleFactor: () => pe.model.softmaxScaleFactor(plan, layer),
    longRopeList: () => pe.model.longRopeList(plan, 10),
    summarize: () => pe.model.summarize(plan),
    toConfig: () => pe.model.toConfig(plan),
    toGguf: () => pe.model.toGguf(plan),
    oracle: () => pe.precision.oracle(plan, { contextLength: 8, layer }),
  };
}

/** A JSON copy of `plan` (unfrozen) with `edit` applied. */
function broken(plan, edit) {
  const copy = JSON.parse(JSON.stringify(plan));
  edit(copy);
  return copy;
}

const MALFORMED = [
  ['a layer rope {}', (p) => { p.layers[3].rope = {}; }, /plan\.layers\[3\]\.rope\.spec must be present/],
  ['rope.spec null', (p) => { p.layers[3].rope.spec = null; }, /plan\.layers\[3\]\.rope\.spec must be an object/],
  ['rope.form null', (p) => { p.layers[3].rope.form = null; }, /plan\.layers\[3\]\.rope\.form must be an object/],
  ['a layer that is a number', (p) => { p.layers[3] = 7; }, /plan\.layers\[3\] must be an object/],
  ['missing layers', (p) => { p.layers.pop(); }, /plan\.layers must be a list of plan\.numLayers = 4 layers/],
  ['a wrong index', (p) => { p.layers[3].index = 2; }, /plan\.layers\[3\]\.index must be 3/],
  ['a spec without base', (p) => { delete p.layers[3].rope.spec.base; }, /plan\.layers\[3\]\.rope\.spec\.base must be present/],
  ['a NaN base', (p) => { p.layers[3].rope.spec.base = 'NaN'; }, /plan\.layers\[3\]\.rope\.spec\.base must be a finite number > 0/],
  ['an odd rotaryDim', (p) => { p.layers[3].rope.spec.rotaryDim = 15; }, /plan\.layers\[3\]\.rope\.spec\.rotaryDim must be even/],
  ['an unknown pairing', (p) => { p.layers[3].rope.spec.pairing = 'both'; }, /plan\.layers\[3\]\.rope\.spec\.pairing must be one of/],
  ['an unknown form', (p) => { p.layers[3].rope.form = { kind: 'spiral' }; }, /plan\.layers\[3\]\.rope\.form\.kind must be one of/],
  ['an unknown field', (p) => { p.layers[3].rope.extra = 1; }, /plan\.layers\[3\]\.rope\.extra is not a field of a plan/],
  ['a scaling of an unknown type', (p) => { p.layers[3].rope.spec.scaling = { type: 'mystery' }; }, /plan\.layers\[3\]\.rope\.spec: .*scaling\.type/],
  ['a linear scaling without factor', (p) => { p.layers[3].rope.spec.scaling = { type: 'linear' }; }, /plan\.layers\[3\]\.rope\.spec: .*scaling\.factor/],
  ['a window of size 0', (p) => { p.layers[3].window = { kind: 'sliding', size: 0, bidirectional: false }; }, /plan\.layers\[3\]\.window\.size must be an integer/],
  ['alibi numHeads -1', (p) => { p.layers[3].alibi = { numHeads: -1, maxBias: 8, form: 'bloom' }; }, /plan\.layers\[3\]\.alibi\.numHeads/],
  ['queryScaling floorScale 0', (p) => { p.layers[3].queryScaling = { kind: 'log-floor', scale: 0.1, floorScale: 0, positionOffset: 1, source: 'x' }; }, /plan\.layers\[3\]\.queryScaling\.floorScale must be a finite number > 0/],
  ['numHeads a string', (p) => { p.numHeads = '4'; }, /plan\.numHeads must be an integer/],
  ['notes not a list', (p) => { p.notes = 'none'; }, /plan\.notes must be an array/],
  ['a longRope switch without length', (p) => { p.longRope = { rule: 'vllm', originalMaxPositionEmbeddings: 4096 }; }, /plan\.longRope\.length must be an integer/],
];

test('a malformed plan is INVALID_ARGUMENT naming the field, in every function that takes a plan', () => {
  for (const [what, edit, message] of MALFORMED) {
    const plan = broken(llama, edit);
    for (const [name, call] of Object.entries(everyCall(plan))) {
      throwsPosEnc(call, 'INVALID_ARGUMENT', message, `${what}: ${name}`);
    }
  }
});

test('M-RoPE: a null or wrong section is INVALID_ARGUMENT naming it', () => {
  const layer = qwenvl.layers.findIndex((l) => l.rope?.form.kind === 'mrope');
  assert.ok(layer >= 0);
  for (const [section, message] of [[null, /rope\.form\.section must be an array/], [[1, 2], /rope\.form\.section must be a non-empty list of pair counts summing/],
    [[24, -1, 41], /rope\.form\.section\[1\] must be an integer/]]) {
    const plan = broken(qwenvl, (p) => { p.layers[layer].rope.form.section = section; delete p.layers[layer].rope.spec.mropeSection; });
    throwsPosEnc(() => pe.model.apply(plan, layer, new Float32Array(128), null, { dims: [1, 128] }), 'INVALID_ARGUMENT', message);
    throwsPosEnc(() => pe.model.summarize(plan), 'INVALID_ARGUMENT', message);
  }
});

test('a plan that is not an object is INVALID_TYPE; an object without layers says what a plan is', () => {
  for (const bad of [null, 3, 'plan', [], new Float32Array(2)]) {
    throwsPosEnc(() => pe.model.apply(bad, 0, q(), null, { dims: [2, 16] }), 'INVALID_TYPE', /plan must be a plan/);
  }
  throwsPosEnc(() => pe.model.summarize({ headDim: 16 }), 'INVALID_TYPE', /plan must be a plan/);
});

test('plans pe.model returns are deep-frozen, and a JSON copy of one passes the schema everywhere', () => {
  const files = readdirSync(new URL('../fixtures/models/', import.meta.url)).filter((f) => f.endsWith('.json'));
  for (const file of files) {
    const plan = pe.model.fromConfig(JSON.parse(readFileSync(new URL(`../fixtures/models/${file}`, import.meta.url), 'utf8')));
    assert.ok(Object.isFrozen(plan) && Object.isFrozen(plan.layers) && Object.isFrozen(plan.layers[0]) && Object.isFrozen(plan.notes), file);
    if (plan.layers[0].rope) assert.ok(Object.isFrozen(plan.layers[0].rope.spec) && Object.isFrozen(plan.layers[0].rope.form), file);
    assert.throws(() => { 'use strict'; plan.layers[0].index = 5; }, TypeError);
    const copy = JSON.parse(JSON.stringify(plan));
    assert.deepEqual(pe.model.summarize(copy), pe.model.summarize(plan), file);
    assert.deepEqual(pe.model.toConfig(copy), pe.model.toConfig(plan), file);
    assert.deepEqual(pe.model.frequencies(copy, 0), pe.model.frequencies(plan, 0), file);
  }
});

test('a plan is read once: a getter on it runs once per call, and what it throws names the path', () => {
  let reads = 0;
  const plan = JSON.parse(JSON.stringify(llama));
  const layers = plan.layers;
  Object.defineProperty(plan, 'layers', { enumerable: true, get: () => { reads++; return layers; } });
  pe.model.summarize(plan);
  assert.equal(reads, 1);
  const throwing = JSON.parse(JSON.stringify(llama));
  Object.defineProperty(throwing.layers[2], 'rope', { enumerable: true, get: () => { throw new Error('boom'); } });
  throwsPosEnc(() => pe.model.apply(throwing, 0, q(), null, { dims: [2, 16] }), 'INVALID_ARGUMENT', /plan\.layers\[2\]\.rope/);
});

test('queryScales never returns Infinity: a scale beyond float32 is INVALID_ARGUMENT naming the layer\'s queryScaling', () => {
  const config = (attnScale) => ({ model_type: 'llama4_text', num_hidden_layers: 4, hidden_size: 64, num_attention_heads: 4, rope_theta: 500000,
    attn_temperature_tuning: true, floor_scale: 8192, attn_scale: attnScale, no_rope_layers: [1, 1, 1, 0], attention_chunk_size: 8192 });
  const ok = pe.model.fromConfig(config(0.1));
  assert.deepEqual(Array.from(pe.model.queryScales(ok, 3, [0, 8191])), [1, 1 + 0.1 * Math.log1p(1)]);
  const huge = pe.model.fromConfig(config(1e308));
  throwsPosEnc(() => pe.model.queryScales(huge, 3, [81919]), 'INVALID_ARGUMENT', /plan\.layers\[3\]\.queryScaling \(scale 1e\+308.*at position 81919 Infinity/);
  // 1e38 * ln 2 fits a double but not float32, which is what the queries are (and what model.apply refuses)
  const big = pe.model.fromConfig(config(1e39));
  throwsPosEnc(() => pe.model.queryScales(big, 3, [8191]), 'INVALID_ARGUMENT', /at most 3\.4028235e\+38/);
  throwsPosEnc(() => pe.model.apply(big, 3, new Float32Array(16), null, { dims: [1, 16], positionIds: [8191] }), 'INVALID_ARGUMENT', /query scale/);
  assert.deepEqual(Array.from(pe.model.queryScales(big, 3, [0])), [1]); // position 0: 1 + scale * ln 1
});

test('a plan of 65536 layers (the documented maximum): summarize and doctor.config group its layers in one pass', () => {
  const config = { model_type: 'llama', num_hidden_layers: 65536, hidden_size: 64, num_attention_heads: 1, rope_theta: 10000 };
  const plan = pe.model.fromConfig(config);
  const lines = pe.model.summarize(plan);
  assert.deepEqual(lines.filter((l) => l.startsWith('layer')), ['layers 0-65535: global; RoPE base 10000, head 64, half']);
  const report = pe.doctor.config(config);
  assert.ok(report.findings.every((f) => !/layers differ/.test(f.text)));
  throwsPosEnc(() => pe.model.fromConfig({ ...config, num_hidden_layers: 65537 }), 'INVALID_CONFIG', /num_hidden_layers/);
});

test('a reader\'s plan is checked before it is returned: a GGUF head count of 0 is INVALID_FILE naming the field', () => {
  const bytes = new Uint8Array(readFileSync(new URL('../fuzz/corpus/gguf/qwen2.5-7b.gguf', import.meta.url)));
  assert.ok(Object.isFrozen(pe.model.fromGguf(bytes).layers[0]));
  const key = new TextEncoder().encode('qwen2.attention.head_count');
  let at = -1;
  for (let i = 0; i + key.length < bytes.length && at < 0; i++) {
    if (key.every((b, j) => bytes[i + j] === b) && bytes[i + key.length] === 4) at = i + key.length; // then the type, a u32 (4)
  }
  assert.ok(at > 0, 'the key is in the seed file');
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  assert.equal(view.getUint32(at, true), 4);
  view.setUint32(at + 4, 0, true);
  throwsPosEnc(() => pe.model.fromGguf(bytes), 'INVALID_FILE', /head_count|plan\.numHeads must be an integer in 1\.\.65536/); // the GGUF reader may name the key itself
});
