// e2e: "Why order matters". The attention weights and outputs are computed again in Node with the
// package (the same toy inputs from web/js/toy.js, then pe.sinusoidal/learned/alibi/t5/attention)
// and compared with the page's readouts; the verdict must say "same up to permutation" without
// positions and "different" with each encoding; undoing the permutation lines the permuted figures
// up with the sentence's; X = E + P is the word's toy embedding plus pe.sinusoidal's row.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { TOY_DIM as D, embedWords, project, toyLearnedTable, toyProjections, toyT5Table, wordEmbedding } from '../../../web/js/toy.js';
import { fixed, num, signed } from '../../../web/js/ui/format.js';
import { canvasStats, choose, figure, fill, frames, heatmapCursor, numberField, plotKeys, readout, section, select, settled } from '../page-helpers.mjs';

const ENCODINGS = { none: 'none', sinusoidal: 'sinusoidal', learned: 'learned table', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5 bias' };

/** Attention weights [n, n] (and outputs [n, D] with `output`) of `words` with one encoding, computed here with the package. */
function weights(pe, words, encoding, output = false) {
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
  const { wv } = toyProjections();
  const [q, k, v] = [wq, wk, wv].map((w) => ({ data: project(x, w, n, D), dims: [n, D] }));
  return output ? pe.attention.output(q, k, v, options).data : pe.attention.scores(q, k, options).data;
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

    test('draws the attention matrices of the sentence and of its permutation; every permutation is another sentence', async () => {
      const { s, sentence, a, b } = parts();
      assert.equal(await sentence.inputValue(), 'I really love AI');
      assert.equal(await b.locator('q').textContent(), 'AI love really I');
      for (const fig of [a, b]) {
        const st = await canvasStats(fig);
        assert.ok(st.inked > 0.2 && st.colours > 6, `a matrix looks blank: ${JSON.stringify(st)}`);
      }
      // each choice of the select visibly changes the permuted sentence (with "I love AI", swap was reverse)
      const seen = new Set();
      for (const permutation of ['reverse', 'swap', 'rotate', 'shuffle']) {
        await select(s, 'permutation', permutation);
        seen.add(await b.locator('q').textContent());
      }
      assert.deepEqual([...seen], ['AI love really I', 'AI really love I', 'really love AI I', 'I love really AI']);
      await select(s, 'permutation', 'reverse');
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
      assert.equal(await b.locator('q').textContent(), 'really love AI I');
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
      await fill(sentence, 'I really love AI');
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
      await fill(sentence, 'I really love AI');
      await select(s, 'permutation', 'reverse');
      await choose(s, 'none');
      assert.equal(await status.isVisible(), false);
      assert.equal(await a.getAttribute('data-stale'), null);
      await frames(ctx.page);
    });

    test('outputs: O and O′ are pe.attention.output; undone, the permuted figures line up; the differences are measured', async () => {
      const { pe } = ctx;
      const { s, a, b } = parts();
      const out = figure(s, 'Output of the sentence');
      const out2 = figure(s, 'Output of the permuted sentence');
      const diff = figure(s, 'What changed, once the permutation is undone');
      const undo = s.getByRole('checkbox', { name: 'undo the permutation in the permuted figures' });
      const words = ['I', 'really', 'love', 'AI'];
      await select(s, 'permutation', 'swap');
      const permuted = ['AI', 'really', 'love', 'I'];
      const pos = [3, 1, 2, 0];
      for (const [encoding, name] of Object.entries(ENCODINGS)) {
        await choose(s, name);
        const o = weights(pe, words, encoding, true);
        const o2 = weights(pe, permuted, encoding, true);
        await heatmapCursor(out, 1, 5);
        assert.equal(await readout(out, 'word'), "'really'");
        assert.equal(await readout(out, 'output'), signed(o[1 * D + 5]), encoding);
        assert.equal(await readout(out2, 'output'), signed(o2[pos[1] * D + 5]), encoding);
        let gap = 0;
        for (let i = 0; i < 4; i++) for (let c = 0; c < D; c++) gap = Math.max(gap, Math.abs(o[i * D + c] - o2[pos[i] * D + c]));
        assert.equal(await readout(diff, 'outputs-gap'), num(gap, 3), encoding);
        if (encoding === 'none') assert.ok(gap < 1e-6, `equivariance: ${gap}`);
        else assert.ok(gap > 1e-3, `${encoding} changes the outputs: ${gap}`);
      }
      // undone: the permuted figures' rows (and columns) follow the sentence's order
      await choose(s, 'none');
      await undo.check();
      await settled(ctx.page);
      assert.equal(await b.locator('q').textContent(), words.join(' '));
      assert.equal(await out2.locator('q').textContent(), words.join(' '));
      await heatmapCursor(b, 0, 3);
      assert.equal(await readout(a, 'query'), "'I'", 'the cursor of the undone matrix is on the same words');
      assert.equal(await readout(a, 'key'), "'AI'");
      assert.equal(await readout(b, 'weight'), await readout(a, 'weight'), 'no position information: the same weight');
      assert.equal(await readout(b, 'change'), '+0.000000');
      await heatmapCursor(out2, 2, 7);
      assert.equal(await readout(out, 'word'), "'love'");
      assert.equal(await readout(out2, 'output'), await readout(out, 'output'));
      const undone = await canvasStats(b);
      await undo.uncheck();
      await settled(ctx.page);
      assert.equal(await b.locator('q').textContent(), permuted.join(' '));
      assert.notEqual((await canvasStats(b)).hash, undone.hash, 'the undo view redraws');
      await select(s, 'permutation', 'reverse');
    });

    test('X = E + P: the word’s toy embedding, pe.sinusoidal’s row at its position, and their sum', async () => {
      const { pe } = ctx;
      const { s } = parts();
      const vectors = figure(s, 'E, P and X = E + P');
      const plane = figure(s, 'The same sum as arrows');
      await select(s, 'word', '2');
      const position = numberField(s, 'position p');
      assert.equal(await position.inputValue(), '2', 'a word comes at its own position');
      for (const p of [2, 40]) {
        await fill(position, p);
        const e = wordEmbedding('love', D);
        const row = pe.sinusoidal.table({ positionIds: [p], dim: D }).data;
        const x = e.slice();
        pe.sinusoidal.addTo({ data: x, dims: [1, D] }, { offset: p });
        await plotKeys(vectors, ['Home', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight']);
        assert.equal(await readout(vectors, 'e'), signed(e[5], 4));
        assert.equal(await readout(vectors, 'p'), signed(row[5], 4), `P at ${p}`);
        assert.equal(await readout(vectors, 'x'), signed(x[5], 4));
        assert.ok(Math.abs(x[5] - (e[5] + Math.cos(p * 10000 ** (-4 / D)))) < 1e-6, 'column 5 = E + cos(p·w₂) (interleaved)');
        await fill(numberField(s, 'columns'), 1);
        assert.equal(await readout(plane, 'p-pair'), `${signed(row[2], 4)}, ${signed(row[3], 4)}`);
        assert.equal(await readout(plane, 'x-pair'), `${signed(x[2], 4)}, ${signed(x[3], 4)}`);
      }
      assert.equal(await plane.locator('canvas').getAttribute('data-label-overlaps'), '0');
      await fill(numberField(s, 'columns'), 0);
      await select(s, 'word', '1');
    });
  });
}
