// Fuzz target: pe.rope.permuteWeights over every element type, shapes that fit or do not, partial
// rotary, views at an offset among decoy values, Node Buffers, and inputs whose own `constructor`,
// `subarray`, species or toStringTag are hostile. Invariants besides the harness's: a permuted
// result is exactly the reference permutation (HF's `permute` / llama.cpp's, here in plain JS) of
// the view's own elements, a fresh array of the engine's class, and the input is left untouched.
import fc from 'fast-check';

import { CallerError, InvariantError, contained, extremeNumber } from '../harness.mjs';

const TYPES = [Float32Array, Float64Array, Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];

/** The reference: row j of head h of the result is row source(j) of head h of the input. */
function reference(values, to, numHeads, headDim, rotaryDim, cols) {
  const out = new values.constructor(values.length);
  const half = rotaryDim / 2;
  for (let h = 0; h < numHeads; h++) {
    for (let j = 0; j < headDim; j++) {
      let from = j;
      if (j < rotaryDim) from = to === 'half' ? (j < half ? 2 * j : 2 * (j - half) + 1) : (j % 2 === 0 ? j / 2 : half + (j - 1) / 2);
      for (let c = 0; c < cols; c++) out[(h * headDim + j) * cols + c] = values[(h * headDim + from) * cols + c];
    }
  }
  return out;
}

const HOSTILE = ['none', 'constructor returns input', 'constructor getter throws', 'subarray throws', 'species throws', 'toStringTag lies', 'buffer', 'offset view'];

/** An input array of `Type` holding `values`, made hostile as `how` says. */
function hostileArray(Type, values, how) {
  const plain = Type.from(values, (v) => (Type === BigInt64Array || Type === BigUint64Array ? BigInt(v) : v));
  switch (how) {
    case 'constructor returns input': Object.defineProperty(plain, 'constructor', { value: function Same() { return plain; } }); return plain;
    case 'constructor getter throws': Object.defineProperty(plain, 'constructor', { get() { throw new CallerError('constructor'); } }); return plain;
    case 'subarray throws': Object.defineProperty(plain, 'subarray', { value() { throw new CallerError('subarray'); } }); return plain;
    case 'species throws': {
      class Sub extends Type { static get [Symbol.species]() { throw new CallerError('species'); } }
      return new Sub(plain);
    }
    case 'toStringTag lies': {
      class Liar extends Type { get [Symbol.toStringTag]() { return 'Uint8Array'; } }
      return new Liar(plain);
    }
    case 'buffer': return Type === Uint8Array ? Buffer.from(plain) : plain;
    case 'offset view': {
      const big = new Type(plain.length + 7).fill(Type === BigInt64Array || Type === BigUint64Array ? 77n : 77);
      big.set(plain, 3);
      return big.subarray(3, 3 + plain.length);
    }
    default: return plain;
  }
}

export const target = {
  name: 'permute',
  quickRuns: 1500,
  arbitrary: fc.record({
    type: fc.nat(TYPES.length - 1),
    to: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('half', 'interleaved') }, { weight: 1, arbitrary: fc.constantFrom('neox', 7, undefined) }),
    // null: the right head count (most cases then succeed); else any count, or a hostile number
    numHeads: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: extremeNumber }),
    headDim: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(2, 4, 6, 8) }, { weight: 1, arbitrary: extremeNumber }),
    rotaryDim: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.constantFrom(2, 4, 6, 8) }, { weight: 1, arbitrary: extremeNumber }),
    cols: fc.integer({ min: 0, max: 3 }),
    rowsPerHead: fc.constantFrom(2, 4, 6, 8),
    heads: fc.integer({ min: 1, max: 4 }),
    lengthDelta: fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1) }),
    tensor: fc.boolean(),
    hostile: fc.oneof({ weight: 2, arbitrary: fc.constant('none') }, { weight: 5, arbitrary: fc.constantFrom(...HOSTILE) }),
  }),
  check(pe, c) {
    const Type = TYPES[c.type];
    const rows = c.heads * c.rowsPerHead;
    const cols = c.cols === 0 ? 1 : c.cols;
    const length = Math.max(0, rows * cols + c.lengthDelta);
    const values = Array.from({ length }, (_, i) => (i * 7 + 3) % 100);
    const input = hostileArray(Type, values, c.hostile);
    const before = Array.from(new Type(input.buffer, input.byteOffset, length)); // a plain view: no caller code
    const dims = c.cols === 0 ? [rows] : [rows, cols];
    const options = { to: c.to, numHeads: c.numHeads ?? c.heads };
    if (c.headDim !== null) options.headDim = c.headDim;
    if (c.rotaryDim !== null) options.rotaryDim = c.rotaryDim;
    const r = contained('rope.permuteWeights', () => pe.rope.permuteWeights(c.tensor ? { data: input, dims } : input, c.tensor ? options : { ...options, dims }));
    const after = Array.from(new Type(input.buffer, input.byteOffset, length));
    if (after.some((v, i) => v !== before[i])) throw new InvariantError(`permuteWeights changed its input (${c.hostile})`);
    if (!r.ok) return;
    const out = r.value.data;
    if (Object.getPrototypeOf(out) !== Type.prototype) throw new InvariantError(`the result is not a plain ${Type.name} (${c.hostile})`);
    if (out.buffer === input.buffer) throw new InvariantError('the result shares the input\'s buffer');
    const headDim = options.headDim ?? rows / options.numHeads;
    const expected = reference(new Type(input.buffer, input.byteOffset, length), c.to, options.numHeads, headDim, options.rotaryDim ?? headDim, cols);
    for (let i = 0; i < expected.length; i++) {
      if (out[i] !== expected[i]) throw new InvariantError(`element ${i} is ${out[i]}, the reference permutation has ${expected[i]} (${c.hostile}, ${Type.name})`);
    }
  },
};
