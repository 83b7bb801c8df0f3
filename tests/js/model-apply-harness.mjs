// Runs pe.model.apply (or a layer cache) on random q/k of a given shape and compares every head
// row with a float64 reference of what the model's layer does (hf-rope-reference.mjs).
import assert from 'node:assert/strict';

import { randomFloats } from './helpers.mjs';
import { rowAt, rowError } from './hf-rope-reference.mjs';

/**
 * `shape`: { batch, seq, qHeads, kHeads, qDim, kDim (default qDim), layout }. `run(q, k, dims, kDims)`
 * applies the layer; `ref(row, b, s, isQuery)` is the expected row (Float64Array); rows are
 * compared at `tol` of their scale. Returns the worst error. `exact(row, b, s, isQuery)` may list
 * lanes that must come out bit for bit as they went in.
 */
export function checkRows(shape, run, ref, { tol = 1e-6, seed = 1, exact } = {}) {
  const { batch, seq, qHeads, kHeads = 0, qDim, kDim = qDim, layout = 'bshd' } = shape;
  const dimsOf = (heads, d) => (layout === 'bshd' ? [batch, seq, heads, d] : [batch, heads, seq, d]);
  const q0 = randomFloats(batch * seq * qHeads * qDim, seed, -2, 2);
  const k0 = kHeads ? randomFloats(batch * seq * kHeads * kDim, seed + 1, -2, 2) : null;
  const q = q0.slice();
  const k = k0 && k0.slice();
  run(q, k, dimsOf(qHeads, qDim), kHeads ? dimsOf(kHeads, kDim) : undefined);
  let worst = 0;
  for (const [x0, x, heads, d, isQuery] of [[q0, q, qHeads, qDim, true], [k0, k, kHeads, kDim, false]]) {
    if (!x0) continue;
    for (let b = 0; b < batch; b++) {
      for (let s = 0; s < seq; s++) {
        for (let h = 0; h < heads; h++) {
          const at = rowAt(layout, [batch, seq, heads, d], b, s, h);
          const row = x0.subarray(at, at + d);
          const got = x.subarray(at, at + d);
          worst = Math.max(worst, rowError(got, ref(row, b, s, isQuery), row));
          for (const j of exact?.(row, b, s, isQuery) ?? []) assert.equal(got[j], row[j], `lane ${j} of (${b}, ${s}, ${h}) must pass through`);
        }
      }
    }
  }
  assert.ok(worst <= tol, `worst row error ${worst} > ${tol}`);
  return worst;
}
