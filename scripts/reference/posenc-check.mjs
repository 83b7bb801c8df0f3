// posenc against the reference fixtures (tests/fixtures/reference/, written by transformers' own
// config and rotary classes): for one fixture, the plan pe.model.fromConfig makes of its config and
// how each RoPE table of the reference compares with the plan's layers. Used by
// tests/js/model-reference.test.mjs and scripts/reference/support-table.mjs; no Python needed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../../tests/fixtures/reference/', import.meta.url));
/** Tolerances of issue 21: inverse frequencies relative, cos/sin absolute. */
export const INV_FREQ_REL = 1e-9;
export const COS_SIN_ABS = 1e-6;

export function fixtureIndex() {
  return JSON.parse(readFileSync(`${FIXTURES}index.json`, 'utf8'));
}

export function readFixture(file) {
  return JSON.parse(readFileSync(`${FIXTURES}${file}`, 'utf8'));
}

/** The config posenc is given: the fixture's config as it is, with the model_type the reference built it as. */
export function configOf(fx) {
  return { ...fx.config, model_type: fx.config.model_type ?? fx.modelType };
}

/** Rotary tables of the language model: the top config or its text sub-config; vision/audio towers are not planned. */
const TOWER = /vision|audio|visual|image|patch|speech|encoder2d|video/i;
function languageTables(fx) {
  const out = [];
  for (const r of fx.rotary ?? []) {
    if (r.configPath !== '' && !/^(text_config|language_config|decoder|text_model)$/.test(r.configPath)) continue;
    const ran = r.embeddings.filter((e) => !e.error);
    // Where a config drives a text and a tower rotary class (Gemma 3n), the text one is the plan's.
    const text = ran.filter((e) => !TOWER.test(e.class.replace(/^\w+?(?=(Text)?RotaryEmbedding$)/, '')));
    for (const e of text.length > 0 && text.length < ran.length ? text : ran) {
      for (const t of e.tables) out.push({ ...t, class: e.class, configPath: r.configPath });
    }
  }
  return out;
}

/** The frequency index of cos/sin column `c` of a table `width` wide with `pairs` frequencies: cat(f, f) or repeat_interleave(f, 2). */
function layoutOf(t, pairs) {
  if (t.output === 'complex' || t.width === pairs) return (c) => c;
  const at1 = t.positions.indexOf(1);
  if (at1 >= 0) {
    const half = t.columns.every((c, j) => Math.abs(t.cos[at1][j] / (t.attentionScaling || 1) - Math.cos(t.invFreq[c % pairs])) < 1e-9);
    if (half) return (c) => c % pairs;
    const inter = t.columns.every((c, j) => Math.abs(t.cos[at1][j] / (t.attentionScaling || 1) - Math.cos(t.invFreq[Math.floor(c / 2)])) < 1e-9);
    if (inter) return (c) => Math.floor(c / 2);
  }
  return (c) => c % pairs;
}

function worstRel(got, want) {
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]) / Math.max(Math.abs(want[i]), 1e-300);
    worst = Math.max(worst, want[i] === 0 && got[i] === 0 ? 0 : d);
  }
  return worst;
}

/**
 * Compares one fixture. Returns `{ outcome, detail, tables, layers }`:
 * - `'match'`: the reference accepted the config, posenc planned it, every table matched the layers it labels;
 * - `'mismatch'`: planned, but some table differs (detail says where);
 * - `'refused'`: the reference accepted it and posenc refused (detail: posenc's reason);
 * - `'both-refuse'`: the reference rejected it and posenc refused too;
 * - `'planned-rejected'`: the reference rejected it and posenc planned it (a failure);
 * - `'not-compared'`: planned and accepted; the reference table is a 2-D patch table it keeps no frequencies of (Pixtral);
 * - `'no-tables'`: planned and accepted, no layer rotates, and nothing to compare (NoPE, ALiBi, absolute, a
 *   hybrid whose default schedule has no RoPE attention).
 */
export function checkFixture(pe, fx) {
  let plan;
  try {
    plan = pe.model.fromConfig(configOf(fx));
  } catch (error) {
    if (error?.name !== 'PosEncError') throw error;
    return { outcome: fx.accepted ? 'refused' : 'both-refuse', detail: error.message, tables: 0 };
  }
  if (!fx.accepted) return { outcome: 'planned-rejected', detail: fx.exception ?? 'rejected', tables: 0 };
  const tables = languageTables(fx);
  const ropeLayers = plan.layers.filter((l) => l.rope !== null);
  if (ropeLayers.length === 0 && plan.layers.length > 0 && tables.every((t) => t.label === null)) {
    // The rotary class is built, but no layer of this config calls it (a hybrid whose schedule has no RoPE attention).
    return { outcome: 'no-tables', detail: `no layer of the plan rotates (${[...new Set(plan.layers.map((l) => l.attention))].join(', ')})`, tables: 0, plan };
  }
  if (tables.length === 0) {
    return ropeLayers.length === 0 ? { outcome: 'no-tables', detail: 'no RoPE in the plan or the reference', tables: 0, plan }
      : { outcome: 'mismatch', detail: `the plan rotates ${ropeLayers.length} layers; the reference ran no language-model rotary class`, tables: 0, plan };
  }
  const problems = [];
  let compared = 0;
  if (tables.every((t) => !t.invFreq)) {
    return { outcome: 'not-compared', detail: 'the reference keeps no inverse frequencies (a 2-D patch table)', tables: 0, plan };
  }
  for (const t of tables) {
    if (!t.invFreq) continue;
    const layers = t.label === null ? ropeLayers : ropeLayers.filter((l) => l.attention === t.label);
    if (layers.length === 0) {
      if (t.label !== null && plan.layers.some((l) => l.attention === t.label)) problems.push(`${t.class} ${t.label}: the plan's ${t.label} layers have no RoPE`);
      continue; // a label no layer of this config has (the class builds every table it knows)
    }
    for (const layer of [layers[0], layers[layers.length - 1]]) {
      const opts = t.seqLen === null ? {} : { seqLen: t.seqLen };
      const f = pe.model.frequencies(plan, layer.index, opts);
      const pairs = t.invFreq.length;
      if (f.invFreq.length !== pairs) {
        problems.push(`${t.class} ${t.label ?? ''} layer ${layer.index}: ${f.invFreq.length} frequencies, the reference has ${pairs}`);
        continue;
      }
      const rel = worstRel(f.invFreq, t.invFreq);
      if (!(rel <= INV_FREQ_REL)) problems.push(`${t.class} ${t.label ?? ''}${t.seqLen ? ` seqLen ${t.seqLen}` : ''} layer ${layer.index}: inverse frequencies differ by ${rel.toExponential(2)} (relative)`);
      if (layer.rope.form.kind === '2d') continue;
      const cs = pe.model.cosSin(plan, layer.index, t.positions, opts);
      const column = layoutOf(t, pairs);
      let worst = 0;
      t.positions.forEach((_, i) => t.columns.forEach((c, j) => {
        const k = i * pairs + column(c);
        worst = Math.max(worst, Math.abs(cs.cos[k] - t.cos[i][j]), Math.abs(cs.sin[k] - t.sin[i][j]));
      }));
      if (!(worst <= COS_SIN_ABS)) problems.push(`${t.class} ${t.label ?? ''}${t.seqLen ? ` seqLen ${t.seqLen}` : ''} layer ${layer.index}: cos/sin differ by ${worst.toExponential(2)}`);
      compared++;
    }
  }
  if (problems.length > 0) return { outcome: 'mismatch', detail: problems.slice(0, 3).join('; '), tables: compared, plan };
  if (compared === 0) return { outcome: 'mismatch', detail: 'no reference table matches a layer of the plan', tables: 0, plan };
  return { outcome: 'match', detail: `${compared} layer/table comparisons`, tables: compared, plan };
}
