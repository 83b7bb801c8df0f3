// Fuzz target: pe.doctor.identify (issue 22, items 8 and 9). Tensors rotated by pe.rope.apply with
// generated conventions (pairing, width, base, scaling: linear, llama3, YaRN with and without
// truncation), at generated positions (offsets, strides, ids), then damaged: NaN or Infinity put in,
// values replaced, the tensors equal. Invariants: each call returns or throws a PosEncError of a
// documented code that is not INTERNAL; a returned identification is finite where it claims to be;
// the fits' work stays within 9 pair-rows per lane and row (doctor-fit.ts fitWork).
import fc from 'fast-check';

import { InvariantError, contained, extremeNumber } from '../harness.mjs';

const scaling = fc.oneof(
  fc.constant(undefined),
  fc.record({ type: fc.constant('linear'), factor: fc.constantFrom(0.5, 2, 4, 8) }),
  fc.constant({ type: 'llama3' }),
  fc.record({ type: fc.constant('yarn'), factor: fc.constantFrom(4, 32), originalMaxPositionEmbeddings: fc.constantFrom(2048, 4096),
    truncate: fc.constantFrom(undefined, false) }).map((s) => (s.truncate === undefined ? { type: s.type, factor: s.factor, originalMaxPositionEmbeddings: s.originalMaxPositionEmbeddings } : s)),
);

const input = fc.record({
  headDim: fc.constantFrom(2, 4, 6, 16, 64, 128, 1024),
  rotaryFraction: fc.constantFrom(1, 0.5, 0.25),
  pairing: fc.constantFrom('half', 'interleaved'),
  base: fc.constantFrom(10000, 500000, 150000, 1e6, 2),
  scaling,
  seq: fc.integer({ min: 1, max: 24 }),
  positions: fc.oneof(
    fc.record({ kind: fc.constant('offset'), offset: fc.oneof(fc.nat(1000), fc.constantFrom(1e6, 1e12, -5)) }),
    fc.record({ kind: fc.constant('stride'), start: fc.nat(100), stride: fc.integer({ min: 1, max: 13 }) }),
    fc.record({ kind: fc.constant('ids'), ids: fc.array(fc.oneof(fc.nat(5000), extremeNumber), { minLength: 24, maxLength: 24 }) }),
  ),
  damage: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ at: fc.nat(), value: fc.oneof(extremeNumber, fc.constantFrom(NaN, Infinity)), which: fc.constantFrom('before', 'after') }) },
    { weight: 1, arbitrary: fc.constant('equal') },
  ),
});

export const target = {
  name: 'doctor',
  quickRuns: 300,
  arbitrary: input,
  check(pe, c) {
    const rotaryDim = Math.max(2, 2 * Math.floor((c.headDim * c.rotaryFraction) / 2));
    const seq = c.seq;
    const before = Float32Array.from({ length: seq * c.headDim }, (_, i) => Math.sin(1.7 * i + 0.3));
    const after = before.slice();
    const pos = c.positions.kind === 'offset' ? { offset: c.positions.offset }
      : c.positions.kind === 'stride' ? { positionIds: Array.from({ length: seq }, (_, t) => c.positions.start + t * c.positions.stride) }
        : { positionIds: c.positions.ids.slice(0, seq) };
    const spec = { rotaryDim, base: c.base, pairing: c.pairing, ...(c.scaling ? { scaling: c.scaling } : {}) };
    const rotated = contained('rope.apply (doctor input)', () => pe.rope.apply(after, null, { dims: [seq, c.headDim], ...spec, ...pos }));
    if (!rotated.ok) return;
    if (c.damage === 'equal') after.set(before);
    else if (c.damage) (c.damage.which === 'before' ? before : after)[c.damage.at % before.length] = c.damage.value;
    fitWork.pairRows = 0;
    const r = contained('doctor.identify', () => pe.doctor.identify(before, after, { dims: [seq, c.headDim], ...pos }));
    if (!r.ok && r.code === 'INTERNAL') throw new InvariantError('doctor.identify: INTERNAL');
    if (fitWork.pairRows > 9 * c.headDim * seq) throw new InvariantError(`doctor.identify: ${fitWork.pairRows} pair-rows for ${c.headDim} lanes and ${seq} rows`);
    if (r.ok && !(Number.isFinite(r.value.spec.base) && Number.isFinite(r.value.fitResidual) && (Number.isFinite(r.value.residual) || r.value.confidence === 'low'))) {
      throw new InvariantError(`doctor.identify returned base ${r.value.spec.base}, residual ${r.value.residual} (${r.value.confidence})`);
    }
  },
};

const { fitWork } = await import('../../../dist/tools/doctor-fit.js');
