// No bad input gets past the error layer: for every public function, each option and each tensor
// argument of a valid call is replaced by hostile values. Every outcome must be a result or a
// PosEncError (never a TypeError, RangeError or WebAssembly trap), and the module keeps working.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { apiCases } from './api-cases.mjs';
import { createPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

const HOSTILE = [
  undefined, null, NaN, Infinity, -Infinity, -1, 0, 0.5, 1.5, 2 ** 31, 2 ** 53, -(2 ** 40), '3', 'half', '', true,
  {}, [], [1, 2], [NaN], new Float32Array(3), new Float64Array(2), new Int32Array([-5]), new BigInt64Array([2n ** 62n]),
  3n, Symbol('s'), () => 1, { data: new Float32Array(2), dims: [3] }, { data: [1, 2], dims: [2] }, { dims: [2] },
  detachedFloats(64), // e.g. an `out` of the right type whose buffer was transferred
];

/** A Float32Array of n elements whose buffer has been transferred away. */
function detachedFloats(n) {
  const a = new Float32Array(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

const CASES = apiCases(pe);

/** Calls fn and classifies the outcome: 'ok', or a PosEncError code; anything else fails the test. */
function outcome(name, fn, args) {
  try {
    fn(...args);
    return 'ok';
  } catch (error) {
    if (error?.name === 'PosEncError' && typeof error.code === 'string' && error.message.length > 0) return error.code;
    assert.fail(`${name}(${args.map(show).join(', ')}) threw ${error?.name}: ${error?.message}`);
  }
}

function show(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'symbol' || typeof v === 'function') return String(v);
  try { return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : ArrayBuffer.isView(x) ? `${x.constructor.name}(${x.length})` : x)); } catch { return String(v); }
}

for (const [name, fn, valid] of CASES) {
  test(`${name}: hostile arguments and options give results or PosEncErrors`, () => {
    const fresh = () => valid.map((a) => (a && a.data instanceof Float32Array ? { data: a.data.slice(), dims: a.dims.slice() } : a));
    assert.equal(outcome(name, fn, fresh()), 'ok', `${name} accepts its valid arguments`);
    let errors = 0;
    valid.forEach((arg, index) => {
      for (const bad of HOSTILE) {
        const args = fresh();
        args[index] = bad;
        if (outcome(name, fn, args) !== 'ok') errors++;
      }
      if (arg && typeof arg === 'object' && !ArrayBuffer.isView(arg) && !Array.isArray(arg) && !('data' in arg)) {
        for (const key of [...Object.keys(arg), 'typo']) {
          for (const bad of HOSTILE) {
            const args = fresh();
            args[index] = { ...arg, [key]: bad };
            if (outcome(name, fn, args) !== 'ok') errors++;
          }
        }
      }
    });
    assert.ok(errors > 0, 'some hostile inputs were refused');
    assert.equal(outcome(name, fn, fresh()), 'ok', `${name} still works after ${errors} refused calls`);
  });
}
