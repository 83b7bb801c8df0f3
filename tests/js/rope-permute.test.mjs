// Weight permutation between the pairings (pe.rope.permuteWeights): the same reordering as Hugging
// Face's convert_llama_weights_to_hf.py `permute` and llama.cpp's convert_hf_to_gguf.py
// `LlamaModel.permute` (their reshapes written out below), half-RoPE on the permuted projection equal
// to the permuted interleaved-RoPE output (projections in float64 here), with GQA and partial
// rotary, the round trip bit for bit for several element types, and the errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { createPosEnc, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

/**
 * HF's permute(w, n_heads): w.view(n_heads, hd / 2, 2, cols).transpose(1, 2).reshape(rows, cols).
 * Output element [h][t][i] (t < 2, i < hd / 2) is input element [h][i][t], rows of `cols` values.
 */
function hfPermute(w, nHeads, rows, cols) {
  const hd = rows / nHeads;
  const out = new Float32Array(w.length);
  for (let h = 0; h < nHeads; h++) {
    for (let t = 0; t < 2; t++) {
      for (let i = 0; i < hd / 2; i++) {
        const dst = h * hd + t * (hd / 2) + i;
        const src = h * hd + i * 2 + t;
        out.set(w.subarray(src * cols, (src + 1) * cols), dst * cols);
      }
    }
  }
  return out;
}

/** llama.cpp's permute(w, n_head): w.reshape(n_head, 2, hd / 2, cols).swapaxes(1, 2).reshape(w.shape). */
function ggufPermute(w, nHeads, rows, cols) {
  const hd = rows / nHeads;
  const out = new Float32Array(w.length);
  for (let h = 0; h < nHeads; h++) {
    for (let i = 0; i < hd / 2; i++) {
      for (let t = 0; t < 2; t++) {
        const dst = h * hd + i * 2 + t;
        const src = h * hd + t * (hd / 2) + i;
        out.set(w.subarray(src * cols, (src + 1) * cols), dst * cols);
      }
    }
  }
  return out;
}

/** y[s] = W x[s] + b in float64, rounded to float32: [seq, rows]. */
function project(w, b, x, rows, cols, seq) {
  const y = new Float32Array(seq * rows);
  for (let s = 0; s < seq; s++) {
    for (let r = 0; r < rows; r++) {
      let acc = b[r];
      for (let c = 0; c < cols; c++) acc += w[r * cols + c] * x[s * cols + c];
      y[s * rows + r] = acc;
    }
  }
  return y;
}

test('to half is HF convert_llama_weights_to_hf.py permute; to interleaved is llama.cpp LlamaModel.permute', () => {
  for (const [heads, hd, cols] of [[4, 8, 3], [2, 128, 5], [8, 64, 1]]) {
    const w = randomFloats(heads * hd * cols, 41);
    const half = pe.rope.permuteWeights(w, { to: 'half', numHeads: heads, dims: [heads * hd, cols] });
    assert.deepEqual(half.data, hfPermute(w, heads, heads * hd, cols));
    assert.deepEqual(half.dims, [heads * hd, cols]);
    const back = pe.rope.permuteWeights(half, { to: 'interleaved', numHeads: heads });
    assert.deepEqual(back.data, ggufPermute(half.data, heads, heads * hd, cols));
    assert.deepEqual(back.data, w, 'the round trip is the identity');
  }
});

test('half-RoPE on the permuted projection equals the permuted interleaved-RoPE output: GQA, biases, partial rotary', () => {
  const [seq, hidden] = [6, 24];
  const x = Float64Array.from(randomFloats(seq * hidden, 42, -1, 1));
  for (const [qHeads, kvHeads, hd, rotaryDim] of [[8, 2, 16, 16], [4, 4, 20, 16], [6, 3, 32, 8]]) {
    const outputs = {};
    for (const [name, heads] of [['q', qHeads], ['k', kvHeads]]) {
      const rows = heads * hd;
      const wMeta = randomFloats(rows * hidden, 43 + heads, -0.5, 0.5);
      const bMeta = randomFloats(rows, 44 + heads, -0.5, 0.5);
      const opts = { to: 'half', numHeads: heads, rotaryDim };
      const wHf = pe.rope.permuteWeights({ data: wMeta, dims: [rows, hidden] }, opts).data;
      const bHf = pe.rope.permuteWeights(bMeta, { ...opts, dims: [rows] }).data;
      const meta = project(wMeta, bMeta, x, rows, hidden, seq);
      const hf = project(wHf, bHf, x, rows, hidden, seq);
      const rope = { rotaryDim, base: 10000, numHeads: heads, dims: [1, seq, rows], offset: 1000 };
      pe.rope.apply(meta, null, { ...rope, pairing: 'interleaved' });
      pe.rope.apply(hf, null, { ...rope, pairing: 'half' });
      // Each token's output [heads * hd] permuted like the projection's rows (seq * heads heads of hd lanes)
      const metaPermuted = pe.rope.permuteWeights(meta, { to: 'half', numHeads: seq * heads, rotaryDim, dims: [seq * rows] }).data;
      let worst = 0;
      for (let i = 0; i < hf.length; i++) worst = Math.max(worst, Math.abs(hf[i] - metaPermuted[i]));
      assert.ok(worst <= 1e-6, `${name} ${heads}x${hd} rotary ${rotaryDim}: ${worst}`);
      if (rotaryDim < hd) { // the pass-through rows are not moved
        assert.deepEqual(wHf.subarray(rotaryDim * hidden, hd * hidden), wMeta.subarray(rotaryDim * hidden, hd * hidden));
      }
      outputs[name] = { meta, hf };
    }
    // Attention logits q.k are the same in both conventions (one query head per key head group)
    const group = qHeads / kvHeads;
    const dot = (qv, kv, s, t, h) => {
      let acc = 0;
      for (let j = 0; j < hd; j++) acc += qv[s * qHeads * hd + h * hd + j] * kv[t * kvHeads * hd + Math.floor(h / group) * hd + j];
      return acc;
    };
    for (let h = 0; h < qHeads; h++) {
      const a = dot(outputs.q.meta, outputs.k.meta, seq - 1, 0, h);
      const b = dot(outputs.q.hf, outputs.k.hf, seq - 1, 0, h);
      assert.ok(Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(a)), `logit head ${h}: ${a} vs ${b}`);
    }
  }
});

test('the round trip is the identity bit for bit, for any element type (bfloat16 bits, bytes of quantized rows)', () => {
  const heads = 3;
  const hd = 12;
  const rows = heads * hd;
  const cases = [
    new Float32Array(randomFloats(rows * 7, 45)),
    Float64Array.from(randomFloats(rows * 2, 46)),
    Uint16Array.from(randomFloats(rows * 4, 47), (v) => Math.floor((v + 1) * 30000)),
    Uint8Array.from(randomFloats(rows * 18, 48), (v) => Math.floor((v + 1) * 127)),
    BigInt64Array.from(randomFloats(rows, 49), (v) => BigInt(Math.floor(v * 1e9))),
  ];
  for (const data of cases) {
    for (const rotaryDim of [12, 8]) {
      const dims = [rows, data.length / rows];
      const there = pe.rope.permuteWeights(data, { to: 'half', numHeads: heads, rotaryDim, dims });
      assert.equal(there.data.constructor, data.constructor);
      assert.notDeepEqual(there.data, data);
      const back = pe.rope.permuteWeights(there, { to: 'interleaved', numHeads: heads, rotaryDim });
      assert.deepEqual(back.data, data, `${data.constructor.name} rotary ${rotaryDim}`);
      const reverse = pe.rope.permuteWeights(pe.rope.permuteWeights(data, { to: 'interleaved', numHeads: heads, rotaryDim, dims }), { to: 'half', numHeads: heads, rotaryDim });
      assert.deepEqual(reverse.data, data);
    }
  }
});

test('bad arguments', () => {
  const w = new Float32Array(32);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { numHeads: 2, dims: [32] }), 'MISSING_OPTION', /'to'/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'neox', numHeads: 2, dims: [32] }), 'INVALID_ARGUMENT', /to/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', dims: [32] }), 'MISSING_OPTION', /numHeads/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 3, dims: [32] }), 'SHAPE_MISMATCH', /the weight has 32 output rows, and numHeads 3 does not divide them/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 2, headDim: 8, dims: [32] }), 'SHAPE_MISMATCH', /numHeads 2 x headDim 8/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 2, rotaryDim: 18, dims: [32] }), 'OUT_OF_RANGE', /rotaryDim/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 2, rotaryDim: 7, dims: [32] }), 'INVALID_ARGUMENT', /even/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 2, dims: [4, 4, 2] }), 'SHAPE_MISMATCH', /\[outFeatures, inFeatures\]/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 2, dims: [8, 3] }), 'SHAPE_MISMATCH', /32 elements/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 2 }), 'MISSING_OPTION', /dims/);
  throwsPosEnc(() => pe.rope.permuteWeights([1, 2], { to: 'half', numHeads: 1, dims: [2] }), 'INVALID_TYPE', /typed array/);
  throwsPosEnc(() => pe.rope.permuteWeights({ data: w, dims: [32] }, { to: 'half', numHeads: 2, dims: [32] }), 'INVALID_ARGUMENT', /carries its dims/);
  throwsPosEnc(() => pe.rope.permuteWeights(w, { to: 'half', numHeads: 2, dims: [32], heads: 2 }), 'UNKNOWN_OPTION', /heads/);
});

test('no caller code runs after the arguments are read: not the input\'s constructor, subarray or species', () => {
  const heads = 2;
  const hd = 8;
  const cols = 3;
  const values = Float32Array.from({ length: heads * hd * cols }, (_, i) => i);
  const expected = pe.rope.permuteWeights(values, { to: 'half', numHeads: heads, dims: [heads * hd, cols] }).data;
  const opts = { to: 'half', numHeads: heads, dims: [heads * hd, cols] };
  // A constructor that returns the input: the caller's weights would be overwritten with wrong rows.
  const sneaky = values.slice();
  Object.defineProperty(sneaky, 'constructor', { value: function Same() { return sneaky; } });
  const out = pe.rope.permuteWeights(sneaky, opts);
  assert.deepEqual(Array.from(sneaky), Array.from(values), 'the input is untouched');
  assert.notEqual(out.data, sneaky);
  assert.deepEqual(Array.from(out.data), Array.from(expected));
  // A throwing constructor getter, subarray, or Symbol.species.
  const throwing = values.slice();
  Object.defineProperty(throwing, 'constructor', { get() { throw new Error('constructor getter'); } });
  Object.defineProperty(throwing, 'subarray', { value() { throw new Error('subarray'); } });
  assert.deepEqual(Array.from(pe.rope.permuteWeights(throwing, opts).data), Array.from(expected));
  class Species extends Float32Array {
    static get [Symbol.species]() { throw new Error('species'); }
    get [Symbol.toStringTag]() { return 'Uint8Array'; }
  }
  const sub = new Species(values);
  const result = pe.rope.permuteWeights({ data: sub, dims: [heads * hd, cols] }, { to: 'half', numHeads: heads });
  assert.equal(Object.getPrototypeOf(result.data), Float32Array.prototype, 'a plain array of the engine\'s class');
  assert.deepEqual(Array.from(result.data), Array.from(expected));
  // A view at an offset reads its own elements only.
  const padded = new Float32Array(values.length + 8).fill(-1);
  padded.set(values, 4);
  assert.deepEqual(Array.from(pe.rope.permuteWeights(padded.subarray(4, 4 + values.length), opts).data), Array.from(expected));
});

test('a Node Buffer gives a Uint8Array of its bytes permuted, with no DEP0005 warning (the Buffer constructor is never called)', () => {
  const script = `
    const { createPosEnc } = await import(${JSON.stringify(new URL('../../dist/node.js', import.meta.url).href)});
    const pe = await createPosEnc();
    const buf = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    const out = pe.rope.permuteWeights(buf, { to: 'half', numHeads: 2, dims: [8, 4] });
    console.log(Object.getPrototypeOf(out.data) === Uint8Array.prototype, Array.from(out.data.subarray(0, 8)).join(','));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.stderr, '', 'nothing printed: no deprecation warning');
  assert.equal(run.stdout.trim(), 'true 0,1,2,3,8,9,10,11');
});
