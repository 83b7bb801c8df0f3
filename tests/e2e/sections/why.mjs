// e2e: "Why order matters". The attention weights are computed again in Node with the package
// (the same toy inputs from web/js/lib/toy.js, then pe.sinusoidal/learned/alibi/t5/attention) and
// compared with the page's readouts; the verdict must say "same up to permutation" without
// positions and "different" with each encoding.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { TOY_DIM as D, embedWords, project, toyLearnedTable, toyProjections, toyT5Table } from '../../../web/js/lib/toy.js';
import { ARTIFACTS } from '../harness.mjs';
import { canvasStats, choose, field, frames, heatmapCursor, select, setValue, sig } from '../page-helpers.mjs';

const ENCODINGS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5'];

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

/** The page's verdict for every encoding, from the summary table. */
async function verdicts(page) {
  return page.$$eval('#why-summary tbody tr', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.encoding, r.querySelector('[data-field="verdict"]').textContent])));
}

export function whyTests(ctx) {
  describe('why order matters section', () => {
    test('draws the attention matrices of the sentence and of its permutation', async () => {
      const { page } = ctx;
      assert.equal(await page.inputValue('#why-sentence'), 'I love AI');
      assert.equal(await page.textContent('#why-permuted'), 'AI love I');
      for (const id of ['why-a', 'why-b']) {
        const s = await canvasStats(page, `#${id}`);
        assert.ok(s.inked > 0.2 && s.colours > 6, `${id} looks blank: ${JSON.stringify(s)}`);
      }
    });

    test('"same up to permutation" without positions, "different" with each encoding', async () => {
      const { page } = ctx;
      await choose(page, 'why-encoding', 'none');
      assert.equal(await field(page, 'why-verdict', 'verdict'), 'same up to permutation');
      assert.equal(await page.getAttribute('#why-verdict', 'data-same'), 'true');
      // reversal keeps every |i − j|: symmetric ALiBi, which sees nothing else, cannot tell the difference
      assert.deepEqual(await verdicts(page), {
        none: 'same up to permutation', sinusoidal: 'different', learned: 'different', rope: 'different', alibi: 'same up to permutation', t5: 'different',
      });
      await choose(page, 'why-encoding', 'alibi');
      assert.match(await page.textContent('#why-verdict'), /keeps every distance \|i − j\|/);
      await select(page, 'why-perm', 'rotate');
      assert.equal(await page.textContent('#why-permuted'), 'love AI I');
      assert.deepEqual(await verdicts(page), {
        none: 'same up to permutation', sinusoidal: 'different', learned: 'different', rope: 'different', alibi: 'different', t5: 'different',
      });
      for (const encoding of ENCODINGS) {
        await choose(page, 'why-encoding', encoding);
        assert.equal(await field(page, 'why-verdict', 'verdict'), encoding === 'none' ? 'same up to permutation' : 'different', encoding);
      }
      await select(page, 'why-perm', 'reverse');
    });

    test('the weights and the verdict are those of pe.attention.scores for the same inputs', async () => {
      const { page, pe } = ctx;
      const words = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
      await setValue(page, 'why-sentence', '  the cat sat  on the mat ');
      await select(page, 'why-perm', 'swap');
      const permuted = ['mat', 'cat', 'sat', 'on', 'the', 'the'];
      const pos = [5, 1, 2, 3, 4, 0]; // where each original word now stands
      assert.equal(await page.textContent('#why-permuted'), permuted.join(' '));
      for (const encoding of ENCODINGS) {
        await choose(page, 'why-encoding', encoding);
        const a = weights(pe, words, encoding);
        const b = weights(pe, permuted, encoding);
        let gap = 0;
        for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) gap = Math.max(gap, Math.abs(a[i * 6 + j] - b[pos[i] * 6 + pos[j]]));
        assert.equal(await field(page, 'why-verdict', 'gap'), sig(gap, 3), encoding);
        await heatmapCursor(page, '#why-a', 1, 5);
        assert.equal(await field(page, 'why-a-readout', 'query'), "'cat'");
        assert.equal(await field(page, 'why-a-readout', 'key'), "'mat'");
        assert.equal(await field(page, 'why-a-readout', 'weight'), a[1 * 6 + 5].toFixed(6), encoding);
        assert.equal(await field(page, 'why-b-readout', 'weight'), b[pos[1] * 6 + pos[5]].toFixed(6), encoding);
      }
      await choose(page, 'why-encoding', 'rope');
      await page.locator('#why').screenshot({ path: `${ARTIFACTS}desktop-why-rope.png` });
      // the cursor in the permuted matrix follows the same two words
      await heatmapCursor(page, '#why-b', 0, 2);
      assert.equal(await field(page, 'why-a-readout', 'query'), "'mat'");
      assert.equal(await field(page, 'why-a-readout', 'key'), "'sat'");
    });

    test('every control changes the output; a one-word sentence is refused', async () => {
      const { page } = ctx;
      await setValue(page, 'why-sentence', 'I love AI');
      await select(page, 'why-perm', 'reverse');
      await choose(page, 'why-encoding', 'none');
      const changes = [
        ['sentence', '#why-a', () => setValue(page, 'why-sentence', 'AI loves long context')],
        ['permutation', '#why-b', () => select(page, 'why-perm', 'shuffle')],
        ['encoding', '#why-a', () => choose(page, 'why-encoding', 'sinusoidal')],
        ['encoding (keyboard)', '#why-a', async () => {
          await page.focus('input[name="why-encoding"]:checked');
          await page.keyboard.press('ArrowRight');
          await frames(page, 3);
        }],
      ];
      for (const [name, plot, change] of changes) {
        const before = await canvasStats(page, plot);
        await change();
        assert.notEqual((await canvasStats(page, plot)).hash, before.hash, `${name} did not change ${plot}`);
      }
      assert.equal(await page.locator('input[name="why-encoding"]:checked').inputValue(), 'learned');
      await setValue(page, 'why-sentence', 'hello');
      assert.equal(await page.textContent('#why-status'), 'Type a sentence of at least two words.');
      await setValue(page, 'why-sentence', Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '));
      assert.match(await page.textContent('#why-status'), /up to 16 words .* this sentence has 17/);
      await setValue(page, 'why-sentence', 'I love AI');
      await select(page, 'why-perm', 'reverse');
      await choose(page, 'why-encoding', 'none');
      assert.equal(await page.isVisible('#why-status'), false);
    });
  });
}
