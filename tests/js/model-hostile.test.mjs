// Caller strings that are the names of Object.prototype's members (model_type "constructor",
// rope_type "valueOf" or "__proto__") are INVALID_CONFIG errors naming the key, never a plan; and
// `__proto__` / `constructor` keys of a config.json are ordinary keys, as Python's json (and so
// transformers) reads them: they never become the prototype of posenc's copy of the config, so the
// API, `posenc plan` and `posenc doctor` read the same values.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { createPosEnc, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();
const cli = fileURLToPath(new URL('../../dist/cli/cli.js', import.meta.url));
const llama = { model_type: 'llama', num_hidden_layers: 2, hidden_size: 256, num_attention_heads: 4, max_position_embeddings: 2048 };
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

test('model_type named after an Object.prototype member is not a model', () => {
  for (const name of PROTOTYPE_NAMES) {
    throwsPosEnc(() => pe.model.fromConfig({ ...llama, model_type: name }), 'INVALID_CONFIG', new RegExp(`model_type '${name}'`));
    throwsPosEnc(() => pe.rope.fromConfig({ ...llama, model_type: name }), 'INVALID_CONFIG', new RegExp(`model_type '${name}'`));
    throwsPosEnc(() => pe.model.fromConfig({ model_type: 'gemma3', text_config: { ...llama, model_type: name } }), 'INVALID_CONFIG', new RegExp(`'${name}'`));
  }
});

test('rope_type named after an Object.prototype member is not a RoPE type (v4 rope_scaling, v5 rope_parameters)', () => {
  for (const name of PROTOTYPE_NAMES) {
    const re = new RegExp(`rope_(scaling|parameters)\\.(rope_)?type '${name.replace(/[$_]/g, '\\$&')}'`);
    throwsPosEnc(() => pe.model.fromConfig({ ...llama, rope_scaling: { rope_type: name, factor: 4 } }), 'INVALID_CONFIG', re);
    throwsPosEnc(() => pe.model.fromConfig({ ...llama, rope_scaling: { type: name, factor: 4 } }), 'INVALID_CONFIG', re);
    throwsPosEnc(() => pe.model.fromConfig({ ...llama, rope_parameters: { rope_type: name, rope_theta: 10000, factor: 4 } }), 'INVALID_CONFIG', re);
    throwsPosEnc(() => pe.rope.fromConfig({ ...llama, rope_scaling: { rope_type: name, factor: 4 } }), 'INVALID_CONFIG', re);
  }
});

test('layer_types entries named after Object.prototype members are refused, naming the entry', () => {
  throwsPosEnc(() => pe.model.fromConfig({ ...llama, layer_types: ['full_attention', 'constructor'] }), 'INVALID_CONFIG', /layer_types\[1\] 'constructor'/);
  throwsPosEnc(() => pe.model.fromConfig({ ...llama, model_type: 'gemma3_text', head_dim: 64, layer_types: ['__proto__', 'full_attention'] }),
    'INVALID_CONFIG', /layer_types\[0\] '__proto__'/);
});

const hostileText = JSON.stringify(llama).slice(0, -1) +
  ',"__proto__":{"rope_theta":5,"rope_scaling":{"rope_type":"linear","factor":4},"num_hidden_layers":7},' +
  '"constructor":{"rope_theta":7,"prototype":{"rope_scaling":{"rope_type":"linear","factor":2}}}}';

test('a config.json "__proto__" or "constructor" key is an ordinary key: its contents are never read as the config', () => {
  for (const config of [hostileText, JSON.parse(hostileText)]) {
    const plan = pe.model.fromConfig(config);
    assert.equal(plan.numLayers, 2);
    for (const l of plan.layers) {
      assert.equal(l.rope.spec.base, 10000);
      assert.equal(l.rope.spec.scaling, undefined);
    }
    assert.deepEqual(pe.rope.fromConfig(config), { headDim: 64, rotaryDim: 64, base: 10000, pairing: 'half' });
    const report = pe.doctor.config(config);
    assert.deepEqual(report.plan, plan);
  }
  // A copy of a caller's object with an own "__proto__" key keeps it as a key (Object.defineProperty semantics).
  const own = JSON.parse('{"__proto__": {"rope_theta": 5}}');
  assert.equal(pe.model.fromConfig({ ...llama, rope_parameters: { rope_type: 'default', rope_theta: 20000 }, ...own }).layers[0].rope.spec.base, 20000);
});

test('options objects with a "__proto__" key are refused as unknown options, not a TypeError', () => {
  const given = JSON.parse('{"headDim": 8, "__proto__": {"base": 5}}');
  throwsPosEnc(() => pe.rope.frequencies(given), 'UNKNOWN_OPTION', /unknown option '__proto__'/);
  const scaling = JSON.parse('{"type": "linear", "factor": 2, "__proto__": {"factor": 9}}');
  throwsPosEnc(() => pe.rope.frequencies({ headDim: 8, scaling }), 'UNKNOWN_OPTION', /scaling\.__proto__/);
  throwsPosEnc(() => pe.rope.frequencies({ headDim: 8, scaling: { type: 'constructor' } }), 'INVALID_ARGUMENT', /scaling\.type/);
});

test('posenc plan and posenc doctor read the same values from a config.json with "__proto__"', () => {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-hostile-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, hostileText);
  const plan = spawnSync(process.execPath, [cli, 'plan', path, '--json'], { encoding: 'utf8' });
  assert.equal(plan.status, 0, plan.stderr);
  const parsed = JSON.parse(plan.stdout);
  assert.equal(parsed.layers.length, 2);
  assert.equal(parsed.layers[0].rope.spec.base, 10000);
  assert.equal(parsed.layers[0].rope.spec.scaling, undefined);
  const doctor = spawnSync(process.execPath, [cli, 'doctor', path], { encoding: 'utf8' });
  assert.equal(doctor.status, 0, doctor.stderr);
  assert.doesNotMatch(doctor.stdout, /linear|base 5\b/);
});

test('a plan whose scaling carries a key named after an Object.prototype member is refused by toConfig, naming it', () => {
  const plan = pe.model.fromConfig({ ...llama, rope_scaling: { rope_type: 'linear', factor: 2 } });
  const hostile = JSON.parse(JSON.stringify(plan));
  hostile.layers[0].rope.spec.scaling.constructor = 3;
  throwsPosEnc(() => pe.model.toConfig(hostile), 'INVALID_ARGUMENT', /scaling\.constructor is not a field of a plan/);
});
