// Fuzz target: model plans (issue 22, item 5). Plans from pe.model.fromConfig of the model zoo
// (tests/fixtures/models), as JSON copies with fields replaced, deleted or added anywhere in the
// tree, through every function that takes a plan. Invariants: each call returns or throws a
// PosEncError of a documented code that is not INTERNAL; what it returns is bounded by its input
// (summaries one line per layer at most, caches of the rows asked for, the oracle's work within
// its bound); the issued (frozen) plan gives the same results as its JSON copy.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import fc from 'fast-check';

import { InvariantError, ROOT, contained, jsonValue } from '../harness.mjs';

const MODELS = join(ROOT, 'tests', 'fixtures', 'models');
const configs = readdirSync(MODELS).filter((f) => f.endsWith('.json')).sort()
  .map((name) => JSON.parse(readFileSync(join(MODELS, name), 'utf8')));

/** Every path (list of keys) in a plain JSON tree, up to `depth`. */
function paths(value, depth = 6, at = []) {
  if (depth === 0 || value === null || typeof value !== 'object') return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i).slice(0, 6) : Object.keys(value);
  return [at, ...keys.flatMap((k) => paths(value[k], depth - 1, [...at, k]))];
}

/** A replacement: a JSON value, or one of the shapes a careless caller makes of a plan's fields. */
const replacement = fc.oneof(
  { weight: 3, arbitrary: jsonValue },
  { weight: 2, arbitrary: fc.constantFrom(null, {}, [], 7, -1, 0, 1e9, 'half', 'mrope', { kind: 'mrope' }, { kind: 'standard' },
    { spec: null, form: null, source: 'x' }, [1, 2], [24, 20, 20], { type: 'yarn' }, { type: 'linear', factor: 0 }) },
);

const edit = fc.record({ pick: fc.nat(), op: fc.constantFrom('set', 'set', 'delete', 'add'), value: replacement, key: fc.constantFrom('extra', 'kind', 'size', 'rope') });

function edited(plan, edits) {
  const copy = JSON.parse(JSON.stringify(plan));
  for (const e of edits) {
    const all = paths(copy);
    const path = all[e.pick % all.length];
    if (path.length === 0) continue;
    let parent = copy;
    for (const k of path.slice(0, -1)) parent = parent[k];
    const last = path[path.length - 1];
    if (e.op === 'delete') delete parent[last];
    else if (e.op === 'add' && parent[last] !== null && typeof parent[last] === 'object' && !Array.isArray(parent[last])) parent[last][e.key] = e.value;
    else parent[last] = e.value;
  }
  return copy;
}

const MAX_WORK = 2 ** 26; // precision.oracle's bound (bindings/js/tools/precision.ts)

/** A call's result, refused with a code that is not INTERNAL, or an InvariantError. */
function call(what, f) {
  const r = contained(what, f);
  if (!r.ok && r.code === 'INTERNAL') throw new InvariantError(`${what}: INTERNAL`);
  return r;
}

export const target = {
  name: 'plans',
  quickRuns: 600,
  setup(pe) {
    const plans = [];
    for (const c of configs) {
      try { plans.push(pe.model.fromConfig(c)); } catch { /* a fixture the reader refuses is not a seed */ }
    }
    return { plans };
  },
  arbitrary: (pe, { plans }) => fc.record({
    seed: fc.nat(plans.length - 1),
    edits: fc.array(edit, { maxLength: 3 }),
    layer: fc.oneof(fc.nat(8), fc.constantFrom(-1, 1.5, 1e9, '0', null)),
    fn: fc.constantFrom('apply', 'createCache', 'frequencies', 'cosSin', 'alibiSlopes', 'queryScales', 'softmaxScaleFactor',
      'longRopeList', 'summarize', 'toConfig', 'toGguf', 'oracle'),
    positions: fc.array(fc.oneof(fc.nat(100000), fc.constantFrom(2 ** 30, -1, 0.5)), { minLength: 1, maxLength: 4 }),
  }),
  check(pe, input, { plans }) {
    const issued = plans[input.seed];
    const plan = input.edits.length ? edited(issued, input.edits) : JSON.parse(JSON.stringify(issued));
    const { layer, positions } = input;
    const headDim = issued.layers[0]?.rope?.spec.headDim ?? issued.headDim;
    const calls = {
      apply: (p) => { const q = new Float32Array(2 * headDim); pe.model.apply(p, layer, q, null, { dims: [2, headDim] }); return q; },
      createCache: (p) => { const c = pe.model.createCache(p, layer, { maxPositions: 4 }); const bytes = c.bytes; c.dispose(); return bytes; },
      frequencies: (p) => pe.model.frequencies(p, layer),
      cosSin: (p) => pe.model.cosSin(p, layer, positions),
      alibiSlopes: (p) => pe.model.alibiSlopes(p, layer),
      queryScales: (p) => pe.model.queryScales(p, layer, positions),
      softmaxScaleFactor: (p) => pe.model.softmaxScaleFactor(p, layer),
      longRopeList: (p) => pe.model.longRopeList(p, positions[0]),
      summarize: (p) => pe.model.summarize(p),
      toConfig: (p) => pe.model.toConfig(p),
      toGguf: (p) => pe.model.toGguf(p),
      oracle: (p) => pe.precision.oracle(p, { contextLength: 64, bucket: 16, ...(typeof layer === 'number' && layer < 8 ? {} : { layer }) }),
    };
    const r = call(`model.${input.fn}`, () => calls[input.fn](plan));
    if (!r.ok) return;
    const v = r.value;
    if (input.fn === 'summarize' && v.length > plan.layers.length + plan.notes.length + 4) {
      throw new InvariantError(`summarize gave ${v.length} lines for ${plan.layers.length} layers`);
    }
    if (input.fn === 'createCache' && v > 4 * (headDim / 2) * 24 + 8) throw new InvariantError(`a cache of 4 rows holds ${v} bytes`);
    if (input.fn === 'oracle' && v.contextLength * (v.spec.rotaryDim / 2) > MAX_WORK) throw new InvariantError('the oracle ran past its bound');
    if (input.fn === 'queryScales' && v && v.some((x) => !Number.isFinite(x))) throw new InvariantError(`queryScales gave ${Array.from(v)}`);
    if (input.edits.length === 0 && input.fn !== 'createCache') { // the issued plan and its JSON copy agree
      const same = call(`model.${input.fn} (issued plan)`, () => calls[input.fn](issued));
      if (!same.ok || JSON.stringify(same.value, (_, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x)) !==
        JSON.stringify(v, (_, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x))) {
        throw new InvariantError(`model.${input.fn}: the issued plan and its JSON copy disagree`);
      }
    }
  },
};
