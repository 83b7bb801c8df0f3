// One worker of the multi-core measurement (multicore.mjs): its own single-threaded posenc instance
// (dist/), plus the bound loops of harness/bounds.wat on a WebAssembly.Memory shared by all workers.
// The main thread sends a case by message; the worker prepares its part (all rows, or its share of
// them) and then runs calls on command through Atomics, as a thread pool would, until told to stop.
import { parentPort, workerData } from 'node:worker_threads';

import { createBounds } from './harness/bounds.mjs';
import { createMeasuredPosEnc } from './harness/posenc-instance.mjs';

const { index, root, control, shared, boundsBytes, sharedBoundsBytes } = workerData;
const ctrl = new Int32Array(control);
// Control words (multicore.mjs writes them): the call counter workers wait on, the variant to run,
// how many threads take part, how many have finished this call.
const CALL = 0, VARIANT = 1, THREADS = 2, DONE = 3;
const STOP = -1;

const { pe, memory } = await createMeasuredPosEnc(root);
const sharedBounds = (await WebAssembly.instantiate(sharedBoundsBytes, { bench: { memory: shared } })).instance.exports;
const ownBounds = await createBounds(pe, memory, boundsBytes);

/** Rows [start, start + count) of `total` for this worker when `threads` share them. */
function share(total, threads) {
  const per = Math.ceil(total / threads);
  const start = Math.min(total, per * index);
  return { start, count: Math.min(per, total - start) };
}

/**
 * A generator case (table or bias): `make(start, count, out)` writes rows start.. into `out` (a
 * WasmTensor of `rowDims(count)`); the result rows are strided by `blocks` (heads for a bias).
 * 'resident' leaves the result in this worker's memory; 'copies' also copies it into the shared output.
 */
function generator(c, rowDims, blocks, make) {
  const out = new Float32Array(c.output);
  const rowFloats = c.rowFloats;
  const variant = (threads) => {
    const { start, count } = share(c.rows, threads);
    const t = pe.memory.tensor(rowDims(count));
    const resident = () => make(start, count, t);
    const copies = () => {
      make(start, count, t);
      const v = t.view();
      const block = count * rowFloats;
      for (let b = 0; b < blocks; b++) out.set(v.subarray(b * block, (b + 1) * block), (b * c.rows + start) * rowFloats);
    };
    return { resident, copies, dispose: () => t.dispose() };
  };
  return variant;
}

/** The case's runnables for 1 thread (worker 0 only) and for `threads` > 1: Map(variant -> fn) each. */
function prepare(c) {
  const p = c.params;
  let variant;
  if (c.kind === 'stream') {
    // One bound loop (c.params.op) over this worker's share of c.bytes: 'own' in two tensors of its
    // own posenc memory (as the main bench's bounds), 'shared' in the memory all workers share (a
    // buffer at 0 and, for copy, its destination right after it).
    const n = c.bytes;
    const op = c.params.op;
    variant = (threads) => {
      const part = Math.ceil(n / threads / 64) * 64;
      const at = Math.min(n, part * index);
      const len = Math.min(part, n - at);
      const own = ownBounds.prepare(len);
      const shared = { fill: () => sharedBounds.fill(at, len), copy: () => sharedBounds.copy(n + at, at, len), rmw: () => sharedBounds.rmw(at, len) };
      return { own: own[op], shared: shared[op], dispose: () => own.dispose() };
    };
  } else if (c.kind === 'rope') {
    const input = new Float32Array(c.input);
    const out = new Float32Array(c.output);
    const rowFloats = p.heads * p.dim;
    const cache = pe.rope.createCache({ rotaryDim: p.dim, maxPositions: p.tokens, pairing: 'half' });
    variant = (threads) => {
      const { start, count } = share(p.tokens, threads);
      const dims = [1, count, p.heads, p.dim];
      const slice = () => input.subarray(start * rowFloats, (start + count) * rowFloats);
      const x = pe.memory.tensor(dims, slice());
      const y = pe.memory.tensor(dims);
      const opts = { layout: 'bshd', offset: start };
      return {
        resident: () => cache.apply(x, null, opts),
        copies: () => {
          y.view().set(slice());
          cache.apply(y, null, opts);
          out.set(y.view(), start * rowFloats);
        },
        dispose() { x.dispose(); y.dispose(); },
      };
    };
    variant.disposeCase = () => cache.dispose();
  } else if (c.kind === 'sinusoidal') {
    variant = generator(c, (n) => [n, p.dim], 1,
      (start, count, out) => pe.sinusoidal.table({ length: count, offset: start, dim: p.dim, precision: p.precision, out }));
  } else if (c.kind === 'alibi') {
    variant = generator(c, (n) => [p.heads, n, p.kLen], p.heads,
      (start, count, out) => pe.alibi.bias({ numHeads: p.heads, qLen: count, kLen: p.kLen, queryOffset: start, out }));
  } else if (c.kind === 't5') {
    const table = { data: new Float32Array(c.input), dims: [p.buckets, p.heads] };
    variant = generator(c, (n) => [p.heads, n, p.kLen], p.heads,
      (start, count, out) => pe.t5.bias(table, { qLen: count, kLen: p.kLen, queryOffset: start, out }));
  } else {
    throw new Error(`multicore worker: unknown case kind ${c.kind}`);
  }
  const byThreads = new Map();
  if (index === 0) byThreads.set(1, variant(1));
  byThreads.set(c.threads, variant(c.threads));
  return { byThreads, dispose() { for (const v of byThreads.values()) v.dispose(); variant.disposeCase?.(); } };
}

/** Runs calls on command until the main thread writes STOP as the variant. */
function serve(prepared, names, seen) {
  for (;;) {
    Atomics.wait(ctrl, CALL, seen);
    seen = Atomics.load(ctrl, CALL);
    const v = Atomics.load(ctrl, VARIANT);
    if (v === STOP) return;
    const threads = Atomics.load(ctrl, THREADS);
    if (index < threads) {
      prepared.byThreads.get(threads)[names[v]]();
      Atomics.add(ctrl, DONE, 1);
      Atomics.notify(ctrl, DONE);
    }
  }
}

parentPort.on('message', (c) => {
  const prepared = prepare(c);
  const seen = Atomics.load(ctrl, CALL); // before saying ready: the first call may follow at once
  parentPort.postMessage({ ready: index });
  serve(prepared, c.variants, seen);
  prepared.dispose();
  parentPort.postMessage({ done: index });
});
parentPort.postMessage({ loaded: index });
