// pe.model.fromConfig against transformers itself: every fixture of tests/fixtures/reference/ (written
// by scripts/reference from transformers' own config and rotary classes at the pinned snapshot)
// layer by layer: inverse frequencies to 1e-9 relative, cos/sin at positions on both sides of the
// original context to 1e-6 (scripts/reference/posenc-check.mjs). A config the reference rejects is
// refused; a config it accepts gives a plan unless docs/models.md's generated table says why not,
// and that table is what scripts/reference/support-table.mjs prints now.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createPosEnc } from './helpers.mjs';
import { checkFixture, configOf, fixtureIndex, readFixture } from '../../scripts/reference/posenc-check.mjs';
import { DOC, END, START, supportTable } from '../../scripts/reference/support-table.mjs';
import { FAMILIES } from '../../dist/model/transformers/families.js';

const pe = await createPosEnc();
const index = fixtureIndex();

test('the fixtures are stamped with the snapshot families.ts was generated from', async () => {
  const { TRANSFORMERS_SOURCE } = await import('../../dist/model/transformers/families.js');
  assert.equal(index.transformers.commit, TRANSFORMERS_SOURCE.commit);
  for (const c of index.cases.slice(0, 5)) assert.equal(readFixture(c.file).transformers.commit, TRANSFORMERS_SOURCE.commit);
});

test('every fixture: a plan that matches the reference layer by layer, or a refusal where the reference refuses too', () => {
  const failures = [];
  let matched = 0;
  for (const c of index.cases) {
    const r = checkFixture(pe, readFixture(c.file));
    if (r.outcome === 'mismatch' || r.outcome === 'planned-rejected') failures.push(`${c.name}: ${r.outcome}: ${r.detail}`);
    if (r.outcome === 'match') matched++;
  }
  assert.deepEqual(failures, []);
  assert.ok(matched > 0);
});

test('the issue\'s configs: GPT-J rotary, DeepSeek-style MoE keys, a sparse Gemma 3 text_config, TensorRT-LLM rope_gptj', () => {
  for (const name of ['variant-llama-rotary-true', 'variant-qwen3-deepseek-moe-keys', 'variant-gemma3-sparse-text-config', 'variant-cohere-rope-gptj-label']) {
    const c = index.cases.find((x) => x.name === name);
    assert.ok(c, name);
    assert.equal(checkFixture(pe, readFixture(c.file)).outcome, 'match', name);
  }
});

test('the checker is not vacuous: a plan with another base, or another pairing of cos/sin columns, is a mismatch', () => {
  const fx = readFixture('default-llama.json');
  const wrongBase = { ...fx, config: { ...fx.config, rope_theta: 20000 } };
  assert.equal(checkFixture(pe, wrongBase).outcome, 'mismatch');
  const wrongLength = { ...fx, config: { ...fx.config, head_dim: 64 } };
  assert.equal(checkFixture(pe, wrongLength).outcome, 'mismatch');
  assert.deepEqual(configOf(fx), { model_type: 'llama' });
});

test('every config the reference accepts and posenc refuses is a family docs/models.md lists as refused', () => {
  const doc = readFileSync(DOC, 'utf8');
  for (const c of index.cases) {
    const r = checkFixture(pe, readFixture(c.file));
    if (r.outcome !== 'refused') continue;
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${c.modelType}\` |`));
    assert.ok(row, `${c.name}: ${c.modelType} has no row`);
    assert.match(row, new RegExp(`${c.name.replace(/^(default|published|variant)-/, '$1 ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: refused`), c.name);
  }
});

test('docs/models.md lists every family of the snapshot, as scripts/reference/support-table.mjs prints it now', () => {
  const doc = readFileSync(DOC, 'utf8');
  const committed = doc.slice(doc.indexOf(START) + START.length, doc.indexOf(END)).trim();
  assert.equal(committed, supportTable(pe, FAMILIES).trim(), 'run: npm run build && node scripts/reference/support-table.mjs');
  for (const [type] of FAMILIES) assert.ok(committed.includes(`| \`${type}\` |`), type);
});

test('pe.rope.fromConfig and pe.model.fromConfig agree wherever both answer (every fixture config, every default config)', () => {
  const configs = [...index.cases.map((c) => configOf(readFixture(c.file))), ...FAMILIES.map(([type]) => ({ model_type: type }))];
  let both = 0;
  for (const config of configs) {
    let spec;
    let plan;
    try { spec = pe.rope.fromConfig(config); } catch (error) { assert.equal(error.name, 'PosEncError'); }
    try { plan = pe.model.fromConfig(config); } catch (error) { assert.equal(error.name, 'PosEncError'); }
    if (spec === undefined) continue;
    assert.ok(plan, `rope.fromConfig answers and model.fromConfig refuses: ${config.model_type}`);
    both++;
    for (const l of plan.layers) {
      if (l.rope === null) continue;
      assert.deepEqual({ ...l.rope.spec, ...(l.rope.spec.scaling ? { scaling: { ...l.rope.spec.scaling } } : {}) }, spec, `${config.model_type} layer ${l.index}`);
    }
  }
  assert.ok(both > 100, `${both} configs answered by both`);
});
