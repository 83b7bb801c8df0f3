// Run by relaxed-kernels.test.mjs under `node --experimental-wasm-relaxed-simd`: drives the
// relaxed-SIMD rotations of build/relaxed/posenc-relaxed.wasm over a memory of its own and checks
// every output lane against the float64 formula; exits non-zero on the first failure.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const bytes = readFileSync(process.argv[2]);
const memory = new WebAssembly.Memory({ initial: 64 });
const { exports: k } = await WebAssembly.instantiate(await WebAssembly.compile(bytes), { env: { memory } });
const f32 = new Float32Array(memory.buffer);
const u32 = new Uint32Array(memory.buffer);

let next = 1024; // a bump allocator in bytes; every region 16-byte aligned plus `skew` floats
function alloc(floats, skew = 0) {
  const at = next + 4 * skew;
  next = at + 4 * floats + 64;
  next += (16 - (next % 16)) % 16;
  return at;
}

const U = 2 ** -24; // float32 unit roundoff
const SENTINEL = 12345.5;

/**
 * One call: `tokens` tokens of `rows` rows (`rowStride` apart, `tokenStride` between tokens),
 * positions `positions[t]`, frequencies w_i = base^(-2i/(2 pairs)); half or interleaved pairing.
 * Every rotated lane must be within 2u (|a c| + |b s|) of the formula on the float32 inputs (both
 * roundings of a relaxed madd: fused or not) and within 1e-6 of the float64 rotation by the float64
 * angle (docs/encodings.md#82-precision); every other lane keeps its value.
 */
function check({ pairing, pairs, tokens, rows, grouped, partner = 0, positions, skew = 0 }) {
  next = 1024;
  const span = pairing === 'half' ? (partner || pairs) + pairs : 2 * pairs; // lanes a row touches
  const rowStride = span + 3;
  const tokenStride = rows * rowStride + 5;
  const total = tokens * tokenStride;
  const x = alloc(total, skew);
  const lanes = pairing === 'half' ? pairs : 2 * pairs;
  const cosPtrs = alloc(tokens);
  const sinPtrs = alloc(tokens);
  const w = Array.from({ length: pairs }, (_, i) => 10000 ** (-i / pairs));
  const cs = [];
  for (let t = 0; t < tokens; t++) {
    const c = alloc(lanes, (skew + t) % 4);
    const s = alloc(lanes, (skew + 2 * t) % 4);
    u32[cosPtrs / 4 + t] = c;
    u32[sinPtrs / 4 + t] = s;
    const angle = w.map((wi) => positions[t] * wi);
    for (let i = 0; i < pairs; i++) {
      if (pairing === 'half') {
        f32[c / 4 + i] = Math.cos(angle[i]);
        f32[s / 4 + i] = Math.sin(angle[i]);
      } else {
        f32[c / 4 + 2 * i] = f32[c / 4 + 2 * i + 1] = Math.cos(angle[i]);
        f32[s / 4 + 2 * i] = -Math.sin(angle[i]);
        f32[s / 4 + 2 * i + 1] = Math.sin(angle[i]);
      }
    }
    cs.push({ c: c / 4, s: s / 4, angle });
  }
  const input = Float32Array.from({ length: total }, (_, j) => Math.sin(1.7 * j + 0.3) * 2);
  f32.set(input, x / 4);
  for (let t = 0; t < tokens; t++) for (let r = 0; r < rows; r++) f32.fill(SENTINEL, x / 4 + t * tokenStride + r * rowStride + span, x / 4 + t * tokenStride + (r + 1) * rowStride);
  const before = f32.slice(x / 4, x / 4 + total);
  if (pairing === 'half') k.rotate_half_tokens(x, tokens, tokenStride, rows, rowStride, cosPtrs, sinPtrs, pairs, grouped, partner);
  else k.rotate_interleaved_tokens(x, tokens, tokenStride, rows, rowStride, cosPtrs, sinPtrs, pairs, grouped);
  const out = f32.slice(x / 4, x / 4 + total);
  const touched = new Set();
  const what = `${pairing} pairs ${pairs} partner ${partner} tokens ${tokens} rows ${rows} grouped ${grouped} skew ${skew}`;
  for (let t = 0; t < tokens; t++) {
    for (let r = 0; r < rows; r++) {
      const row = t * tokenStride + r * rowStride;
      for (let i = 0; i < pairs; i++) {
        const [ia, ib] = pairing === 'half' ? [row + i, row + i + (partner || pairs)] : [row + 2 * i, row + 2 * i + 1];
        touched.add(ia).add(ib);
        const a = before[ia], b = before[ib];
        const c = f32[cs[t].c + (pairing === 'half' ? i : 2 * i)];
        const s = pairing === 'half' ? f32[cs[t].s + i] : f32[cs[t].s + 2 * i + 1];
        const bound = (p, q) => 2 * U * (Math.abs(p) + Math.abs(q)) + 1e-45;
        assert.ok(Math.abs(out[ia] - (a * c - b * s)) <= bound(a * c, b * s), `${what}: lane ${ia} ${out[ia]} vs ${a * c - b * s}`);
        assert.ok(Math.abs(out[ib] - (a * s + b * c)) <= bound(a * s, b * c), `${what}: lane ${ib} ${out[ib]} vs ${a * s + b * c}`);
        const C = Math.cos(cs[t].angle[i]), S = Math.sin(cs[t].angle[i]);
        assert.ok(Math.abs(out[ia] - (a * C - b * S)) <= 1e-6 * 2, `${what}: lane ${ia} vs the float64 rotation`);
        assert.ok(Math.abs(out[ib] - (a * S + b * C)) <= 1e-6 * 2, `${what}: lane ${ib} vs the float64 rotation`);
      }
    }
  }
  for (let j = 0; j < total; j++) if (!touched.has(j)) assert.equal(out[j], before[j], `${what}: lane ${j} is not rotated and must keep its value`);
}

let cases = 0;
for (const pairing of ['half', 'interleaved']) {
  for (const pairs of [1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 32, 33, 64]) {
    for (const grouped of [true, false]) {
      for (const [tokens, rows] of [[1, 1], [2, 3], [3, 2]]) {
        for (const partner of pairing === 'half' ? [0, pairs + 3] : [0]) {
          check({ pairing, pairs, tokens, rows, grouped, partner, positions: [0, 4096, 1e6].slice(0, tokens).concat([7]).slice(0, tokens), skew: (pairs + tokens) % 4 });
          cases++;
        }
      }
    }
  }
}
// Which rounding this machine's relaxed madd does (reported, not required): with e = 1 + 2^-23,
// a = 1, c = fl(e^2) = 1 + 2^-22, b = s = e, the lane a c - b s is -2^-46 fused and 0 when b s is
// rounded first.
next = 1024;
const x = alloc(8), c = alloc(4), s = alloc(4), cp = alloc(1), sp = alloc(1);
const e = 1 + 2 ** -23;
f32.set([1, 1, 1, 1, e, e, e, e], x / 4);
f32.fill(Math.fround(e * e), c / 4, c / 4 + 4);
f32.fill(e, s / 4, s / 4 + 4);
u32[cp / 4] = c;
u32[sp / 4] = s;
k.rotate_half_tokens(x, 1, 8, 1, 8, cp, sp, 4, true, 0);
assert.ok(f32[x / 4] === 0 || f32[x / 4] === -(2 ** -46), `a fused or an unfused multiply-add, got ${f32[x / 4]}`);
console.log(JSON.stringify({ cases, rounding: f32[x / 4] === 0 ? 'unfused' : 'fused' }));
