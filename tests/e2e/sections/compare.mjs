// e2e: the comparison: every relative method against the distance, each value checked against the
// formula or the package's one-value function (Shaw: −min(r, k); T5: pe.t5.bucket; DeBERTa:
// pe.deberta.bucket; ALiBi: −r/16; RoPE: Σ 2 cos(r θ_i) in float64), inside and past the training
// length; and the summary table of concepts and formulas.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { int, signed } from '../../../web/js/ui/format.js';
import { canvasStats, choose, figure, fill, numberField, parseNumber, plotKeys, readout, section } from '../page-helpers.mjs';

export function compareTests(ctx) {
  describe('comparison section', () => {
    const parts = () => {
      const s = section(ctx.page, 'Comparison');
      return { s, fig: figure(s, 'What each relative method gives a key') };
    };

    test('each method against the distance, inside and past the training length', async () => {
      const { pe } = ctx;
      const { s, fig } = parts();
      for (const area of await fig.locator('.plot-area').all()) {
        const st = await canvasStats(area);
        assert.ok(st.inked > 0.02 && st.colours > 5, `a panel looks blank: ${JSON.stringify(st)}`);
      }
      const { invFreq } = pe.rope.frequencies({ rotaryDim: 64, base: 10000 });
      const ropeScore = (r) => invFreq.reduce((sum, w) => sum + 2 * Math.cos(r * w), 0); // q = k = ones: each pair 2 cos(rθ)
      await fill(numberField(s, 'distance shown up to'), 1024);
      const first = fig.locator('.plot-area').first();
      for (const [keys, r] of [[['Home'], 0], [['Home', 'ArrowRight', 'ArrowRight', 'ArrowRight'], 3], [['End'], 1024], [['End', 'Shift+ArrowLeft'], 1014]]) {
        await plotKeys(first, keys);
        assert.equal(await readout(fig, 'distance'), int(r));
        assert.equal(await readout(fig, 'shaw'), int(-Math.min(r, 16)), `Shaw at ${r}`);
        assert.equal(await readout(fig, 't5'), int(pe.t5.bucket(-r, { bidirectional: false })), `T5 at ${r}`);
        assert.equal(await readout(fig, 'deberta'), int(pe.deberta.bucket(r)), `DeBERTa at ${r}`);
        assert.equal(await readout(fig, 'alibi'), signed(-r / 16, 4), `ALiBi at ${r}`);
        assert.ok(Math.abs(parseNumber(await readout(fig, 'rope')) - ropeScore(r)) < 2e-3, `RoPE at ${r}`);
        assert.match(await fig.locator('output').textContent(), r >= 512 ? /past the training length \(512\)/ : /inside the training length/);
      }
      assert.match(await fig.locator('output').textContent(), /T5: 31 +the last bucket, shared by every farther key/);
      assert.match(await fig.locator('output').textContent(), /DeBERTa: \d+ +a bucket never seen in training/);
      // the axis and the training length redraw
      for (const change of [() => choose(s, 'linear'), () => fill(numberField(s, 'training length'), 64)]) {
        const before = await canvasStats(first);
        await change();
        assert.notEqual((await canvasStats(first)).hash, before.hash);
      }
      await plotKeys(first, ['Home', 'ArrowRight']);
      await plotKeys(first, Array(99).fill('ArrowRight'));
      assert.match(await fig.locator('output').textContent(), /past the training length \(64\)/);
      await choose(s, 'logarithmic');
      await fill(numberField(s, 'training length'), 512);
      await fill(numberField(s, 'distance shown up to'), 2048);
    });

    test('the summary table: every concept with its formula and a link to where it is computed', async () => {
      const { s } = parts();
      const table = s.getByRole('table', { name: /^Each concept of this page/ });
      const rows = await table.getByRole('row').evaluateAll((trs) => trs.slice(1).map((tr) => [tr.cells[0].textContent.trim(), tr.cells[1].textContent.replace(/[ \n\u00a0]+/g, ' ').trim()]));
      assert.deepEqual(rows.map(([c]) => c), ['Input embedding', 'Sinusoidal (even columns)', 'Sinusoidal (odd columns)', 'Positional encoding matrix', 'Learned',
        'Relative score (Shaw)', 'RoPE rotation', 'RoPE attention', 'Rotation angle']);
      const formulas = Object.fromEntries(rows);
      assert.equal(formulas['Input embedding'], 'X = E + P');
      assert.equal(formulas['Sinusoidal (even columns)'], 'PE(pos, 2i) = sin(pos / 100002i/d)');
      assert.equal(formulas['Sinusoidal (odd columns)'], 'PE(pos, 2i+1) = cos(pos / 100002i/d)');
      assert.equal(formulas['Relative score (Shaw)'], 'eij = xiWQ (xjWK + aKij)T / √dz');
      assert.equal(formulas['RoPE attention'], 'qmTkn = xmTWqTRΘ,n−mWkxn');
      assert.equal(formulas['Rotation angle'], 'θi = base−2i/d (base 10\u2009000), angle m·θi');
      for (const link of await table.getByRole('link').all()) {
        const target = (await link.getAttribute('href')).slice(1);
        assert.equal(await ctx.page.locator(`[id="${target}"]`).count(), 1, `${target} exists`);
      }
    });
  });
}
