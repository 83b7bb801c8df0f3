// KV-cache context shift: one layer's cached keys [1, tokens, heads, headDim] (bshd), rotated keys
// moved back by 1024 positions in place. posenc rotates each pair in float64 and rounds once
// (src/encodings/rope_shift.cpp); JavaScript users would rotate with float32 cos/sin of the delta.
import { randomFloats } from '../harness/data.mjs';

const BASE = 10000;
const DELTA = -1024;

function lanes(p, i) {
  return p.pairing === 'half' ? [i, i + p.dim / 2] : [2 * i, 2 * i + 1];
}

/** Rotates every pair by DELTA * w_i: cos/sin given per pair. */
function rotate(x, p, cos, sin) {
  const pairs = p.dim / 2;
  for (let row = 0; row < p.tokens * p.heads; row++) {
    const o = row * p.dim;
    for (let i = 0; i < pairs; i++) {
      const [ja, jb] = lanes(p, i);
      const a = x[o + ja];
      const b = x[o + jb];
      x[o + ja] = a * cos[i] - b * sin[i];
      x[o + jb] = a * sin[i] + b * cos[i];
    }
  }
}

const angles = (p) => Array.from({ length: p.dim / 2 }, (_, i) => DELTA * BASE ** ((-2 * i) / p.dim));
const shape = (p) => [1, p.tokens, p.heads, p.dim];
const inPlace = (x, run) => ({ run, output: () => x });

export default {
  id: 'rope-shift',
  title: 'KV-cache context shift (rotated keys moved by -1024 positions, in place)',
  cases({ quick }) {
    const out = [];
    for (const tokens of quick ? [512] : [512, 4096]) {
      for (const pairing of ['half', 'interleaved']) {
        const p = { tokens, heads: 8, dim: 128, pairing, offset: 5000 };
        out.push({
          id: `rope-shift-${pairing}-${tokens}x8x128`,
          label: `context shift ${pairing}, ${tokens} cached keys × 8 heads × 128`,
          bytes: tokens * 8 * 128 * 4,
          params: p,
          input: () => randomFloats(tokens * 8 * 128, tokens + 3, -1, 1),
        });
      }
    }
    return out;
  },
  contenders: [
    {
      id: 'js-naive',
      label: 'naive JS (float64 cos/sin of the delta)',
      peer: 'js-naive',
      reference: true,
      prepare(p, input) {
        const x = input.slice();
        return inPlace(x, () => {
          const a = angles(p);
          rotate(x, p, a.map(Math.cos), a.map(Math.sin));
        });
      },
    },
    {
      id: 'js-opt',
      label: 'optimised JS (float32 cos/sin of the delta, computed once)',
      peer: 'js-opt',
      prepare(p, input) {
        const x = input.slice();
        const a = angles(p);
        const cos = Float32Array.from(a, Math.cos);
        const sin = Float32Array.from(a, Math.sin);
        return inPlace(x, () => rotate(x, p, cos, sin));
      },
    },
    {
      id: 'posenc-shift',
      label: 'posenc rope.shift (Float32Array, copies)',
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = input.slice();
        const opts = { layout: 'bshd', dims: shape(p), pairing: p.pairing, offset: p.offset, delta: DELTA };
        return inPlace(x, () => pe.rope.shift(x, opts));
      },
    },
    {
      id: 'posenc-shift-wasm',
      label: 'posenc rope.shift (WasmTensor, zero-copy)',
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = pe.memory.tensor(shape(p), input);
        const opts = { layout: 'bshd', pairing: p.pairing, offset: p.offset, delta: DELTA };
        return { run: () => pe.rope.shift(x, opts), output: () => x.view(), dispose: () => x.dispose() };
      },
    },
  ],
  summary: {
    rows: ['posenc-shift', 'posenc-shift-wasm'],
    names: { 'posenc-shift': 'rope.shift, copies', 'posenc-shift-wasm': 'rope.shift, WasmTensor' },
  },
  targets: [],
};
