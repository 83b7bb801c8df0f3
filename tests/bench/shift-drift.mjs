// How far keys drift from one rotation at their final position after many context shifts, in the
// two ways a streaming cache can shift them (docs/reliability.md, "Context shift"):
//   in place      every step shifts the stored keys again (n roundings to float32 of each value);
//   from original the cache keeps each key as rotated at the position it was written at, and every
//                 step shifts a copy of it from there to where it is now (one rounding, whatever n).
// Keys: 64 lanes, values in [-1, 1], half pairing, at position 1e6 then moved by +delta n times.
//
//   node tests/bench/shift-drift.mjs [--steps 1000,10000] [--deltas 1,4,-1] [--bases 10000,500000]
import { createPosEnc } from '../../dist/node.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return (i > 0 ? process.argv[i + 1] : fallback).split(',').map(Number);
};
const STEPS = arg('steps', '1000,10000');
const DELTAS = arg('deltas', '1,4,-1');
const BASES = arg('bases', '10000,500000');
const headDim = 64;
const start = 1e6;

const pe = await createPosEnc();
const x = Float32Array.from({ length: headDim }, (_, i) => Math.cos(3 * i));
const dims = [1, headDim];
const worst = (y, ref) => y.reduce((m, v, i) => Math.max(m, Math.abs(v - ref[i])), 0);

console.log('| base | delta | shifts | in place | from original | bound n·√2·2^-24 |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (const base of BASES) {
  for (const delta of DELTAS) {
    for (const steps of STEPS) {
      const original = x.slice();
      pe.rope.apply(original, null, { dims, base, offset: start });
      const inPlace = original.slice();
      for (let n = 0; n < steps; n++) pe.rope.shift(inPlace, { dims, base, offset: start + n * delta, delta });
      const end = start + steps * delta;
      const fromOriginal = original.slice(); // the last step's copy: every step's is alike
      pe.rope.shift(fromOriginal, { dims, base, offset: start, newOffset: end });
      const once = x.slice();
      pe.rope.apply(once, null, { dims, base, offset: end });
      const bound = steps * Math.SQRT2 * 2 ** -24;
      console.log(`| ${base} | ${delta} | ${steps} | ${worst(inPlace, once).toExponential(1)} | ${worst(fromOriginal, once).toExponential(1)} | ${bound.toExponential(1)} |`);
    }
  }
}
