// RoPE in place on q [1, tokens, heads, headDim] (bshd), both pairings, base 10000: every
// contender rotates the same data at the same positions (prefill from 0; the 1-token decode step
// at position 1000).
import { ROTARY_FLAVOURS, rotarySession } from '../peers/ort.mjs';
import { randomFloats } from '../harness/data.mjs';
import { onSimd128 } from '../harness/simd128-twin.mjs';
import { withinBound, withinMicrosOf } from '../harness/targets.mjs';

const BASE = 10000;

function shape(p) {
  return [1, p.tokens, p.heads, p.dim];
}

/** cos/sin of (offset + t) * w_i in float64, rounded to float32: [rows, pairs] each. */
function cosSinTable(p, rows, first = 0) {
  const pairs = p.dim / 2;
  const cos = new Float32Array(rows * pairs);
  const sin = new Float32Array(rows * pairs);
  for (let t = 0; t < rows; t++) {
    for (let i = 0; i < pairs; i++) {
      const angle = (first + t) * BASE ** (-2 * i / p.dim);
      cos[t * pairs + i] = Math.cos(angle);
      sin[t * pairs + i] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

/** In-place contenders: each gets its own copy of the input. */
const inPlace = (x, run) => ({ run, output: () => x });

// --- naive JavaScript: what a web developer writes first (and the float64 reference) ----------
function ropeNaive(x, p) {
  const { tokens, heads, dim, offset } = p;
  const half = dim / 2;
  for (let s = 0; s < tokens; s++) {
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < half; i++) {
        const theta = (offset + s) / Math.pow(BASE, (2 * i) / dim);
        const cos = Math.cos(theta);
        const sin = Math.sin(theta);
        const row = (s * heads + h) * dim;
        const ia = p.pairing === 'half' ? row + i : row + 2 * i;
        const ib = p.pairing === 'half' ? row + i + half : row + 2 * i + 1;
        const a = x[ia];
        const b = x[ib];
        x[ia] = a * cos - b * sin;
        x[ib] = a * sin + b * cos;
      }
    }
  }
}

// --- optimised JavaScript: a float32 cos/sin cache built once, tight loops -----------------------
function ropeOptimised(x, p, cache) {
  const { tokens, heads, dim, offset } = p;
  const pairs = dim / 2;
  const { cos, sin } = cache;
  const interleaved = p.pairing === 'interleaved';
  for (let s = 0; s < tokens; s++) {
    const c0 = (offset + s) * pairs;
    for (let h = 0; h < heads; h++) {
      const row = (s * heads + h) * dim;
      if (interleaved) {
        for (let i = 0, j = row; i < pairs; i++, j += 2) {
          const c = cos[c0 + i];
          const sn = sin[c0 + i];
          const a = x[j];
          const b = x[j + 1];
          x[j] = a * c - b * sn;
          x[j + 1] = a * sn + b * c;
        }
      } else {
        for (let i = 0; i < pairs; i++) {
          const c = cos[c0 + i];
          const sn = sin[c0 + i];
          const a = x[row + i];
          const b = x[row + i + pairs];
          x[row + i] = a * c - b * sn;
          x[row + i + pairs] = a * sn + b * c;
        }
      }
    }
  }
}

// --- tfjs: the rotation as tf ops (HF's rotate_half, or an even/odd split) -----------------------
function tfContender(tf, p, input) {
  const pairs = p.dim / 2;
  const { cos, sin } = cosSinTable(p, p.tokens, p.offset);
  const half = p.pairing === 'half';
  let cosT;
  let sinT;
  if (half) { // [tokens, 1, dim] = cat(cos, cos), broadcast over heads
    const c2 = new Float32Array(p.tokens * p.dim);
    const s2 = new Float32Array(p.tokens * p.dim);
    for (let t = 0; t < p.tokens; t++) {
      for (let i = 0; i < pairs; i++) {
        c2[t * p.dim + i] = c2[t * p.dim + i + pairs] = cos[t * pairs + i];
        s2[t * p.dim + i] = s2[t * p.dim + i + pairs] = sin[t * pairs + i];
      }
    }
    cosT = tf.tensor(c2, [p.tokens, 1, p.dim]);
    sinT = tf.tensor(s2, [p.tokens, 1, p.dim]);
  } else { // [tokens, 1, pairs, 1]
    cosT = tf.tensor(cos, [p.tokens, 1, pairs, 1]);
    sinT = tf.tensor(sin, [p.tokens, 1, pairs, 1]);
  }
  let out;
  return {
    run() {
      const y = tf.tidy(() => {
        const x = tf.tensor(input, [p.tokens, p.heads, p.dim]);
        if (half) {
          const x1 = tf.slice(x, [0, 0, 0], [-1, -1, pairs]);
          const x2 = tf.slice(x, [0, 0, pairs], [-1, -1, pairs]);
          const rotated = tf.concat([tf.neg(x2), x1], 2);
          return tf.add(tf.mul(x, cosT), tf.mul(rotated, sinT));
        }
        const xp = tf.reshape(x, [p.tokens, p.heads, pairs, 2]);
        const a = tf.slice(xp, [0, 0, 0, 0], [-1, -1, -1, 1]);
        const b = tf.slice(xp, [0, 0, 0, 1], [-1, -1, -1, 1]);
        const ra = tf.sub(tf.mul(a, cosT), tf.mul(b, sinT));
        const rb = tf.add(tf.mul(a, sinT), tf.mul(b, cosT));
        return tf.reshape(tf.concat([ra, rb], 3), [p.tokens, p.heads, p.dim]);
      });
      out = y.dataSync();
      y.dispose();
    },
    output: () => out,
    dispose() {
      cosT.dispose();
      sinT.dispose();
    },
  };
}

// --- onnxruntime-web: one RotaryEmbedding node --------------------------------------------------
function ortContender(flavour) {
  return {
    id: `ort-${flavour}`,
    label: `onnxruntime-web RotaryEmbedding (${flavour})`,
    peer: 'ort',
    needs: 'ort',
    async prepare(p, input, env) {
      const { ort } = env;
      const maxPositions = p.offset + p.tokens;
      const session = await rotarySession(ort, flavour, { heads: p.heads, headDim: p.dim, maxPositions, interleaved: p.pairing === 'interleaved' });
      const { cos, sin } = cosSinTable(p, maxPositions);
      const pairs = p.dim / 2;
      const ids = new BigInt64Array(p.tokens);
      for (let t = 0; t < p.tokens; t++) ids[t] = BigInt(p.offset + t);
      const feeds = {
        X: new ort.Tensor('float32', input, [1, p.tokens, p.heads * p.dim]),
        cos: new ort.Tensor('float32', cos, [maxPositions, pairs]),
        sin: new ort.Tensor('float32', sin, [maxPositions, pairs]),
        pos: new ort.Tensor('int64', ids, [1, p.tokens]),
      };
      let out;
      return {
        async: true,
        async run() {
          const result = await session.run(feeds);
          out = result.Y;
        },
        output: () => out.data,
        dispose: () => session.release(),
      };
    },
  };
}

/** rope.apply on a tensor in wasm memory: no copies. */
const posencApplyWasm = {
  id: 'posenc-apply-wasm',
  label: 'posenc rope.apply (WasmTensor, zero-copy)',
  peer: 'posenc',
  prepare(p, input, { pe }) {
    const x = pe.memory.tensor(shape(p), input);
    const opts = { layout: 'bshd', pairing: p.pairing, offset: p.offset };
    return { run: () => pe.rope.apply(x, null, opts), output: () => x.view(), dispose: () => x.dispose() };
  },
};

/** The decode and prefill path of a model: a cos/sin cache built once, q rotated in wasm memory. */
const posencCacheWasm = {
  id: 'posenc-cache-wasm',
  label: 'posenc RopeCache.apply (WasmTensor, zero-copy)',
  peer: 'posenc',
  prepare(p, input, { pe }) {
    const x = pe.memory.tensor(shape(p), input);
    const cache = pe.rope.createCache({ rotaryDim: p.dim, maxPositions: p.offset + p.tokens, pairing: p.pairing });
    const opts = { layout: 'bshd', offset: p.offset };
    return {
      run: () => cache.apply(x, null, opts),
      output: () => x.view(),
      dispose() {
        x.dispose();
        cache.dispose();
      },
    };
  },
};

export default {
  id: 'rope',
  title: 'RoPE in place',
  cases({ quick }) {
    const out = [];
    const tokens = quick ? [1, 128] : [1, 128, 2048];
    for (const t of tokens) {
      for (const heads of [8, 32]) {
        for (const dim of [64, 128]) {
          for (const pairing of ['half', 'interleaved']) {
            const p = { tokens: t, heads, dim, pairing, offset: t === 1 ? 1000 : 0 };
            out.push({
              id: `rope-${pairing}-${t}x${heads}x${dim}`,
              label: `RoPE ${pairing}, ${t} token${t > 1 ? 's' : ''} × ${heads} heads × ${dim}${t === 1 ? ' (decode at position 1000)' : ''}`,
              bytes: t * heads * dim * 4,
              rotRowFloats: dim, // the rot bound rotates rows of one head, halves paired
              params: p,
              input: () => randomFloats(t * heads * dim, t + 7 * heads + dim, -1, 1),
            });
          }
        }
      }
    }
    return out;
  },
  contenders: [
    {
      id: 'js-naive',
      label: 'naive JS (Math.pow/cos/sin per element)',
      peer: 'js-naive',
      reference: true,
      prepare(p, input) {
        const x = input.slice();
        return inPlace(x, () => ropeNaive(x, p));
      },
    },
    {
      id: 'js-opt',
      label: 'optimised JS (float32 cos/sin cache)',
      peer: 'js-opt',
      prepare(p, input) {
        const x = input.slice();
        const cache = cosSinTable(p, p.offset + p.tokens);
        return inPlace(x, () => ropeOptimised(x, p, cache));
      },
    },
    {
      id: 'tfjs',
      label: 'tfjs wasm (tf ops, tensor in + dataSync)',
      peer: 'tfjs',
      needs: 'tf',
      prepare: (p, input, env) => tfContender(env.tf, p, input),
    },
    ...Object.keys(ROTARY_FLAVOURS).map(ortContender),
    {
      id: 'posenc-apply',
      label: 'posenc rope.apply (Float32Array, copies)',
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = input.slice();
        const opts = { layout: 'bshd', dims: shape(p), pairing: p.pairing, offset: p.offset };
        return inPlace(x, () => pe.rope.apply(x, null, opts));
      },
    },
    posencApplyWasm,
    onSimd128(posencApplyWasm),
    {
      id: 'posenc-cache',
      label: 'posenc RopeCache.apply (Float32Array, copies)',
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = input.slice();
        const cache = pe.rope.createCache({ rotaryDim: p.dim, maxPositions: p.offset + p.tokens, pairing: p.pairing });
        const opts = { layout: 'bshd', dims: shape(p), offset: p.offset };
        return { run: () => cache.apply(x, null, opts), output: () => x, dispose: () => cache.dispose() };
      },
    },
    posencCacheWasm,
    onSimd128(posencCacheWasm),
  ],
  summary: {
    cases: (c) => {
      const big = c.params.heads === 32 && c.params.dim === 128;
      const small = c.params.heads === 8 && c.params.dim === 64;
      return (c.params.pairing === 'half' && (big || small)) || (big && c.params.tokens >= 128);
    },
    rows: ['posenc-apply', 'posenc-apply-wasm', 'posenc-cache', 'posenc-cache-wasm'],
    names: {
      'posenc-apply': 'rope.apply, copies', 'posenc-apply-wasm': 'rope.apply, WasmTensor',
      'posenc-cache': 'RopeCache.apply, copies', 'posenc-cache-wasm': 'RopeCache.apply, WasmTensor',
    },
  },
  targets: [
    withinBound({
      text: 'RoPE in place, ≥128 tokens: posenc (zero-copy) within 1.5× of the in-place SIMD pass (rmw)',
      select: (c) => c.params.tokens >= 128,
      rows: ['posenc-apply-wasm', 'posenc-cache-wasm'],
      bound: 'rmw',
      limit: 1.5,
      format: (v, r) => `${v.toFixed(2)}× rmw (${r.vsBound.rot.toFixed(2)}× the rotation alone)`,
    }),
    {
      text: 'RoPE in place, ≥128 tokens: posenc (zero-copy) ≥5× faster than optimised JS',
      select: (c) => c.params.tokens >= 128,
      rows: ['posenc-apply-wasm', 'posenc-cache-wasm'],
      measure: (r) => r.vsPeer['js-opt'],
      pass: (v) => v >= 5,
      format: (v) => `${v.toFixed(1)}× faster`,
    },
    {
      text: 'RoPE in place, ≥128 tokens: posenc (zero-copy) ≥5× faster than onnxruntime-web',
      select: (c) => c.params.tokens >= 128,
      rows: ['posenc-apply-wasm', 'posenc-cache-wasm'],
      measure: (r) => r.vsPeer.ort,
      pass: (v) => v >= 5,
      format: (v) => `${v.toFixed(1)}× faster`,
    },
    withinBound({
      text: 'RoPE in place, ≥128 tokens: the default calls (Float32Array, copies) within 3× of the in-place SIMD pass (rmw)',
      select: (c) => c.params.tokens >= 128,
      rows: ['posenc-apply', 'posenc-cache'],
      bound: 'rmw',
      limit: 3,
    }),
    withinMicrosOf({
      text: 'decode step (1 token, 32 heads × 128): the default calls (Float32Array, copies) within 1 µs of RopeCache.apply on a WasmTensor',
      select: (c) => c.params.tokens === 1 && c.params.heads === 32 && c.params.dim === 128,
      rows: ['posenc-apply', 'posenc-cache'],
      twin: 'posenc-cache-wasm',
      us: 1,
    }),
    {
      text: 'decode step (1 token, 32 heads × 128): posenc rope.apply with copies under 3 µs per call',
      select: (c) => c.params.tokens === 1 && c.params.heads === 32 && c.params.dim === 128,
      rows: ['posenc-apply'],
      measure: (r) => r.median * 1000,
      pass: (v) => v < 3,
      format: (v) => `${v.toFixed(2)} µs`,
    },
  ],
};
