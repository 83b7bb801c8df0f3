// Training a position table in the page: the task, the model, its gradient (by hand) and Adam.
//
// Task: a sequence of L random numbers u_0..u_{L-1}; at each position i, output the mean of the
// numbers within `window` positions of i. Which numbers those are depends only on the positions,
// so the task needs order: without positions, attention cannot tell a neighbour from any other.
// Model: one attention head whose queries and keys are the rows of the table P [L, d] itself:
// A = softmax(P Pᵀ / √d) (pe.attention.scores), output ŷ_i = Σ_j A_ij u_j. Loss: mean squared
// error over a batch. P is the only parameter, so whatever order the task needs ends up in P.
// Everything is deterministic (xorshift32, no transcendental functions outside posenc), so the same
// settings train the same table in the page's worker and in a test.

/** Sequences per step. */
export const BATCH = 16;
const LEARNING_RATE = 0.03;
const BETA1 = 0.9;
const BETA2 = 0.999;
const EPSILON = 1e-8;
const SQRT3 = Math.sqrt(3);

/**
 * @typedef {object} TrainSettings
 * @property {number} positions  L, rows of the table
 * @property {number} dim  d, its width
 * @property {number} window  each output averages the inputs within this many positions
 * @property {number} steps  how many steps to train
 * @property {number} seed  the start (random rows) and the data
 */

/**
 * @typedef {TrainSettings & {
 *   step: number, rng: number, table: Float32Array, m: Float64Array, v: Float64Array, powers: [number, number], losses: Float32Array
 * }} TrainState  the table, Adam's moments (and β1^step, β2^step), the random generator's state and the loss of every step so far
 */

/** The next number of a xorshift32 generator state, in [-1, 1), and the new state. @param {number} s @returns {[number, number]} */
function next(s) {
  s ^= s << 13; s >>>= 0;
  s ^= s >>> 17;
  s ^= s << 5; s >>>= 0;
  return [-1 + (2 * s) / 4294967296, s];
}

/** A fresh state: random rows (uniform, standard deviation ½), no step taken. @param {TrainSettings} t @returns {TrainState} */
export function initialState(t) {
  let rng = ((t.seed * 2654435761) >>> 0) || 1;
  const table = new Float32Array(t.positions * t.dim);
  for (let k = 0; k < table.length; k++) {
    let r;
    [r, rng] = next(rng);
    table[k] = 0.5 * SQRT3 * r;
  }
  return {
    ...t, step: 0, rng, table, m: new Float64Array(table.length), v: new Float64Array(table.length), powers: [1, 1], losses: new Float32Array(t.steps),
  };
}

/**
 * The loss of one batch and its gradient with respect to the table (float64). The targets are
 * means over a window of ±window positions, summed over that band only; the error's
 * gradient reaches A as dA = Gᵀ·U, G[b, i] = ∂loss/∂ŷ_bi.
 * @param {import('posenc').PosEnc} pe @param {Float32Array} table @param {number} L @param {number} d
 * @param {Float64Array} inputs  [batch, L] @param {number} window  the task's window
 */
export function lossAndGradient(pe, table, L, d, inputs, window) {
  const batch = inputs.length / L;
  const rows = { data: table, dims: [L, d] };
  const A = pe.attention.scores(rows, rows).data; // softmax(P Pᵀ / √d), rows sum to 1
  const norm = batch * L;
  const G = new Float64Array(batch * L);
  let loss = 0;
  for (let b = 0; b < batch; b++) {
    const u = b * L;
    for (let i = 0; i < L; i++) {
      const a = i * L;
      let y = 0;
      for (let j = 0; j < L; j++) y += A[a + j] * inputs[u + j];
      const lo = Math.max(0, i - window);
      const hi = Math.min(L - 1, i + window);
      let t = 0;
      for (let j = lo; j <= hi; j++) t += inputs[u + j];
      const e = y - t / (hi - lo + 1);
      loss += e * e;
      G[u + i] = (2 * e) / norm;
    }
  }
  // dA = Gᵀ·U; then through the softmax of each row, and the logits s = P Pᵀ / √d (P on both sides)
  const scale = 1 / Math.sqrt(d);
  const dA = new Float64Array(L);
  const dS = new Float64Array(L * L);
  for (let i = 0; i < L; i++) {
    dA.fill(0);
    for (let b = 0; b < batch; b++) {
      const g = G[b * L + i];
      const u = b * L;
      for (let j = 0; j < L; j++) dA[j] += g * inputs[u + j];
    }
    const a = i * L;
    let dot = 0;
    for (let j = 0; j < L; j++) dot += A[a + j] * dA[j];
    for (let j = 0; j < L; j++) dS[a + j] = A[a + j] * (dA[j] - dot) * scale;
  }
  const grad = new Float64Array(L * d);
  for (let i = 0; i < L; i++) {
    const o = i * d;
    for (let j = 0; j < L; j++) {
      const g = dS[i * L + j] + dS[j * L + i];
      const r = j * d;
      for (let k = 0; k < d; k++) grad[o + k] += g * table[r + k];
    }
  }
  return { loss: loss / norm, grad, weights: A };
}

/**
 * Trains until `state.steps` or until `budgetMs` have passed (at least one step), in place.
 * @param {import('posenc').PosEnc} pe @param {TrainState} state @param {number} budgetMs
 */
export function trainSteps(pe, state, budgetMs = Infinity) {
  const { positions: L, dim: d } = state;
  const inputs = new Float64Array(BATCH * L);
  const start = performance.now();
  while (state.step < state.steps) {
    for (let k = 0; k < inputs.length; k++) {
      let r;
      [r, state.rng] = next(state.rng);
      inputs[k] = SQRT3 * r; // unit variance
    }
    const { loss, grad } = lossAndGradient(pe, state.table, L, d, inputs, state.window);
    state.losses[state.step] = loss;
    state.step += 1;
    state.powers = [state.powers[0] * BETA1, state.powers[1] * BETA2]; // products, not pow: the same bits everywhere
    const c1 = 1 - state.powers[0];
    const c2 = 1 - state.powers[1];
    for (let k = 0; k < grad.length; k++) {
      state.m[k] = BETA1 * state.m[k] + (1 - BETA1) * grad[k];
      state.v[k] = BETA2 * state.v[k] + (1 - BETA2) * grad[k] * grad[k];
      state.table[k] -= (LEARNING_RATE * (state.m[k] / c1)) / (Math.sqrt(state.v[k] / c2) + EPSILON);
    }
    if (performance.now() - start >= budgetMs) break;
  }
  return state;
}
