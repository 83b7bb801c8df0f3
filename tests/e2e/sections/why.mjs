// e2e: "Why order matters". The attention weights are computed again in Node with the package
// (the same toy inputs from web/js/toy.js, then pe.sinusoidal/learned/alibi/t5/attention) and
// compared with the page's readouts; the verdict must say "same up to permutation" without
// positions and "different" with each encoding.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { TOY_DIM as D, embedWords, project, toyLearnedTable, toyProjections, toyT5Table } from '../../../web/js/toy.js';
import { fixed, num } from '../../../web/js/ui/format.js';
import { canvasStats, choose, figure, fill, frames, heatmapCursor, readout, section, select, settled } from '../page-helpers.mjs';

const ENCODINGS = { none: 'none', sinusoidal: 'sinusoidal', learned: 'learned table', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5 bias' };

/** Attention weights [n, n] of `words` with one encoding, computed here with the package. */
function weights(pe, words, encoding) {
  const n = words.length;
  const x = embedWords(words);
  if (encoding === 'sinusoidal') pe.sinusoidal.addTo({ data: x, dims: [n, D] });
  if (encoding === 'learned') pe.learned.addTo({ data: x, dims: [n, D] }, toyLearnedTable());
  const { wq, wk } = toyProjections();
  const options = {
    none: {}, sinusoidal: {}, learned: {}, rope: { rope: true },
    alibi: { bias: pe.alibi.bias({ numHeads: 1, qLen: n, kLen: n, form: 'symmetric', maxBias: 1 }) },
    t5: { bias: pe.t5.bias(toyT5Table(), { qLen: n, kLen: n }) },
  }[encoding];
  return pe.attention.scores({ data: project(x, wq, n, D), dims: [n, D] }, { data: project(x, wk, n, D), dims: [n, D] }, options).data;
}

export function whyTests(ctx) {
  describe('why order matters section', () => {
    const parts = () => {
      const s = section(ctx.page, 'Why order matters');
      return {
        s, sentence: s.getByRole('textbox', { name: /^sentence/ }), a: figure(s, 'The sentence'), b: figure(s, 'The permuted sentence'),
        verdict: s.getByRole('status', { name: 'verdict' }), summary: s.getByRole('table', { name: /^Every encoding/ }),
      };
    };
    /** The verdict of every encoding, from the summary table. */
    async function verdicts() {
      const rows = await parts().summary.getByRole('row').evaluateAll((trs) => trs.slice(1).map((tr) => [tr.cells[0].textContent.trim(), tr.cells[1].textContent.trim()]));
      const names = { none: 'none', sinusoidal: 'sinusoidal', learned: 'learned table', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5' };
      return Object.fromEntries(Object.entries(names).map(([id, start]) => [id, rows.find(([name]) => name.startsWith(start))?.[1]]));
    }

    test('draws the attention matrices of the sentence and of its permutation', async () => {
      const { sentence, a, b } = parts();
      assert.equal(await sentence.inputValue(), 'I love AI');
      assert.equal(await b.locator('q').textContent(), 'AI love I');
      for (const fig of [a, b]) {
        const s = await canvasStats(fig);
        assert.ok(s.inked > 0.2 && s.colours > 6, `a matrix looks blank: ${JSON.stringify(s)}`);
      }
    });

    test('"same up to permutation" without positions, "different" with each encoding', async () => {
      const { s, verdict, b } = parts();
      await choose(s, 'none');
      assert.equal(await readout(verdict, 'verdict'), 'same up to permutation');
      assert.equal(await verdict.getAttribute('data-same'), 'true');
      // reversal keeps every |i − j|: symmetric ALiBi, which sees nothing else, cannot tell the difference
      assert.deepEqual(await verdicts(), {
        none: 'same up to permutation', sinusoidal: 'different', learned: 'different', rope: 'different', alibi: 'same up to permutation', t5: 'different',
      });
      await choose(s, 'ALiBi');
      assert.match(await verdict.textContent(), /keeps every distance \|i − j\|/);
      await select(s, 'permutation', 'rotate');
      assert.equal(await b.locator('q').textContent(), 'love AI I');
      assert.deepEqual(await verdicts(), {
        none: 'same up to permutation', sinusoidal: 'different', learned: 'different', rope: 'different', alibi: 'different', t5: 'different',
      });
      for (const [id, name] of Object.entries(ENCODINGS)) {
        await choose(s, name);
        assert.equal(await readout(verdict, 'verdict'), id === 'none' ? 'same up to permutation' : 'different', id);
      }
      await select(s, 'permutation', 'reverse');
    });

    test('the weights and the verdict are those of pe.attention.scores for the same inputs', async () => {
      const { pe } = ctx;
      const { s, sentence, a, b, verdict } = parts();
      const words = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
      await fill(sentence, '  the cat sat  on the mat ');
      await select(s, 'permutation', 'swap');
      const permuted = ['mat', 'cat', 'sat', 'on', 'the', 'the'];
      const pos = [5, 1, 2, 3, 4, 0]; // where each original word now stands
      assert.equal(await b.locator('q').textContent(), permuted.join(' '));
      for (const [encoding, name] of Object.entries(ENCODINGS)) {
        await choose(s, name);
        const wa = weights(pe, words, encoding);
        const wb = weights(pe, permuted, encoding);
        let gap = 0;
        for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) gap = Math.max(gap, Math.abs(wa[i * 6 + j] - wb[pos[i] * 6 + pos[j]]));
        assert.equal(await readout(verdict, 'gap'), num(gap, 3), encoding);
        await heatmapCursor(a, 1, 5);
        assert.equal(await readout(a, 'query'), "'cat'");
        assert.equal(await readout(a, 'key'), "'mat'");
        assert.equal(await readout(a, 'weight'), fixed(wa[1 * 6 + 5], 6), encoding);
        assert.equal(await readout(b, 'weight'), fixed(wb[pos[1] * 6 + pos[5]], 6), encoding);
      }
      // the cursor in the permuted matrix follows the same two words
      await heatmapCursor(b, 0, 2);
      assert.equal(await readout(a, 'query'), "'mat'");
      assert.equal(await readout(a, 'key'), "'sat'");
    });

    test('every control changes the output; a one-word sentence is refused and marks the figures', async () => {
      const { s, sentence, a, b } = parts();
      await fill(sentence, 'I love AI');
      await select(s, 'permutation', 'reverse');
      await choose(s, 'none');
      const changes = [
        ['sentence', a, () => fill(sentence, 'AI loves long context')],
        ['permutation', b, () => select(s, 'permutation', 'shuffle')],
        ['encoding', a, () => choose(s, 'sinusoidal')],
        ['encoding (keyboard)', a, async () => {
          await s.getByRole('radio', { name: 'sinusoidal', exact: true }).focus();
          await ctx.page.keyboard.press('ArrowRight');
          await settled(ctx.page);
        }],
      ];
      for (const [name, plot, change] of changes) {
        const before = await canvasStats(plot);
        await change();
        assert.notEqual((await canvasStats(plot)).hash, before.hash, `${name} did not change the plot`);
      }
      assert.equal(await s.getByRole('radio', { name: 'learned table' }).isChecked(), true);
      const status = s.getByRole('alert');
      const picture = await canvasStats(a);
      await fill(sentence, 'hello');
      assert.equal(await status.textContent(), 'Type a sentence of at least two words.');
      assert.equal(await a.getAttribute('data-stale'), 'true', 'the figures say they are not redrawn');
      assert.equal((await canvasStats(a)).hash, picture.hash, 'and keep their last picture');
      await fill(sentence, Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '));
      assert.match(await status.textContent(), /up to 16 words .* this sentence has 17/);
      await fill(sentence, 'I love AI');
      await select(s, 'permutation', 'reverse');
      await choose(s, 'none');
      assert.equal(await status.isVisible(), false);
      assert.equal(await a.getAttribute('data-stale'), null);
      await frames(ctx.page);
    });
  });
}
