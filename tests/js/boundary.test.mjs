// The C++/JavaScript boundary as built matches its one description (bindings/boundary/): every
// bound function the module registers is described, with the arity of its calling convention, and
// the built TypeScript side was generated from the description as it is now. (The rest is checked
// at build time: the C++ side by the generated static_asserts, exhaustive switches and
// declarations, the TypeScript side by tsc against the generated types.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import createModule from '../../dist/posenc.mjs';
import * as built from '../../dist/generated/boundary.js';
import { argBlockBytes, blockLayouts, functionLayouts } from '../../bindings/boundary/layout.mjs';
import { enumValues, enums } from '../../bindings/boundary/enums.mjs';

const raw = await createModule({ wasmBinary: readFileSync(new URL('../../dist/posenc.wasm', import.meta.url)) });

/** The functions Embind registered: its invokers are named after the function and call `invoker`. */
function registered(module) {
  return Object.keys(module).filter((key) => {
    const f = module[key];
    return typeof f === 'function' && f.name === key && /\binvoker\(fn\b/.test(String(f));
  }).sort();
}

test('the module registers exactly the described functions, each taking its argument block (or nothing)', () => {
  const described = functionLayouts();
  assert.deepEqual(registered(raw), described.map((f) => f.name).sort());
  for (const f of described) assert.equal(raw[f.name].length, f.argsType ? 1 : 0, `${f.name}: arity`);
});

test('the built TypeScript side is the one the description generates now', () => {
  assert.deepEqual(built.BOUND_FUNCTIONS, Object.fromEntries(functionLayouts().map((f) => [f.name, f.bytes])));
  assert.equal(built.ARG_BLOCK_BYTES, argBlockBytes());
  for (const spec of Object.values(enums)) assert.deepEqual(built[spec.ts], enumValues(spec).map(([js]) => js), spec.ts);
  for (const b of blockLayouts()) {
    const name = `${b.name.replace(/[A-Z]/g, (c, i) => (i ? `_${c}` : c)).toUpperCase()}_VALUES`;
    assert.deepEqual(built[name], b.values, name);
  }
});

test('an argument block is written at the offsets the C++ struct reads', () => {
  // ropeExpandTable(cos, sin, n, cos2, sin2) expands n cos/sin pairs: a call through the generated
  // writer that lands anywhere else would read other addresses or another count.
  const layout = functionLayouts().find((f) => f.name === 'ropeExpandTable');
  assert.deepEqual(Object.fromEntries(layout.args.map((a) => [a.name, a.offset])), { cos: 0, sin: 4, n: 8, cos2: 12, sin2: 16 });
  const block = raw._malloc(64 + 4 * 16); // the argument block, then four rows of 4 floats
  const at = (i) => block + 64 + 16 * i;
  raw.HEAPF32.set([0.5, 0.25], at(0) >>> 2);
  raw.HEAPF32.set([0.75, 1], at(1) >>> 2);
  new built.BoundCalls(raw, block).ropeExpandTable({ cos: at(0), sin: at(1), n: 2, cos2: at(2), sin2: at(3) });
  assert.deepEqual([...raw.HEAPF32.subarray(at(2) >>> 2, (at(2) >>> 2) + 8)], [0.5, 0.5, 0.25, 0.25, -0.75, 0.75, -1, 1]);
  raw._free(block);
});

test('M-RoPE sections that are not int values are refused in C++ before any conversion', () => {
  // The JS API checks them first; the bindings must not rely on it (a double outside int's range
  // converted to int is undefined behaviour).
  const args = Math.ceil(built.ARG_BLOCK_BYTES / 8) * 8;
  const block = raw._malloc(args + 8 * 3 + 4 * 16);
  const sections = block + args;
  const q = sections + 24;
  const calls = new built.BoundCalls(raw, block);
  const apply = (values) => {
    raw.HEAPF64.set(values, sections >>> 3);
    raw.HEAPF32.fill(0.5, q >>> 2, (q >>> 2) + 16);
    return calls.ropeApplyMultimodal({
      q, qHeads: 1, k: 0, kHeads: 0, batch: 1, seq: 1, headDim: 16, layout: 0, pairing: 0, rotaryDim: 16, base: 10000,
      scaling: 0, seqLen: NaN, sections, sectionCount: values.length, offset: 0, ids: 0, perBatch: false, interleaved: false,
    });
  };
  assert.equal(apply([4, 2, 2]), 0, raw.lastErrorMessage());
  const invalid = built.STATUS_ERROR_CODES.indexOf('INVALID_ARGUMENT');
  for (const [values, shown] of [[[4, 2.5, 1.5], '2.5'], [[4, 2 ** 40, 2], '1099511627776'], [[4, -1, 5], '-1'], [[4, NaN, 4], 'NaN']]) {
    assert.equal(apply(values), invalid, `${values}`);
    assert.match(raw.lastErrorMessage(), new RegExp(`^mropeSection\\[1\\] must be an integer from 0 to 2147483647, got ${shown}$`));
  }
  raw._free(block);
});
