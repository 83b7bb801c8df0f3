// The jobs the compute worker runs (worker.js), each a posenc call and the presentation maths
// around it, returning its result and the buffers to transfer back. They also run on the main
// thread unchanged, which is how their maths can be checked outside a worker.
import { areaAverage } from './resample.js';
import { trainSteps } from './train.js';
import { randomVector } from '../toy.js';

/** @typedef {import('posenc').PosEnc} PosEnc */
/** @typedef {import('posenc').SinusoidLayout} SinusoidLayout */

/**
 * @typedef {object} SinusoidalArgs
 * @property {number} length
 * @property {number} dim
 * @property {number} base
 * @property {SinusoidLayout} layout
 * @property {number} viewRows  the heatmap's device pixels: the table is also returned averaged to them
 * @property {number} viewCols
 */

/** Row norms of a [rows, dim] table, in float64. @param {Float32Array} data @param {number} rows @param {number} dim */
export function rowNorms(data, rows, dim) {
  const norms = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = r * dim; j < (r + 1) * dim; j++) s += data[j] * data[j];
    norms[r] = Math.sqrt(s);
  }
  return norms;
}

/**
 * The sinusoidal table (pe.sinusoidal.table), its heatmap picture averaged to the plot's pixels,
 * and the norms of its rows (for cosine similarities).
 * @param {PosEnc} pe @param {SinusoidalArgs} a
 */
function sinusoidal(pe, a) {
  const table = pe.sinusoidal.table({ length: a.length, dim: a.dim, base: a.base, layout: a.layout });
  const rows = Math.min(a.length, a.viewRows);
  const cols = Math.min(a.dim, a.viewCols);
  const averaged = areaAverage(table.data, a.length, a.dim, rows, cols);
  const view = averaged === table.data ? null : { values: /** @type {Float32Array} */ (averaged), rows, cols };
  const norms = rowNorms(table.data, a.length, a.dim);
  return { result: { table, view, norms }, transfer: [table.data.buffer, norms.buffer, ...(view ? [view.values.buffer] : [])] };
}

/**
 * Chosen columns of the sinusoidal table at fractional positions (the waves' smooth curves): the
 * same pe.sinusoidal.table call with `positionIds`.
 * @param {PosEnc} pe
 * @param {{ ids: Float64Array, dim: number, base: number, layout: SinusoidLayout, columns: number[] }} a
 */
function sinusoidalCurves(pe, a) {
  const t = pe.sinusoidal.table({ positionIds: a.ids, dim: a.dim, base: a.base, layout: a.layout });
  const curves = a.columns.map((j) => Float32Array.from({ length: a.ids.length }, (_, s) => t.data[s * a.dim + j]));
  return { result: { curves }, transfer: curves.map((c) => c.buffer) };
}

/**
 * q·k for every query position m and key position n: one random query (randomVector seed 2·seed)
 * rotated to positions 0..n-1 and one random key (seed 2·seed + 1) likewise, in one pe.rope.apply
 * call with the page's options, then all n² dot products (float64 sums in lane order).
 * @param {PosEnc} pe
 * @param {{ n: number, seed: number, options: import('posenc').RopeApplyOptions & { headDim: number } }} a
 */
function ropeScores(pe, a) {
  const { n, seed } = a;
  const { headDim: d, ...options } = a.options;
  const q = randomVector(d, 2 * seed);
  const k = randomVector(d, 2 * seed + 1);
  const Q = new Float32Array(n * d);
  const K = new Float32Array(n * d);
  for (let r = 0; r < n; r++) {
    Q.set(q, r * d);
    K.set(k, r * d);
  }
  pe.rope.apply({ data: Q, dims: [n, d] }, { data: K, dims: [n, d] }, options);
  const values = new Float64Array(n * n);
  for (let m = 0; m < n; m++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let l = 0; l < d; l++) s += Q[m * d + l] * K[j * d + l];
      values[m * n + j] = s;
    }
  }
  return { result: { values }, transfer: [values.buffer] };
}

/**
 * RoFormer's long-term decay (Su et al. 2021, section 3.4.3): for each relative distance r, the
 * mean over j = 1..d/2 of |S_j|, S_j = Σ_{k<j} e^{i r θ_k}, with the angles r·θ_k from
 * pe.rope.angles (float64) for the spec's frequencies. Distances 0..maxDistance in steps of `step`.
 * @param {PosEnc} pe
 * @param {{ spec: import('posenc').RopeSpec, seqLen: number, maxDistance: number, step: number }} a
 */
function ropeDecay(pe, a) {
  const distances = [];
  for (let r = 0; r <= a.maxDistance; r += a.step) distances.push(r);
  const x = Float64Array.from(distances);
  const bound = new Float64Array(distances.length);
  const chunk = 512;
  for (let start = 0; start < distances.length; start += chunk) {
    const ids = distances.slice(start, start + chunk);
    const { data: angles, dims } = pe.rope.angles(a.spec, ids, { seqLen: a.seqLen });
    const half = /** @type {number} */ (dims[1]);
    for (let t = 0; t < ids.length; t++) {
      let re = 0;
      let im = 0;
      let total = 0;
      for (let k = 0; k < half; k++) {
        re += Math.cos(angles[t * half + k]);
        im += Math.sin(angles[t * half + k]);
        total += Math.hypot(re, im); // |S_{k+1}|
      }
      bound[start + t] = total / half;
    }
  }
  return { result: { x, bound }, transfer: [x.buffer, bound.buffer] };
}

/**
 * pe.precision.oracle for a spec or the plan of a config, and posenc's own error for the same RoPE
 * (the oracle's first layer with RoPE): the unit vector whose pair i is (cos(0.5 + i), sin(0.5 + i)),
 * rounded to float32, rotated by pe.rope.apply at every position, against the float64 rotation
 * (θ = p·w_i from pe.rope.frequencies at the context length, times the attention factor); the
 * largest error of each bucket of positions.
 * @param {PosEnc} pe
 * @param {{ spec?: import('posenc').RopeSpec & { headDim: number, rotaryDim: number, pairing: 'half' | 'interleaved' }, config?: string,
 *   contextLength: number, bucket: number, pipelines: string[] }} a
 */
function precisionOracle(pe, a) {
  const plan = a.config === undefined ? null : pe.model.fromConfig(a.config);
  const target = plan ?? /** @type {import('posenc').RopeSpec} */ (a.spec);
  const report = pe.precision.oracle(target, {
    contextLength: a.contextLength, bucket: a.bucket, pipelines: /** @type {any} */ (a.pipelines),
  });
  const layer = plan?.layers.find((l) => l.rope !== null)?.rope?.spec;
  const spec = /** @type {import('posenc').RopeSpec & { headDim: number, rotaryDim: number, pairing: 'half' | 'interleaved' }} */ (layer ?? a.spec);
  const { headDim: d, rotaryDim: r, pairing } = spec;
  const { invFreq, attentionFactor: A } = pe.rope.frequencies(spec, { seqLen: a.contextLength });
  const half = r / 2;
  const lanes = (/** @type {number} */ i) => (pairing === 'half' ? [i, i + half] : [2 * i, 2 * i + 1]);
  const unit = new Float32Array(d);
  for (let i = 0; i < half; i++) {
    const [x, y] = lanes(i);
    unit[x] = Math.cos(0.5 + i);
    unit[y] = Math.sin(0.5 + i);
  }
  const posenc = new Float64Array(report.positions.length);
  const rows = 2048;
  for (let start = 0; start < a.contextLength; start += rows) {
    const n = Math.min(rows, a.contextLength - start);
    const x = new Float32Array(n * d);
    for (let t = 0; t < n; t++) x.set(unit, t * d);
    pe.rope.apply(x, null, { ...spec, dims: [n, d], offset: start, seqLen: a.contextLength });
    for (let t = 0; t < n; t++) {
      const p = start + t;
      let worst = 0;
      for (let i = 0; i < half; i++) {
        const [xi, yi] = lanes(i);
        const angle = p * invFreq[i];
        const [c, s] = [Math.cos(angle) * A, Math.sin(angle) * A];
        const [u, v] = [unit[xi], unit[yi]];
        worst = Math.max(worst, Math.abs(x[t * d + xi] - (u * c - v * s)), Math.abs(x[t * d + yi] - (u * s + v * c)));
      }
      const b = Math.floor(p / a.bucket);
      posenc[b] = Math.max(posenc[b], worst);
    }
  }
  return { result: { ...report, posenc }, transfer: [posenc.buffer] };
}

/**
 * Trains the page's position table (compute/train.js) for about `budgetMs`, from `state`
 * on; returns the new state. The section chains these jobs, drawing the table between them.
 * @param {PosEnc} pe @param {{ state: import('./train.js').TrainState, budgetMs: number }} a
 */
function trainTable(pe, a) {
  const state = trainSteps(pe, a.state, a.budgetMs);
  return { result: { state }, transfer: [state.table.buffer, state.m.buffer, state.v.buffer, state.losses.buffer] };
}

export const JOBS = { sinusoidal, sinusoidalCurves, ropeScores, ropeDecay, precisionOracle, trainTable };
/** @typedef {typeof JOBS} Jobs */
/** @typedef {keyof Jobs} JobName */
