// The page's pure helpers, in Node: the one number format, averaging a matrix down to a plot's
// pixels (checked against a direct sum over the overlap of every cell and pixel), the label grid,
// and the declared controls' value types staying what the sections read.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LabelLayout } from '../../web/js/plot/labels.js';
import { areaAverage } from '../../web/js/compute/resample.js';
import { bytes, fixed, int, num, plain, signed, sub, tick } from '../../web/js/ui/format.js';
import { parseNumber } from './page-helpers.mjs';

test('one number format: grouped integers, significant digits, m × 10ⁿ outside 1e-4..1e6', () => {
  assert.equal(int(131072), '131\u2009072');
  assert.equal(int(-6), '−6');
  assert.equal(int(-0.2), '0');
  assert.equal(num(218500, 4), '218\u2009500', 'not 2.185e+5');
  assert.equal(num(1383450, 6), '1.38345 × 10⁶', 'not 1.38345e6');
  assert.equal(num(3.2e-7, 2), '3.2 × 10⁻⁷');
  assert.equal(num(0.486968, 6), '0.486968');
  assert.equal(num(4096, 6), '4\u2009096.00');
  assert.equal(num(-Infinity), '−∞');
  assert.equal(signed(-0.125), '−0.125000');
  assert.equal(signed(-1e-9), '+0.000000', 'no minus zero');
  assert.equal(fixed(1234.5, 1), '1\u2009234.5');
  assert.equal(tick(100000), '10⁵', 'not 1e5');
  assert.equal(tick(250000), '2.5×10⁵');
  assert.equal(tick(1000), '1\u2009000');
  assert.equal(tick(0.0005), '5×10⁻⁴');
  assert.equal(plain(500000), '500\u2009000', 'a given number as given');
  assert.equal(plain(0.5), '0.5');
  assert.equal(plain(1e-7), '1 × 10⁻⁷');
  assert.equal(bytes(3 * 1024 * 1024), '3.0 MB');
  assert.equal(sub(12), '₁₂');
  for (const v of [0, 1, -6, 4096, 218500, 1.38345e6, 3.2e-7, -0.125, 999999.9]) assert.ok(Math.abs(parseNumber(num(v, 6)) - v) <= Math.abs(v) * 1e-5, `${v} reads back`);
});

/** The mean of the cells under each pixel, summed over the exact overlap of every cell and pixel. */
function direct(v, rows, cols, R, C) {
  const out = [];
  for (let i = 0; i < R; i++) {
    for (let j = 0; j < C; j++) {
      let s = 0;
      let w = 0;
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const oy = Math.max(0, Math.min(((i + 1) * rows) / R, r + 1) - Math.max((i * rows) / R, r));
          const ox = Math.max(0, Math.min(((j + 1) * cols) / C, c + 1) - Math.max((j * cols) / C, c));
          if (oy * ox > 0 && Number.isFinite(v[r * cols + c])) {
            s += oy * ox * v[r * cols + c];
            w += oy * ox;
          }
        }
      }
      out.push(w ? s / w : -Infinity);
    }
  }
  return out;
}

test('a matrix larger than the plot is averaged over each pixel, masked cells left out', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let t = 0; t < 200; t++) {
    const rows = 1 + Math.floor(random() * 30);
    const cols = 1 + Math.floor(random() * 30);
    const R = 1 + Math.floor(random() * rows);
    const C = 1 + Math.floor(random() * cols);
    if (R === rows && C === cols) continue;
    const v = Float32Array.from({ length: rows * cols }, () => (random() < 0.1 ? -Infinity : random() * 2 - 1));
    const got = areaAverage(v, rows, cols, R, C);
    const want = direct(v, rows, cols, R, C);
    assert.equal(got.length, R * C);
    want.forEach((w, k) => {
      if (w === -Infinity) assert.equal(got[k], -Infinity, `${rows}x${cols} -> ${R}x${C} cell ${k}: all masked`);
      else assert.ok(Math.abs(got[k] - w) < 1e-6, `${rows}x${cols} -> ${R}x${C} cell ${k}: ${got[k]} vs ${w}`);
    });
  }
  const v = Float32Array.of(1, 2, 3, 4);
  assert.equal(areaAverage(v, 2, 2, 5, 5), v, 'no axis shrinks: the matrix itself');
  // alternating sine and cosine columns (the sinusoidal table's fast pairs) average out, not alias
  const stripes = Float32Array.from({ length: 4 * 2048 }, (_, i) => (i % 2 ? 1 : -1));
  assert.ok(areaAverage(stripes, 4, 2048, 4, 600).every((x) => Math.abs(x) < 0.3));
});

test('the label grid: a free spot is taken, one on a line is not, boxes do not overlap themselves', () => {
  const layout = new LabelLayout(300, 200);
  layout.segment(0, 100, 300, 100);
  const width = 40;
  const onLine = LabelLayout.boxOf(width, { x: 150, y: 100, align: 'center', baseline: 'middle' });
  assert.ok(layout.cost(onLine) > 0);
  const above = LabelLayout.boxOf(width, { x: 150, y: 95, align: 'center', baseline: 'bottom' });
  assert.equal(layout.cost(above), 0);
  layout.box(above);
  assert.ok(layout.cost(above) > 0, 'taken now');
  layout.box({ x: 10, y: 45, w: 50, h: 15 });
  assert.equal(layout.cost({ x: 10, y: 60, w: 50, h: 15 }), 0, 'a box right under another is free');
  assert.ok(layout.cost({ x: 10, y: 58, w: 50, h: 15 }) > 0, 'one that reaches into it is not');
  assert.ok(layout.cost({ x: -5, y: 10, w: 20, h: 10 }) >= 1000, 'off the canvas counts as taken');
});

test('the trained table: the hand-written gradient is the loss’s (central differences), and Adam lowers the loss', async () => {
  const { createPosEnc } = await import('../../dist/node.js');
  const { initialState, lossAndGradient, trainSteps } = await import('../../web/js/compute/train.js');
  const pe = await createPosEnc();
  const [L, d] = [8, 4];
  const inputs = Float64Array.from({ length: 16 * L }, (_, k) => Math.sin(1.7 * k));
  const table = Float32Array.from({ length: L * d }, (_, k) => 0.8 * Math.cos(0.9 * k));
  const target = 1; // each position's answer is the mean of its window of ±1
  const { grad } = lossAndGradient(pe, table, L, d, inputs, target);
  for (let k = 0; k < L * d; k++) {
    const h = 1e-2;
    const plus = table.slice();
    const minus = table.slice();
    plus[k] += h;
    minus[k] -= h;
    const numeric = (lossAndGradient(pe, plus, L, d, inputs, target).loss - lossAndGradient(pe, minus, L, d, inputs, target).loss) / (plus[k] - minus[k]);
    assert.ok(Math.abs(numeric - grad[k]) < 1e-4 * Math.max(1, Math.abs(grad[k]) * 100), `d loss / d P[${k}]: ${grad[k]} vs ${numeric}`);
  }
  const state = trainSteps(pe, initialState({ positions: 16, dim: 8, window: 1, steps: 200, seed: 3 }));
  assert.equal(state.step, 200);
  const mean = (a, b) => state.losses.subarray(a, b).reduce((s, v) => s + v, 0) / (b - a);
  assert.ok(mean(180, 200) < mean(0, 20) / 3, `${mean(0, 20)} → ${mean(180, 200)}`);
});
