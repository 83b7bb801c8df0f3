// e2e: "Relative positions". Every index, bucket, score and bias readout is compared with the
// package in Node for the same inputs: pe.shaw, pe.t5, pe.deberta, pe.alibi and pe.transformerXL;
// Shaw's score terms also with the float64 formula.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { SHAW_DIM, relativeKeys, toyQueriesKeys } from '../../../web/js/sections/relative/shaw-score.js';
import { int, num, signed } from '../../../web/js/ui/format.js';
import { canvasStats, choose, figure, fill, heatmapCursor, numberField, plotKeys, readout, section, settled } from '../page-helpers.mjs';

/** What the T5 list says for the bucket of distance d: the range of distances (within ±reach) sharing it. */
function t5Range(pe, d, options, reach) {
  const b = pe.t5.bucket(d, options);
  const same = [];
  for (let r = -reach; r <= reach; r++) if (pe.t5.bucket(r, options) === b) same.push(r);
  const [lo, hi] = [same[0], same[same.length - 1]];
  if (lo === -reach) return `≤ ${int(hi)}`;
  if (hi === reach) return `≥ ${int(lo)}`;
  return lo === hi ? int(lo) : `${int(lo)} … ${int(hi)}`;
}

export function relativeTests(ctx) {
  describe('relative positions section', () => {
    const parts = () => {
      const s = section(ctx.page, 'Relative positions');
      return {
        s, qLen: numberField(s, 'queries'), kLen: numberField(s, 'keys'), offset: numberField(s, 'query offset'),
        dist: figure(s, 'The distance'), shaw: figure(s, 'Shaw et al.'), t5map: figure(s, 'The bucket of every pair'), t5curve: figure(s, 'Bucket against distance j'),
        deberta: figure(s, 'Bucket against distance i'), slopes: figure(s, 'The slope of every head'), bias: figure(s, 'The bias of head'),
        r: figure(s, /^R, /), shift: figure(s, 'The rel-shift'),
      };
    };

    test('draws every figure', async () => {
      const { pe } = ctx;
      const p = parts();
      for (const name of ['dist', 'shaw', 't5map', 'bias', 'r', 'shift']) {
        const st = await canvasStats(p[name]);
        assert.ok(st.inked > 0.3 && st.colours > 6, `${name} looks blank: ${JSON.stringify(st)}`);
      }
      for (const name of ['t5curve', 'deberta', 'slopes']) {
        const st = await canvasStats(p[name]);
        assert.ok(st.inked > 0.015 && st.colours > 6, `${name} looks blank: ${JSON.stringify(st)}`);
      }
      const list = p.t5curve.getByRole('list');
      assert.equal(await list.getByRole('listitem').count(), 32);
      // no distance lands in bucket 16 of a bidirectional 32-bucket T5 (distance 0 is bucket 0, +1 is 17)
      assert.equal(await list.locator('li[data-bucket="16"]').getAttribute('data-range'), 'no distance');
      assert.equal(pe.t5.bucket(0), 0);
      assert.equal(pe.t5.bucket(1), 17);
    });

    test('distances in both signs, and Shaw’s clipped indices from pe.shaw.relativeIndices', async () => {
      const { pe } = ctx;
      const { s, qLen, kLen, offset, dist, shaw } = parts();
      await heatmapCursor(dist, 9, 3);
      assert.equal(await readout(dist, 'distance'), '−6');
      assert.match(await dist.locator('output').textContent(), /the key is 6 tokens before the query/);
      await choose(s, 'i − j (DeBERTa)');
      assert.equal(await readout(dist, 'distance'), '6');
      await choose(s, 'j − i (Shaw, T5)');
      for (const k of [4, 9]) {
        await fill(numberField(shaw, 'clip distance k'), k);
        const idx = pe.shaw.relativeIndices({ qLen: 32, kLen: 32, maxRelativePosition: k });
        assert.equal(await readout(shaw, 'index'), String(idx.data[9 * 32 + 3]), `k = ${k}`);
        assert.equal(await readout(shaw, 'clipped'), int(idx.data[9 * 32 + 3] - k), `k = ${k}`);
      }
      // a decoder step: one query after 40 cached tokens
      await fill(qLen, 1);
      await fill(kLen, 41);
      await fill(offset, 40);
      await heatmapCursor(shaw, 0, 35);
      const step = pe.shaw.relativeIndices({ qLen: 1, kLen: 41, maxRelativePosition: 9, queryOffset: 40 });
      assert.equal(await readout(shaw, 'index'), String(step.data[35]));
      assert.equal(await readout(dist, 'distance'), '−5');
      await fill(qLen, 0);
      const status = s.getByRole('alert').first();
      assert.match(await status.textContent(), /^shaw\.relativeIndices: qLen must be/);
      assert.equal(await dist.getAttribute('data-stale'), 'true');
      await fill(qLen, 513);
      assert.equal(await status.textContent(), 'queries must be at most 512 on this page, got 513');
      await fill(qLen, 32);
      await fill(kLen, 32);
      await fill(offset, 0);
      await fill(numberField(shaw, 'clip distance k'), 4);
      assert.equal(await s.getByRole('alert').count(), 0);
      assert.equal(await dist.getAttribute('data-stale'), null);
    });

    test('Shaw’s score of the chosen pair is pe.shaw.logits, and its two terms the float64 formula', async () => {
      const { pe } = ctx;
      const { s, qLen, kLen, offset, dist } = parts();
      const score = figure(s, 'Shaw’s score of every pair');
      const st = await canvasStats(score);
      assert.ok(st.inked > 0.3 && st.colours > 20, `the score map looks blank: ${JSON.stringify(st)}`);
      for (const lengths of [{ qLen: 32, kLen: 32, queryOffset: 0, k: 4, cell: [9, 3] }, { qLen: 3, kLen: 50, queryOffset: 47, k: 9, cell: [2, 30] }]) {
        await fill(qLen, lengths.qLen);
        await fill(kLen, lengths.kLen);
        await fill(offset, lengths.queryOffset);
        await fill(numberField(figure(s, 'Shaw et al.'), 'clip distance k'), lengths.k);
        const [i, j] = lengths.cell;
        await heatmapCursor(dist, i, j); // one cursor: the score follows the distance figure
        const { q, k } = toyQueriesKeys(lengths);
        const aK = relativeKeys(lengths.k);
        const e = pe.shaw.logits({ data: q, dims: [lengths.qLen, SHAW_DIM] }, { data: k, dims: [lengths.kLen, SHAW_DIM] },
          { data: aK, dims: [2 * lengths.k + 1, SHAW_DIM] }, { queryOffset: lengths.queryOffset }).data;
        // e_ij = x_i W^Q (x_j W^K + a^K_ij)ᵀ / √d_z, the row of a^K from the clipped key-minus-query distance
        const row = Math.max(-lengths.k, Math.min(lengths.k, j - (lengths.queryOffset + i))) + lengths.k;
        let content = 0;
        let position = 0;
        for (let c = 0; c < SHAW_DIM; c++) {
          content += q[i * SHAW_DIM + c] * k[j * SHAW_DIM + c];
          position += q[i * SHAW_DIM + c] * aK[row * SHAW_DIM + c];
        }
        content /= Math.sqrt(SHAW_DIM);
        position /= Math.sqrt(SHAW_DIM);
        assert.equal(await readout(score, 'row'), String(row));
        assert.equal(await readout(score, 'content'), signed(content, 4));
        assert.equal(await readout(score, 'position'), signed(position, 4));
        assert.equal(await readout(score, 'score'), signed(e[i * lengths.kLen + j], 4));
        assert.ok(Math.abs(e[i * lengths.kLen + j] - (content + position)) < 1e-5, 'posenc adds the two terms');
      }
      // the plot shows either term alone
      await choose(s, 'position term');
      const before = await canvasStats(score);
      await choose(s, 'e_ij');
      assert.notEqual((await canvasStats(score)).hash, before.hash, 'the term shown changes the picture');
      await fill(qLen, 32);
      await fill(kLen, 32);
      await fill(offset, 0);
      await fill(numberField(figure(s, 'Shaw et al.'), 'clip distance k'), 4);
    });

    test('T5 buckets and the distances that share them agree with pe.t5.bucket', async () => {
      const { pe, page } = ctx;
      const { s, t5map, t5curve } = parts();
      await heatmapCursor(t5map, 3, 20);
      const bi = { numBuckets: 32, maxDistance: 128, bidirectional: true };
      assert.equal(await readout(t5map, 'bucket'), String(pe.t5.bucket(17, bi)));
      assert.equal(await readout(t5map, 'range'), t5Range(pe, 17, bi, 256));
      const list = t5curve.getByRole('list');
      for (const b of [0, 10, 15, 26, 31]) {
        const d = [...Array(513).keys()].map((k) => k - 256).find((r) => pe.t5.bucket(r, bi) === b);
        assert.equal(await list.locator(`li[data-bucket="${b}"]`).getAttribute('data-range'), t5Range(pe, d, bi, 256), `bucket ${b}`);
      }
      // the list is keyboard-operable and drives the curve
      await list.locator('li[data-bucket="10"]').click();
      await page.keyboard.press('ArrowDown');
      await settled(page);
      assert.equal(await readout(t5curve, 'bucket'), '11');
      assert.equal(await list.locator('li[data-bucket="11"]').getAttribute('aria-current'), 'true');
      const before = await canvasStats(t5map);
      await choose(s, 'causal (decoder)');
      const causal = { numBuckets: 32, maxDistance: 128, bidirectional: false };
      assert.notEqual((await canvasStats(t5map)).hash, before.hash, 'direction redraws');
      assert.equal(await readout(t5map, 'bucket'), '0');
      assert.equal(await readout(t5map, 'range'), '≥ 0', 'every future key shares bucket 0');
      await heatmapCursor(t5map, 30, 2);
      assert.equal(await readout(t5map, 'bucket'), String(pe.t5.bucket(-28, causal)));
      assert.equal(await readout(t5map, 'range'), t5Range(pe, -28, causal, 256));
      await fill(numberField(s, 'numBuckets'), 16);
      await fill(numberField(s, 'maxDistance'), 40);
      const small = { numBuckets: 16, maxDistance: 40, bidirectional: false };
      assert.equal(await readout(t5map, 'bucket'), String(pe.t5.bucket(-28, small)));
      assert.equal(await readout(t5map, 'range'), t5Range(pe, -28, small, 80));
      assert.equal(await list.getByRole('listitem').count(), 16);
      await fill(numberField(s, 'maxDistance'), 4);
      assert.match(await s.getByRole('alert').textContent(), /^t5\.buckets: maxDistance must be/);
      await fill(numberField(s, 'numBuckets'), 32);
      await fill(numberField(s, 'maxDistance'), 128);
      await choose(s, 'bidirectional (encoder)');
      assert.equal(await s.getByRole('alert').count(), 0);
    });

    test('DeBERTa: buckets past maxPosition are not clamped; the c2p row is', async () => {
      const { pe } = ctx;
      const { s, deberta } = parts();
      const o = { bucketSize: 256, maxPosition: 512 };
      await plotKeys(deberta, ['End']);
      assert.equal(await readout(deberta, 'distance'), int(1024));
      assert.equal(await readout(deberta, 'bucket'), String(pe.deberta.bucket(1024, o)));
      assert.ok(pe.deberta.bucket(1024, o) > 255, 'the bucket is past bucketSize - 1');
      assert.equal(await readout(deberta, 'c2p'), String(pe.deberta.c2pIndices({ qLen: 1025, kLen: 1, ...o }).data[1024]));
      assert.match(await deberta.locator('output').textContent(), /not clamped/);
      await plotKeys(deberta, ['Home']);
      assert.equal(await readout(deberta, 'bucket'), int(pe.deberta.bucket(-1024, o)));
      const before = await canvasStats(deberta);
      await fill(numberField(s, 'bucketSize'), 64);
      await fill(numberField(s, 'maxPosition'), 128);
      assert.notEqual((await canvasStats(deberta)).hash, before.hash);
      await plotKeys(deberta, ['Home', ...Array(26).fill('Shift+ArrowRight')]); // −256 + 260 = 4: exact region
      const small = { bucketSize: 64, maxPosition: 128 };
      assert.equal(await readout(deberta, 'distance'), '4');
      assert.equal(await readout(deberta, 'bucket'), String(pe.deberta.bucket(4, small)));
      assert.match(await deberta.locator('output').textContent(), /exact region/);
      await fill(numberField(s, 'bucketSize'), 300);
      assert.match(await s.getByRole('alert').textContent(), /^deberta\.relativePositions: bucketSize \(300\) must be <= maxPosition \(128\)/);
      await fill(numberField(s, 'bucketSize'), 256);
      await fill(numberField(s, 'maxPosition'), 512);
    });

    test('ALiBi: slopes and the bias of the chosen head are pe.alibi’s', async () => {
      const { pe } = ctx;
      const { s, slopes, bias } = parts();
      const headShown = numberField(s, 'head h shown');
      await plotKeys(slopes, ['Home', 'ArrowRight', 'ArrowRight']);
      await settled(ctx.page);
      assert.equal(await headShown.inputValue(), '3');
      const eight = pe.alibi.slopes({ numHeads: 8 });
      assert.equal(await readout(slopes, 'slope'), `2^−3 = ${num(eight[2], 6)}`);
      await heatmapCursor(bias, 9, 3);
      const causal = pe.alibi.bias({ numHeads: 8, qLen: 32, kLen: 32 });
      assert.equal(await readout(bias, 'bias'), signed(causal.data[2 * 1024 + 9 * 32 + 3]));
      await heatmapCursor(bias, 3, 9);
      assert.equal(await readout(bias, 'bias'), '−∞', 'the causal form masks future keys');
      for (const [form, name] of [['symmetric', 'symmetric'], ['bloom', 'BLOOM']]) {
        const before = await canvasStats(bias);
        await choose(s, name);
        assert.notEqual((await canvasStats(bias)).hash, before.hash, form);
        const b = pe.alibi.bias({ numHeads: 8, qLen: 32, kLen: 32, form });
        assert.equal(await readout(bias, 'bias'), signed(b.data[2 * 1024 + 3 * 32 + 9]), form);
      }
      const before = await canvasStats(slopes);
      await fill(numberField(s, 'heads'), 12);
      assert.notEqual((await canvasStats(slopes)).hash, before.hash);
      await plotKeys(slopes, ['End']);
      await settled(ctx.page);
      const twelve = pe.alibi.slopes({ numHeads: 12 });
      assert.equal(await readout(slopes, 'slope'), `2^−3.5 = ${num(twelve[11], 6)}`);
      await fill(numberField(s, 'maxBias'), 4);
      assert.equal(await readout(slopes, 'slope'), `2^−1.75 = ${num(pe.alibi.slopes({ numHeads: 12, maxBias: 4 })[11], 6)}`);
      await fill(numberField(s, 'maxBias'), -1);
      assert.match(await s.getByRole('alert').textContent(), /^alibi\.slopes: maxBias must be/);
      await fill(numberField(s, 'maxBias'), 8);
      await fill(numberField(s, 'heads'), 8);
      await fill(headShown, 1);
      await choose(s, 'causal');
    });

    test('Transformer-XL: R and the rel-shift come from pe.transformerXL', async () => {
      const { pe } = ctx;
      const { s, r, shift } = parts();
      await heatmapCursor(r, 5, 3);
      const sinusoid = pe.transformerXL.relativeSinusoid({ qLen: 32, memLen: 8, dModel: 64 });
      assert.equal(await readout(r, 'distance'), '34');
      assert.equal(await readout(r, 'value'), signed(sinusoid.data[5 * 64 + 3]));
      await fill(numberField(s, 'clampLen'), 20);
      const clamped = pe.transformerXL.relativeSinusoid({ qLen: 32, memLen: 8, dModel: 64, clampLen: 20 });
      assert.equal(await readout(r, 'value'), signed(clamped.data[5 * 64 + 3]));
      assert.match(await r.locator('output').textContent(), /clamped to clampLen = 20/);
      await fill(numberField(s, 'clampLen'), 0);
      const after = shift.locator('.plot-area').nth(1);
      await heatmapCursor(after, 2, 3);
      assert.equal(await readout(shift, 'shifted'), '7', '(memLen + i) − j = 8 + 2 − 3');
      const labels = new Float32Array(32 * 40).map((_, k) => 39 - (k % 40));
      const shifted = pe.transformerXL.relShift({ data: labels, dims: [32, 40] });
      await heatmapCursor(after, 2, 20);
      assert.equal(await readout(shift, 'shifted'), '−∞', 'maskFuture');
      const mask = s.getByRole('checkbox', { name: /maskFuture/ });
      const before = await canvasStats(after);
      await mask.uncheck();
      await settled(ctx.page);
      assert.notEqual((await canvasStats(after)).hash, before.hash);
      assert.equal(await readout(shift, 'shifted'), int(shifted.data[2 * 40 + 20]), 'the leftover HF leaves there');
      assert.match(await shift.locator('output').textContent(), /leftover/);
      await mask.check();
      await settled(ctx.page);
      for (const [label, value] of [['memLen', 0], ['dModel', 16]]) {
        const was = await canvasStats(r);
        await fill(numberField(s, label), value);
        assert.notEqual((await canvasStats(r)).hash, was.hash, label);
      }
      await fill(numberField(s, 'dModel'), 15);
      assert.match(await s.getByRole('alert').textContent(), /^transformerXL\.relativeSinusoid: dModel must be/);
      await fill(numberField(s, 'memLen'), 8);
      await fill(numberField(s, 'dModel'), 64);
    });
  });
}
