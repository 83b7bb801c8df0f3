// The checks of posenc/webgpu, run in a page (tests/webgpu/browser.mjs opens it): every kernel and
// table against posenc's WebAssembly results and the float64 formulas, in the same page, reading
// GPU buffers back. Each check returns numbers for the Node side to judge; `window.posencChecks`.
import { createPosEnc } from '../../dist/index.js';
import { createPosEncGpu, float16Bits, float16Value, requestPosEncGpu, ropeWgsl } from '../../dist/webgpu/index.js';

const STORAGE = 0x80;
const COPY_SRC = 0x4;
const COPY_DST = 0x8;
const MAP_READ = 0x1;
const U = 2 ** -24; // float32 unit roundoff

const status = document.getElementById('status');
const pe = await createPosEnc();
let gpu;
let setupError;
const gpuErrors = [];
try {
  gpu = await requestPosEncGpu(pe);
  gpu.device.addEventListener('uncapturederror', (e) => gpuErrors.push(e.error.message));
} catch (error) {
  setupError = { code: error.code, name: error.name, message: error.message };
}
const device = gpu?.device;

/** A STORAGE | COPY_SRC | COPY_DST buffer holding `data`. */
function buf(data, usage = STORAGE | COPY_SRC | COPY_DST, on = device) {
  const b = on.createBuffer({ size: Math.max(4, Math.ceil(data.byteLength / 4) * 4), usage, mappedAtCreation: true });
  new Uint8Array(b.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  b.unmap();
  return b;
}

/** The contents of `b` as a `Type` array (copied through a MAP_READ buffer). */
async function read(b, Type = Float32Array, on = device) {
  const r = on.createBuffer({ size: b.size, usage: MAP_READ | COPY_DST });
  const e = on.createCommandEncoder();
  e.copyBufferToBuffer(b, 0, r, 0, b.size);
  on.queue.submit([e.finish()]);
  await r.mapAsync(MAP_READ);
  const out = new Type(r.getMappedRange().slice(0));
  r.unmap();
  r.destroy();
  return out;
}

function rand(n, seed, scale = 7) {
  let s = seed;
  return Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * scale);
}

/** Indices where two float32 arrays differ bit for bit. */
function bitDiffs(a, b) {
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let n = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
  return a.length === b.length ? n : -1;
}

/** GPU validation errors of `f` (an async function), with its result. */
async function scoped(f) {
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  let result;
  try {
    result = await f();
  } finally {
    const oom = await device.popErrorScope();
    const validation = await device.popErrorScope();
    if (oom) gpuErrors.push(`out of memory: ${oom.message}`);
    if (validation) gpuErrors.push(`validation: ${validation.message}`);
  }
  return result;
}

/** Element index of (b, s, h, d) in a tensor of `shape` ({ layout, batch, seq, heads, headDim, base, rowHeads }). */
function at(t, b, s, h, d) {
  if (t.layout === 'bhsd') return ((b * t.heads + h) * t.seq + s) * t.headDim + d;
  return (b * t.seq + s) * t.rowHeads * t.headDim + (t.base + h) * t.headDim + d; // bshd, 3-D and packed qkv rows
}

/**
 * Rotation errors of `got` (rotated from `x0`) against the float64 rotation of each pair by
 * angle(b, s, pair) * factor, in units of 2^-24 (|x c| + |y s|) (lane a; |x s| + |y c| for lane b); NaN pairs where `bad(b, s)`, and
 * every other lane untouched.
 */
function rotationErrors(got, x0, t, lanes, angle, factor, bad, unit = U) {
  let worst = 0;
  let nanWrong = 0;
  let touched = 0;
  const rotated = new Set();
  for (let i = 0; i < lanes.pairs; i++) for (const l of lanes.of(i)) rotated.add(l);
  for (let b = 0; b < t.batch; b++) for (let s = 0; s < t.seq; s++) for (let h = 0; h < t.heads; h++) {
    for (let d = 0; d < t.headDim; d++) {
      if (!rotated.has(d) && Object.is(got[at(t, b, s, h, d)], x0[at(t, b, s, h, d)]) === false) touched++;
    }
    for (let i = 0; i < lanes.pairs; i++) {
      const [la, lb] = lanes.of(i);
      const ia = at(t, b, s, h, la);
      const ib = at(t, b, s, h, lb);
      if (bad(b, s, i)) {
        if (!Number.isNaN(got[ia]) || !Number.isNaN(got[ib])) nanWrong++;
        continue;
      }
      const a = angle(b, s, i);
      const c = Math.cos(a) * factor;
      const sn = Math.sin(a) * factor;
      const x = x0[ia];
      const y = x0[ib];
      const scaleA = unit * (Math.abs(x * c) + Math.abs(y * sn)) + 2 ** -149;
      const scaleB = unit * (Math.abs(x * sn) + Math.abs(y * c)) + 2 ** -149;
      worst = Math.max(worst, Math.abs(got[ia] - (x * c - y * sn)) / scaleA, Math.abs(got[ib] - (x * sn + y * c)) / scaleB);
      if (Number.isNaN(got[ia]) || Number.isNaN(got[ib])) worst = Infinity;
    }
  }
  return { worst, nanWrong, touched };
}

/** The lanes of a table layout: pair i -> [lane a, lane b] from `first`. */
function lanesOf(layout, first = 0) {
  return {
    pairs: layout.pairs,
    of: (i) => (layout.pairing === 'half' ? [first + i, first + i + layout.span] : [first + 2 * i, first + 2 * i + 1]),
  };
}

/** q/k shapes of a case: { layout: 'bshd' | 'bhsd' | '3d' | 'qkv', batch, seq, qHeads, kHeads, headDim, kHeadDim }. */
function shapes(c) {
  const kHeadDim = c.kHeadDim ?? c.headDim;
  if (c.layout === 'qkv') {
    const row = c.qHeads + 2 * c.kHeads;
    return {
      q: { layout: 'bshd', batch: c.batch, seq: c.seq, heads: c.qHeads, headDim: c.headDim, base: 0, rowHeads: row },
      k: { layout: 'bshd', batch: c.batch, seq: c.seq, heads: c.kHeads, headDim: c.headDim, base: c.qHeads, rowHeads: row },
      size: c.batch * c.seq * row * c.headDim,
    };
  }
  const layout = c.layout === 'bhsd' ? 'bhsd' : 'bshd';
  return {
    q: { layout, batch: c.batch, seq: c.seq, heads: c.qHeads, headDim: c.headDim, base: 0, rowHeads: c.qHeads },
    k: c.kHeads ? { layout, batch: c.batch, seq: c.seq, heads: c.kHeads, headDim: kHeadDim, base: 0, rowHeads: c.kHeads } : null,
  };
}

function dimsOf(t, layout) {
  if (layout === '3d') return [t.batch, t.seq, t.heads * t.headDim];
  return t.layout === 'bhsd' ? [t.batch, t.heads, t.seq, t.headDim] : [t.batch, t.seq, t.heads, t.headDim];
}

/** A position ids buffer of `dtype` ('int32', 'uint32', 'int64') holding `ids`. */
function idsBuffer(ids, dtype) {
  if (dtype === 'int64') return buf(BigInt64Array.from(ids, BigInt));
  return buf(dtype === 'uint32' ? Uint32Array.from(ids) : Int32Array.from(ids));
}

/**
 * Rotates random q and k on the GPU with `table` and returns the rotated arrays, the inputs, and
 * the GPU-side arguments used. `c.positions`: { offset } or { ids, dims, dtype }.
 */
async function rotateOnGpu(table, c) {
  const sh = shapes(c);
  const gpuArgs = { layout: c.layout === 'bhsd' || c.layout === 'bshd' ? c.layout : undefined };
  if (c.positions.ids) gpuArgs.positionIds = { buffer: idsBuffer(c.positions.ids, c.positions.dtype), dims: c.positions.dims, dtype: c.positions.dtype };
  else gpuArgs.offset = c.positions.offset;
  if (c.layout === '3d') {
    gpuArgs.layout = undefined;
    gpuArgs.numHeads = c.qHeads;
    gpuArgs.numKeyValueHeads = c.kHeads || undefined;
  }
  if (c.layout === 'qkv') {
    const x0 = rand(sh.size, 11 + c.seq);
    const qkv = buf(x0);
    await scoped(async () => gpu.rope(table, { ...gpuArgs, layout: undefined, qkv: { buffer: qkv, dims: [c.batch, c.seq, sh.size / (c.batch * c.seq)] }, numHeads: c.qHeads, numKeyValueHeads: c.kHeads }));
    const got = await read(qkv);
    qkv.destroy();
    return { sh, q0: x0, k0: x0, q: got, k: got, qkv: true };
  }
  const q0 = rand(sh.q.batch * sh.q.seq * sh.q.heads * sh.q.headDim, 3 + c.seq);
  const k0 = sh.k ? rand(sh.k.batch * sh.k.seq * sh.k.heads * sh.k.headDim, 5 + c.seq) : null;
  const qb = buf(q0);
  const kb = k0 ? buf(k0) : null;
  await scoped(async () => gpu.rope(table, {
    ...gpuArgs, q: { buffer: qb, dims: dimsOf(sh.q, c.layout) }, k: kb ? { buffer: kb, dims: dimsOf(sh.k, c.layout) } : null,
  }));
  const q = await read(qb);
  const k = kb ? await read(kb) : null;
  qb.destroy();
  kb?.destroy();
  gpuArgs.positionIds?.buffer.destroy();
  return { sh, q0, k0, q, k };
}

/** The position of token (b, s) on axis `axis` of a case. */
function positionOf(c, b, s, axis = 0) {
  const p = c.positions;
  if (!p.ids) return p.offset + s;
  const dims = p.dims;
  const axes = dims.length === 3 || (dims.length === 2 && c.axes && dims[0] === c.axes) ? dims[0] : 1;
  const perBatch = dims.length === 3 || (dims.length === 2 && axes === 1);
  const per = perBatch ? c.batch * c.seq : c.seq;
  return p.ids[(axes > 1 ? axis : 0) * per + (perBatch ? b * c.seq + s : s)];
}

/** The WASM side's copies of q and k for a case (unpacked from qkv). */
function unpack(r, c) {
  if (!r.qkv) return { q: r.q0.slice(), k: r.k0?.slice() ?? null, qg: r.q, kg: r.k };
  const pick = (x, t) => {
    const out = new Float32Array(t.batch * t.seq * t.heads * t.headDim);
    for (let b = 0; b < t.batch; b++) for (let s = 0; s < t.seq; s++) for (let h = 0; h < t.heads; h++) for (let d = 0; d < t.headDim; d++) {
      out[((b * t.seq + s) * t.heads + h) * t.headDim + d] = x[at(t, b, s, h, d)];
    }
    return out;
  };
  return { q: pick(r.q0, r.sh.q), k: pick(r.k0, r.sh.k), qg: pick(r.q, r.sh.q), kg: pick(r.k, r.sh.k) };
}

/** The v heads of a packed qkv left as they were. */
function vUntouched(r, c) {
  if (!r.qkv) return true;
  const row = c.qHeads + 2 * c.kHeads;
  for (let t = 0; t < c.batch * c.seq; t++) {
    for (let e = (c.qHeads + c.kHeads) * c.headDim; e < row * c.headDim; e++) if (!Object.is(r.q[t * row * c.headDim + e], r.q0[t * row * c.headDim + e])) return false;
  }
  return true;
}

const checks = {
  status: () => ({ setupError, float16: gpu?.float16 ?? null, adapter: gpu ? 'ok' : null, wgslHasF16: null }),

  gpuErrors: () => gpuErrors.slice(),

  /** RoPE tables against pe.rope.createCache's rows (bit for bit) and float16 ones against the float64 values. */
  async ropeTables(specs, rows) {
    const out = [];
    for (const spec of specs) {
      const t = await scoped(async () => gpu.ropeTable({ ...spec, maxPositions: rows }));
      const cache = pe.rope.createCache({ ...spec, maxPositions: rows });
      const want = cache.toTensors();
      cache.dispose();
      const cos = (await read(t.cos)).subarray(0, want.cos.data.length);
      const sin = (await read(t.sin)).subarray(0, want.sin.data.length);
      const r = { spec: JSON.stringify(spec).slice(0, 80), values: want.cos.data.length, cosDiffs: bitDiffs(cos, want.cos.data), sinDiffs: bitDiffs(sin, want.sin.data), pairs: t.layout.pairs };
      t.destroy();
      if (gpu.float16) {
        const t16 = await scoped(async () => gpu.ropeTable({ ...spec, maxPositions: rows, dtype: 'float16' }));
        const c16 = (await read(t16.cos, Uint16Array)).subarray(0, r.values);
        const s16 = (await read(t16.sin, Uint16Array)).subarray(0, r.values);
        t16.destroy();
        const f = pe.rope.frequencies(spec, { seqLen: rows });
        const pairs = f.invFreq.length;
        let off = 0;
        let beyondHalfUlp = 0;
        let engineDiffs = 0;
        const engine = typeof Math.f16round === 'function';
        for (let p = 0; p < rows; p++) for (let i = 0; i < pairs; i++) {
          for (const [bits, v] of [[c16[p * pairs + i], Math.cos(p * f.invFreq[i]) * f.attentionFactor], [s16[p * pairs + i], Math.sin(p * f.invFreq[i]) * f.attentionFactor]]) {
            if (bits !== float16Bits(v)) off++;
            // nearest: no other float16 is closer (the neighbours' distance at least this one's)
            const g = float16Value(bits);
            const up = float16Value(bits + 1);
            const down = float16Value(bits === 0 ? 0x8001 : bits - 1);
            if (Math.abs(g - v) > Math.abs(up - v) || Math.abs(g - v) > Math.abs(down - v)) beyondHalfUlp++;
            if (engine && Math.f16round(v) !== g) engineDiffs++;
          }
        }
        Object.assign(r, { f16FromFormula: off, f16NotNearest: beyondHalfUlp, f16EngineDiffs: engine ? engineDiffs : null });
      }
      out.push(r);
    }
    return out;
  },

  /** A spec table's rotation: GPU against the WASM cache's apply and the float64 formula. */
  async rope(c) {
    const table = await scoped(async () => gpu.ropeTable({ ...c.spec, maxPositions: c.rows, dtype: c.dtype }));
    const r = await rotateOnGpu(table, c);
    const l = table.layout;
    table.destroy();
    const f = pe.rope.frequencies(c.spec, { seqLen: c.rows });
    const bad = (b, s) => {
      const p = positionOf(c, b, s);
      return !(p >= 0 && p < c.rows && Number.isInteger(p));
    };
    const angle = (b, s, i) => positionOf(c, b, s) * f.invFreq[i];
    const unit = c.dtype === 'float16' ? 2 ** -11 : U;
    const eq = rotationErrors(r.q, r.q0, r.sh.q, lanesOf(l), angle, f.attentionFactor, bad, unit);
    const ek = r.sh.k ? rotationErrors(r.k, r.k0, r.sh.k, lanesOf(l), angle, f.attentionFactor, bad, unit) : { worst: 0, nanWrong: 0, touched: 0 };
    const result = { worst: Math.max(eq.worst, ek.worst), nanWrong: eq.nanWrong + ek.nanWrong, touched: eq.touched + ek.touched, vUntouched: vUntouched(r, c) };
    const anyBad = Array.from({ length: c.batch * c.seq }, (_, t) => bad(Math.floor(t / c.seq), t % c.seq)).some(Boolean);
    if (!anyBad && c.dtype !== 'float16') {
      // the same table in WebAssembly: pe.rope.createCache(...).apply
      const u = unpack(r, c);
      const cache = pe.rope.createCache({ ...c.spec, maxPositions: c.rows });
      const layout = c.layout === 'bhsd' ? 'bhsd' : 'bshd';
      const wasmOpts = { layout, ...(c.positions.ids ? { positionIds: { data: Float64Array.from(c.positions.ids), dims: c.positions.dims } } : { offset: c.positions.offset }) };
      const qd = dimsOf(r.sh.q, c.layout === 'qkv' ? 'bshd' : c.layout);
      const qDims = c.layout === 'qkv' ? [c.batch, c.seq, c.qHeads, c.headDim] : qd;
      const kDims = r.sh.k ? (c.layout === 'qkv' ? [c.batch, c.seq, c.kHeads, c.headDim] : dimsOf(r.sh.k, c.layout)) : undefined;
      cache.apply({ data: u.q, dims: qDims }, u.k ? { data: u.k, dims: kDims } : null, c.layout === '3d' ? { ...wasmOpts, layout: undefined, numHeads: c.qHeads } : wasmOpts);
      cache.dispose();
      let maxDiff = 0;
      for (const [g, w] of [[u.qg, u.q], [u.kg ?? [], u.k ?? []]]) for (let i = 0; i < w.length; i++) maxDiff = Math.max(maxDiff, Math.abs(g[i] - w[i]));
      const wq = rotationErrors(u.q, unpack(r, c).q, c.layout === 'qkv' ? { ...r.sh.q, rowHeads: c.qHeads, base: 0 } : r.sh.q, lanesOf(l), angle, f.attentionFactor, bad, unit);
      Object.assign(result, { wasmWorst: wq.worst, wasmBitDiffs: bitDiffs(u.qg, u.q) + (u.k ? bitDiffs(u.kg, u.k) : 0), wasmMaxDiff: maxDiff, values: u.q.length + (u.k?.length ?? 0) });
    }
    return result;
  },

  /** A plan layer's table (against pe.model.cosSin rounded once) and rotation (against float64 and pe.model.apply). */
  async layer(c) {
    const plan = pe.model.fromConfig(c.config);
    const table = await scoped(async () => gpu.layerTable(plan, c.layer, { maxPositions: c.rows, laneOrder: c.laneOrder }));
    const l = table.layout;
    const cs = pe.model.cosSin(plan, c.layer, Array.from({ length: c.rows }, (_, p) => p));
    const cols = cs.dims[1];
    const pick = (v) => Float32Array.from({ length: c.rows * l.pairs }, (_, e) => v[Math.floor(e / l.pairs) * cols + (e % l.pairs)]);
    const tableDiffs = bitDiffs((await read(table.cos)).subarray(0, c.rows * l.pairs), pick(cs.cos)) +
      bitDiffs((await read(table.sin)).subarray(0, c.rows * l.pairs), pick(cs.sin));
    const r = await rotateOnGpu(table, c);
    table.destroy();
    const f = pe.model.frequencies(plan, c.layer);
    const fr = pe.model.frequencies(plan, c.layer, { seqLen: c.rows });
    const axisOf = (i) => {
      if (!l.axes) return 0;
      const sec = l.axes.section;
      if (l.axes.kind === 'interleaved') return i % 3 === 1 && i < 3 * sec[1] ? 1 : i % 3 === 2 && i < 3 * sec[2] ? 2 : 0;
      let end = 0;
      for (let a = 0; a < sec.length; a++) if (i < (end += sec[a])) return a;
      return sec.length - 1;
    };
    const angle = (b, s, i) => positionOf(c, b, s, axisOf(i)) * fr.invFreq[i];
    const first = (t) => (l.nopeHeadDim > 0 && t.headDim === l.nopeHeadDim + l.width ? l.nopeHeadDim : 0);
    const none = () => false;
    const eq = rotationErrors(r.q, r.q0, r.sh.q, lanesOf(l, first(r.sh.q)), angle, fr.attentionFactor, none);
    const ek = r.sh.k ? rotationErrors(r.k, r.k0, r.sh.k, lanesOf(l, first(r.sh.k)), angle, fr.attentionFactor, none) : { worst: 0, nanWrong: 0, touched: 0 };
    // pe.model.apply: the WebAssembly module's own rotation of the same layer (float64 angles, no table)
    const u = unpack(r, c);
    const pos = c.positions.ids ? { positionIds: { data: Float64Array.from(c.positions.ids), dims: c.positions.dims } } : { offset: c.positions.offset };
    const layout = c.layout === 'bhsd' ? 'bhsd' : 'bshd';
    pe.model.apply(plan, c.layer, { data: u.q, dims: dimsOf(r.sh.q, 'bshd' === layout ? 'bshd' : layout) }, u.k ? { data: u.k, dims: dimsOf(r.sh.k, layout) } : null,
      { layout, ...pos, seqLen: c.rows, laneOrder: c.laneOrder });
    let maxDiff = 0;
    for (const [g, w] of [[u.qg, u.q], [u.kg ?? [], u.k ?? []]]) for (let i = 0; i < w.length; i++) maxDiff = Math.max(maxDiff, Math.abs(g[i] - w[i]));
    return {
      form: plan.layers[c.layer].rope.form.kind, pairs: l.pairs, span: l.span, axes: l.axes, tableDiffs, worst: Math.max(eq.worst, ek.worst),
      touched: eq.touched + ek.touched, wasmMaxDiff: maxDiff, modelLoadSame: f.invFreq.every((w, i) => w === fr.invFreq[i]),
    };
  },

  /** Float32 GPU sin/cos as engines compute them (pow, multiply, sin, cos per element) against posenc's table, both against float64. */
  async naive({ headDim = 128, base = 10000, positions }) {
    const pairs = headDim / 2;
    const code = `@group(0) @binding(0) var<storage, read> pos: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = gid.x;
  if (e >= arrayLength(&pos) * ${pairs}u) { return; }
  let p = pos[e / ${pairs}u];
  let i = e % ${pairs}u;
  let inv_freq = 1.0 / pow(${base.toFixed(1)}, f32(2u * i) / ${headDim.toFixed(1)});
  let angle = f32(p) * inv_freq;
  out[2u * e] = cos(angle);
  out[2u * e + 1u] = sin(angle);
}`;
    const ids = Uint32Array.from(positions);
    const posBuf = buf(ids);
    const outBuf = device.createBuffer({ size: ids.length * pairs * 8, usage: STORAGE | COPY_SRC });
    await scoped(async () => {
      const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code }), entryPoint: 'main' } });
      const e = device.createCommandEncoder();
      const pass = e.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: posBuf } }, { binding: 1, resource: { buffer: outBuf } }] }));
      pass.dispatchWorkgroups(Math.ceil((ids.length * pairs) / 64));
      pass.end();
      device.queue.submit([e.finish()]);
    });
    const naive = await read(outBuf);
    posBuf.destroy();
    outBuf.destroy();
    // posenc: the table rows of the same positions (one table up to the largest position)
    const rows = Math.max(...positions) + 1;
    const table = await scoped(async () => gpu.ropeTable({ headDim, base, maxPositions: rows }));
    const cos = await read(table.cos);
    const sin = await read(table.sin);
    table.destroy();
    const w = pe.rope.frequencies({ headDim, base }).invFreq;
    return positions.map((p, r) => {
      let naiveErr = 0;
      let poseErr = 0;
      for (let i = 0; i < pairs; i++) {
        const c = Math.cos(p * w[i]);
        const s = Math.sin(p * w[i]);
        naiveErr = Math.max(naiveErr, Math.abs(naive[2 * (r * pairs + i)] - c), Math.abs(naive[2 * (r * pairs + i) + 1] - s));
        poseErr = Math.max(poseErr, Math.abs(cos[p * pairs + i] - c), Math.abs(sin[p * pairs + i] - s));
      }
      return { position: p, naive: naiveErr, posenc: poseErr };
    });
  },

  /** Sinusoidal and learned tables added to embeddings, against pe's tables and adds (bit for bit). */
  async add() {
    const out = {};
    const sin = await scoped(async () => gpu.sinusoidalTable({ maxPositions: 300, dim: 66 }));
    out.sinusoidalTableDiffs = bitDiffs((await read(sin.buffer)).subarray(0, 300 * 66), pe.sinusoidal.table({ length: 300, dim: 66 }).data);
    const x0 = rand(2 * 20 * 66, 9);
    const xb = buf(x0);
    await scoped(async () => gpu.addPositions(sin, { x: { buffer: xb, dims: [2, 20, 66] }, offset: 100 }));
    const wasm = pe.sinusoidal.createTable({ maxPositions: 300, dim: 66 });
    const want = x0.slice();
    wasm.addTo({ data: want, dims: [2, 20, 66] }, { offset: 100 });
    wasm.dispose();
    out.sinusoidalAddDiffs = bitDiffs(await read(xb), want);
    sin.destroy();
    xb.destroy();
    const weights = rand(50 * 16, 21);
    const learned = await scoped(async () => gpu.positionTable({ data: weights, dims: [50, 16] }));
    const ids = [3, 0, 49, 7, 7, 12, 1, 2, 48, 0, 5, 6, 30, 31];
    const y0 = rand(2 * 7 * 16, 4);
    const yb = buf(y0);
    const idb = buf(Int32Array.from(ids));
    await scoped(async () => gpu.addPositions(learned, { x: { buffer: yb, dims: [2, 7, 16] }, positionIds: { buffer: idb, dims: [2, 7] } }));
    const wantY = y0.slice();
    pe.learned.addTo({ data: wantY, dims: [2, 7, 16] }, { data: weights, dims: [50, 16] }, { positionIds: { data: ids, dims: [2, 7] } });
    out.learnedAddDiffs = bitDiffs(await read(yb), wantY);
    // an id outside the table: its row is NaN, the others added
    const badIds = buf(Int32Array.of(3, 50, -1, 7, 7, 12, 1));
    const zb = buf(y0.subarray(0, 7 * 16));
    await scoped(async () => gpu.addPositions(learned, { x: { buffer: zb, dims: [7, 16] }, positionIds: { buffer: badIds, dims: [7] } }));
    const z = await read(zb);
    out.badRowsNaN = [1, 2].every((r) => z.subarray(r * 16, r * 16 + 16).every(Number.isNaN));
    out.goodRowsFinite = [0, 3, 4, 5, 6].every((r) => z.subarray(r * 16, r * 16 + 16).every(Number.isFinite));
    learned.destroy();
    for (const b of [yb, idb, badIds, zb]) b.destroy();
    return out;
  },

  /** ALiBi slopes (bit for bit) and biases (ulps from pe.alibi.bias) for each form. */
  async alibi(cases) {
    const out = [];
    for (const c of cases) {
      const slopes = await scoped(async () => gpu.alibiSlopes({ numHeads: c.numHeads, maxBias: c.maxBias }));
      const slopeDiffs = bitDiffs((await read(slopes)).subarray(0, c.numHeads), Float32Array.from(pe.alibi.slopes({ numHeads: c.numHeads, maxBias: c.maxBias })));
      slopes.destroy();
      const n = c.numHeads * c.qLen * c.kLen;
      const ob = device.createBuffer({ size: n * 4, usage: STORAGE | COPY_SRC });
      await scoped(async () => gpu.alibiBias({ ...c, out: { buffer: ob, dims: [c.numHeads, c.qLen, c.kLen] } }));
      const got = await read(ob);
      ob.destroy();
      const want = pe.alibi.bias(c).data;
      let worstUlps = 0;
      let differ = 0;
      const gi = new Int32Array(got.buffer);
      const wi = new Int32Array(want.buffer, want.byteOffset, want.length);
      for (let i = 0; i < n; i++) {
        if (got[i] === want[i]) continue; // -0 and +0 alike
        differ++;
        worstUlps = Math.max(worstUlps, Number.isFinite(want[i]) ? Math.abs(gi[i] - wi[i]) : Infinity);
      }
      out.push({ ...c, slopeDiffs, differ, worstUlps, values: n });
    }
    return out;
  },

  /** T5 buckets and biases against pe.t5 (bit for bit), including distances past maxDistance. */
  async t5(cases) {
    const out = [];
    for (const c of cases) {
      const weights = rand(c.numBuckets * c.heads, 33);
      const wb = buf(weights);
      const n = c.heads * c.qLen * c.kLen;
      const ob = device.createBuffer({ size: n * 4, usage: STORAGE | COPY_SRC });
      const bb = device.createBuffer({ size: c.qLen * c.kLen * 4, usage: STORAGE | COPY_SRC });
      const { heads, ...opts } = c;
      await scoped(async () => {
        gpu.t5Bias({ buffer: wb, dims: [c.numBuckets, heads] }, { ...opts, out: { buffer: ob, dims: [heads, c.qLen, c.kLen] } });
        gpu.t5Buckets({ ...opts, out: { buffer: bb, dims: [c.qLen, c.kLen] } });
      });
      const bias = await read(ob);
      const buckets = await read(bb, Int32Array);
      const wantBias = pe.t5.bias({ data: weights, dims: [c.numBuckets, heads] }, opts).data;
      const wantBuckets = pe.t5.buckets(opts).data;
      let bucketDiffs = 0;
      for (let i = 0; i < wantBuckets.length; i++) if (buckets[i] !== wantBuckets[i]) bucketDiffs++;
      out.push({ ...c, biasDiffs: bitDiffs(bias, wantBias), bucketDiffs, values: n });
      for (const b of [wb, ob, bb]) b.destroy();
    }
    return out;
  },

  /** Bad arguments: each a PosEncError with its code, before any GPU work (no validation error on the device). */
  async errors() {
    const out = [];
    const table = gpu.ropeTable({ headDim: 16, maxPositions: 64 });
    const q = buf(new Float32Array(2 * 4 * 16));
    const noStorage = device.createBuffer({ size: 512, usage: COPY_DST });
    const ids = buf(Int32Array.of(0, 1));
    const attempt = (name, f) => {
      try {
        f();
        out.push({ name, code: null });
      } catch (error) {
        out.push({ name, code: error.code ?? null, isPosEncError: error instanceof pe.PosEncError, message: error.message });
      }
    };
    await scoped(async () => {
      attempt('device not a GPUDevice', () => createPosEncGpu(pe, {}));
      attempt('pe not posenc', () => createPosEncGpu({}, device));
      attempt('buffer without STORAGE', () => gpu.rope(table, { layout: 'bshd', q: { buffer: noStorage, dims: [1, 2, 4, 16] } }));
      attempt('buffer too small', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 4, 4, 16] } }));
      attempt('not a buffer', () => gpu.rope(table, { layout: 'bshd', q: { buffer: new Float32Array(8), dims: [1, 2, 4, 16] } }));
      attempt('offset past the table', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 4, 16] }, offset: 63 }));
      attempt('head size not the table\'s', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 8, 8] } }));
      attempt('unknown option', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 4, 16] }, ofset: 1 }));
      attempt('3-D without numHeads', () => gpu.rope(table, { q: { buffer: q, dims: [1, 2, 64] } }));
      attempt('ids of the wrong shape', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 4, 16] }, positionIds: { buffer: ids, dims: [3] } }));
      attempt('ids in q\'s buffer', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 4, 16] }, positionIds: { buffer: q, dims: [2] } }));
      attempt('q and k the same tensor', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 4, 16] }, k: { buffer: q, dims: [1, 2, 4, 16] } }));
      attempt('misaligned offset', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 1, 1, 16], offset: 2 } }));
      attempt('mapped buffer', () => {
        const m = device.createBuffer({ size: 512, usage: STORAGE, mappedAtCreation: true });
        gpu.rope(table, { layout: 'bshd', q: { buffer: m, dims: [1, 2, 4, 16] } });
      });
      attempt('not a table', () => gpu.rope({}, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 4, 16] } }));
      attempt('bad dtype', () => gpu.ropeTable({ headDim: 16, maxPositions: 8, dtype: 'float64' }));
      attempt('table larger than the binding limit', () => gpu.ropeTable({ headDim: 4096, maxPositions: 2 ** 30 }));
      attempt('bad alibi out shape', () => gpu.alibiBias({ numHeads: 4, qLen: 2, kLen: 8, out: { buffer: q, dims: [4, 2, 7] } }));
      attempt('layer without rope', () => gpu.layerTable(pe.model.fromConfig({ model_type: 'gpt2', n_layer: 1, n_head: 2, n_embd: 8, n_positions: 16 }), 0, { maxPositions: 8 }));
      attempt('bad wgsl prefix', () => ropeWgsl(table.layout, { prefix: 'a-b' }));
      table.destroy();
      attempt('destroyed table', () => gpu.rope(table, { layout: 'bshd', q: { buffer: q, dims: [1, 2, 4, 16] } }));
    });
    try {
      await requestPosEncGpu(pe, { gpu: { requestAdapter: async () => null } });
      out.push({ name: 'unsupported: no adapter', code: null });
    } catch (error) {
      out.push({ name: 'unsupported: no adapter', code: error.code, message: error.message });
    }
    // a device without shader-f16: float16 tables are UNSUPPORTED, saying why
    const plain = await (await navigator.gpu.requestAdapter()).requestDevice();
    attempt('float16 without shader-f16', () => createPosEncGpu(pe, plain).ropeTable({ headDim: 16, maxPositions: 8, dtype: 'float16' }));
    plain.destroy();
    for (const b of [q, noStorage, ids]) b.destroy();
    return out;
  },

  /**
   * onnxruntime-web's WebGPU EP on posenc's device: its com.microsoft RotaryEmbedding fed posenc's
   * GPU table as cos_cache/sin_cache (GPU tensors, no copy), and its output tensor's gpuBuffer
   * rotated back by posenc in place (inverse positions: the same table, sin negated... here: the
   * input, rotated once by each and compared). `model` is the serialised one-node model.
   */
  async ortInterop(model, c) {
    const ort = await import('../../node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs');
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.wasmPaths = new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url).href;
    ort.env.logLevel = 'error';
    const session = await ort.InferenceSession.create(Uint8Array.from(model), { executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' });
    // posenc on onnxruntime's own device: GPU tensors pass between them as they are
    const od = await ort.env.webgpu.device;
    const og = createPosEncGpu(pe, od);
    const errors = [];
    od.pushErrorScope('validation');
    const { heads, headDim, seq, rows, offset } = c;
    const table = og.ropeTable({ headDim, maxPositions: rows, pairing: c.interleaved ? 'interleaved' : 'half' });
    const x0 = rand(seq * heads * headDim, 17);
    const xb = buf(x0, STORAGE | COPY_SRC | COPY_DST, od);
    const dims = [1, seq, heads * headDim];
    const pairs = headDim / 2;
    const feeds = {
      X: ort.Tensor.fromGpuBuffer(xb, { dataType: 'float32', dims }),
      pos: new ort.Tensor('int64', BigInt64Array.from({ length: seq }, (_, s) => BigInt(offset + s)), [1, seq]),
      cos: ort.Tensor.fromGpuBuffer(table.cos, { dataType: 'float32', dims: [rows, pairs] }),
      sin: ort.Tensor.fromGpuBuffer(table.sin, { dataType: 'float32', dims: [rows, pairs] }),
    };
    const out = await session.run(feeds);
    const y = out.Y;
    const location = y.location;
    const yb = y.gpuBuffer;
    const ortRotated = await read(yb, Float32Array, od);
    // posenc's rotation of the same input on the same device
    const pb = buf(x0, STORAGE | COPY_SRC | COPY_DST, od);
    og.rope(table, { q: { buffer: pb, dims }, numHeads: heads, offset });
    const poseRotated = await read(pb, Float32Array, od);
    let maxDiff = 0;
    for (let i = 0; i < x0.length; i++) maxDiff = Math.max(maxDiff, Math.abs(ortRotated[i] - poseRotated[i]));
    // onnxruntime's output tensor rotated again by posenc where it lives (no CPU copy): 2 * position
    og.rope(table, { q: { buffer: yb, dims }, numHeads: heads, offset });
    const twice = await read(yb, Float32Array, od);
    const f = pe.rope.frequencies({ headDim });
    let worst = 0;
    for (let s = 0; s < seq; s++) for (let h = 0; h < heads; h++) for (let i = 0; i < pairs; i++) {
      const [la, lb] = c.interleaved ? [2 * i, 2 * i + 1] : [i, i + pairs];
      const at0 = (s * heads + h) * headDim;
      const a = 2 * (offset + s) * f.invFreq[i];
      const xa = x0[at0 + la];
      const xv = x0[at0 + lb];
      worst = Math.max(worst, Math.abs(twice[at0 + la] - (xa * Math.cos(a) - xv * Math.sin(a))), Math.abs(twice[at0 + lb] - (xa * Math.sin(a) + xv * Math.cos(a))));
    }
    const v = await od.popErrorScope();
    if (v) errors.push(v.message);
    y.dispose();
    table.destroy();
    xb.destroy();
    pb.destroy();
    await session.release();
    return { location, ortVsPosenc: maxDiff, twiceWorst: worst, ortVersion: ort.env.versions?.web, errors, sameDevice: od === device };
  },

  /**
   * Timings for tests/webgpu/bench.mjs (never for a test): per call, posenc's gpu.rope, posenc's
   * WebAssembly RopeCache.apply on a WasmTensor, and onnxruntime-web's WebGPU RotaryEmbedding
   * (GPU tensors in and out), all on onnxruntime's device. `models[i]` is the one-node model of
   * shapes[i]. GPU calls are timed over `repeat` submissions up to onSubmittedWorkDone.
   */
  async bench(shapes, models, repeat) {
    const ort = await import('../../node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs');
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.wasmPaths = new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url).href;
    ort.env.logLevel = 'error';
    const out = [];
    for (const [k, sh] of shapes.entries()) {
      const { tokens, heads, dim, offset } = sh;
      const rows = offset + tokens;
      const session = await ort.InferenceSession.create(Uint8Array.from(models[k]), { executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' });
      const od = await ort.env.webgpu.device;
      const og = createPosEncGpu(pe, od);
      const table = og.ropeTable({ headDim: dim, maxPositions: rows });
      const x0 = rand(tokens * heads * dim, 5);
      const xb = buf(x0, STORAGE | COPY_SRC | COPY_DST, od);
      const dims = [1, tokens, heads, dim];
      const time = async (f, n) => {
        await f();
        await od.queue.onSubmittedWorkDone();
        const t0 = performance.now();
        for (let i = 0; i < n; i++) await f();
        await od.queue.onSubmittedWorkDone();
        return (performance.now() - t0) / n;
      };
      const gpuMs = await time(() => og.rope(table, { q: { buffer: xb, dims }, layout: 'bshd', offset }), repeat);
      const feeds = {
        X: ort.Tensor.fromGpuBuffer(xb, { dataType: 'float32', dims: [1, tokens, heads * dim] }),
        pos: new ort.Tensor('int64', BigInt64Array.from({ length: tokens }, (_, s) => BigInt(offset + s)), [1, tokens]),
        cos: ort.Tensor.fromGpuBuffer(table.cos, { dataType: 'float32', dims: [rows, dim / 2] }),
        sin: ort.Tensor.fromGpuBuffer(table.sin, { dataType: 'float32', dims: [rows, dim / 2] }),
      };
      const ortMs = await time(async () => {
        const r = await session.run(feeds);
        r.Y.dispose();
      }, Math.max(3, Math.floor(repeat / 4)));
      const cache = pe.rope.createCache({ headDim: dim, maxPositions: rows });
      const q = pe.memory.tensor(dims);
      q.view().set(x0);
      const wasmMs = await time(() => cache.apply(q, null, { layout: 'bshd', offset }), repeat);
      cache.dispose();
      q.dispose();
      table.destroy();
      xb.destroy();
      await session.release();
      out.push({ ...sh, gpuMs, wasmMs, ortMs, dispatches: 1, bytes: 8 * tokens * heads * dim + 4 * tokens * dim });
    }
    return out;
  },

  /** The emitted WGSL of a few layouts compiles on this device (no messages) and has its functions. */
  async wgsl(layouts) {
    const out = [];
    for (const layout of layouts) {
      const w = ropeWgsl(layout, { group: 1, binding: 2, prefix: 'my_' });
      const code = `${w.enableF16 ? 'enable f16;\n' : ''}${w.code}
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(1) fn main() {
  let l = ${w.functions.lanes}(0u);
  let cs = ${w.functions.cosSin}(${w.functions.axis}(0u), 0u);
  if (${w.functions.inRange}(0u)) { let r = ${w.functions.rotate}(vec2<f32>(x[l.x], x[l.y]), cs); x[l.x] = r.x; x[l.y] = r.y; }
}`;
      if (w.enableF16 && !gpu.float16) {
        out.push({ skipped: 'no shader-f16' });
        continue;
      }
      const d = w.enableF16 ? device : device;
      const module = d.createShaderModule({ code });
      const info = await module.getCompilationInfo();
      out.push({ messages: info.messages.map((m) => `${m.type}: ${m.message}`), bindings: w.bindings, functions: Object.values(w.functions).every((f) => code.includes(`fn ${f}(`)) });
    }
    return out;
  },
};

window.posencChecks = checks;
status.textContent = gpu ? 'ready' : `no webgpu: ${setupError?.code}`;
