// Fuzz target: config.json readers (pe.rope.fromConfig, pe.model.fromConfig, pe.doctor.config) over
// real model configs (tests/fixtures/models) with keys deleted, replaced by hostile values or added,
// and over the JSON text with its bytes mutated.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import fc from 'fast-check';

import { InvariantError, ROOT, allFinite, contained, jsonValue, mutatedBytes } from '../harness.mjs';
import { INCLUDE } from '../known-defects.mjs';

const MODELS = join(ROOT, 'tests', 'fixtures', 'models');
const seeds = readdirSync(MODELS).filter((f) => f.endsWith('.json')).sort()
  .map((name) => ({ name, config: JSON.parse(readFileSync(join(MODELS, name), 'utf8')) }));
const seedBytes = seeds.map(({ name, config }) => ({ name, bytes: new TextEncoder().encode(JSON.stringify(config)) }));

/** The keys posenc reads and a few it does not (the nested scaling objects are edited too). */
const KEYS = ['rope_theta', 'rope_scaling', 'rope_parameters', 'hidden_size', 'num_attention_heads', 'head_dim', 'partial_rotary_factor',
  'rotary_pct', 'max_position_embeddings', 'num_hidden_layers', 'model_type', 'sliding_window', 'rope_type', 'type', 'factor',
  'original_max_position_embeddings', 'low_freq_factor', 'high_freq_factor', 'beta_fast', 'beta_slow', 'attention_factor', 'mscale',
  'mscale_all_dim', 'short_factor', 'long_factor', 'mrope_section', 'rotary_dim', 'qk_rope_head_dim', 'text_config', 'x_unknown_key'];

const edit = fc.record({
  nested: fc.constantFrom(null, 'rope_scaling', 'rope_parameters', 'text_config'),
  key: fc.constantFrom(...KEYS),
  op: fc.constantFrom('set', 'set', 'delete'),
  value: jsonValue,
  sparse: fc.boolean(),
});

function applyEdits(config, edits) {
  const c = structuredClone(config);
  for (const e of edits) {
    let obj = c;
    if (e.nested) {
      if (obj[e.nested] === null || typeof obj[e.nested] !== 'object') obj[e.nested] = {};
      obj = obj[e.nested];
    }
    if (e.op === 'delete') delete obj[e.key];
    else if (INCLUDE.configHoles && e.sparse && Array.isArray(e.value) && e.value.length > 1) {
      const holed = e.value.slice();
      delete holed[1];
      obj[e.key] = holed;
    } else obj[e.key] = e.value;
  }
  return c;
}

const input = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...seeds), fc.array(edit, { minLength: 1, maxLength: 4 })).map(([s, edits]) => applyEdits(s.config, edits)) },
  { weight: 1, arbitrary: mutatedBytes(seedBytes, 3).map((b) => new TextDecoder().decode(b)) },
);

/** Whether a config (object) names a head size above 2^16 lanes (known-defects.mjs, hugeHeadConfigs). */
const HEAD_KEYS = ['hidden_size', 'head_dim', 'qk_rope_head_dim', 'rotary_dim', 'global_head_dim'];
function hugeHead(config) {
  if (typeof config === 'string') {
    try { config = JSON.parse(config); } catch { return false; }
  }
  if (config === null || typeof config !== 'object') return false;
  return [config, config.text_config].some((c) => c !== null && typeof c === 'object'
    && HEAD_KEYS.some((k) => typeof c[k] === 'number' && c[k] > 65536));
}

export const target = {
  name: 'config',
  arbitrary: fc.tuple(input, fc.constantFrom('rope', 'model', 'doctor')),
  check(pe, [config, reader]) {
    if (!INCLUDE.hugeHeadConfigs && hugeHead(config)) return;
    if (reader === 'doctor') {
      contained('doctor.config', () => pe.doctor.config(config));
      return;
    }
    if (reader === 'model') {
      contained('model.fromConfig', () => pe.model.fromConfig(config));
      return;
    }
    const r = contained('rope.fromConfig', () => pe.rope.fromConfig(config));
    // A config may ask for a huge head (hidden_size 2^31): its frequencies would take gigabytes, legitimately.
    if (!r.ok || r.value.mropeSection || !(r.value.rotaryDim <= 65536)) return;
    const f = contained('rope.frequencies(fromConfig)', () => pe.rope.frequencies(r.value));
    // Finite derived quantities (issue 15 item 4): checked once INCLUDE.extremeParameters is on.
    if (INCLUDE.extremeParameters && f.ok && !(allFinite(f.value.invFreq) && Number.isFinite(f.value.attentionFactor))) {
      throw new InvariantError(`rope.frequencies of an accepted config gave invFreq [${Array.from(f.value.invFreq).slice(0, 4)}...], attentionFactor ${f.value.attentionFactor}`);
    }
  },
};
