// Caller code and caller buffers cannot break a call: over every public function (api-cases.mjs),
// each option getter and tensor field getter runs exactly once; a getter that shrinks, detaches or
// transfers an input's buffer, or grows WebAssembly memory, gives a PosEncError or the undisturbed
// result and never writes outside the output; detached typed arrays anywhere are DETACHED_BUFFER
// (never a TypeError); views of WebAssembly memory work as inputs and outputs when a call grows it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { apiCases } from './api-cases.mjs';
import { createPosEnc, randomFloats } from './helpers.mjs';

const pe = await createPosEnc();
const cases = apiCases(pe);

const isTensor = (a) => a && typeof a === 'object' && a.data instanceof Float32Array && Array.isArray(a.dims);
const isPlain = (a) => a && typeof a === 'object' && (Object.getPrototypeOf(a) === Object.prototype) && !isTensor(a);
const plain = (v) => JSON.stringify(v, (_k, x) => (ArrayBuffer.isView(x) ? Array.from(x, (e) => (typeof e === 'bigint' ? String(e) : e)) : x));
const isPosEnc = (e) => e?.name === 'PosEncError' && typeof e.code === 'string';

/** A fresh deep copy of a case's arguments (tensors and typed arrays copied, so that in-place calls start alike). */
function fresh(value) {
  if (ArrayBuffer.isView(value)) return value.slice();
  if (Array.isArray(value)) return value.map(fresh);
  if (isTensor(value)) return { data: value.data.slice(), dims: [...value.dims] };
  if (isPlain(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fresh(v)]));
  return value;
}

/** `value` rebuilt with a counting getter for every key of every plain object and every array element; counts in `counts` by path. */
function counting(value, counts, path) {
  const getter = (target, key, v, at) => {
    counts.set(at, 0);
    Object.defineProperty(target, key, { enumerable: true, get: () => { counts.set(at, counts.get(at) + 1); return v; } });
  };
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    value.forEach((v, i) => getter(out, i, counting(v, counts, `${path}[${i}]`), `${path}[${i}]`));
    return out;
  }
  if (isTensor(value)) {
    const out = {};
    getter(out, 'data', value.data, `${path}.data`);
    getter(out, 'dims', value.dims, `${path}.dims`);
    return out;
  }
  if (isPlain(value)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) getter(out, k, counting(v, counts, `${path}.${k}`), `${path}.${k}`);
    return out;
  }
  return value;
}

for (const [name, fn, valid] of cases) {
  test(`${name}: every option getter and tensor field getter runs exactly once`, () => {
    const counts = new Map();
    const args = fresh(valid).map((a, i) => counting(a, counts, `arg${i}`));
    fn(...args);
    // Options, configs and tensors are read whole, exactly once; a plan (a posenc result handed
    // back) is read only where the call needs it, at most once.
    const isPlan = (at) => /^arg\d+\.(layers|notes|source|modelType|num|headDim|absolute)/.test(at);
    const wrong = [...counts].filter(([at, n]) => n > 1 || (n === 0 && !isPlan(at))).map(([at, n]) => `${at} read ${n} times`);
    assert.deepEqual(wrong, [], `${name}: ${wrong.join(', ')}`);
  });
}

/** Float32Array `data` on a resizable ArrayBuffer (so that a getter can shrink it). */
function resizable(data) {
  const buffer = new ArrayBuffer(data.byteLength, { maxByteLength: data.byteLength + 64 });
  const out = new Float32Array(buffer, 0, data.length);
  out.set(data);
  return out;
}

const ATTACKS = {
  'shrinks the buffer to nothing': (arrays) => { for (const a of arrays) a.buffer.resize(0); },
  'shrinks the buffer by one float': (arrays) => { for (const a of arrays) a.buffer.resize(a.buffer.byteLength - 4); },
  'detaches (transfers) the buffer': (arrays) => { for (const a of arrays) structuredClone(a.buffer, { transfer: [a.buffer] }); },
  'grows WebAssembly memory': (_arrays, grown) => { grown.push(pe.memory.tensor([1 << 20])); }, // 4 MiB: detaches views of memory
};

for (const [name, fn, valid] of cases) {
  const last = valid.length - 1;
  if (!isPlain(valid[last]) || !valid.some(isTensor)) continue;
  for (const [attack, run] of Object.entries(ATTACKS)) {
    test(`${name}: an option getter that ${attack} gives a PosEncError or the same result, never a write outside the output`, () => {
      const expected = plain(fn(...fresh(valid)) ?? null);
      const keys = Object.keys(valid[last]);
      for (let at = 0; at < keys.length; at++) {
        const args = fresh(valid);
        const arrays = [];
        for (const a of args) if (isTensor(a)) arrays.push(a.data = resizable(a.data));
        const grown = [];
        const options = { ...args[last] };
        const value = options[keys[at]];
        Object.defineProperty(options, keys[at], { enumerable: true, get: () => { run(arrays, grown); return value; } });
        args[last] = options;
        // Sentinels around the call: live WasmTensors that nothing may write to.
        const sentinels = Array.from({ length: 8 }, () => pe.memory.tensor([64], new Float32Array(64).fill(12345)));
        let result;
        try {
          result = plain(fn(...args) ?? null);
        } catch (error) {
          assert.ok(isPosEnc(error), `${name}, getter of '${keys[at]}' ${attack}: ${error}`);
        }
        if (result !== undefined && attack === 'grows WebAssembly memory') {
          assert.equal(result, expected, `${name}, getter of '${keys[at]}' ${attack}: the result changed`);
        } else if (result !== undefined) {
          // The attack ran, yet the call succeeded: only correct if it read nothing from the arrays after.
          assert.equal(result, expected, `${name}, getter of '${keys[at]}' ${attack}: succeeded with another result`);
        }
        for (const s of sentinels) {
          assert.ok(s.view().every((v) => v === 12345), `${name}, getter of '${keys[at]}' ${attack}: a live WasmTensor was written`);
          s.dispose();
        }
        for (const g of grown) g.dispose();
      }
      assert.equal(plain(fn(...fresh(valid)) ?? null), expected, `${name}: the module works as before`);
    });
  }
}

/** A detached typed array of `type` holding nothing (its values went with the buffer). */
function detachedOf(type, length) {
  const a = new type(Math.max(length, 1));
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

/** Every place in a case's arguments that holds numbers: [path, replace(args, detached)] pairs. */
function numericPlaces(args) {
  const places = [];
  const walk = (value, set, path) => {
    if (isTensor(value)) {
      places.push([`${path}.data`, (d) => set({ data: d(Float32Array, value.data.length), dims: value.dims })]);
    } else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'number')) {
      places.push([path, (d) => set(d(Float64Array, value.length))]);
    } else if (ArrayBuffer.isView(value)) {
      places.push([path, (d) => set(d(value.constructor, value.length))]);
    } else if (isPlain(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, (x) => set({ ...value, [k]: x }), `${path}.${k}`);
    }
  };
  args.forEach((a, i) => walk(a, (x) => { args[i] = x; }, `arg${i}`));
  return places;
}

// Numeric lists whose API takes typed arrays: a detached one is DETACHED_BUFFER. Elsewhere (sizes such
// as grid, names) a typed array is the wrong type: any PosEncError, never a host TypeError.
const TYPED_PLACES = /\.data$|positionIds|newPositionIds|delta|mropeSection|\.dims$|kDims|^arg1$/;

for (const [name, fn, valid] of cases) {
  const places = numericPlaces(fresh(valid));
  if (places.length === 0) continue;
  test(`${name}: a detached typed array in any numeric place is a PosEncError (DETACHED_BUFFER where typed arrays are taken)`, () => {
    for (const [path] of places) {
      const args = fresh(valid);
      const [, replace] = numericPlaces(args).find(([p]) => p === path);
      replace(detachedOf);
      assert.throws(() => fn(...args), (e) => {
        assert.ok(isPosEnc(e), `${name}: detached ${path} threw ${e}`);
        if (TYPED_PLACES.test(path) && !(name === 'learned.robertaPositionIds' && path === 'arg1')) {
          assert.ok(e.code === 'DETACHED_BUFFER' || e.code === 'INVALID_TYPE', `${name}: detached ${path}: ${e.code} ${e.message}`);
        }
        return true;
      });
    }
  });
}

test('every entry point that takes ids (positionIds, mropeSection, rope.angles ids...) says DETACHED_BUFFER for a detached array', () => {
  const ids = () => detachedOf(Int32Array, 3);
  const calls = {
    'sinusoidal.table': () => pe.sinusoidal.table({ dim: 4, positionIds: ids() }),
    'sinusoidal.addTo': () => pe.sinusoidal.addTo(new Float32Array(12), { dims: [3, 4], positionIds: ids() }),
    'learned.lookup': () => pe.learned.lookup({ data: new Float32Array(40), dims: [10, 4] }, { positionIds: ids() }),
    'rope.apply': () => pe.rope.apply(new Float32Array(24), null, { dims: [3, 8], positionIds: ids() }),
    'rope.angles': () => pe.rope.angles({ rotaryDim: 8 }, ids()),
    'rope.applyMultimodal (mropeSection)': () => pe.rope.applyMultimodal(new Float32Array(24), null,
      { layout: 'bshd', dims: [1, 3, 1, 8], mropeSection: detachedOf(Int32Array, 3), positionIds: [0, 1, 2, 0, 1, 1, 0, 0, 1] }),
    'rope.applyMultimodal (positionIds)': () => pe.rope.applyMultimodal(new Float32Array(24), null,
      { layout: 'bshd', dims: [1, 3, 1, 8], mropeSection: [2, 1, 1], positionIds: ids() }),
    'rope.shift (delta)': () => pe.rope.shift(new Float32Array(24), { dims: [3, 8], delta: ids() }),
    'RopeCache.shift (newPositionIds)': () => {
      const cache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 16 });
      try { cache.shift(new Float32Array(24), { dims: [3, 8], offset: 0, newPositionIds: ids() }); } finally { cache.dispose(); }
    },
    'learned.robertaPositionIds': () => pe.learned.robertaPositionIds(ids(), { paddingIdx: 1 }),
    'a tensor\'s data': () => pe.rope.apply({ data: detachedOf(Float32Array, 24), dims: [3, 8] }, null, {}),
    'a bare Float32Array': () => pe.sinusoidal.addTo(detachedOf(Float32Array, 12), { dims: [3, 4] }),
    'out': () => pe.sinusoidal.table({ dim: 4, length: 3, out: detachedOf(Float32Array, 12) }),
    'memory.tensor values': () => pe.memory.tensor([3], detachedOf(Float32Array, 3)),
    'WasmTensor.set values': () => {
      const t = pe.memory.tensor([3]);
      try { t.set(detachedOf(Float64Array, 3)); } finally { t.dispose(); }
    },
    'scaling.shortFactor': () => pe.rope.frequencies({ rotaryDim: 4, scaling: { type: 'longrope', shortFactor: detachedOf(Float64Array, 2),
      longFactor: [1, 1], originalMaxPositionEmbeddings: 16, factor: 2 } }),
  };
  for (const [what, call] of Object.entries(calls)) {
    assert.throws(call, (e) => {
      assert.ok(isPosEnc(e), `${what}: ${e}`);
      assert.equal(e.code, 'DETACHED_BUFFER', `${what}: ${e.message}`);
      return true;
    });
  }
});

/**
 * Runs `call(round)` with fresh 4 MiB WasmTensors until one call grows WebAssembly memory itself
 * (its own allocations: at most a few dozen rounds); returns what that call gave and the round.
 */
function untilACallGrowsMemory(call) {
  const kept = [];
  try {
    for (let round = 0; round < 200; round++) {
      const before = pe.memory.bytes;
      const result = call(round, kept);
      if (pe.memory.bytes !== before) return { result, round };
    }
  } finally {
    for (const t of kept) t.dispose();
  }
  throw new Error('no call grew memory');
}

test('a WasmTensor.view() passed as a plain input is followed through the growth its own call causes', () => {
  const n = 1 << 20; // 4 MiB: the call copies it in, which grows memory now and then
  const values = randomFloats(n, 3);
  const expected = values.slice();
  pe.rope.apply(expected, null, { dims: [n / 64, 64], offset: 3 });
  const { result } = untilACallGrowsMemory((_round, kept) => {
    const t = pe.memory.tensor([n], values);
    kept.push(t);
    const view = t.view();
    pe.rope.apply(view, null, { dims: [n / 64, 64], offset: 3 }); // in place, through a copy
    return { now: t.view() };
  });
  assert.equal(result.now.length, n);
  assert.deepEqual(result.now, expected, 'the tensor holds the rotated values');
  // addTo returns the array it updated: for a view of memory that the call grew, a live view of the same bytes.
  const x = new Float32Array(n).fill(1);
  const added = x.slice();
  pe.sinusoidal.addTo(added, { dims: [n / 64, 64] });
  const { result: got } = untilACallGrowsMemory((_round, kept) => {
    const t = pe.memory.tensor([n], x);
    kept.push(t);
    const returned = pe.sinusoidal.addTo(t.view(), { dims: [n / 64, 64] });
    return { returned: returned.slice(), now: t.view().slice() };
  });
  assert.deepEqual(got.now, added);
  assert.deepEqual(got.returned, added);
});

test('a WasmTensor.view() passed as out is written through the growth its own call causes', () => {
  const rows = 1 << 14;
  const expected = pe.sinusoidal.table({ length: rows, dim: 64, offset: 2 }).data;
  const { result } = untilACallGrowsMemory((_round, kept) => {
    const t = pe.memory.tensor([rows, 64]);
    kept.push(t);
    kept.push(pe.memory.tensor([1 << 18])); // 1 MiB more each round, so that the chunk allocation sometimes grows memory
    const returned = pe.sinusoidal.table({ length: rows, dim: 64, offset: 2, out: t.view() });
    return { returned, now: t.view().slice() };
  });
  assert.deepEqual(result.now, expected);
  assert.deepEqual(result.returned.data, expected);
});

test('a Proxy of a Float32Array is not a Float32Array (it could report any length while copied)', () => {
  const proxy = new Proxy(new Float32Array(8), { get: (t, k) => (k === 'length' ? 1 << 24 : Reflect.get(t, k)) });
  assert.throws(() => pe.sinusoidal.addTo(proxy, { dims: [2, 4] }), (e) => isPosEnc(e) && e.code === 'INVALID_TYPE');
});

test('an error thrown by a caller\'s getter is a PosEncError naming the option, with the original as cause', () => {
  const boom = new Error('boom');
  const options = { dims: [2, 4], get offset() { throw boom; } };
  assert.throws(() => pe.sinusoidal.addTo(new Float32Array(8), options), (e) => {
    assert.ok(isPosEnc(e));
    assert.match(e.message, /options\.offset threw Error: boom/);
    assert.equal(e.cause, boom);
    return true;
  });
});

test('sparse arrays are refused with the index of the hole, in options and in configs', () => {
  // eslint-disable-next-line no-sparse-arrays
  const holes = [2, , 1];
  const cases = [
    () => pe.rope.applyMultimodal(new Float32Array(24), null, { layout: 'bshd', dims: [1, 3, 1, 8], mropeSection: holes, positionIds: [0, 1, 2, 0, 1, 1, 0, 0, 1] }),
    () => pe.rope.apply(new Float32Array(24), null, { dims: [3, 8], positionIds: [0, , 2] }), // eslint-disable-line no-sparse-arrays
    () => pe.rope.frequencies({ rotaryDim: 4, scaling: { type: 'longrope', shortFactor: [1, , ], longFactor: [1, 1], originalMaxPositionEmbeddings: 16, factor: 2 } }), // eslint-disable-line no-sparse-arrays
    () => pe.model.fromConfig({ model_type: 'qwen2_vl', num_hidden_layers: 1, hidden_size: 80, num_attention_heads: 2,
      rope_scaling: { type: 'mrope', mrope_section: holes } }),
    () => pe.rope.fromConfig({ hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 4096,
      rope_scaling: { type: 'longrope', short_factor: [1, , 1, 1, 1, 1, 1, 1], long_factor: [1, 1, 1, 1, 1, 1, 1, 1], original_max_position_embeddings: 2048 } }), // eslint-disable-line no-sparse-arrays
    () => pe.rope.fromConfig({ hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 4096,
      rope_scaling: { type: 'longrope', short_factor: [1, 1, 1, 1, 1, 1, 1, 1], long_factor: new Array(8), original_max_position_embeddings: 2048 } }),
  ];
  for (const call of cases) {
    assert.throws(call, (e) => {
      assert.ok(isPosEnc(e), String(e));
      assert.match(e.message, /\[\d\] (is missing|must be a number, got a hole)/, e.message);
      return true;
    });
  }
});

test('absurd integers in a config are refused, naming the key', () => {
  for (const [key, value] of [['head_dim', 1e308], ['num_attention_heads', 2 ** 40], ['max_position_embeddings', 1e300]]) {
    const config = { model_type: 'llama', num_hidden_layers: 1, hidden_size: 64, num_attention_heads: 4, [key]: value };
    for (const read of [() => pe.model.fromConfig(config), () => pe.rope.fromConfig(config)]) {
      assert.throws(read, (e) => {
        assert.ok(isPosEnc(e), String(e));
        assert.equal(e.code, 'INVALID_CONFIG');
        assert.match(e.message, new RegExp(key));
        return true;
      });
    }
  }
});

test('options given as a class instance: getters of its prototype are read, once each', () => {
  let reads = 0;
  class Options {
    get dims() { reads++; return [2, 4]; }
    get offset() { reads++; return 3; }
  }
  const expected = pe.sinusoidal.addTo(new Float32Array(8), { dims: [2, 4], offset: 3 });
  assert.deepEqual(pe.sinusoidal.addTo(new Float32Array(8), new Options()), expected);
  assert.equal(reads, 2);
});
