// T5 relative position bias (Raffel et al. 2020; HF T5Attention.compute_bias): bias[h, i, j] =
// table[bucket(j - i), h], bidirectional, 32 buckets, max distance 128, for a square [q, k].
// Every row is a shifted copy of one vector per head, so the output write is the bound.
import { randomFloats } from '../harness/data.mjs';
import { allocateAndCopy, defaultPathOverhead, withinBound, withinRow } from '../harness/targets.mjs';

const NUM_BUCKETS = 32;
const MAX_DISTANCE = 128;

/** The bucket of rel = key - query (bidirectional), in float64 as the docs define it. */
function bucketOf(rel) {
  const nb = NUM_BUCKETS / 2;
  const out = rel > 0 ? nb : 0;
  const n = Math.abs(rel);
  const maxExact = nb / 2;
  if (n < maxExact) return out + n;
  const large = maxExact + Math.trunc((Math.log(n / maxExact) / Math.log(MAX_DISTANCE / maxExact)) * (nb - maxExact));
  return out + Math.min(nb - 1, large);
}

/** tfjs port of HF's _relative_position_bucket (float32 log, as HF computes it) and compute_bias. */
function tfBias(tf, tableT, q, k) {
  return tf.tidy(() => {
    const rel = tf.sub(tf.reshape(tf.range(0, k, 1, 'int32'), [1, k]), tf.reshape(tf.range(0, q, 1, 'int32'), [q, 1]));
    const nb = NUM_BUCKETS / 2;
    const maxExact = nb / 2;
    const ret = tf.mul(tf.cast(tf.greater(rel, 0), 'int32'), tf.scalar(nb, 'int32'));
    const n = tf.abs(rel);
    const isSmall = tf.less(n, tf.scalar(maxExact, 'int32'));
    const ratio = tf.div(tf.log(tf.div(tf.cast(n, 'float32'), maxExact)), Math.log(MAX_DISTANCE / maxExact));
    const int = (v) => tf.scalar(v, 'int32'); // plain numbers would promote the int32 math to float32
    const large = tf.minimum(tf.add(tf.cast(tf.mul(ratio, nb - maxExact), 'int32'), int(maxExact)), int(nb - 1));
    const buckets = tf.add(ret, tf.where(isSmall, n, large));
    return tf.transpose(tf.gather(tableT, buckets), [2, 0, 1]); // [q, k, heads] -> [heads, q, k]
  });
}

export default {
  id: 't5',
  title: 'T5 relative position bias',
  cases() {
    const out = [];
    for (const heads of [12, 16]) {
      for (const len of [128, 1024]) {
        out.push({
          id: `t5-bias-${heads}x${len}x${len}`,
          label: `T5 bias, ${heads} heads × ${len} × ${len}`,
          bytes: heads * len * len * 4,
          params: { heads, qLen: len, kLen: len },
          input: () => randomFloats(NUM_BUCKETS * heads, heads + len, -1, 1), // the [numBuckets, heads] table
        });
      }
    }
    return out;
  },
  contenders: [
    {
      id: 'js-naive',
      label: 'naive JS (a bucket per element)',
      peer: 'js-naive',
      reference: true,
      prepare(p, table) {
        let out;
        return {
          run() {
            out = new Float32Array(p.heads * p.qLen * p.kLen);
            for (let i = 0; i < p.qLen; i++) {
              for (let j = 0; j < p.kLen; j++) {
                const b = bucketOf(j - i);
                for (let h = 0; h < p.heads; h++) out[(h * p.qLen + i) * p.kLen + j] = table[b * p.heads + h];
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
      prepare(p, table) {
        let out;
        return {
          run() {
            const span = p.qLen + p.kLen - 1;
            const vec = new Float32Array(span);
            out = new Float32Array(p.heads * p.qLen * p.kLen);
            for (let h = 0; h < p.heads; h++) {
              for (let d = 0; d < span; d++) vec[d] = table[bucketOf(d - (p.qLen - 1)) * p.heads + h];
              for (let i = 0; i < p.qLen; i++) { // row i is rel = j - i: vec[j - i + qLen - 1]
                out.set(vec.subarray(p.qLen - 1 - i, p.qLen - 1 - i + p.kLen), (h * p.qLen + i) * p.kLen);
              }
            }
          },
          output: () => out,
        };
      },
    },
    {
      id: 'tfjs',
      label: 'tfjs wasm (HF compute_bias as tf ops, dataSync)',
      peer: 'tfjs',
      needs: 'tf',
      prepare(p, table, { tf }) {
        const tableT = tf.tensor(table, [NUM_BUCKETS, p.heads]);
        let out;
        return {
          run() {
            const y = tfBias(tf, tableT, p.qLen, p.kLen);
            out = y.dataSync();
            y.dispose();
          },
          output: () => out,
          dispose: () => tableT.dispose(),
        };
      },
    },
    {
      id: 'posenc-bias',
      label: 'posenc t5.bias',
      peer: 'posenc',
      prepare(p, table, { pe }) {
        const t = { data: table, dims: [NUM_BUCKETS, p.heads] };
        const opts = { qLen: p.qLen, kLen: p.kLen };
        let out;
        return { run: () => { out = pe.t5.bias(t, opts).data; }, output: () => out };
      },
    },
    {
      id: 'posenc-bias-wasm',
      label: 'posenc t5.bias into a WasmTensor (out option, no copy)',
      peer: 'posenc',
      prepare(p, table, { pe }) {
        const t = { data: table, dims: [NUM_BUCKETS, p.heads] };
        const target = pe.memory.tensor([p.heads, p.qLen, p.kLen]);
        const opts = { qLen: p.qLen, kLen: p.kLen, out: target }; // built once, not in the timed call
        return {
          run: () => { pe.t5.bias(t, opts); },
          output: () => target.view(),
          dispose: () => target.dispose(),
        };
      },
    },
    {
      id: 'posenc-bias-out',
      label: "posenc t5.bias into the caller's reused Float32Array (out option)",
      peer: 'posenc',
      prepare(p, table, { pe }) {
        const t = { data: table, dims: [NUM_BUCKETS, p.heads] };
        const target = new Float32Array(p.heads * p.qLen * p.kLen);
        const opts = { qLen: p.qLen, kLen: p.kLen, out: target };
        return { run: () => { pe.t5.bias(t, opts); }, output: () => target };
      },
    },
    allocateAndCopy((p, table, { pe }) => pe.t5.bias({ data: table, dims: [NUM_BUCKETS, p.heads] }, { qLen: p.qLen, kLen: p.kLen }).data),
  ],
  summary: { rows: ['posenc-bias', 'posenc-bias-out', 'posenc-bias-wasm', 'alloc-copy'], names: { 'alloc-copy': 'bound: new Float32Array(n) + set()', 'posenc-bias': 't5.bias', 'posenc-bias-out': 't5.bias, out: Float32Array (reused)', 'posenc-bias-wasm': 't5.bias, out: WasmTensor' } },
  targets: [
    defaultPathOverhead({
      text: 'T5 bias: the default path (a new Float32Array) costs at most 1.25× a bare allocate-and-copy of the result (32 MiB and up) more than out: WasmTensor',
      row: 'posenc-bias',
      out: 'posenc-bias-wasm',
      limit: 1.25,
    }),
    withinRow({
      text: "T5 bias into the caller's reused Float32Array (out): within 2× of the same call into a WasmTensor",
      rows: ['posenc-bias-out'],
      twin: 'posenc-bias-wasm',
      limit: 2,
    }),
    withinBound({
      text: 'T5 bias: posenc within 1.5× of the memory-fill bound (written into WebAssembly memory, like the bound)',
      rows: ['posenc-bias-wasm'],
      bound: 'fill',
      limit: 1.5,
    }),
  ],
};
