// Parameters that are accepted must not turn into NaN or Infinity outputs (issue 15, item 4): every
// quantity derived from them (inverse frequencies, rescaled bases, attention factors, xPos scales,
// angles) is checked where it is formed (src/encodings/detail/derived.hpp) and a bad one is a
// PosEncError naming the input. Then a sweep: every numeric option of every public call (api-cases)
// set to extreme values gives a PosEncError with a stable code or finite outputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { apiCases } from './api-cases.mjs';
import { createPosEnc, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

const unitRows = (tokens, headDim) => {
  const data = new Float32Array(tokens * headDim);
  for (let t = 0; t < tokens; t++) data[t * headDim] = 1;  // (1, 0) in pair 0 of every token
  return { data, dims: [1, tokens, 1, headDim] };
};

/** q = unit rows rotated at positions 0..tokens-1 with `spec`; checks pair 0 against its float64 angle. */
function assertRotatesExactly(spec, what) {
  const q = unitRows(3, spec.rotaryDim ?? 8);
  pe.rope.apply(q, null, { layout: 'bshd', ...spec });
  const f = pe.rope.frequencies(spec);
  const half = (spec.rotaryDim ?? 8) / 2;
  for (let t = 0; t < 3; t++) {
    const angle = t * f.invFreq[0];
    const at = t * 2 * half;
    assert.ok(Math.abs(q.data[at] - Math.fround(Math.cos(angle) * f.attentionFactor)) <= 2 ** -24, `${what}: cos at ${t}`);
    assert.ok(Math.abs(q.data[at + half] - Math.fround(Math.sin(angle) * f.attentionFactor)) <= 2 ** -24, `${what}: sin at ${t}`);
  }
  assert.ok(q.data.every(Number.isFinite), `${what}: finite`);
}

test('RoPE linear factor 5e-324 names the factor; 1e-40 rotates by the (huge, finite) angles exactly', () => {
  const tiny = { rotaryDim: 8, scaling: { type: 'linear', factor: 5e-324 } };
  throwsPosEnc(() => pe.rope.apply(unitRows(3, 8), null, { layout: 'bshd', ...tiny }), 'INVALID_ARGUMENT',
    /scaling\.factor 5e-324 makes inverse frequency 0 Infinity/);
  throwsPosEnc(() => pe.rope.frequencies(tiny), 'INVALID_ARGUMENT', /scaling\.factor 5e-324/);
  throwsPosEnc(() => pe.rope.createCache({ ...tiny, maxPositions: 4 }), 'INVALID_ARGUMENT', /scaling\.factor 5e-324/);
  assertRotatesExactly({ rotaryDim: 8, scaling: { type: 'linear', factor: 1e-40 } }, 'linear 1e-40');
});

test('a base near 0: 5e-324 overflows the frequencies (named), 1e-300 gives exact finite outputs', () => {
  // w_31 = base^(-62/64): (5e-324)^(-0.97) > 1.8e308 for a width of 64.
  throwsPosEnc(() => pe.rope.apply(unitRows(3, 64), null, { layout: 'bshd', base: 5e-324 }), 'INVALID_ARGUMENT',
    /base 5e-324 makes inverse frequency \d+ Infinity/);
  throwsPosEnc(() => pe.sinusoidal.table({ length: 3, dim: 64, base: 5e-324 }), 'INVALID_ARGUMENT', /base 5e-324 makes inverse frequency/);
  throwsPosEnc(() => pe.sinusoidal.frequencies({ dim: 64, base: 5e-324 }), 'INVALID_ARGUMENT', /base 5e-324/);
  throwsPosEnc(() => pe.sinusoidal.createTable({ maxPositions: 100, dim: 64, base: 5e-324, precision: 'fast' }), 'INVALID_ARGUMENT', /base 5e-324/);
  throwsPosEnc(() => pe.transformerXL.relativeSinusoid({ qLen: 3, dModel: 64, base: 5e-324 }), 'INVALID_ARGUMENT', /base 5e-324/);
  // 1e-300: frequencies up to 1e290, angles up to 2e290, all finite and evaluated exactly.
  assertRotatesExactly({ rotaryDim: 64, base: 1e-300 }, 'rope base 1e-300');
  const w = pe.sinusoidal.frequencies({ dim: 64, base: 1e-300 });
  for (const [name, table] of [
    ['sinusoidal.table', pe.sinusoidal.table({ length: 3, dim: 64, base: 1e-300 })],
    ['transformerXL.relativeSinusoid', pe.transformerXL.relativeSinusoid({ qLen: 3, dModel: 64, base: 1e-300 })],
  ]) {
    assert.ok(table.data.every(Number.isFinite), `${name}: finite`);
    const row = name === 'sinusoidal.table' ? 2 : 0;  // position 2 (Transformer-XL: row 0 is distance 2)
    for (let i = 0; i < 32; i++) {
      const s = name === 'sinusoidal.table' ? table.data[row * 64 + 2 * i] : table.data[row * 64 + i];
      assert.ok(Math.abs(s - Math.sin(2 * w[i])) <= 2 ** -25, `${name}: sin of pair ${i}`);
    }
  }
});

test('YaRN attentionFactor 1e300 and a LongRoPE original length of 1 are named errors', () => {
  const yarn = { rotaryDim: 8, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64, attentionFactor: 1e300 } };
  throwsPosEnc(() => pe.rope.apply(unitRows(3, 8), null, { layout: 'bshd', ...yarn }), 'INVALID_ARGUMENT',
    /scaling\.attentionFactor 1e\+300 makes the attention factor 1e\+300/);
  throwsPosEnc(() => pe.rope.frequencies(yarn), 'INVALID_ARGUMENT', /scaling\.attentionFactor/);
  const ones = [1, 1, 1, 1];
  const longrope = { rotaryDim: 8, scaling: { type: 'longrope', shortFactor: ones, longFactor: ones, originalMaxPositionEmbeddings: 1, maxPositionEmbeddings: 4096 } };
  // HF: sqrt(1 + ln factor / ln original) divides by ln 1 = 0 (ZeroDivisionError in Python).
  throwsPosEnc(() => pe.rope.frequencies(longrope), 'INVALID_ARGUMENT',
    /scaling\.originalMaxPositionEmbeddings 1 makes the attention factor Infinity/);
  throwsPosEnc(() => pe.rope.apply(unitRows(3, 8), null, { layout: 'bshd', ...longrope }), 'INVALID_ARGUMENT', /originalMaxPositionEmbeddings 1/);
  // fromConfig computes the model-load frequencies, so such a config is refused where it is read.
  const config = { hidden_size: 32, num_attention_heads: 4, num_hidden_layers: 2, max_position_embeddings: 4096,
    rope_scaling: { type: 'longrope', short_factor: ones, long_factor: ones, original_max_position_embeddings: 1 } };
  throwsPosEnc(() => pe.rope.fromConfig(config), 'INVALID_ARGUMENT', /^rope\.fromConfig: scaling\.originalMaxPositionEmbeddings 1 makes/);
  throwsPosEnc(() => pe.model.fromConfig(config), 'INVALID_ARGUMENT', /^model\.fromConfig: layer 0: scaling\.originalMaxPositionEmbeddings 1/);
  throwsPosEnc(() => pe.rope.fromConfig({ ...config, rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 64, attention_factor: 1e300 } }),
    'INVALID_ARGUMENT', /scaling\.attentionFactor 1e\+300/);
});

test('llama3 factor 1e-300 and fromConfig factor 1e-300: finite, exact rotations', () => {
  assertRotatesExactly({ rotaryDim: 8, base: 500000, scaling: { type: 'llama3', factor: 1e-300 } }, 'llama3 1e-300');
  const spec = pe.rope.fromConfig({ hidden_size: 32, num_attention_heads: 4, rope_theta: 10000, rope_scaling: { type: 'linear', factor: 1e-300 } });
  assertRotatesExactly(spec, 'fromConfig linear 1e-300');
  const plan = pe.model.fromConfig({ hidden_size: 32, num_attention_heads: 4, num_hidden_layers: 1, rope_theta: 10000, rope_scaling: { type: 'linear', factor: 1e-300 } });
  const q = unitRows(3, 8);
  pe.model.apply(plan, 0, { data: q.data, dims: [1, 3, 1, 8] }, null, { layout: 'bshd', positionIds: [0, 1, 2] });
  assert.ok(q.data.every(Number.isFinite), 'pe.model.apply: finite');
  // Positions far enough that position * 1e300 overflows: an error, not NaN.
  throwsPosEnc(() => pe.model.apply(plan, 0, unitRows(1, 8), null, { layout: 'bshd', positionIds: [1e10] }), 'OUT_OF_RANGE', /overflow/);
  throwsPosEnc(() => pe.model.cosSin(plan, 0, [1e10]), 'OUT_OF_RANGE', /overflow/);
});

test('NTK and dynamic scaling name the input of a rescaled base that is 0 or infinite', () => {
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 8, scaling: { type: 'ntk', factor: 1e-300 } }), 'INVALID_ARGUMENT',
    /scaling\.factor 1e-300 makes (the rescaled base|inverse frequency)/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 8, scaling: { type: 'ntk', factor: 1e300 } }), 'INVALID_ARGUMENT',
    /scaling\.factor 1e\+300 makes the rescaled base Infinity/);
  throwsPosEnc(() => pe.rope.frequencies({ rotaryDim: 8, scaling: { type: 'dynamic', alpha: 1e300, maxPositionEmbeddings: 64 } }), 'INVALID_ARGUMENT',
    /scaling\.alpha 1e\+300 makes the rescaled base Infinity/);
});

// ---- the sweep ------------------------------------------------------------------------------------

const EXTREMES = [5e-324, 1e-300, 1e-40, 1e300, 1.7e308, -1e300, -1.7e308];

/** Every numeric leaf of a plain value: [path, number] pairs (arrays of numbers as one leaf too). */
function numericLeaves(value, path = []) {
  if (typeof value === 'number') return [[path, 'number']];
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => typeof v === 'number')) return [[path, 'array']];
    return value.flatMap((v, i) => numericLeaves(v, [...path, i]));
  }
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !('data' in value) && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.entries(value).flatMap(([k, v]) => numericLeaves(v, [...path, k]));
  }
  return [];
}

/** A deep copy of plain objects and arrays with the leaf at `path` replaced (tensors are copied too). */
function withLeaf(value, path, replace) {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  copy[head] = withLeaf(value[head], rest, replace);
  return copy;
}

/** Every float array an outcome holds: the return value's and the tensors the call changed in place. */
function floatArrays(value, path = 'result', out = [], depth = 0) {
  if (depth > 4 || value === null || value === undefined) return out;
  if (value instanceof Float32Array || value instanceof Float64Array) out.push([path, value]);
  else if (typeof value === 'number') out.push([path, [value]]);
  else if (Array.isArray(value)) value.forEach((v, i) => floatArrays(v, `${path}[${i}]`, out, depth + 1));
  else if (typeof value === 'object' && !ArrayBuffer.isView(value) && typeof value !== 'function') {
    for (const k of Object.keys(value)) {
      if (typeof value[k] !== 'function') floatArrays(value[k], `${path}.${k}`, out, depth + 1);
    }
  }
  return out;
}

/** The float arrays of a call: its result, then each argument (tensors rotated or added in place). */
function outputsOf(result, args) {
  const arrays = floatArrays(result);
  args.forEach((a, i) => { if (a && a.data instanceof Float32Array) arrays.push([`args[${i}]`, a.data]); });
  return arrays;
}

const CASES = apiCases(pe);

for (const [name, fn, valid] of CASES) {
  test(`${name}: extreme numeric parameters give a PosEncError or finite outputs`, () => {
    const fresh = () => valid.map((a) => (a && a.data instanceof Float32Array ? { data: a.data.slice(), dims: a.dims.slice() } : a));
    const baseArgs = fresh();
    // Non-finite values the valid call itself gives (masked attention logits are -Infinity) may stay.
    const baseline = new Map(outputsOf(fn(...baseArgs), baseArgs).map(([p, a]) => [p, a]));
    let calls = 0;
    valid.forEach((arg, index) => {
      for (const [path, kind] of numericLeaves(arg)) {
        for (const extreme of EXTREMES) {
          const args = fresh();
          args[index] = withLeaf(args[index], path, (old) => (kind === 'array' ? old.map(() => extreme) : extreme));
          const where = `${name} with args[${index}]${path.map((p) => `.${p}`).join('')} = ${extreme}`;
          let result;
          try {
            result = fn(...args);
          } catch (error) {
            assert.equal(error?.name, 'PosEncError', `${where} threw ${error?.name}: ${error?.message}`);
            assert.equal(typeof error.code, 'string');
            continue;
          } finally {
            calls++;
          }
          for (const [p, values] of outputsOf(result, args)) {
            const before = baseline.get(p);
            for (let i = 0; i < values.length; i++) {
              const v = values[i];
              if (Number.isFinite(v)) continue;
              assert.ok(v === -Infinity && before && before.length === values.length && before[i] === v,
                `${where}: ${p}[${i}] is ${v}`);
            }
          }
        }
      }
    });
    assert.ok(calls > 0 || numericLeaves(valid).length === 0, 'the sweep made calls');
  });
}
