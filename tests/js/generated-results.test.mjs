// Big generated results on the default path (sinusoidal.table, t5.bias, alibi.bias without `out`,
// or with a Float32Array `out`) are computed piece by piece in a small heap block and copied out
// (HeapScope.generate). Every piece must hold exactly what one call into a WasmTensor computes, and
// WebAssembly memory must not grow to the result's size.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, randomFloats, sinusoid, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

/** The result of `make(out)` into a WasmTensor: one kernel call over the whole range. */
function inOneCall(dims, make) {
  const t = pe.memory.tensor(dims);
  try {
    make(t);
    return t.view().slice();
  } finally {
    t.dispose();
  }
}

/** Asserts equal float arrays without building a multi-million-entry diff message. */
function assertSame(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) assert.fail(`${what}: element ${i} is ${actual[i]}, one call gives ${expected[i]}`);
  }
}

test('WebAssembly memory does not grow to the size of a default-path result', () => {
  const before = pe.memory.bytes;
  const t = pe.sinusoidal.table({ length: 8192, dim: 2048 }); // 64 MiB
  assert.equal(t.data.length, 8192 * 2048);
  assert.ok(pe.memory.bytes - before < 16 << 20, `memory grew by ${(pe.memory.bytes - before) / 2 ** 20} MiB`);
  for (const p of [0, 4095, 8191]) {
    for (const j of [0, 1, 2046, 2047]) {
      assert.ok(Math.abs(t.data[p * 2048 + j] - sinusoid(p, j, 2048)) <= 2 ** -24, `row ${p} column ${j}`);
    }
  }
});

const SINUSOIDAL = [
  // [label, options]: 1024-wide rows are 1024 rows to a 4 MiB piece
  ['exact, 3 pieces', { length: 3000, dim: 1024, offset: 17 }],
  ['fast, a last piece of 952 rows', { length: 3000, dim: 1024, precision: 'fast', offset: 5 }],
  ['fast, a remainder of 40 rows joined to the piece before it', { length: 2048 + 40, dim: 1024, precision: 'fast' }],
  ['fast, half layout, negative offset', { length: 4100, dim: 1000, precision: 'fast', layout: 'half', offset: -300 }],
  ['exact, a fractional offset (one piece)', { length: 1100, dim: 1024, offset: 0.25 }],
  ['positionIds', { positionIds: Float64Array.from({ length: 2500 }, (_, i) => (i * 7919) % 3001 - 40.5), dim: 1024 }],
  ['pieces of 64 rows, larger than the 4 MiB budget', { length: 200, dim: 20_000, precision: 'fast' }],
];

for (const [label, options] of SINUSOIDAL) {
  test(`sinusoidal.table in pieces equals one call (${label})`, () => {
    const rows = options.length ?? options.positionIds.length;
    const dims = [rows, options.dim];
    const expected = inOneCall(dims, (out) => pe.sinusoidal.table({ ...options, out }));
    const result = pe.sinusoidal.table(options);
    assert.deepEqual(result.dims, dims);
    assertSame(result.data, expected, 'default path');
    const target = new Float32Array(rows * options.dim).fill(7);
    assert.equal(pe.sinusoidal.table({ ...options, out: target }).data, target);
    assertSame(target, expected, 'out: Float32Array');
  });
}

test('t5.bias in pieces equals one call', () => {
  const table = { data: randomFloats(32 * 5, 11, -1, 1), dims: [32, 5] };
  for (const opts of [{ qLen: 700, kLen: 1000, queryOffset: 30 }, { qLen: 600, kLen: 1500, bidirectional: false }]) {
    const dims = [5, opts.qLen, opts.kLen];
    const expected = inOneCall(dims, (out) => pe.t5.bias(table, { ...opts, out }));
    assertSame(pe.t5.bias(table, opts).data, expected, `t5.bias ${JSON.stringify(opts)}`);
  }
});

test('alibi.bias in pieces equals one call, batched BLOOM masks included', () => {
  const mask = { data: Array.from({ length: 2 * 900 }, (_, i) => (i % 900 < (i < 900 ? 3 : 0) ? 0 : 1)), dims: [2, 900] };
  const cases = [
    { numHeads: 12, qLen: 400, kLen: 900, queryOffset: 500 },
    { numHeads: 6, qLen: 500, kLen: 900, form: 'symmetric' },
    { numHeads: 4, qLen: 700, kLen: 900, form: 'bloom', attentionMask: mask },
  ];
  for (const opts of cases) {
    const dims = opts.attentionMask ? [2, opts.numHeads, opts.qLen, opts.kLen] : [opts.numHeads, opts.qLen, opts.kLen];
    const expected = inOneCall(dims, (out) => pe.alibi.bias({ ...opts, out }));
    const result = pe.alibi.bias(opts);
    assert.deepEqual(result.dims, dims);
    assertSame(result.data, expected, `alibi.bias ${opts.form ?? 'causal'}`);
  }
});

test('a default-path result over 2 GiB is SIZE_OVERFLOW, before anything is allocated', () => {
  const before = pe.memory.bytes;
  throwsPosEnc(() => pe.sinusoidal.table({ length: 2 ** 17, dim: 4097 }), 'SIZE_OVERFLOW', /needs 2148007936 bytes, more than one result may hold \(2 GiB\)/);
  assert.equal(pe.memory.bytes, before);
});
