// Run by relaxed-kernels.test.mjs under `node --experimental-wasm-relaxed-simd`: pe.rope.apply through
// createPosEnc({ kernels: 'relaxed' }) (dist/node.js) against the float64 formula at docs/encodings.md
// 8.2's 1e-6 bound and against the SIMD128 kernels (the CommonJS entry, a second instance), for both
// pairings, both layouts, both row orders of the driver, partial rotary and GQA; and once memory grew.
// Then sinusoidal tables (exact: within half a float32 ulp of the float64 sinusoid plus 1e-14; fast:
// 3.2e-7), both layouts, with their tails, and anchored tables, whose rows are the fast table's bits.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { createPosEnc } from '../../dist/node.js';
import { maxAbs, randomFloats, ropeRow, sinusoid } from './helpers.mjs';

const relaxed = await createPosEnc({ kernels: 'relaxed' });
const simd128 = await createRequire(import.meta.url)('../../dist/index.cjs').createPosEnc({ kernels: 'simd128' });
assert.equal(relaxed.kernels, 'relaxed');
assert.equal(simd128.kernels, 'simd128');

const rowAt = (layout, [seq, heads, d], b, s, h) => (layout === 'bshd' ? ((b * seq + s) * heads + h) * d : ((b * heads + h) * seq + s) * d);

let worst = 0;
let worstApart = 0;
let differing = 0;
function check({ layout, pairing, batch, seq, qHeads, kHeads, headDim, rotaryDim, offset }) {
  const shape = (h) => (layout === 'bshd' ? [batch, seq, h, headDim] : [batch, h, seq, headDim]);
  const q0 = randomFloats(batch * seq * qHeads * headDim, 1, -3.5, 3.5);
  const k0 = randomFloats(batch * seq * kHeads * headDim, 2, -3.5, 3.5);
  const run = (pe) => {
    const q = { data: q0.slice(), dims: shape(qHeads) };
    const k = { data: k0.slice(), dims: shape(kHeads) };
    pe.rope.apply(q, k, { layout, pairing, rotaryDim, offset });
    return [q.data, k.data];
  };
  const [rq, rk] = run(relaxed);
  const [sq, sk] = run(simd128);
  for (const [x0, r, s, heads] of [[q0, rq, sq, qHeads], [k0, rk, sk, kHeads]]) {
    const scale = maxAbs(x0);
    for (let b = 0; b < batch; b++) {
      for (let t = 0; t < seq; t++) {
        for (let h = 0; h < heads; h++) {
          const at = rowAt(layout, [seq, heads, headDim], b, t, h);
          const ref = ropeRow(x0.subarray(at, at + headDim), rotaryDim ?? headDim, pairing === 'interleaved', offset + t);
          for (let j = 0; j < headDim; j++) {
            const error = Math.abs(r[at + j] - ref[j]) / scale;
            const apart = Math.abs(r[at + j] - s[at + j]) / scale;
            assert.ok(error <= 1e-6, `${layout} ${pairing} ${seq}x${heads}x${headDim}: lane ${at + j} off by ${error}`);
            worst = Math.max(worst, error);
            worstApart = Math.max(worstApart, apart);
            if (r[at + j] !== s[at + j]) differing++;
          }
        }
      }
    }
  }
}

let cases = 0;
for (const layout of ['bshd', 'bhsd']) {
  for (const pairing of ['half', 'interleaved']) {
    for (const [headDim, rotaryDim] of [[64, undefined], [128, undefined], [80, 32], [36, 20], [256, undefined]]) {
      check({ layout, pairing, batch: 2, seq: 37, qHeads: 4, kHeads: 2, headDim, rotaryDim, offset: 1e6 - 20 });
      cases++;
    }
  }
}
// Past the driver's grouped-order threshold (memory order instead), and after the heap grew.
relaxed.memory.tensor([64 << 20]).dispose();
for (const pairing of ['half', 'interleaved']) {
  check({ layout: 'bshd', pairing, batch: 1, seq: 512, qHeads: 16, kHeads: 8, headDim: 128, offset: 5 });
  cases++;
}
// argv[2]: how this machine's relaxed madd rounds (relaxed-kernels-child.mjs finds out). Fused, the
// relaxed kernels differ from SIMD128 in the last bit somewhere; unfused they compute the same roundings.
if (process.argv[2] === 'fused') assert.ok(differing > 0, 'the relaxed kernels ran: some lane differs in the last bit from SIMD128');
else assert.equal(differing, 0, 'unfused, the relaxed kernels round as SIMD128 does');

// Sinusoidal tables: the phasor kernels (exact) and the anchor kernels (fast), both layouts; odd
// widths and lengths reach the kernels' tails; an offset puts the phasors far from 0.
let tables = 0;
for (const layout of ['interleaved', 'half']) {
  for (const [length, dim, offset] of [[1, 6, 0], [7, 5, 3], [64, 48, 0], [200, 130, 1000], [1000, 64, 123456], [97, 1, 0]]) {
    for (const precision of ['exact', 'fast']) {
      const options = { length, dim, layout, precision, offset };
      const got = relaxed.sinusoidal.table(options).data;
      const other = simd128.sinusoidal.table(options).data;
      for (let p = 0; p < length; p++) {
        for (let j = 0; j < dim; j++) {
          // half layout: the sines of every pair, then the cosines; the paper's column j otherwise
          const pairs = Math.ceil(dim / 2);
          const column = layout === 'interleaved' ? j : j < pairs ? 2 * j : 2 * (j - pairs) + 1;
          const want = sinusoid(offset + p, column, dim);
          const v = got[p * dim + j];
          const bound = precision === 'exact' ? 2 ** -24 * Math.abs(want) + 1e-14 : 3.2e-7;
          assert.ok(Math.abs(v - want) <= bound, `table ${layout} ${precision} ${length}x${dim}+${offset}: [${p}, ${j}] ${v} vs ${want}`);
          assert.ok(Math.abs(v - other[p * dim + j]) <= 2 * bound, `table ${layout} ${precision}: relaxed and SIMD128 apart at [${p}, ${j}]`);
        }
      }
      tables++;
    }
  }
}
// Anchored tables: row p is the fast table's row p, bit for bit, from 64 rows on; added rows too.
for (const layout of ['interleaved', 'half']) {
  const [rows, dim] = [300, 70];
  const anchored = relaxed.sinusoidal.createTable({ maxPositions: rows, dim, layout, precision: 'fast', storage: 'anchored' });
  const fast = relaxed.sinusoidal.table({ length: rows, dim, layout, precision: 'fast' }).data;
  const looked = anchored.lookup({ length: rows }).data;
  for (let i = 64 * dim; i < rows * dim; i++) assert.equal(looked[i], fast[i], `anchored ${layout}: lane ${i} is the fast table's`);
  const x = randomFloats(rows * dim, 9, -1, 1);
  const sum = anchored.addTo({ data: x.slice(), dims: [1, rows, dim] });
  for (let i = 0; i < rows * dim; i++) assert.equal(sum[i], Math.fround(x[i] + looked[i]), `anchored ${layout} addTo: lane ${i}`);
  anchored.dispose();
  tables++;
}
console.log(JSON.stringify({ cases, worst, worstApart, differing, tables }));
