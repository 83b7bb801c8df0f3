// Fuzz target: pe.io.readNpy over mutated .npy files (seed corpus tests/fuzz/corpus/npy) and
// generated headers. A file is read into a tensor whose data length matches its dims, or refused
// with a PosEncError.
import fc from 'fast-check';

import { InvariantError, contained, corpus, mutatedBytes } from '../harness.mjs';

const seeds = corpus('npy');
const MAGIC = '\x93NUMPY';

/** A header of version 1.0 built from generated parts: descr, order and shape as text. */
const generatedHeader = fc.record({
  descr: fc.constantFrom("'<f4'", "'>f4'", "'<f2'", "'<f8'", "'>f8'", "'<V2'", "'|u1'", "'<i4'", "'f4'", "'<f16'", '1', "''"),
  fortran: fc.constantFrom('False', 'True', '0', 'None', "'x'"),
  shape: fc.oneof(fc.array(fc.oneof(fc.nat(6), fc.constantFrom(-1, 2 ** 31, 2 ** 53, 1e300)), { maxLength: 4 }).map((d) => `(${d.join(', ')}${d.length === 1 ? ',' : ''})`),
    fc.constantFrom('()', '(2,3', '[2, 3]', '(2,,3)', '(1e3,)', "('a',)")),
  extra: fc.constantFrom('', "'x': 1, ", ', '),
  dataBytes: fc.nat(64),
}).map(({ descr, fortran, shape, extra, dataBytes }) => {
  let dict = `{'descr': ${descr}, 'fortran_order': ${fortran}, 'shape': ${shape}, ${extra}}`;
  const total = MAGIC.length + 4 + dict.length + 1;
  dict += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const header = Uint8Array.from(`${MAGIC}\x01\x00`, (c) => c.charCodeAt(0));
  const out = new Uint8Array(header.length + 2 + dict.length + dataBytes);
  out.set(header);
  new DataView(out.buffer).setUint16(header.length, dict.length, true);
  out.set(Uint8Array.from(dict, (c) => c.charCodeAt(0) & 0xff), header.length + 2);
  return out;
});

/** The same bytes as a Uint8Array, an ArrayBuffer, a DataView or a view at an odd offset. */
const wrapping = fc.constantFrom('u8', 'buffer', 'dataview', 'offset');
function wrap(bytes, how) {
  if (how === 'buffer') return bytes.slice().buffer;
  if (how === 'dataview') return new DataView(bytes.slice().buffer);
  if (how === 'offset') {
    const b = new Uint8Array(bytes.length + 1);
    b.set(bytes, 1);
    return b.subarray(1);
  }
  return bytes;
}

export const target = {
  name: 'npy',
  arbitrary: fc.tuple(fc.oneof({ weight: 3, arbitrary: mutatedBytes(seeds, 3) }, { weight: 1, arbitrary: generatedHeader }), wrapping),
  check(pe, [bytes, how]) {
    const r = contained('io.readNpy', () => pe.io.readNpy(wrap(bytes, how)));
    if (r.ok) {
      const { data, dims } = r.value;
      const size = dims.reduce((a, b) => a * b, 1);
      if (!(data instanceof Float32Array) || data.length !== size) {
        throw new InvariantError(`io.readNpy: dims [${dims}] but ${data?.length} values`);
      }
    }
  },
};
