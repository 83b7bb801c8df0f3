// Shared helpers for the node:test suites: the built package, deterministic data, float64 formulas.
import assert from 'node:assert/strict';

export { createPosEnc, PosEncError } from '../../dist/node.js';

export { randomFloats } from '../support/random.mjs';

/** max |a - b| over two equal-length arrays. */
export function maxAbsDiff(a, b) {
  assert.equal(a.length, b.length, 'length');
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

export function maxAbs(a) {
  let m = 0;
  for (const v of a) m = Math.max(m, Math.abs(v));
  return m;
}

/** Asserts that fn throws a PosEncError with `code` whose message matches `pattern`. */
export function throwsPosEnc(fn, code, pattern) {
  assert.throws(fn, (error) => {
    assert.equal(error.name, 'PosEncError', `expected a PosEncError, got ${error}`);
    assert.ok(error instanceof Error);
    assert.equal(error.code, code, `code of: ${error.message}`);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

/** Float64 sinusoid, paper (interleaved) column j at position p. */
export function sinusoid(p, j, dim, base = 10000) {
  const w = base ** (-2 * Math.floor(j / 2) / dim);
  return j % 2 === 0 ? Math.sin(p * w) : Math.cos(p * w);
}

/** Float64 RoPE of one head row; returns a Float64Array. */
export function ropeRow(x, rotaryDim, interleaved, position, base = 10000, attention = 1) {
  const out = Float64Array.from(x);
  const pairs = rotaryDim / 2;
  for (let i = 0; i < pairs; i++) {
    const th = position * base ** (-2 * i / rotaryDim);
    const c = Math.cos(th) * attention;
    const s = Math.sin(th) * attention;
    const ia = interleaved ? 2 * i : i;
    const ib = interleaved ? 2 * i + 1 : i + pairs;
    const a = x[ia];
    const b = x[ib];
    out[ia] = a * c - b * s;
    out[ib] = a * s + b * c;
  }
  return out;
}
