// Fuzz target: pe.precision.oracle (issue 22, item 9). Specs with generated widths (up to 2^30
// lanes), bases, scalings, context lengths and buckets, plans of the model zoo with a layer, and
// hostile option values. Invariants: each call returns or throws a PosEncError of a documented code
// that is not INTERNAL; a call past its bound (2^26 position-pairs, 65536 lanes) is refused without
// allocating; what returns is finite and one value per bucket.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import fc from 'fast-check';

import { InvariantError, ROOT, contained, extremeNumber, jsonValue } from '../harness.mjs';

const MODELS = join(ROOT, 'tests', 'fixtures', 'models');
const configs = readdirSync(MODELS).filter((f) => f.endsWith('.json')).sort()
  .map((name) => JSON.parse(readFileSync(join(MODELS, name), 'utf8')));

const MAX_WORK = 2 ** 26;

const spec = fc.record({
  rotaryDim: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(2, 4, 64, 128, 65536, 65538, 2 ** 27, 2 ** 30) }, { weight: 1, arbitrary: extremeNumber }),
  base: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(10000, 500000, 2) }, { weight: 1, arbitrary: extremeNumber }),
  scaling: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, fc.constantFrom({ type: 'linear', factor: 4 }, { type: 'llama3' }, { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 4096 },
    { type: 'dynamic', factor: 2, maxPositionEmbeddings: 64 }, { type: 'ntk', factor: 4 }), jsonValue),
}, { requiredKeys: ['rotaryDim'] });

const input = fc.record({
  subject: fc.oneof({ weight: 3, arbitrary: spec }, { weight: 1, arbitrary: fc.nat(configs.length - 1) }),
  contextLength: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(1, 16, 1000, 2 ** 20, 2 ** 24, 2 ** 25) }, { weight: 1, arbitrary: extremeNumber }),
  bucket: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(undefined, 1, 7, 4096) }, { weight: 1, arbitrary: extremeNumber }),
  layer: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, fc.nat(40), extremeNumber),
  pipelines: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(undefined, ['hf-float32'], ['ggml-float16', 'hf-bfloat16']) }, fc.constant([]), jsonValue),
});

export const target = {
  name: 'oracle',
  quickRuns: 300,
  setup(pe) {
    return { plans: configs.map((c) => { try { return pe.model.fromConfig(c); } catch { return null; } }) };
  },
  arbitrary: input,
  check(pe, c, { plans }) {
    const subject = typeof c.subject === 'number' ? plans[c.subject] : c.subject;
    if (subject === null) return;
    const options = { contextLength: c.contextLength };
    for (const k of ['bucket', 'layer', 'pipelines']) if (c[k] !== undefined) options[k] = c[k];
    const rotaryDim = typeof c.subject === 'number' ? undefined : c.subject.rotaryDim;
    // small enough to run in a fuzz case: the bound itself is what the refusals check
    const work = Number.isFinite(rotaryDim) && Number.isFinite(c.contextLength) ? c.contextLength * Math.floor(rotaryDim / 2) : 0;
    if (work > 2 ** 20 && work <= MAX_WORK) return;
    if (typeof c.subject === 'number' && c.contextLength > 2 ** 14) return;
    const before = pe.memory.bytes;
    const r = contained('precision.oracle', () => pe.precision.oracle(subject, options));
    if (!r.ok && r.code === 'INTERNAL') throw new InvariantError('precision.oracle: INTERNAL');
    if (!r.ok && work > MAX_WORK && pe.memory.bytes > before + (64 << 20)) {
      throw new InvariantError(`precision.oracle: refused work ${work} only after growing memory by ${pe.memory.bytes - before} bytes`);
    }
    if (r.ok) {
      const v = r.value;
      if (v.contextLength * (v.spec.rotaryDim / 2) > MAX_WORK) throw new InvariantError('precision.oracle ran past its bound');
      for (const p of v.pipelines) {
        if (p.rotationError.length !== v.positions.length || !p.rotationError.every(Number.isFinite) || !p.cosSinError.every(Number.isFinite)) {
          throw new InvariantError(`precision.oracle: ${p.name} gave ${p.rotationError.length} values for ${v.positions.length} buckets, or non-finite ones`);
        }
      }
    }
  },
};
