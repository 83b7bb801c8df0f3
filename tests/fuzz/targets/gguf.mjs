// Fuzz target: pe.model.fromGguf over mutated GGUF headers (seed corpus tests/fuzz/corpus/gguf,
// written from real configs' plans by pe.model.toGguf) and over headers whose metadata values were
// replaced by hostile ones of the same GGUF type, or deleted.
import fc from 'fast-check';

import { writeGgufHeader } from '../../../dist/model/gguf-header.js';
import { contained, corpus, extremeNumber, mutatedBytes } from '../harness.mjs';

const seeds = corpus('gguf');

const FLOAT_TYPES = new Set(['float32', 'float64']);
const INT_LIMITS = { uint8: [0, 255], int8: [-128, 127], uint16: [0, 65535], int16: [-32768, 32767], uint32: [0, 2 ** 32 - 1],
  int32: [-(2 ** 31), 2 ** 31 - 1], uint64: [0, 2 ** 53], int64: [-(2 ** 53), 2 ** 53] };

/** A value the writer can store in `type`: any float for float types, any in-range integer for integer types. */
function valueFor(type, pick, n) {
  if (FLOAT_TYPES.has(type)) return n;
  const limits = INT_LIMITS[type];
  if (limits) return Number.isFinite(n) ? Math.min(limits[1], Math.max(limits[0], Math.trunc(n))) : pick % (limits[1] + 1);
  if (type === 'bool') return pick % 2 === 0;
  return ['', 'llama', 'yarn', 'linear', 'none', 'x'.repeat(pick % 300)][pick % 6];
}

/** Metadata of each seed's plan edited: a value replaced (same type) or a key deleted. */
function structured(pe) {
  const metadatas = seeds.map((s) => pe.model.toGguf(pe.model.fromGguf(s.bytes)));
  const edit = fc.record({ key: fc.nat(), op: fc.constantFrom('set', 'set', 'delete', 'truncateArray'), n: extremeNumber, pick: fc.nat() });
  return fc.tuple(fc.constantFrom(...metadatas), fc.array(edit, { minLength: 1, maxLength: 4 })).map(([metadata, edits]) => {
    const m = structuredClone(metadata);
    for (const e of edits) {
      const keys = Object.keys(m);
      if (keys.length === 0) break;
      const key = keys[e.key % keys.length];
      const entry = m[key];
      if (e.op === 'delete') delete m[key];
      else if (entry.type === 'array') entry.value = e.op === 'truncateArray' ? entry.value.slice(0, e.pick % (entry.value.length + 1)) : entry.value.map(() => valueFor(entry.itemType, e.pick, e.n));
      else entry.value = valueFor(entry.type, e.pick, e.n);
    }
    return writeGgufHeader(m);
  });
}

export const target = {
  name: 'gguf',
  arbitrary: (pe) => fc.tuple(fc.oneof(mutatedBytes(seeds, 8), structured(pe)), fc.constantFrom('u8', 'buffer')),
  check(pe, [bytes, how]) {
    const plan = contained('model.fromGguf', () => pe.model.fromGguf(how === 'buffer' ? bytes.slice().buffer : bytes));
    // A plan that was read writes its metadata back.
    if (plan.ok) contained('model.toGguf(fromGguf)', () => pe.model.toGguf(plan.value));
  },
};
