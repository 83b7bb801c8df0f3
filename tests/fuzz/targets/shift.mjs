// Fuzz target: pe.rope.shift and RopeCache.shift (issue 22, item 11). Keys rotated by pe.rope.apply
// at generated positions (offsets up to 1e15, ids, per batch row), then moved by generated deltas,
// new offsets or new ids, with every scaling (dynamic is refused, LongRoPE refused across a list
// switch), and hostile values in the move. Invariants: each call returns or throws a PosEncError of
// a documented code that is not INTERNAL; a shift that returns leaves finite keys, each within
// one rotation's rounding of the keys rotated directly at the new positions (finite, moderate
// positions), and a chain of shifts within its documented n·√2·2^-24.
import fc from 'fast-check';

import { InvariantError, contained, extremeNumber } from '../harness.mjs';

const scalings = [undefined, { type: 'linear', factor: 4 }, { type: 'ntk', factor: 2 }, { type: 'llama3' },
  { type: 'yarn', factor: 8, originalMaxPositionEmbeddings: 64 }, { type: 'dynamic', factor: 2, maxPositionEmbeddings: 16 },
  { type: 'longrope', shortFactor: [1, 1, 2, 4], longFactor: [2, 2, 4, 8], originalMaxPositionEmbeddings: 32 }];

const input = fc.record({
  batch: fc.integer({ min: 1, max: 2 }),
  seq: fc.integer({ min: 1, max: 6 }),
  pairing: fc.constantFrom('half', 'interleaved'),
  scaling: fc.nat(scalings.length - 1),
  from: fc.oneof(fc.record({ offset: fc.oneof(fc.nat(100), fc.constantFrom(1e6, 1e12, 1e15)) }), fc.record({ positionIds: fc.array(fc.nat(200), { minLength: 6, maxLength: 6 }) })),
  move: fc.oneof(
    { weight: 3, arbitrary: fc.record({ delta: fc.oneof(fc.integer({ min: -50, max: 50 }), fc.constantFrom(1, -1, 4)) }) },
    { weight: 1, arbitrary: fc.record({ newOffset: fc.oneof(fc.nat(300), extremeNumber) }) },
    { weight: 1, arbitrary: fc.record({ delta: fc.array(fc.oneof(fc.integer({ min: -9, max: 9 }), extremeNumber), { minLength: 6, maxLength: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ newPositionIds: fc.array(fc.oneof(fc.nat(300), extremeNumber), { minLength: 6, maxLength: 6 }) }) },
  ),
  steps: fc.integer({ min: 1, max: 40 }),
  seqLen: fc.oneof(fc.constant(undefined), fc.constantFrom(16, 64), extremeNumber),
});

const headDim = 8;

function worst(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

export const target = {
  name: 'shift',
  quickRuns: 600,
  arbitrary: input,
  check(pe, c) {
    const { batch, seq } = c;
    const dims = [batch, seq, headDim];
    const spec = { numHeads: 1, rotaryDim: headDim, pairing: c.pairing, ...(scalings[c.scaling] ? { scaling: scalings[c.scaling] } : {}) };
    const from = c.from.positionIds ? { positionIds: c.from.positionIds.slice(0, seq) } : c.from;
    const move = Object.fromEntries(Object.entries(c.move).map(([k, v]) => [k, Array.isArray(v) ? v.slice(0, seq) : v]));
    const x = Float32Array.from({ length: batch * seq * headDim }, (_, i) => Math.cos(0.7 * i));
    const k = x.slice();
    const seqLen = c.seqLen === undefined ? {} : { seqLen: c.seqLen };
    const rotated = contained('rope.apply (shift input)', () => pe.rope.apply(k, null, { dims, ...spec, ...from, ...seqLen }));
    if (!rotated.ok) return;
    const r = contained('rope.shift', () => pe.rope.shift(k, { dims, ...spec, ...from, ...move, ...seqLen }));
    if (!r.ok && r.code === 'INTERNAL') throw new InvariantError('rope.shift: INTERNAL');
    if (!r.ok) return;
    if (!k.every(Number.isFinite)) throw new InvariantError('rope.shift left non-finite keys');
    // the streaming pattern: many shifts by the same delta in place, against one rotation at the end
    if (typeof move.delta === 'number' && c.from.offset !== undefined && c.from.offset < 1e6 && scalings[c.scaling]?.type !== 'longrope') {
      let offset = c.from.offset + move.delta;
      for (let n = 1; n < c.steps; n++) {
        const s = contained('rope.shift (chain)', () => pe.rope.shift(k, { dims, ...spec, offset, delta: move.delta, ...seqLen }));
        if (!s.ok) { if (s.code === 'INTERNAL') throw new InvariantError('rope.shift (chain): INTERNAL'); return; }
        offset += move.delta;
      }
      const once = x.slice();
      if (!contained('rope.apply (reference)', () => pe.rope.apply(once, null, { dims, ...spec, offset, ...seqLen })).ok) return;
      // each shift's rounding, plus the two rope.apply calls' own (float32 cos/sin rows, several
      // roundings each); values reach 1.25 (YaRN's attention factor)
      const bound = (c.steps + 6) * Math.SQRT2 * 2 ** -24 * 1.25;
      if (worst(k, once) > bound) throw new InvariantError(`${c.steps} shifts by ${move.delta} drifted ${worst(k, once)} > ${bound}`);
    }
  },
};
