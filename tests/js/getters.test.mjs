// Caller code that runs during a call cannot break memory safety. Options objects are Proxies that
// run hostile code at one of their reads (or key listings), each read in turn: it disposes the
// objects the call uses (caches, tables, WasmTensors), grows WebAssembly memory, or calls posenc
// again. A call must then throw DISPOSED (never read or write freed memory: the freed blocks are
// refilled with NaN to show it), or give exactly the result of an undisturbed call.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { apiCases } from './api-cases.mjs';
import { createPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

/** options as a Proxy that runs `hostile()` at its `at`-th read or key listing (every one when `at` is undefined); counts them in `seen`. */
function hostileOptions(options, hostile, at, seen = { reads: 0 }) {
  const touch = () => {
    seen.reads++;
    if (at === undefined || seen.reads === at) hostile();
  };
  return new Proxy(options, {
    get(target, key, receiver) {
      touch();
      return Reflect.get(target, key, receiver);
    },
    ownKeys(target) {
      touch();
      return Reflect.ownKeys(target);
    },
  });
}

/** How many times a call reads its options (with no hostile code). */
function readsOf(make) {
  const { uses, run, options } = make();
  const seen = { reads: 0 };
  run(hostileOptions({ ...options }, () => {}, 0, seen));
  for (const o of uses) o.dispose();
  return seen.reads;
}

/** Frees `objects` once, then fills fresh allocations with NaN so that a read of freed memory shows. */
function disposer(objects) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const o of objects) o.dispose();
    const junk = pe.memory.tensor([1 << 16]);
    junk.view().fill(NaN);
  };
}

const ones = (n) => new Float32Array(n).fill(1);

/** Each case: make(objects) builds the call's objects and returns { run(options), options, uses }. */
const CASES = {
  'RopeCache.apply': () => {
    const cache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 16 });
    return { uses: [cache], run: (o) => { const q = ones(32); cache.apply(q, null, o); return q; }, options: { dims: [4, 8], offset: 2 } };
  },
  'RopeCache.shift': () => {
    const cache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 16 });
    return { uses: [cache], run: (o) => { const k = ones(32); cache.shift(k, o); return k; }, options: { dims: [4, 8], offset: 2, delta: 3 } };
  },
  'PositionTable.addTo (learned)': () => {
    const table = pe.learned.createTable({ data: Float32Array.from({ length: 64 }, (_, i) => i), dims: [8, 8] });
    return { uses: [table], run: (o) => { const x = ones(32); table.addTo(x, o); return x; }, options: { dims: [4, 8], offset: 1 } };
  },
  'PositionTable.lookup (fast sinusoidal)': () => {
    const table = pe.sinusoidal.createTable({ maxPositions: 64, dim: 8, precision: 'fast' });
    return { uses: [table], run: (o) => table.lookup(o).data, options: { length: 4, offset: 3 } };
  },
  'learned.lookup of a WasmTensor table': () => {
    const table = pe.memory.tensor([8, 8], Float32Array.from({ length: 64 }, (_, i) => i));
    return { uses: [table], run: (o) => pe.learned.lookup(table, o).data, options: { positionIds: [1, 5] } };
  },
  'learned.addTo of a WasmTensor table': () => {
    const table = pe.memory.tensor([8, 8], Float32Array.from({ length: 64 }, (_, i) => i));
    return { uses: [table], run: (o) => { const x = ones(16); pe.learned.addTo(x, table, o); return x; }, options: { dims: [2, 8], offset: 4 } };
  },
  'rope.apply on a WasmTensor': () => {
    const q = pe.memory.tensor([4, 8], ones(32));
    return { uses: [q], run: (o) => { pe.rope.apply(q, null, o); return q.view().slice(); }, options: { offset: 5, base: 100 } };
  },
  'sinusoidal.table into a WasmTensor out': () => {
    const out = pe.memory.tensor([4, 8]);
    return { uses: [out], run: (o) => pe.sinusoidal.table({ ...o, out }).data.slice(), options: { length: 4, dim: 8, offset: 7 } };
  },
  't5.bias of a WasmTensor table': () => {
    const table = pe.memory.tensor([32, 2], Float32Array.from({ length: 64 }, (_, i) => i));
    return { uses: [table], run: (o) => pe.t5.bias(table, o).data, options: { qLen: 3, kLen: 3 } };
  },
  'LayerRopeCache.apply': () => {
    const plan = pe.model.fromConfig({ model_type: 'llama', num_hidden_layers: 1, hidden_size: 16, num_attention_heads: 2, rope_theta: 100 });
    const cache = pe.model.createCache(plan, 0, { maxPositions: 16 });
    return { uses: [cache], run: (o) => { const q = ones(2 * 3 * 8); cache.apply(q, null, o); return q; }, options: { layout: 'bshd', dims: [1, 3, 2, 8], offset: 4 } };
  },
};

for (const [name, make] of Object.entries(CASES)) {
  test(`${name}: objects disposed by a getter during the call give DISPOSED, never freed memory`, () => {
    const reads = readsOf(make);
    assert.ok(reads > 0);
    for (let at = 1; at <= reads; at++) {
      const { uses, run, options } = make();
      assert.throws(() => run(hostileOptions({ ...options }, disposer(uses), at)), (e) => e.code === 'DISPOSED',
        `${name}: the objects disposed at read ${at} of ${reads}, and the call went on`);
    }
    // The module keeps working: the same call gives what it gives on a fresh object.
    const again = make();
    const result = Array.from(again.run({ ...again.options }));
    for (const o of again.uses) o.dispose();
    const fresh = make();
    assert.deepEqual(result, Array.from(fresh.run({ ...fresh.options })));
    assert.ok(result.some((v) => v !== 1), 'the call changed its input');
    for (const o of fresh.uses) o.dispose();
  });

  test(`${name}: memory growth and calls into posenc from a getter leave the result unchanged`, () => {
    const plain = make();
    const expected = Array.from(plain.run({ ...plain.options }));
    for (const o of plain.uses) o.dispose();
    const hostile = make();
    const grown = [];
    let calls = 0;
    const result = hostile.run(hostileOptions({ ...hostile.options }, () => {
      calls++;
      grown.push(pe.memory.tensor([1 << 20]));            // 4 MiB more each read: memory grows, views detach
      pe.rope.apply(ones(16), null, { dims: [2, 8], offset: calls }); // a call while the outer one is being set up
    }));
    assert.ok(calls > 0, 'the getters ran');
    assert.deepEqual(Array.from(result), expected);
    for (const o of [...grown, ...hostile.uses]) o.dispose();
  });
}

// Every public function (the robustness sweep's calls), its tensor arguments as WasmTensors and its
// options a Proxy: disposing those tensors at any read of the options, and refilling the freed
// blocks with NaN, must give DISPOSED or the undisturbed result, and must leave the refill untouched
// (nothing written through a stale pointer).
const isTensor = (a) => a && typeof a === 'object' && a.data instanceof Float32Array && Array.isArray(a.dims);
const isOptions = (a) => a && typeof a === 'object' && !Array.isArray(a) && !ArrayBuffer.isView(a) && !isTensor(a) && !('layers' in a);
const plain = (v) => JSON.stringify(v, (_k, x) => (ArrayBuffer.isView(x) ? Array.from(x, (e) => (typeof e === 'bigint' ? String(e) : e)) : x));

for (const [name, fn, valid] of apiCases(pe)) {
  const at = valid.findLastIndex(isOptions);
  if (at < 0 || !valid.some(isTensor)) continue; // nothing to dispose, or no options to run code from

  test(`${name}: WasmTensor arguments disposed by an option getter give DISPOSED, never freed memory`, () => {
    const setUp = () => {
      const tensors = [];
      const args = valid.map((a) => {
        if (!isTensor(a)) return a;
        const t = pe.memory.tensor(a.dims, a.data);
        tensors.push(t);
        return t;
      });
      return { args, tensors };
    };
    const outcomeOf = (args, tensors) => plain([fn(...args) ?? null, tensors.map((t) => (t.disposed ? null : t.view()))]);

    const calm = setUp();
    const seen = { reads: 0 };
    calm.args[at] = hostileOptions({ ...valid[at] }, () => {}, 0, seen);
    const expected = outcomeOf(calm.args, calm.tensors);
    for (const t of calm.tensors) t.dispose();
    assert.ok(seen.reads > 0, `${name} reads its options`);

    for (let read = 1; read <= seen.reads; read++) {
      const { args, tensors } = setUp();
      const refill = [];
      args[at] = hostileOptions({ ...valid[at] }, () => {
        for (const t of tensors) t.dispose();
        for (const t of tensors) refill.push(pe.memory.tensor([t.size]).set(new Float32Array(t.size).fill(NaN)));
      }, read);
      let result;
      try {
        result = plain([fn(...args) ?? null, tensors.map(() => null)]);
      } catch (error) {
        assert.equal(error?.code, 'DISPOSED', `${name}: disposed at read ${read} of ${seen.reads}: ${error?.message}`);
      }
      if (result !== undefined) {
        assert.equal(result, plain([JSON.parse(expected)[0], tensors.map(() => null)]), `${name}: disposed at read ${read}, the result changed`);
      }
      for (const r of refill) {
        assert.ok(r.view().every(Number.isNaN), `${name}: disposed at read ${read}, freed memory was written`);
        r.dispose();
      }
    }
  });
}
