// Sinusoidal encodings (Vaswani et al. 2017), paper (interleaved) layout, base 10000:
//   table   - the [length, dim] table for positions 0..length-1,
//   add     - x[1, length, dim] += table, in place.
import { randomFloats } from '../harness/data.mjs';
import { onSimd128 } from '../harness/simd128-twin.mjs';
import { allocateAndCopy, defaultPathOverhead, withinBound } from '../harness/targets.mjs';

const BASE = 10000;
const SHAPES = [[512, 768], [2048, 1024], [8192, 4096]];

// --- naive JavaScript (and the float64 reference) ------------------------------------------------
function naiveValue(pos, j, dim) {
  const i = Math.floor(j / 2);
  const angle = pos / Math.pow(BASE, (2 * i) / dim);
  return j % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
}

function tableNaive(length, dim) {
  const out = new Float32Array(length * dim);
  for (let pos = 0; pos < length; pos++) {
    for (let j = 0; j < dim; j++) out[pos * dim + j] = naiveValue(pos, j, dim);
  }
  return out;
}

// --- optimised JavaScript: frequencies hoisted, one sin and one cos per pair ---------------------
function tableOptimised(length, dim, out = new Float32Array(length * dim)) {
  const pairs = dim >> 1;
  const w = new Float64Array(pairs);
  for (let i = 0; i < pairs; i++) w[i] = BASE ** (-2 * i / dim);
  for (let pos = 0, row = 0; pos < length; pos++, row += dim) {
    for (let i = 0; i < pairs; i++) {
      const a = pos * w[i];
      out[row + 2 * i] = Math.sin(a);
      out[row + 2 * i + 1] = Math.cos(a);
    }
  }
  return out;
}

// --- tfjs: angles = positions x frequencies in float32, then sin/cos and an interleaving stack ---
function tfTable(tf, length, dim) {
  return tf.tidy(() => {
    const pos = tf.reshape(tf.range(0, length, 1, 'float32'), [length, 1]);
    const w = tf.reshape(tf.pow(tf.scalar(BASE), tf.div(tf.range(0, dim, 2, 'float32'), tf.scalar(-dim))), [1, dim / 2]);
    const angles = tf.mul(pos, w);
    return tf.reshape(tf.stack([tf.sin(angles), tf.cos(angles)], 2), [length, dim]);
  });
}

/** tfjs forms angles in float32: an angle a carries ~2 ulp(a) of error, so values are off by up to that. */
const float32AngleTolerance = (p) => 4 * (p.length - 1) * 2 ** -24 + 4e-6;

/**
 * The whole [length, dim] table written into WebAssembly memory (a WasmTensor passed as `out`): what
 * the table targets measure. (A cached createTable with precision 'fast' keeps anchor and offset rows only,
 * so it would not write these bytes.)
 */
/** `contender` and its twin on the SIMD128 kernels: a table's angle rows go through the relaxed phasor kernel. */
const withSimd128Twin = (contender) => [contender, onSimd128(contender)];

function tableIntoWasm(id, label, precision) {
  return {
    id,
    label,
    peer: 'posenc',
    ...(precision === 'fast' ? { tolerance: () => 3.2e-7 } : {}), // the documented bound of 'fast', checked on every value
    prepare(p, _input, { pe }) {
      const out = pe.memory.tensor([p.length, p.dim]);
      const opts = { length: p.length, dim: p.dim, precision, out };
      return { run: () => pe.sinusoidal.table(opts), output: () => out.view(), dispose: () => out.dispose() };
    },
  };
}

const table = {
  id: 'sinusoidal-table',
  title: 'Sinusoidal table',
  cases() {
    return SHAPES.map(([length, dim]) => ({
      id: `sinusoidal-table-${length}x${dim}`,
      label: `sinusoidal table ${length} × ${dim}`,
      bytes: length * dim * 4,
      params: { length, dim },
    }));
  },
  summary: {
    rows: ['posenc-table', 'posenc-table-wasm', 'posenc-table-fast-wasm', 'alloc-copy'],
    names: {
      'alloc-copy': 'bound: new Float32Array(n) + set()',
      'posenc-table': 'sinusoidal.table (copied out)',
      'posenc-table-wasm': 'sinusoidal.table, out: WasmTensor',
      'posenc-table-fast-wasm': "sinusoidal.table, precision 'fast', out: WasmTensor",
    },
  },
  contenders: [
    {
      id: 'js-naive',
      label: 'naive JS (Math.pow/sin/cos per element)',
      peer: 'js-naive',
      reference: true,
      prepare(p) {
        let out;
        return { run: () => { out = tableNaive(p.length, p.dim); }, output: () => out };
      },
    },
    {
      id: 'js-opt',
      label: 'optimised JS (hoisted frequencies, Float32Array)',
      peer: 'js-opt',
      prepare(p) {
        let out;
        return { run: () => { out = tableOptimised(p.length, p.dim); }, output: () => out };
      },
    },
    {
      id: 'tfjs',
      label: 'tfjs wasm (tf ops, float32 angles, dataSync)',
      peer: 'tfjs',
      needs: 'tf',
      tolerance: float32AngleTolerance,
      prepare(p, _input, { tf }) {
        let out;
        return {
          run() {
            const t = tfTable(tf, p.length, p.dim);
            out = t.dataSync();
            t.dispose();
          },
          output: () => out,
        };
      },
    },
    {
      id: 'posenc-table',
      label: 'posenc sinusoidal.table (copied out)',
      peer: 'posenc',
      prepare(p, _input, { pe }) {
        let out;
        return { run: () => { out = pe.sinusoidal.table({ length: p.length, dim: p.dim }).data; }, output: () => out };
      },
    },
    ...withSimd128Twin(tableIntoWasm('posenc-table-wasm', "posenc sinusoidal.table into a WasmTensor (out option, no copy)", 'exact')),
    ...withSimd128Twin(tableIntoWasm('posenc-table-fast-wasm', "posenc sinusoidal.table, precision 'fast', into a WasmTensor (float32 rows between exact anchors)", 'fast')),
    allocateAndCopy((p, _input, { pe }) => pe.sinusoidal.table({ length: p.length, dim: p.dim }).data),
  ],
  targets: [
    defaultPathOverhead({
      text: 'sinusoidal table: the default path (a new Float32Array) costs at most 1.25× a bare allocate-and-copy of the result (32 MiB and up) more than out: WasmTensor',
      row: 'posenc-table',
      out: 'posenc-table-wasm',
      limit: 1.25,
    }),
    withinBound({
      text: "sinusoidal table: posenc (in wasm memory, precision 'fast': at most 3.2e-7 off, inside the 1e-6 asked) within 3× of the memory-fill bound",
      rows: ['posenc-table-fast-wasm'],
      bound: 'fill',
      limit: 3,
    }),
    withinBound({
      text: "sinusoidal table, default precision 'exact' (every value the float64 formula rounded once): within 3× of the memory-fill bound",
      rows: ['posenc-table-wasm'],
      bound: 'fill',
      limit: 3,
    }),
  ],
};

/** A cached table (of the given precision and storage) added to a WasmTensor: no copies at all. */
function tableAddWasm(id, label, precision, storage) {
  return {
    id,
    label,
    peer: 'posenc',
    prepare(p, input, { pe }) {
      const x = pe.memory.tensor([1, p.length, p.dim], input);
      const t = pe.sinusoidal.createTable({ maxPositions: p.length, dim: p.dim, precision, storage });
      return {
        run: () => t.addTo(x),
        output: () => x.view(),
        dispose() {
          x.dispose();
          t.dispose();
        },
      };
    },
  };
}

const add = {
  id: 'sinusoidal-add',
  title: 'Sinusoidal add-in-place',
  cases() {
    return SHAPES.map(([length, dim]) => ({
      id: `sinusoidal-add-${length}x${dim}`,
      label: `sinusoidal add in place, x [1, ${length}, ${dim}]`,
      bytes: length * dim * 4,
      params: { length, dim },
      input: () => randomFloats(length * dim, length + dim, -1, 1),
    }));
  },
  summary: {
    rows: ['posenc-add', 'posenc-add-wasm', 'posenc-add-fast', 'posenc-table-add', 'posenc-table-add-wasm', 'posenc-fast-table-add-wasm', 'posenc-anchored-table-add-wasm'],
    names: {
      'posenc-add': 'sinusoidal.addTo, copies',
      'posenc-add-wasm': 'sinusoidal.addTo, WasmTensor',
      'posenc-add-fast': "sinusoidal.addTo, 'fast', copies",
      'posenc-table-add': 'PositionTable.addTo, copies',
      'posenc-table-add-wasm': 'PositionTable.addTo, WasmTensor',
      'posenc-fast-table-add-wasm': "PositionTable.addTo, 'fast', WasmTensor",
      'posenc-anchored-table-add-wasm': "PositionTable.addTo, 'fast', 'anchored', WasmTensor",
    },
  },
  contenders: [
    {
      id: 'js-naive',
      label: 'naive JS (computes every element, every call)',
      peer: 'js-naive',
      reference: true,
      prepare(p, input) {
        const x = input.slice();
        return {
          run() {
            for (let pos = 0; pos < p.length; pos++) {
              for (let j = 0; j < p.dim; j++) x[pos * p.dim + j] += naiveValue(pos, j, p.dim);
            }
          },
          output: () => x,
        };
      },
    },
    {
      id: 'js-opt',
      label: 'optimised JS (cached Float32Array table)',
      peer: 'js-opt',
      prepare(p, input) {
        const x = input.slice();
        const t = tableOptimised(p.length, p.dim);
        return {
          run() {
            for (let i = 0, n = x.length; i < n; i++) x[i] += t[i];
          },
          output: () => x,
        };
      },
    },
    {
      id: 'tfjs',
      label: 'tfjs wasm (cached table tensor, tensor in + dataSync)',
      peer: 'tfjs',
      needs: 'tf',
      tolerance: float32AngleTolerance,
      prepare(p, input, { tf }) {
        const t = tfTable(tf, p.length, p.dim);
        let out;
        return {
          run() {
            const y = tf.tidy(() => tf.add(tf.tensor(input, [p.length, p.dim]), t));
            out = y.dataSync();
            y.dispose();
          },
          output: () => out,
          dispose: () => t.dispose(),
        };
      },
    },
    {
      // x and the table both live in the tfjs wasm backend's memory: the add alone, no copies (a
      // new output tensor per call, as tf.add makes; the previous one is disposed).
      id: 'tfjs-resident',
      label: 'tfjs wasm (cached table tensor + resident x tensor, tf.add, no copies)',
      peer: 'tfjs',
      needs: 'tf',
      tolerance: float32AngleTolerance,
      prepare(p, input, { tf }) {
        const t = tfTable(tf, p.length, p.dim);
        const x = tf.tensor(input, [p.length, p.dim]);
        let y;
        return {
          run() {
            y?.dispose();
            y = tf.add(x, t);
          },
          output: () => y.dataSync(),
          dispose() {
            y?.dispose();
            x.dispose();
            t.dispose();
          },
        };
      },
    },
    {
      id: 'posenc-add',
      label: 'posenc sinusoidal.addTo (computes, copies)',
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = input.slice();
        const opts = { dims: [1, p.length, p.dim] };
        return { run: () => pe.sinusoidal.addTo(x, opts), output: () => x };
      },
    },
    {
      id: 'posenc-add-wasm',
      label: 'posenc sinusoidal.addTo (computes, WasmTensor, zero-copy)',
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = pe.memory.tensor([1, p.length, p.dim], input);
        return { run: () => pe.sinusoidal.addTo(x), output: () => x.view(), dispose: () => x.dispose() };
      },
    },
    {
      id: 'posenc-add-fast',
      label: "posenc sinusoidal.addTo (computes, precision 'fast', copies)",
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = input.slice();
        const opts = { dims: [1, p.length, p.dim], precision: 'fast' };
        return { run: () => pe.sinusoidal.addTo(x, opts), output: () => x };
      },
    },
    {
      id: 'posenc-table-add',
      label: 'posenc PositionTable.addTo (cached, copies)',
      peer: 'posenc',
      prepare(p, input, { pe }) {
        const x = input.slice();
        const t = pe.sinusoidal.createTable({ maxPositions: p.length, dim: p.dim });
        const opts = { dims: [1, p.length, p.dim] };
        return { run: () => t.addTo(x, opts), output: () => x, dispose: () => t.dispose() };
      },
    },
    tableAddWasm('posenc-table-add-wasm', 'posenc PositionTable.addTo (cached, WasmTensor)', 'exact'),
    tableAddWasm('posenc-fast-table-add-wasm', "posenc PositionTable.addTo (cached, precision 'fast', storage 'auto': full rows up to 256 MiB, WasmTensor)", 'fast'),
    tableAddWasm('posenc-anchored-table-add-wasm', "posenc PositionTable.addTo (cached, precision 'fast', storage 'anchored', WasmTensor)", 'fast', 'anchored'),
  ],
  targets: [
    withinBound({
      text: 'sinusoidal add in place: the default call (sinusoidal.addTo, Float32Array, computes every value) within 3× of the in-place SIMD pass (rmw)',
      rows: ['posenc-add'],
      bound: 'rmw',
      limit: 3,
      format: (v, r, c) => `${v.toFixed(2)}× rmw (the same call on a WasmTensor: ${c.rows.find((x) => x.id === 'posenc-add-wasm').vsBound.rmw.toFixed(2)}×)`,
    }),
    withinBound({
      text: "sinusoidal add in place: posenc (cached table, precision 'fast': at most 3.2e-7 off, zero-copy) within 1.5× of the in-place SIMD pass (rmw)",
      rows: ['posenc-fast-table-add-wasm'],
      bound: 'rmw',
      limit: 1.5,
      format: (v, r) => `${v.toFixed(2)}× rmw (${r.vsBound.add.toFixed(2)}× the add bound)`,
    }),
    {
      text: "sinusoidal add in place: posenc's cached tables (zero-copy) at least as fast as tfjs adding a resident cached table",
      select: () => true,
      rows: ['posenc-table-add-wasm', 'posenc-fast-table-add-wasm'],
      measure: (r) => r.vsPeer.tfjs,
      pass: (v) => v >= 1,
      format: (v) => `${v.toFixed(2)}× faster`,
    },
    withinBound({
      text: "sinusoidal add in place, default precision 'exact' (cached full table, zero-copy): within 1.5× of the in-place SIMD pass (rmw)",
      rows: ['posenc-table-add-wasm'],
      bound: 'rmw',
      limit: 1.5,
      format: (v, r) => `${v.toFixed(2)}× rmw (${r.vsBound.add.toFixed(2)}× the add bound)`,
    }),
  ],
};

export default [table, add];
