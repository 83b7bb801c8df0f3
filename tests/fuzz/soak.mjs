// The soak: hundreds of thousands of calls (succeeding, failing, hostile) on one module while its
// memory is forced to grow. Every succeeding call gives the same bits every time, every failing call
// the same PosEncError code, a WasmTensor that lives through every growth keeps working, and between
// two forced growths WebAssembly memory does not grow by a single byte (nothing leaks).
//
//   node tests/fuzz/soak.mjs [--calls 200000] [--growths 4]      (after npm run build)
import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';

import { createPosEnc } from '../../dist/node.js';
import { CallerError, KNOWN_CODES } from './harness.mjs';
import { INCLUDE } from './known-defects.mjs';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '200000' }, growths: { type: 'string', default: '4' } } });
const CALLS = Number(values.calls);
const GROWTHS = Number(values.growths);
assert.ok(Number.isSafeInteger(CALLS) && CALLS > 0 && Number.isSafeInteger(GROWTHS) && GROWTHS >= 0, '--calls and --growths are counts');

const pe = await createPosEnc();
const floats = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 7.1 + i * 1.3));
const q = floats(2 * 4 * 64, 1);
const table = { data: floats(16 * 8, 2), dims: [16, 8] };
const t5Table = { data: floats(32 * 2, 6), dims: [32, 2] };
const npy = pe.io.writeNpy({ data: floats(6, 3), dims: [2, 3] });
const safetensors = pe.io.writeSafetensors({ w: { data: floats(4, 4), dims: [4] } });
const config = { hidden_size: 256, num_attention_heads: 4, num_hidden_layers: 2, rope_theta: 500000, max_position_embeddings: 8192,
  rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } };
const plan = pe.model.fromConfig(config);
const living = pe.memory.tensor([1, 2, 4, 64], floats(2 * 4 * 64, 5)); // lives through every growth
/** `options` with an `offset` getter that throws the caller's own error (defined, not spread: a spread would run it here). */
const withThrowingOffset = (options) => Object.defineProperty(options, 'offset', { enumerable: true, get() { throw new CallerError('getter'); } });

/** Calls that succeed: each returns numbers compared bit for bit with its first result. */
const SUCCEEDING = [
  () => { const x = q.slice(); pe.rope.apply(x, null, { dims: [1, 2, 4, 64], layout: 'bshd', offset: 11, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 } }); return x; },
  () => pe.sinusoidal.table({ length: 5, dim: 8, offset: 3 }).data,
  () => pe.t5.bias(t5Table, { qLen: 3, kLen: 4 }).data,
  () => pe.alibi.bias({ numHeads: 4, qLen: 3, kLen: 5 }).data,
  () => { const x = q.slice(); pe.model.apply(plan, 1, x, null, { dims: [1, 2, 4, 64], layout: 'bshd', offset: 100 }); return x; },
  () => pe.io.readNpy(npy).data,
  () => pe.io.readSafetensors(safetensors).w.data,
  () => pe.rope.frequencies(pe.rope.fromConfig(config)).invFreq,
  () => { const cache = pe.rope.createCache({ rotaryDim: 64, maxPositions: 32 }); const x = q.slice(); cache.apply(x, null, { dims: [1, 2, 4, 64], layout: 'bshd', offset: 7 }); cache.dispose(); return x; },
  () => { const t = pe.memory.tensor([4, 64], q.subarray(0, 256)); pe.rope.apply(t, null, { offset: 2 }); const out = t.view().slice(); t.dispose(); return out; },
  () => { pe.rope.apply(living, null, { layout: 'bshd', positionIds: [3, 5] }); pe.rope.apply(living, null, { layout: 'bshd', positionIds: [-3, -5] }); return new Float32Array(0); },
];

/** A plain array of `length` zeros whose element `at` is a getter that throws the caller's own error. */
function valuesThrowingAt(at, length) {
  const values = new Array(length).fill(0);
  Object.defineProperty(values, at, { get() { throw new CallerError('values'); } });
  return values;
}

/** Calls that fail, each with its code ('CALLER': the caller's own error, as INVALID_ARGUMENT with it as the cause). */
const FAILING = [
  ['INVALID_ARGUMENT', () => pe.rope.apply(q, null, { dims: [1, 2, 4, 64], layout: 'bshd', rotaryDim: 63 })],
  ['UNKNOWN_OPTION', () => pe.sinusoidal.table({ length: 4, dim: 8, ofset: 1 })],
  ['OUT_OF_RANGE', () => pe.learned.lookup(table, { positionIds: [3, 16] })],
  ['INVALID_FILE', () => pe.io.readNpy(npy.subarray(0, 20))],
  ['INVALID_FILE', () => pe.io.readSafetensors(safetensors.subarray(0, safetensors.length - 1))],
  ['INVALID_CONFIG', () => pe.model.fromConfig({ ...config, num_attention_heads: 3 })],
  ['SHAPE_MISMATCH', () => pe.t5.bias(table, { qLen: 3, kLen: 4 })], // 16 rows for 32 buckets
  ['CALLER', () => pe.rope.apply(q.slice(), null, withThrowingOffset({ dims: [1, 2, 4, 64], layout: 'bshd' }))],
  ['INVALID_ARGUMENT', () => pe.memory.tensor([0])],
  // values whose copy throws half-way (issue 15 item 7: the block leaked)
  ...(INCLUDE.tensorValuesThrowing ? [['CALLER', () => pe.memory.tensor([1 << 16], valuesThrowingAt(100, 1 << 16))]] : []),
];

const first = SUCCEEDING.map((call) => call().slice());
const codeOf = (call) => {
  try {
    call();
    return 'returned';
  } catch (error) {
    assert.ok(!(error instanceof CallerError), `the caller's error came back bare: ${error}`);
    if (error.code === 'INVALID_ARGUMENT' && error.cause instanceof CallerError) return 'CALLER';
    assert.ok(KNOWN_CODES.has(error.code), `a failing call threw ${error}`);
    return error.code;
  }
};
for (const [code, call] of FAILING) assert.equal(codeOf(call), code);

const started = Date.now();
const phase = Math.ceil(CALLS / (GROWTHS + 1));
const startBytes = pe.memory.bytes;
const phases = [];
let calls = 0;
let failures = 0;
for (let p = 0; p <= GROWTHS && calls < CALLS; p++) {
  if (p > 0) { // force a growth: a block larger than all free memory, freed again at once
    const block = pe.memory.tensor([(pe.memory.bytes / 4) | 0]);
    block.dispose();
  }
  const before = pe.memory.bytes;
  const end = Math.min(CALLS, calls + phase);
  for (let i = 0; calls < end; i++, calls++) {
    if (i % 3 === 2) {
      const [code, call] = FAILING[(i / 3 | 0) % FAILING.length];
      assert.equal(codeOf(call), code);
      failures++;
    } else {
      const k = (i - (i / 3 | 0)) % SUCCEEDING.length;
      const got = SUCCEEDING[k]();
      if (got.length !== first[k].length || got.some((v, j) => !Object.is(v, first[k][j]))) {
        throw new Error(`succeeding call ${k} gave other numbers at call ${calls} (memory ${pe.memory.bytes} bytes)`);
      }
    }
  }
  phases.push({ calls: end, before, after: pe.memory.bytes });
  assert.equal(pe.memory.bytes, before, `memory grew from ${before} to ${pe.memory.bytes} bytes between forced growths (phase ${p})`);
}
// The living tensor was rotated forth and back at every use: still the original values, within the
// float32 rounding of every rotation (about 2^-24 of |x| <= 1.5 per lane, twice per round trip).
const original = floats(2 * 4 * 64, 5);
const rotations = 2 * Math.ceil(Math.floor(calls * 2 / 3) / SUCCEEDING.length);
const drift = living.view().reduce((m, v, i) => Math.max(m, Math.abs(v - original[i])), 0);
assert.ok(drift <= rotations * 2 * 1.5 * 2 ** -24, `the living WasmTensor drifted by ${drift} after ${rotations} rotations`);
living.dispose();

const seconds = (Date.now() - started) / 1000;
console.log(`posenc soak: ${calls} calls (${failures} failing with their expected code) in ${seconds.toFixed(1)} s; ` +
  `${GROWTHS} forced growths, memory ${startBytes} -> ${pe.memory.bytes} bytes, no growth between them; ` +
  `the WasmTensor kept through every growth drifted ${drift.toExponential(1)} after ${rotations} rotations`);
console.log(`  phases (calls so far: bytes before -> after): ${phases.map((p) => `${p.calls}: ${p.before} -> ${p.after}`).join(', ')}`);
