// ALiBi bias (Press et al. 2022), causal form with the mask folded in: bias[h, i, j] = -m_h (i - j)
// for j <= i, -Infinity above the diagonal; a square [q, k]. Rows are shifted copies of one vector
// per head, so the output write is the bound.

import { allocateAndCopy, defaultPathOverhead, withinBound, withinRow } from '../harness/targets.mjs';

/** The paper's get_slopes (maxBias 8), including the non-power-of-two interleave. */
function slopes(n) {
  const powerOf2 = (m) => Array.from({ length: m }, (_, i) => 2 ** (-8 * (i + 1) / m));
  const c = 2 ** Math.floor(Math.log2(n));
  if (c === n) return powerOf2(n);
  return [...powerOf2(c), ...powerOf2(2 * c).filter((_, i) => i % 2 === 0).slice(0, n - c)];
}

export default {
  id: 'alibi',
  title: 'ALiBi bias',
  cases() {
    const out = [];
    for (const heads of [12, 16]) {
      for (const len of [128, 1024]) {
        out.push({
          id: `alibi-bias-${heads}x${len}x${len}`,
          label: `ALiBi bias (causal, masked), ${heads} heads × ${len} × ${len}`,
          bytes: heads * len * len * 4,
          params: { heads, qLen: len, kLen: len },
        });
      }
    }
    return out;
  },
  contenders: [
    {
      id: 'js-naive',
      label: 'naive JS (per element)',
      peer: 'js-naive',
      reference: true,
      prepare(p) {
        let out;
        return {
          run() {
            const m = slopes(p.heads);
            out = new Float32Array(p.heads * p.qLen * p.kLen);
            for (let h = 0; h < p.heads; h++) {
              for (let i = 0; i < p.qLen; i++) {
                for (let j = 0; j < p.kLen; j++) out[(h * p.qLen + i) * p.kLen + j] = j > i ? -Infinity : -m[h] * (i - j);
              }
            }
          },
          output: () => out,
        };
      },
    },
    {
      id: 'js-opt',
      label: 'optimised JS (one vector per head, rows copied)',
      peer: 'js-opt',
      prepare(p) {
        let out;
        return {
          run() {
            const m = slopes(p.heads);
            const span = p.qLen + p.kLen - 1;
            const vec = new Float32Array(span);
            out = new Float32Array(p.heads * p.qLen * p.kLen);
            for (let h = 0; h < p.heads; h++) {
              for (let d = 0; d < span; d++) { // d = j - i + qLen - 1
                const rel = d - (p.qLen - 1);
                vec[d] = rel > 0 ? -Infinity : m[h] * rel;
              }
              for (let i = 0; i < p.qLen; i++) out.set(vec.subarray(p.qLen - 1 - i, p.qLen - 1 - i + p.kLen), (h * p.qLen + i) * p.kLen);
            }
          },
          output: () => out,
        };
      },
    },
    {
      id: 'tfjs',
      label: 'tfjs wasm (slopes × distance, where-mask, dataSync)',
      peer: 'tfjs',
      needs: 'tf',
      prepare(p, _input, { tf }) {
        const m = tf.tensor(slopes(p.heads), [p.heads, 1, 1]);
        let out;
        return {
          run() {
            const y = tf.tidy(() => {
              const rel = tf.sub(tf.reshape(tf.range(0, p.kLen, 1, 'float32'), [1, p.kLen]), tf.reshape(tf.range(0, p.qLen, 1, 'float32'), [p.qLen, 1]));
              const values = tf.mul(m, tf.reshape(rel, [1, p.qLen, p.kLen]));
              return tf.where(tf.greater(rel, 0), tf.fill([p.heads, p.qLen, p.kLen], -Infinity), values);
            });
            out = y.dataSync();
            y.dispose();
          },
          output: () => out,
          dispose: () => m.dispose(),
        };
      },
    },
    {
      id: 'posenc-bias',
      label: 'posenc alibi.bias',
      peer: 'posenc',
      prepare(p, _input, { pe }) {
        const opts = { numHeads: p.heads, qLen: p.qLen, kLen: p.kLen };
        let out;
        return { run: () => { out = pe.alibi.bias(opts).data; }, output: () => out };
      },
    },
    {
      id: 'posenc-bias-wasm',
      label: 'posenc alibi.bias into a WasmTensor (out option, no copy)',
      peer: 'posenc',
      prepare(p, _input, { pe }) {
        const target = pe.memory.tensor([p.heads, p.qLen, p.kLen]);
        const opts = { numHeads: p.heads, qLen: p.qLen, kLen: p.kLen, out: target }; // built once, not in the timed call
        return {
          run: () => { pe.alibi.bias(opts); },
          output: () => target.view(),
          dispose: () => target.dispose(),
        };
      },
    },
    {
      id: 'posenc-bias-out',
      label: "posenc alibi.bias into the caller's reused Float32Array (out option)",
      peer: 'posenc',
      prepare(p, _input, { pe }) {
        const target = new Float32Array(p.heads * p.qLen * p.kLen);
        const opts = { numHeads: p.heads, qLen: p.qLen, kLen: p.kLen, out: target };
        return { run: () => { pe.alibi.bias(opts); }, output: () => target };
      },
    },
    allocateAndCopy((p, _input, { pe }) => pe.alibi.bias({ numHeads: p.heads, qLen: p.qLen, kLen: p.kLen }).data),
  ],
  summary: { rows: ['posenc-bias', 'posenc-bias-out', 'posenc-bias-wasm', 'alloc-copy'], names: { 'alloc-copy': 'bound: new Float32Array(n) + set()', 'posenc-bias': 'alibi.bias', 'posenc-bias-out': 'alibi.bias, out: Float32Array (reused)', 'posenc-bias-wasm': 'alibi.bias, out: WasmTensor' } },
  targets: [
    defaultPathOverhead({
      text: 'ALiBi bias: the default path (a new Float32Array) costs at most 1.25× a bare allocate-and-copy of the result (32 MiB and up) more than out: WasmTensor',
      row: 'posenc-bias',
      out: 'posenc-bias-wasm',
      limit: 1.25,
    }),
    withinRow({
      text: "ALiBi bias into the caller's reused Float32Array (out): within 2× of the same call into a WasmTensor",
      rows: ['posenc-bias-out'],
      twin: 'posenc-bias-wasm',
      limit: 2,
    }),
    withinBound({
      text: 'ALiBi bias: posenc within 1.5× of the memory-fill bound (written into WebAssembly memory, like the bound)',
      rows: ['posenc-bias-wasm'],
      bound: 'fill',
      limit: 1.5,
    }),
  ],
};
