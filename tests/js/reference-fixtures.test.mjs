// The reference fixtures (tests/fixtures/reference, written by `npm run reference` from transformers'
// own code) are well-formed, come from the same transformers commit as the generated family facts,
// hold exactly the configs they name, and their cos/sin rows are the cos/sin of position × inverse
// frequency in float64 (schema: scripts/reference/README.md).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { BASE_FIELDS, FAMILIES, TRANSFORMERS_SOURCE } from '../../dist/model/transformers/families.js';

const root = new URL('../fixtures/', import.meta.url);
const dir = new URL('reference/', root);
const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8'));
const cases = index.cases.map((c) => ({ entry: c, fx: JSON.parse(readFileSync(new URL(c.file, dir), 'utf8')) }));
const families = new Map(FAMILIES);
const POSITIONS = new Set(['rope', 'alibi', 'absolute', 'relative', 'none', 'vision-only', 'audio-only', 'unknown']);
const TEXT_PATHS = new Set(['', 'text_config', 'decoder', 'decoder_config', 'language_config', 'llm_config', 'text_encoder']);

function tables(fx) {
  return (fx.rotary ?? []).flatMap((target) =>
    target.embeddings.flatMap((e) => (e.tables ?? []).map((t) => ({ target, embedding: e, table: t }))),
  );
}

test('index, fixtures and families.ts are stamped with one transformers commit', () => {
  assert.match(TRANSFORMERS_SOURCE.commit, /^[0-9a-f]{40}$/);
  assert.equal(TRANSFORMERS_SOURCE.repository, 'huggingface/transformers');
  assert.deepEqual(index.transformers, { ...TRANSFORMERS_SOURCE });
  for (const { entry, fx } of cases) assert.deepEqual(fx.transformers, index.transformers, entry.file);
});

test('index lists every fixture file once, and each file says what the index says', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'index.json').sort();
  assert.deepEqual(index.cases.map((c) => c.file).sort(), files);
  assert.equal(new Set(index.cases.map((c) => c.name)).size, index.cases.length);
  for (const { entry, fx } of cases) {
    assert.equal(fx.name, entry.name);
    assert.equal(fx.accepted, entry.accepted);
    assert.equal(fx.modelType, entry.modelType);
    assert.equal(typeof fx.source, 'string');
  }
});

test('a fixture holds exactly the config it names', () => {
  for (const { entry, fx } of cases) {
    if (entry.name.startsWith('default-')) {
      assert.deepEqual(fx.config, {}, entry.name);
      assert.ok(families.get(fx.modelType)?.ropeReads.length || !fx.accepted, `${entry.name}: its family records rope reads`);
      continue;
    }
    if (entry.name.startsWith('published-')) {
      const stem = entry.name.slice('published-'.length);
      const at = ['models/', 'reference-configs/'].map((d) => new URL(`${d}${stem}.json`, root)).find((u) => existsSync(u));
      assert.ok(at, `${entry.name}: its source file exists`);
      assert.deepEqual(fx.config, JSON.parse(readFileSync(at, 'utf8')), entry.name);
      continue;
    }
    assert.ok(entry.name.startsWith('variant-'), entry.name);
    const specUrl = new URL(`reference-configs/variants/${entry.name.slice('variant-'.length)}.json`, root);
    const spec = JSON.parse(readFileSync(specUrl, 'utf8'));
    const expected = spec.config ?? { ...JSON.parse(readFileSync(new URL(spec.base, specUrl), 'utf8')), ...spec.set };
    assert.deepEqual(fx.config, expected, entry.name);
    assert.match(fx.source, /^variant \(not a published config\)/);
  }
});

test('an accepted fixture has float64 tables; a refused one says who refused and why', () => {
  let checked = 0;
  for (const { entry, fx } of cases) {
    if (!fx.accepted) {
      assert.ok(['config', 'rotary-init', 'rotary-forward'].includes(fx.rejectedBy), entry.name);
      assert.ok(typeof fx.exception === 'string' && fx.exception.length > 0, entry.name);
      continue;
    }
    for (const target of fx.rotary ?? []) {
      for (const e of target.embeddings) {
        if (e.error !== undefined) assert.ok(!TEXT_PATHS.has(target.configPath), `${entry.name}: ${e.class} raised on a text config`);
      }
    }
    for (const { embedding, table: t } of tables(fx)) {
      const where = `${entry.name} ${embedding.class} ${t.label}`;
      assert.equal(t.invFreqDtype, 'float64', where);
      assert.equal(t.cosDtype, 'float64', where);
      const size = t.invFreqShape.reduce((a, b) => a * b, 1);
      if (t.invFreq === null) assert.ok(size > 4096, where);
      else {
        assert.equal(t.invFreq.length, size, where);
        assert.ok(t.invFreq.every(Number.isFinite), where);
      }
      assert.ok(t.positions.every((p, i) => Number.isInteger(p) && (i === 0 || p > t.positions[i - 1])), where);
      assert.ok(t.columns.every((c, i) => Number.isInteger(c) && c < t.width && (i === 0 || c > t.columns[i - 1])), where);
      if (t.seqLen !== null) assert.equal(t.seqLen, t.positions.at(-1) + 1, where);
      for (const rows of [t.cos, t.sin]) {
        assert.equal(rows.length, t.positions.length, where);
        for (const row of rows) {
          assert.equal(row.length, t.columns.length, where);
          assert.ok(row.every(Number.isFinite), where);
        }
      }
      checked++;
    }
  }
  assert.ok(checked > 200, `only ${checked} tables`);
});

// cos/sin of one column: HF's rotate_half layout repeats the frequencies (cat(freqs, freqs)), the
// interleaved one repeats each (repeat_interleave(2)); a complex freqs_cis has one column per frequency.
function frequencyOf(t, column, layout) {
  const n = t.invFreq.length;
  if (t.output === 'complex') return t.invFreq[column];
  return layout === 'cat' ? t.invFreq[column % n] : t.invFreq[Math.floor(column / 2)];
}

function matches(t, layout) {
  let worst = 0;
  t.positions.forEach((p, k) =>
    t.columns.forEach((c, j) => {
      const angle = p * frequencyOf(t, c, layout);
      worst = Math.max(worst, Math.abs(t.cos[k][j] - Math.cos(angle) * t.attentionScaling));
      worst = Math.max(worst, Math.abs(t.sin[k][j] - Math.sin(angle) * t.attentionScaling));
    }),
  );
  return worst;
}

test('text cos/sin rows are cos/sin(position × inverse frequency) × attention scaling in float64', () => {
  let checked = 0;
  for (const { entry, fx } of cases) {
    if (!fx.accepted) continue;
    for (const { target, embedding, table: t } of tables(fx)) {
      if (!TEXT_PATHS.has(target.configPath) || t.invFreq === null || t.positionIds !== '2d') continue;
      if (typeof t.attentionScaling !== 'number') continue;
      if (t.output === 'cos-sin' ? t.width !== 2 * t.invFreq.length : t.width !== t.invFreq.length) continue;
      const worst = Math.min(matches(t, 'cat'), matches(t, 'interleaved'));
      assert.ok(worst <= 1e-12, `${entry.name} ${embedding.class} ${t.label}: off by ${worst}`);
      checked++;
    }
  }
  assert.ok(checked > 150, `only ${checked} tables`);
});

test("Llama's default table is transformers' formula 1 / theta^(2i/d) to float64 precision", () => {
  const fx = cases.find((c) => c.entry.name === 'default-llama').fx;
  const facts = families.get('llama');
  const t = tables(fx)[0].table;
  const theta = fx.ropeParameters.rope_theta;
  const d = facts.defaults.head_dim;
  assert.equal(t.invFreq.length, d / 2);
  t.invFreq.forEach((f, i) => assert.ok(Math.abs(f - 1 / theta ** ((2 * i) / d)) <= 4e-16 * f, `inv_freq[${i}]`));
});

test('families.ts: one entry per model type, each with the contract fields', () => {
  assert.equal(families.size, FAMILIES.length);
  assert.ok(BASE_FIELDS.includes('architectures') && BASE_FIELDS.length > 5);
  for (const [modelType, f] of FAMILIES) {
    assert.ok(POSITIONS.has(f.positions), modelType);
    for (const key of ['fields', 'ropeReads', 'rotaryClasses', 'notes']) assert.ok(Array.isArray(f[key]), `${modelType}.${key}`);
    for (const key of ['defaults', 'attributeMap', 'subConfigs']) assert.equal(typeof f[key], 'object', `${modelType}.${key}`);
    assert.ok(f.fields.every((name) => !BASE_FIELDS.includes(name)), `${modelType}: base fields are listed once`);
    if (f.error === undefined) assert.equal(typeof f.configClass, 'string', modelType);
  }
  for (const { fx } of cases) if (fx.configClass) assert.equal(families.get(fx.modelType)?.configClass, fx.configClass, fx.name);
});
