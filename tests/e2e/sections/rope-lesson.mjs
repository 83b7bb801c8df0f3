// e2e: the parts of the RoPE section that teach why it works: R_Θ,m as a matrix (entries against
// the float64 cos and sin of m·θ_i and pe.rope.apply), q and k moved together (pe.rope.apply in
// Node), RoFormer's long-term decay (the float64 formula on pe.rope.frequencies), the numbers of
// "why RoPE works", the plan of a model (pe.model.fromConfig / summarize on the same files), the
// precision oracle (pe.precision.oracle in Node) and a KV-cache shift (pe.rope.shift in Node).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { CACHE_TOKENS, cacheKeys } from '../../../web/js/sections/rope/kv-shift.js';
import { PLAN_EXAMPLES } from '../../../web/js/sections/rope/plan.js';
import { PRECISION_POINTS } from '../../../web/js/sections/rope/precision.js';
import { SHIFT_SEEDS } from '../../../web/js/sections/rope/shift.js';
import { randomVector } from '../../../web/js/toy.js';
import { bytes, int, num, signed } from '../../../web/js/ui/format.js';
import { appearance, canvasStats, choose, figure, fill, heatmapCursor, numberField, parseNumber, plotKeys, press, readout, select, settled } from '../page-helpers.mjs';
import { ropeParts, ropeSettings } from './rope.mjs';

const ROOT = new URL('../../../', import.meta.url);

/** RoFormer's relative upper bound at distance r, in float64: (1/(d/2)) Σ_j |Σ_{k<j} e^{i r θ_k}|. */
function decayBound(invFreq, r) {
  let re = 0;
  let im = 0;
  let total = 0;
  for (const w of invFreq) {
    re += Math.cos(r * w);
    im += Math.sin(r * w);
    total += Math.hypot(re, im);
  }
  return total / invFreq.length;
}

export function ropeLessonTests(ctx) {
  describe('rope section: the matrix, a common shift, the decay, why it works, the plan of a model', () => {
    const parts = () => {
      const p = ropeParts(ctx.page);
      return {
        ...p, matrix: figure(p.s, /^R.*at the position of/), shift: figure(p.s, 'q and k, moved together'),
        decay: figure(p.s, 'The relative upper bound'), plan: figure(p.s, 'A model’s layers'), why: p.s.locator('[data-part="why-rope"]'),
      };
    };

    test('R_Θ,m is block-diagonal in pair order: cos and sin of m·θ_i in the blocks, zero elsewhere', async () => {
      const { pe, page } = ctx;
      await ropeSettings(page, { headDim: 64, base: 10000, pairing: 'half' });
      const { matrix, position, pair } = parts();
      await fill(pair, 2);
      for (const m of [3, 7.5]) {
        await fill(position, m);
        // column 32 of R is lane 32's unit vector rotated: lane 0 of it is R[0, 32] = −sin(m·θ_0)
        const e32 = new Float32Array(64);
        e32[32] = 1;
        pe.rope.apply(e32, null, { dims: [1, 64], positionIds: [m] });
        await heatmapCursor(matrix, 0, 1); // pair order: lanes 0, 32, 1, 33, …
        assert.equal(await readout(matrix, 'cell'), 'R[0, 32]');
        assert.equal(await readout(matrix, 'entry'), signed(e32[0]), `m = ${m}`);
        assert.ok(Math.abs(e32[0] + Math.sin(m)) < 1e-6, 'θ_0 = 1: −sin m');
        await heatmapCursor(matrix, 3, 3); // lane 33, pair 1: cos(m·θ_1)
        const theta1 = 10000 ** (-2 / 64);
        assert.ok(Math.abs(Number((await readout(matrix, 'entry')).replace('−', '-')) - Math.cos(m * theta1)) < 2e-6);
        await heatmapCursor(matrix, 0, 2); // lane 1: another pair, never mixed in
        assert.equal(await readout(matrix, 'entry'), '+0.000000');
        assert.match(await matrix.locator('output').textContent(), /lanes of pairs 0 and 1: pairs never mix, 0/);
      }
      await matrix.getByRole('checkbox', { name: /^pair order/ }).uncheck();
      await settled(page);
      await heatmapCursor(matrix, 0, 1);
      assert.equal(await readout(matrix, 'cell'), 'R[0, 1]', 'lane order');
      await matrix.getByRole('checkbox', { name: /^pair order/ }).check();
      await settled(page);
      await fill(position, 3);
    });

    test('q and k moved together keep their dot product: q_{m+s}·k_{n+s} = q_m·k_n = qᵀR_{n−m}k', async () => {
      const { pe, page } = ctx;
      const { shift } = parts();
      const rotate = (seed, p) => {
        const x = randomVector(64, seed);
        pe.rope.apply(x, null, { dims: [1, 64], positionIds: [p] });
        return x;
      };
      const dot = (a, b) => a.reduce((s, v, l) => s + v * b[l], 0);
      for (const [m, n, s] of [[5, 2, 40], [5, 2, 1000], [100, 130, 250000]]) {
        await fill(numberField(shift, 'query position m'), m);
        await fill(numberField(shift, 'key position n'), n);
        await fill(numberField(shift, 'shift both by s'), s);
        const before = dot(rotate(SHIFT_SEEDS.q, m), rotate(SHIFT_SEEDS.k, n));
        const after = dot(rotate(SHIFT_SEEDS.q, m + s), rotate(SHIFT_SEEDS.k, n + s));
        const relative = dot(rotate(SHIFT_SEEDS.q, 0), rotate(SHIFT_SEEDS.k, n - m));
        const what = JSON.stringify({ m, n, s });
        assert.equal(await readout(shift, 'before'), signed(before), what);
        assert.equal(await readout(shift, 'after'), signed(after), what);
        assert.equal(await readout(shift, 'relative'), signed(relative), what);
        assert.ok(Math.abs(after - before) < 2e-5 && Math.abs(relative - before) < 2e-5, `${what}: ${before} ${after} ${relative}`);
        assert.equal(await readout(shift, 'angle-after'), await readout(shift, 'angle-before'), `${what}: the angle between them stays`);
      }
      assert.equal(await shift.locator('canvas').getAttribute('data-label-overlaps'), '0');
      await fill(numberField(shift, 'query position m'), 5);
      await fill(numberField(shift, 'key position n'), 2);
      await fill(numberField(shift, 'shift both by s'), 40);
    });

    test('the long-term decay is RoFormer’s bound for the section’s frequencies', async () => {
      const { pe } = ctx;
      const { decay, base } = parts();
      const st = await canvasStats(decay);
      assert.ok(st.inked > 0.02 && st.colours > 5, `the decay curve looks blank: ${JSON.stringify(st)}`);
      for (const b of [10000, 500000]) {
        await fill(base, b);
        const { invFreq } = pe.rope.frequencies({ rotaryDim: 64, base: b });
        await plotKeys(decay, ['Home']);
        assert.equal(await readout(decay, 'distance'), '0');
        assert.equal(await readout(decay, 'bound'), num(16.5, 6), 'every S_j = j at distance 0');
        await plotKeys(decay, ['End']);
        assert.equal(await readout(decay, 'distance'), '512');
        assert.equal(await readout(decay, 'bound'), num(decayBound(invFreq, 512), 6), `base ${b}`);
      }
      await fill(base, 10000);
      await fill(numberField(decay, 'distance up to'), 100000); // 2 048 points, every 49th distance
      await plotKeys(decay, ['End']);
      assert.equal(await readout(decay, 'distance'), int(2040 * 49));
      const { invFreq } = pe.rope.frequencies({ rotaryDim: 64, base: 10000 });
      assert.equal(await readout(decay, 'bound'), num(decayBound(invFreq, 2040 * 49), 6));
      assert.ok(decayBound(invFreq, 2040 * 49) < 16.5 / 2, 'far below its value at distance 0');
      await fill(numberField(decay, 'distance up to'), 512);
    });

    test('"why RoPE works" gives this section’s numbers', async () => {
      const { pe } = ctx;
      const { why, headDim, context } = parts();
      const field = (name) => why.locator(`[data-field="${name}"]`).first().textContent();
      for (const [d, L] of [[64, 4096], [128, 32768]]) {
        await fill(headDim, d);
        await fill(context, L);
        const { invFreq } = pe.rope.frequencies({ rotaryDim: d, base: 10000 });
        const slow = Array.from(invFreq).filter((w) => (2 * Math.PI) / w > L).length;
        assert.equal(await field('pairs'), String(d / 2));
        assert.equal(await field('table'), int(L * 768), 'a learned table as wide as GPT-2’s embeddings');
        assert.equal(await field('slow-plain'), String(slow));
        assert.equal(await field('slow-scaled'), String(slow), 'no scaling: the same pairs');
        const cache = pe.rope.createCache({ rotaryDim: d, maxPositions: L });
        try {
          assert.equal(await field('cache'), bytes(cache.bytes), 'what pe.rope.createCache holds');
        } finally {
          cache.dispose();
        }
      }
      await fill(headDim, 64);
      await fill(context, 4096);
    });

    test('the plan of a model: each layer as pe.model.fromConfig says, the summary as pe.model.summarize writes it', async () => {
      const { pe, page } = ctx;
      const { plan } = parts();
      const text = plan.getByRole('textbox', { name: 'config.json of a model, for its plan' });
      const summary = plan.locator('[data-part="plan-summary"]');
      const strip = plan.locator('.plot-area[data-plot="layers"]');
      for (const { file } of Object.values(PLAN_EXAMPLES)) {
        assert.equal(readFileSync(new URL(`web/models/${file}`, ROOT), 'utf8'), readFileSync(new URL(`tests/fixtures/models/${file}`, ROOT), 'utf8'), `${file} is the fixture`);
      }
      const config = (file) => JSON.parse(readFileSync(new URL(`tests/fixtures/models/${file}`, ROOT), 'utf8'));
      // on load: Gemma 3 1B, sliding layers at base 10 000, every 6th layer global at 1 000 000
      const gemma = pe.model.fromConfig(config('gemma-3-1b-it.json'));
      assert.equal(await summary.textContent(), pe.model.summarize(gemma).join('\n'));
      await plotKeys(strip, ['Home', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight']);
      assert.equal(await readout(plan, 'layer'), '5');
      assert.equal(await readout(plan, 'positions'), `RoPE base ${'1 × 10⁶'}`);
      assert.equal(gemma.layers[5].rope.spec.base, 1e6);
      assert.equal(await readout(plan, 'attention'), 'full attention');
      await plotKeys(strip, ['ArrowRight']);
      assert.equal(await readout(plan, 'positions'), 'RoPE base 10\u2009000');
      assert.equal(await readout(plan, 'attention'), `sliding window ${gemma.layers[6].window.size}`);
      // SmolLM3: every 4th layer has no RoPE
      await press(plan, 'SmolLM3 3B');
      const smol = pe.model.fromConfig(config('smollm3-3b.json'));
      assert.equal(await summary.textContent(), pe.model.summarize(smol).join('\n'));
      await plotKeys(strip, ['Home', 'ArrowRight', 'ArrowRight', 'ArrowRight']);
      assert.equal(smol.layers[3].rope, null);
      assert.equal(await readout(plan, 'positions'), 'no position encoding');
      // GPT-2: a learned table at the input, no RoPE anywhere
      await press(plan, 'GPT-2');
      assert.equal(await readout(plan, 'positions'), 'no RoPE (a table at the input)');
      assert.equal(await summary.textContent(), pe.model.summarize(pe.model.fromConfig(config('gpt2.json'))).join('\n'));
      // Phi-3.5: LongRoPE; the frequencies drawn are those of the full context (the long factors)
      await press(plan, 'Phi-3.5 mini');
      assert.match(await readout(plan, 'positions'), /^RoPE base 10\u2009000, longrope ×32$/);
      // a config posenc cannot read: its INVALID_CONFIG message, and the figure says it is not redrawn
      const bad = '{ "model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "rope_theta": -10000 }';
      let error;
      try {
        pe.model.fromConfig(bad);
      } catch (e) {
        error = e;
      }
      await text.fill(bad);
      await press(plan, 'Read the plan');
      assert.equal(await readout(plan, 'error'), `${error.code}: ${error.message}`);
      assert.equal(error.code, 'INVALID_CONFIG');
      assert.equal(await plan.getAttribute('data-stale'), 'true');
      // the badge follows the caption, in the flow (it covers none of it), and points down to the message
      const badge = await plan.locator('figcaption').evaluate((c) => {
        const style = getComputedStyle(c, '::after');
        return { content: style.content, position: style.position };
      });
      assert.match(badge.content, /^"not redrawn: see the message below/);
      assert.equal(badge.position, 'static');
      // the message in full colour, readable; the last plan's summary dimmed, and said to be the last one's
      const message = await appearance(plan.locator('output[data-state="error"]'));
      assert.equal(message.opacity, 1);
      assert.equal(message.filter, 'none');
      assert.ok(message.contrast >= 4.5, `the message's contrast is ${message.contrast.toFixed(2)}, under WCAG's 4.5`);
      assert.ok((await appearance(summary)).opacity < 0.5, 'the previous summary is dimmed');
      assert.equal(await summary.textContent(), pe.model.summarize(pe.model.fromConfig(config('phi-3.5-mini-instruct.json'))).join('\n'), 'it is the last plan read');
      assert.equal(await plan.locator('[data-part="plan-summary-stale"]').isVisible(), true, 'and says so');
      await text.focus();
      await press(plan, 'Gemma 3 1B');
      assert.equal(await plan.getAttribute('data-stale'), null);
      assert.equal((await appearance(summary)).opacity, 1);
      assert.equal(await plan.locator('[data-part="plan-summary-stale"]').isVisible(), false);
      await page.mouse.move(1, 1);
    });

    test('the precision oracle: each pipeline’s error per position is pe.precision.oracle’s; posenc stays at float32 rounding', async () => {
      const { pe, page } = ctx;
      const { s } = parts();
      const fig = figure(s, 'Error per position');
      const llama = pe.model.fromConfig(readFileSync(new URL('tests/fixtures/models/llama-3.1-8b.json', ROOT), 'utf8'));
      const bucket = 131072 / PRECISION_POINTS;
      for (const [precision, pipelines] of [['float32', ['hf-float32', 'ggml-float32']], ['bfloat16', ['hf-bfloat16']]]) {
        await choose(fig, precision);
        const report = pe.precision.oracle(llama, { contextLength: 131072, bucket, pipelines });
        for (const [keys, k] of [[['End'], PRECISION_POINTS - 1], [['Home'], 0]]) {
          await plotKeys(fig, keys);
          assert.equal(await readout(fig, 'positions'), `${int(k * bucket)}–${int((k + 1) * bucket - 1)}`);
          for (const p of report.pipelines) assert.equal(await readout(fig, p.name), num(p.rotationError[k], 2), `${p.name} at bucket ${k}`);
          assert.ok(parseNumber(await readout(fig, 'posenc')) <= 2 ** -23, 'posenc: float64 angles, rounded once');
        }
        if (precision === 'float32') assert.ok(report.pipelines[0].maxRotationError > 1e-3, 'float32 angles drift by thousandths at 128k');
      }
      await choose(fig, 'float32');
      await select(fig, 'model', 'section');
      await fill(numberField(fig, 'positions'), 8192);
      const own = pe.precision.oracle({ headDim: 64, rotaryDim: 64, base: 10000, pairing: 'half' }, { contextLength: 8192, bucket: 16, pipelines: ['hf-float32', 'ggml-float32'] });
      await plotKeys(fig, ['End']);
      assert.equal(await readout(fig, 'hf-float32'), num(own.pipelines[0].rotationError[PRECISION_POINTS - 1], 2));
      await select(fig, 'model', 'llama31');
      assert.equal(await numberField(fig, 'positions').inputValue(), '131072');
      await page.mouse.move(1, 1);
    });

    test('a KV-cache shift: keys moved by pe.rope.shift equal keys rotated afresh, to float32 rounding', async () => {
      const { pe, page } = ctx;
      const p = parts();
      const fig = figure(p.s, 'A cache of 12 keys, a span dropped');
      for (const offset of [0, 1000000]) {
        await fill(numberField(fig, 'cache starts at position'), offset);
        const d = 64;
        const keys = cacheKeys(d);
        const cached = keys.slice();
        pe.rope.apply(cached, null, { dims: [CACHE_TOKENS, d], offset, base: 10000 });
        const kept = [0, 1, 2, 6, 7, 8, 9, 10, 11];
        const k = new Float32Array(kept.length * d);
        const fresh = new Float32Array(kept.length * d);
        kept.forEach((t, row) => {
          k.set(cached.subarray(t * d, (t + 1) * d), row * d);
          fresh.set(keys.subarray(t * d, (t + 1) * d), row * d);
        });
        const stale = k.slice();
        pe.rope.shift(k, { dims: [kept.length, d], base: 10000, positionIds: kept.map((t) => offset + t), newOffset: offset });
        pe.rope.apply(fresh, null, { dims: [kept.length, d], offset, base: 10000 });
        const gap = (a, row) => Math.max(...Array.from({ length: d }, (_, l) => Math.abs(a[row * d + l] - fresh[row * d + l])));
        await plotKeys(fig, ['Home', 'ArrowRight', 'ArrowRight', 'ArrowRight']); // kept token 6
        assert.equal(await readout(fig, 'old'), int(offset + 6));
        assert.equal(await readout(fig, 'new'), int(offset + 3));
        assert.equal(await readout(fig, 'shifted'), num(gap(k, 3), 2), `offset ${offset}`);
        assert.equal(await readout(fig, 'unshifted'), num(gap(stale, 3), 2));
        assert.ok(gap(k, 3) <= 2 ** -22, `shifted keys are the fresh ones: ${gap(k, 3)}`);
        assert.ok(gap(stale, 3) > 0.05, 'keys left in place are not');
      }
      await fill(numberField(fig, 'cache starts at position'), 0);
      // dynamic NTK cannot be shifted exactly: posenc says so, the figure is not redrawn
      await select(p.s, 'scaling type', 'dynamic');
      let error;
      try {
        const spec = { dims: [1, 64], base: 10000, scaling: { type: 'dynamic', factor: 4, maxPositionEmbeddings: 4096 } };
        pe.rope.shift(new Float32Array(64), { ...spec, positionIds: [5], newOffset: 0 });
      } catch (e) {
        error = e;
      }
      assert.equal(error?.code, 'INVALID_ARGUMENT');
      assert.match(await fig.getByRole('alert').textContent(), /^rope\.shift: /);
      assert.equal(await fig.getAttribute('data-stale'), 'true');
      await select(p.s, 'scaling type', 'default');
      assert.equal(await fig.getAttribute('data-stale'), null);
      await page.mouse.move(1, 1);
    });
  });
}
