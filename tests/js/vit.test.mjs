// pe.learned.interpolate: ViT position tables resized with PyTorch's bicubic interpolation
// (align_corners=False, a = -0.75), checked against worked values and a direct 4x4-tap float64 sum.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPosEnc, maxAbsDiff, randomFloats, throwsPosEnc } from './helpers.mjs';

const pe = await createPosEnc();

/** Keys' cubic convolution kernel (a = -0.75) of the signed distance to a tap. */
function keys(distance) {
  const a = -0.75;
  const x = Math.abs(distance);
  if (x <= 1) return (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1;
  if (x < 2) return a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a;
  return 0;
}

/**
 * The interpolated table in float64: prefix rows copied, then each output patch as a direct sum
 * over the 4x4 taps around its unclamped source point, taps read with clamped indices.
 */
function interpolateRef(data, dim, [gh, gw], [nh, nw], prefix) {
  const out = new Float64Array((prefix + nh * nw) * dim);
  for (let i = 0; i < prefix * dim; i++) out[i] = data[i];
  const clamp = (i, n) => Math.min(Math.max(i, 0), n - 1);
  for (let oy = 0; oy < nh; oy++) {
    const sy = ((oy + 0.5) * gh) / nh - 0.5;
    for (let ox = 0; ox < nw; ox++) {
      const sx = ((ox + 0.5) * gw) / nw - 0.5;
      for (let c = 0; c < dim; c++) {
        let sum = 0;
        for (let ty = Math.floor(sy) - 1; ty <= Math.floor(sy) + 2; ty++) {
          for (let tx = Math.floor(sx) - 1; tx <= Math.floor(sx) + 2; tx++) {
            const v = data[(prefix + clamp(ty, gh) * gw + clamp(tx, gw)) * dim + c];
            sum += keys(sy - ty) * keys(sx - tx) * v;
          }
        }
        out[(prefix + oy * nw + ox) * dim + c] = sum;
      }
    }
  }
  return out;
}

test('2x2 -> 3x3 gives the worked values; the class row is kept', () => {
  // Per axis the source points are -1/6, 1/2, 7/6 (the first one is not clamped to 0): sample 0
  // weighs 939/864 and sample 1 -75/864 at the first output, 1/2 each in the middle.
  const table = { data: new Float32Array([42, 1, 2, 3, 4]), dims: [5, 1] }; // class row, then 1 + 2 row + col
  const out = pe.learned.interpolate(table, { gridSize: 2, newGridSize: 3 });
  assert.deepEqual(out.dims, [10, 1]);
  assert.equal(out.data[0], 42);
  const m = [-75 / 864, 0.5, 939 / 864]; // weight of sample 1 at each output point
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const expected = 1 + 2 * m[i] + m[j];
      assert.ok(Math.abs(out.data[1 + i * 3 + j] - expected) < 1e-6, `(${i}, ${j}): ${out.data[1 + i * 3 + j]} vs ${expected}`);
    }
  }
  assert.ok(Math.abs(out.data[1] - 639 / 864) < 1e-7, 'corner 639/864, not 1 as with a clamped coordinate');
});

test('3x3 -> 2x2 gives exact dyadic values', () => {
  // Source points 0.25 and 1.75: sample weights 0.7734375, 0.26171875, -0.03515625 (and mirrored).
  const grid = { data: Float32Array.from({ length: 9 }, (_, i) => i), dims: [9, 1] };
  const out = pe.learned.interpolate(grid, { gridSize: [3, 3], newGridSize: [2, 2], numPrefixTokens: 0 });
  assert.deepEqual(out.dims, [4, 1]);
  assert.deepEqual(Array.from(out.data), [0.765625, 2.3828125, 5.6171875, 7.234375]);
  const spike = new Float32Array(9);
  spike[4] = 1;
  const center = pe.learned.interpolate(spike, { tableDims: [9, 1], gridSize: 3, newGridSize: 2, numPrefixTokens: 0 });
  assert.deepEqual(Array.from(center.data), [0.0684967041015625, 0.0684967041015625, 0.0684967041015625, 0.0684967041015625]);
});

test('matches the direct 4x4-tap sum: upscale, downscale, non-square, prefix 0/1/2', () => {
  const cases = [
    { grid: [7, 7], to: [12, 12], dim: 4, prefix: 1 },
    { grid: [12, 12], to: [5, 5], dim: 3, prefix: 1 },
    { grid: [3, 5], to: [6, 2], dim: 5, prefix: 2 },
    { grid: [14, 14], to: [24, 20], dim: 8, prefix: 2 },
    { grid: [4, 6], to: [4, 9], dim: 2, prefix: 0 },
    { grid: [1, 1], to: [2, 3], dim: 3, prefix: 1 },
    { grid: [5, 2], to: [1, 1], dim: 2, prefix: 1 },
  ];
  cases.forEach(({ grid, to, dim, prefix }, n) => {
    const rows = prefix + grid[0] * grid[1];
    const data = randomFloats(rows * dim, 30 + n);
    const out = pe.learned.interpolate({ data, dims: [rows, dim] }, { gridSize: grid, newGridSize: to, numPrefixTokens: prefix });
    assert.deepEqual(out.dims, [prefix + to[0] * to[1], dim]);
    const ref = interpolateRef(data, dim, grid, to, prefix);
    assert.ok(maxAbsDiff(out.data, ref) < 2e-7, `case ${n}: ${maxAbsDiff(out.data, ref)}`);
    assert.deepEqual(out.data.subarray(0, prefix * dim), data.subarray(0, prefix * dim), 'prefix rows untouched');
  });
});

test('a ViT-B/16 table from 224 px (14x14) to 384 px (24x24)', () => {
  const dim = 16; // a narrow stand-in for 768
  const data = randomFloats(197 * dim, 5);
  const out = pe.learned.interpolate({ data, dims: [197, dim] }, { gridSize: 14, newGridSize: 24 });
  assert.deepEqual(out.dims, [577, dim]);
  assert.ok(maxAbsDiff(out.data, interpolateRef(data, dim, [14, 14], [24, 24], 1)) < 2e-7);
});

test('equal grids are an exact copy; the input is never modified', () => {
  const data = randomFloats(17 * 3, 9);
  const before = data.slice();
  const out = pe.learned.interpolate(data, { tableDims: [17, 3], gridSize: [4, 4], newGridSize: 4 });
  assert.deepEqual(out.data, data);
  assert.notEqual(out.data, data);
  pe.learned.interpolate(data, { tableDims: [17, 3], gridSize: 4, newGridSize: 6 });
  assert.deepEqual(data, before);
});

test('a constant grid stays constant (border taps clamp to the edge)', () => {
  const data = new Float32Array([9, 0.375, 0.375, 0.375, 0.375]);
  const out = pe.learned.interpolate(data, { tableDims: [5, 1], gridSize: 2, newGridSize: [5, 3] });
  assert.deepEqual(Array.from(out.data), [9, ...new Array(15).fill(0.375)]);
});

test('accepts a WasmTensor table and typed-array grid sizes', () => {
  const data = randomFloats(10 * 2, 11);
  const t = pe.memory.tensor([10, 2], data);
  try {
    const a = pe.learned.interpolate(t, { gridSize: new Int32Array([3, 3]), newGridSize: [2, 4] });
    const b = pe.learned.interpolate({ data, dims: [10, 2] }, { gridSize: 3, newGridSize: [2, 4] });
    assert.deepEqual(a, b);
    assert.deepEqual(t.view().slice(), data, 'the WasmTensor is not modified');
  } finally {
    t.dispose();
  }
  throwsPosEnc(() => pe.learned.interpolate(t, { gridSize: 3, newGridSize: 2 }), 'DISPOSED', /disposed/);
});

test('every bad argument is a PosEncError naming it', () => {
  const fn = (table, options) => () => pe.learned.interpolate(table, options);
  const table = { data: randomFloats(10 * 2, 1), dims: [10, 2] };
  throwsPosEnc(fn(table), 'INVALID_TYPE', /^learned\.interpolate: options must be an object/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridsize: 2 }), 'UNKNOWN_OPTION', /did you mean 'newGridSize'/);
  throwsPosEnc(fn(table, { newGridSize: 2 }), 'MISSING_OPTION', /'gridSize'/);
  throwsPosEnc(fn(table, { gridSize: 3 }), 'MISSING_OPTION', /'newGridSize'/);
  throwsPosEnc(fn(table, { gridSize: 0, newGridSize: 2 }), 'INVALID_ARGUMENT', /gridSize must be an integer >= 1, got 0/);
  throwsPosEnc(fn(table, { gridSize: 2.5, newGridSize: 2 }), 'INVALID_ARGUMENT', /gridSize must be an integer/);
  throwsPosEnc(fn(table, { gridSize: '3', newGridSize: 2 }), 'INVALID_TYPE', /gridSize must be g or \[height, width\], got '3'/);
  throwsPosEnc(fn(table, { gridSize: [3], newGridSize: 2 }), 'INVALID_ARGUMENT', /gridSize must be g or \[height, width\], got an array of length 1/);
  throwsPosEnc(fn(table, { gridSize: [3, 0], newGridSize: 2 }), 'INVALID_ARGUMENT', /gridSize\[1\] must be an integer >= 1/);
  throwsPosEnc(fn(table, { gridSize: [3, '3'], newGridSize: 2 }), 'INVALID_TYPE', /gridSize\[1\] must be a number/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridSize: [-1, 2] }), 'INVALID_ARGUMENT', /newGridSize\[0\] must be an integer >= 1/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridSize: NaN }), 'INVALID_ARGUMENT', /newGridSize must be an integer/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridSize: 2, numPrefixTokens: -1 }), 'INVALID_ARGUMENT', /numPrefixTokens must be an integer >= 0/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridSize: 2, numPrefixTokens: 1.5 }), 'INVALID_ARGUMENT', /numPrefixTokens/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridSize: 2, numPrefixTokens: null }), 'INVALID_TYPE', /numPrefixTokens must be a number/);
  throwsPosEnc(
    fn(table, { gridSize: 3, newGridSize: 2, numPrefixTokens: 2 }),
    'SHAPE_MISMATCH',
    /^learned\.interpolate: table rows must equal numPrefixTokens \+ gridSize\[0\] \* gridSize\[1\] \(2 \+ 3 \* 3 = 11\), got 10$/,
  );
  throwsPosEnc(fn(table, { gridSize: [2, 4], newGridSize: 2 }), 'SHAPE_MISMATCH', /\(1 \+ 2 \* 4 = 9\), got 10/);
  throwsPosEnc(fn(table, { gridSize: 1, newGridSize: 2, numPrefixTokens: 12 }), 'SHAPE_MISMATCH', /\(12 \+ 1 \* 1 = 13\), got 10/);
  throwsPosEnc(fn({ data: table.data, dims: [20] }, { gridSize: 3, newGridSize: 2 }), 'SHAPE_MISMATCH', /table must have dims \[rows, dim\], got \[20\]/);
  throwsPosEnc(fn({ data: table.data, dims: [1, 10, 2] }, { gridSize: 3, newGridSize: 2 }), 'SHAPE_MISMATCH', /\[rows, dim\]/);
  throwsPosEnc(fn(table.data, { gridSize: 3, newGridSize: 2 }), 'MISSING_OPTION', /'tableDims'/);
  throwsPosEnc(fn(table.data, { tableDims: [10, 3], gridSize: 3, newGridSize: 2 }), 'SHAPE_MISMATCH', /20 elements/);
  throwsPosEnc(fn([1, 2, 3], { gridSize: 1, newGridSize: 2 }), 'INVALID_TYPE', /table must be a Float32Array/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridSize: 2 ** 20 }), 'SIZE_OVERFLOW', /interpolated table \[1099511627777, 2\]/);
  throwsPosEnc(fn(table, { gridSize: 3, newGridSize: [2 ** 31, 1] }), 'INVALID_ARGUMENT', /newGridSize\[0\]/);
  // The module keeps working.
  assert.deepEqual(pe.learned.interpolate(table, { gridSize: 3, newGridSize: 3 }).data, table.data);
});
