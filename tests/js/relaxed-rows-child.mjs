// Run by relaxed-kernels.test.mjs under `node --experimental-wasm-relaxed-simd`: drives the
// relaxed-SIMD angle-row kernels of build/relaxed/posenc-relaxed.wasm (phasor_rows_narrow and
// phasor_rows_narrow_interleave) over a memory of their own and checks every output against the
// float64 recurrence of their kernels.hpp contract, within a bound that holds for both roundings of
// a relaxed madd, and the recurrence against the true sines and cosines; lanes outside the outputs
// keep their values. Exits non-zero on the first failure; prints the number of calls checked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const bytes = readFileSync(process.argv[2]);
const memory = new WebAssembly.Memory({ initial: 64 });
const { exports: k } = await WebAssembly.instantiate(await WebAssembly.compile(bytes), { env: { memory } });
const f32 = new Float32Array(memory.buffer);
const f64 = new Float64Array(memory.buffer);

const U = 2 ** -24; // float32 unit roundoff
const SENTINEL = 12345.5;
let next = 1024;
/** `count` elements of `size` bytes, 16-byte aligned plus `skew` elements; the bytes around stay sentinels. */
function alloc(count, size, skew = 0) {
  const at = next + size * skew;
  next = at + size * count + 64;
  next += (16 - (next % 16)) % 16;
  return at;
}
const reset = () => {
  next = 1024;
  f32.fill(SENTINEL, 0, 1 << 20);
};

let cases = 0;

// --- phasors: `rows` steps of (c, s) <- (c cw - s sw, s cw + c sw), each row narrowed -------------
// The double phasors may differ from the plain formula by a few 1e-16 per step (fused or not); the
// narrowed float is then within half an ulp of the reference plus that drift.
function phasors({ n, rows, scale, interleave, cosOut = true, sinOut = true, skew = 0 }) {
  reset();
  const stride = (interleave ? 2 * n : n) + 5; // row stride in floats, with a gap the kernel must not touch
  const [c, s, cw, sw] = [0, 1, 2, 3].map(() => alloc(n, 8, skew % 2));
  const w = Array.from({ length: n }, (_, i) => 10000 ** (-i / n) * 1.3);
  const p0 = 1000.5;
  for (let i = 0; i < n; i++) {
    f64[c / 8 + i] = Math.cos(p0 * w[i]);
    f64[s / 8 + i] = Math.sin(p0 * w[i]);
    f64[cw / 8 + i] = Math.cos(w[i]);
    f64[sw / 8 + i] = Math.sin(w[i]);
  }
  let ref = { c: Array.from(f64.subarray(c / 8, c / 8 + n)), s: Array.from(f64.subarray(s / 8, s / 8 + n)) };
  const out = alloc(rows * stride, 4, skew);
  const out2 = interleave ? 0 : alloc(rows * stride, 4, skew + 1);
  const [cosAt, sinAt] = interleave ? [0, 0] : [cosOut ? out : 0, sinOut ? out2 : 0];
  if (interleave) k.phasor_rows_narrow_interleave(c, s, cw, sw, n, rows, scale, out, stride);
  else k.phasor_rows_narrow(c, s, cw, sw, n, rows, scale, cosAt, sinAt, stride);
  const what = `phasors n ${n} rows ${rows} scale ${scale} ${interleave ? 'interleave' : `cos ${cosOut} sin ${sinOut}`} skew ${skew}`;
  const drift = (r) => 8e-16 * (r + 1);
  const near = (got, want, r) => Math.abs(got - want) <= U * Math.abs(want) + drift(r) * Math.abs(scale) + 1e-45;
  for (let r = 0; r < rows; r++) {
    ref = {
      c: ref.c.map((ci, i) => ci * f64[cw / 8 + i] - ref.s[i] * f64[sw / 8 + i]),
      s: ref.s.map((si, i) => si * f64[cw / 8 + i] + ref.c[i] * f64[sw / 8 + i]),
    };
    for (let i = 0; i < n; i++) {
      const wantC = ref.c[i] * scale, wantS = ref.s[i] * scale;
      if (interleave) {
        assert.ok(near(f32[out / 4 + r * stride + 2 * i], wantS, r), `${what}: row ${r} sin ${i}`);
        assert.ok(near(f32[out / 4 + r * stride + 2 * i + 1], wantC, r), `${what}: row ${r} cos ${i}`);
      } else {
        if (cosOut) assert.ok(near(f32[out / 4 + r * stride + i], wantC, r), `${what}: row ${r} cos ${i}`);
        if (sinOut) assert.ok(near(f32[out2 / 4 + r * stride + i], wantS, r), `${what}: row ${r} sin ${i}`);
      }
      // and the true rotation: cos/sin of (p0 + r + 1) w (angles near 1300 carry ~1e-13 of rounding)
      const angle = (p0 + r + 1) * w[i];
      assert.ok(Math.abs(ref.c[i] - Math.cos(angle)) < 1e-12 && Math.abs(ref.s[i] - Math.sin(angle)) < 1e-12, `${what}: reference drift`);
    }
    const used = interleave ? 2 * n : n;
    for (let j = used; j < stride; j++) {
      assert.equal(f32[out / 4 + r * stride + j], SENTINEL, `${what}: row ${r} gap lane ${j}`);
      if (!interleave) assert.equal(f32[out2 / 4 + r * stride + j], SENTINEL, `${what}: row ${r} gap lane ${j} (sin)`);
    }
  }
  if (!interleave && !cosOut) assert.equal(f32[out / 4], SENTINEL, `${what}: a null cos output is not written`);
  if (!interleave && !sinOut) assert.equal(f32[out2 / 4], SENTINEL, `${what}: a null sin output is not written`);
  for (let i = 0; i < n; i++) { // the phasors end at the last step
    assert.ok(Math.abs(f64[c / 8 + i] - ref.c[i]) <= drift(rows) && Math.abs(f64[s / 8 + i] - ref.s[i]) <= drift(rows), `${what}: final phasor ${i}`);
  }
  cases++;
}

for (const n of [1, 3, 4, 5, 8, 13, 64, 67]) {
  for (const rows of [1, 2, 4, 9]) {
    for (const scale of [1, 0.5, -3]) {
      phasors({ n, rows, scale, interleave: false, skew: n % 2 });
      phasors({ n, rows, scale, interleave: true, skew: (n + 1) % 2 });
    }
  }
  phasors({ n, rows: 4, scale: 1, interleave: false, cosOut: false });
  phasors({ n, rows: 4, scale: 2, interleave: false, sinOut: false });
}

console.log(JSON.stringify({ cases }));
