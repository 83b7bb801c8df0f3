// Fuzz target: pe.io.listSafetensors and readSafetensors over mutated .safetensors files (seed
// corpus tests/fuzz/corpus/safetensors) and generated JSON headers. Every listed tensor lies
// inside the file; every read tensor has as many values as its dims.
import fc from 'fast-check';

import { InvariantError, contained, corpus, extremeNumber, mutatedBytes } from '../harness.mjs';

const seeds = corpus('safetensors');

const entry = fc.record({
  dtype: fc.constantFrom('F32', 'F16', 'BF16', 'F64', 'I32', 'U8', 'f32', ''),
  shape: fc.oneof(fc.array(fc.nat(4), { maxLength: 3 }), fc.array(extremeNumber, { maxLength: 2 })),
  data_offsets: fc.oneof(fc.tuple(fc.nat(48), fc.nat(48)), fc.array(extremeNumber, { maxLength: 3 })),
}, { requiredKeys: [] });

/** A header of generated entries (names that look like integers among them) and padding, then data. */
const generatedFile = fc.tuple(
  fc.dictionary(fc.oneof(fc.constantFrom('w', '10', '2', 'b', '__metadata__', ''), fc.string({ maxLength: 4 })),
    fc.oneof({ weight: 4, arbitrary: entry }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 })) }), { maxKeys: 4 }),
  fc.nat(64),
  fc.constantFrom(0, 1, 7),
).map(([header, dataBytes, pad]) => {
  const text = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad));
  const out = new Uint8Array(8 + text.length + dataBytes);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  return out;
});

export const target = {
  name: 'safetensors',
  arbitrary: fc.tuple(fc.oneof({ weight: 3, arbitrary: mutatedBytes(seeds) }, { weight: 1, arbitrary: generatedFile }), fc.boolean()),
  check(pe, [bytes, readAll]) {
    const listed = contained('io.listSafetensors', () => pe.io.listSafetensors(bytes));
    if (listed.ok) {
      for (const t of listed.value.tensors) {
        if (!(t.begin >= 0 && t.begin <= t.end)) throw new InvariantError(`io.listSafetensors: ${t.name} has bytes [${t.begin}, ${t.end})`);
      }
    }
    if (!readAll && listed.ok && listed.value.tensors.length) {
      const names = [listed.value.tensors[0].name];
      contained('io.readSafetensors(names)', () => pe.io.readSafetensors(bytes, { names }));
      return;
    }
    const read = contained('io.readSafetensors', () => pe.io.readSafetensors(bytes));
    if (read.ok) {
      for (const [name, { data, dims }] of Object.entries(read.value)) {
        if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new InvariantError(`io.readSafetensors: ${name} dims [${dims}] but ${data.length} values`);
      }
    }
  },
};
