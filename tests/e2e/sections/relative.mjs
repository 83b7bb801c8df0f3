// e2e: "Relative positions". Every index, bucket and bias readout is compared with the package in
// Node for the same inputs: pe.shaw, pe.t5, pe.deberta, pe.alibi and pe.transformerXL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ARTIFACTS } from '../harness.mjs';
import { canvasStats, choose, field, frames, heatmapCursor, setValue, sig, signed } from '../page-helpers.mjs';

const HEATMAPS = ['rel-dist', 'rel-shaw-map', 'rel-t5-map', 'rel-alibi-bias', 'rel-txl-r', 'rel-txl-bd', 'rel-txl-shifted'];
const LINE_PLOTS = ['rel-t5-curve', 'rel-deberta-plot', 'rel-alibi-slopes'];

/** The page's integer format (thin-space thousands, true minus). */
const int = (v) => Math.round(v).toLocaleString('en-US').replace(/,/g, '\u2009').replace('-', '−');

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

async function keyTo(page, selector, keys) {
  await page.focus(`${selector} canvas`);
  for (const key of keys) await page.keyboard.press(key);
  await frames(page, 2);
}

export function relativeTests(ctx) {
  describe('relative positions section', () => {
    test('draws every figure', async () => {
      const { page, pe } = ctx;
      for (const id of [...HEATMAPS, ...LINE_PLOTS]) {
        const s = await canvasStats(page, `#${id}`);
        const inked = HEATMAPS.includes(id) ? 0.3 : 0.015;
        assert.ok(s.inked > inked && s.colours > 6, `${id} looks blank: ${JSON.stringify(s)}`);
      }
      assert.equal(await page.locator('#rel-t5-list li').count(), 32);
      // no distance lands in bucket 16 of a bidirectional 32-bucket T5 (distance 0 is bucket 0, +1 is 17)
      assert.equal(await page.getAttribute('#rel-t5-list li[data-bucket="16"]', 'data-range'), 'no distance');
      assert.equal(pe.t5.bucket(0), 0);
      assert.equal(pe.t5.bucket(1), 17);
    });

    test('distances in both signs, and Shaw’s clipped indices from pe.shaw.relativeIndices', async () => {
      const { page, pe } = ctx;
      await heatmapCursor(page, '#rel-dist', 9, 3);
      assert.equal(await field(page, 'rel-dist-readout', 'distance'), '−6');
      assert.match(await page.textContent('#rel-dist-readout'), /the key is 6 tokens before the query/);
      await choose(page, 'rel-sign', 'query-minus-key');
      assert.equal(await field(page, 'rel-dist-readout', 'distance'), '6');
      await choose(page, 'rel-sign', 'key-minus-query');
      for (const k of [4, 9]) {
        await setValue(page, 'rel-shaw-k', k);
        const idx = pe.shaw.relativeIndices({ qLen: 32, kLen: 32, maxRelativePosition: k });
        assert.equal(await field(page, 'rel-shaw-readout', 'index'), String(idx.data[9 * 32 + 3]), `k = ${k}`);
        assert.equal(await field(page, 'rel-shaw-readout', 'clipped'), int(idx.data[9 * 32 + 3] - k), `k = ${k}`);
      }
      // a decoder step: one query after 40 cached tokens
      await setValue(page, 'rel-qlen', 1);
      await setValue(page, 'rel-klen', 41);
      await setValue(page, 'rel-offset', 40);
      await heatmapCursor(page, '#rel-shaw-map', 0, 35);
      const step = pe.shaw.relativeIndices({ qLen: 1, kLen: 41, maxRelativePosition: 9, queryOffset: 40 });
      assert.equal(await field(page, 'rel-shaw-readout', 'index'), String(step.data[35]));
      assert.equal(await field(page, 'rel-dist-readout', 'distance'), '−5');
      await setValue(page, 'rel-qlen', 0);
      assert.match(await page.textContent('#rel-status'), /^shaw\.relativeIndices: qLen must be/);
      await setValue(page, 'rel-qlen', 32);
      await setValue(page, 'rel-klen', 32);
      await setValue(page, 'rel-offset', 0);
      await setValue(page, 'rel-shaw-k', 4);
      assert.equal(await page.isVisible('#rel-status'), false);
    });

    test('T5 buckets and the distances that share them agree with pe.t5.bucket', async () => {
      const { page, pe } = ctx;
      await heatmapCursor(page, '#rel-t5-map', 3, 20);
      const bi = { numBuckets: 32, maxDistance: 128, bidirectional: true };
      assert.equal(await field(page, 'rel-t5-readout', 'bucket'), String(pe.t5.bucket(17, bi)));
      assert.equal(await field(page, 'rel-t5-readout', 'range'), t5Range(pe, 17, bi, 256));
      for (const b of [0, 10, 15, 26, 31]) {
        const li = page.locator(`#rel-t5-list li[data-bucket="${b}"]`);
        const d = [...Array(513).keys()].map((k) => k - 256).find((r) => pe.t5.bucket(r, bi) === b);
        assert.equal(await li.getAttribute('data-range'), t5Range(pe, d, bi, 256), `bucket ${b}`);
      }
      // the list is keyboard-operable and drives the curve
      await page.click('#rel-t5-list li[data-bucket="10"]');
      await page.keyboard.press('ArrowDown');
      await frames(page, 2);
      assert.equal(await field(page, 'rel-t5-curve-readout', 'bucket'), '11');
      assert.equal(await page.getAttribute('#rel-t5-list li[data-bucket="11"]', 'aria-current'), 'true');
      const before = await canvasStats(page, '#rel-t5-map');
      await choose(page, 'rel-t5-dir', 'causal');
      const causal = { numBuckets: 32, maxDistance: 128, bidirectional: false };
      assert.notEqual((await canvasStats(page, '#rel-t5-map')).hash, before.hash, 'direction redraws');
      assert.equal(await field(page, 'rel-t5-readout', 'bucket'), '0');
      assert.equal(await field(page, 'rel-t5-readout', 'range'), '≥ 0', 'every future key shares bucket 0');
      await heatmapCursor(page, '#rel-t5-map', 30, 2);
      assert.equal(await field(page, 'rel-t5-readout', 'bucket'), String(pe.t5.bucket(-28, causal)));
      assert.equal(await field(page, 'rel-t5-readout', 'range'), t5Range(pe, -28, causal, 256));
      await setValue(page, 'rel-t5-buckets', 16);
      await setValue(page, 'rel-t5-maxdist', 40);
      const small = { numBuckets: 16, maxDistance: 40, bidirectional: false };
      assert.equal(await field(page, 'rel-t5-readout', 'bucket'), String(pe.t5.bucket(-28, small)));
      assert.equal(await field(page, 'rel-t5-readout', 'range'), t5Range(pe, -28, small, 80));
      assert.equal(await page.locator('#rel-t5-list li').count(), 16);
      await setValue(page, 'rel-t5-maxdist', 4);
      assert.match(await page.textContent('#rel-t5-status'), /^t5\.buckets: maxDistance must be/);
      await setValue(page, 'rel-t5-buckets', 32);
      await setValue(page, 'rel-t5-maxdist', 128);
      await choose(page, 'rel-t5-dir', 'bidirectional');
      assert.equal(await page.isVisible('#rel-t5-status'), false);
    });

    test('DeBERTa: buckets past maxPosition are not clamped; the c2p row is', async () => {
      const { page, pe } = ctx;
      const o = { bucketSize: 256, maxPosition: 512 };
      await keyTo(page, '#rel-deberta-plot', ['End']);
      assert.equal(await field(page, 'rel-deberta-readout', 'distance'), int(1024));
      assert.equal(await field(page, 'rel-deberta-readout', 'bucket'), String(pe.deberta.bucket(1024, o)));
      assert.ok(pe.deberta.bucket(1024, o) > 255, 'the bucket is past bucketSize - 1');
      assert.equal(await field(page, 'rel-deberta-readout', 'c2p'), String(pe.deberta.c2pIndices({ qLen: 1025, kLen: 1, ...o }).data[1024]));
      assert.match(await page.textContent('#rel-deberta-readout'), /not clamped/);
      await keyTo(page, '#rel-deberta-plot', ['Home']);
      assert.equal(await field(page, 'rel-deberta-readout', 'bucket'), int(pe.deberta.bucket(-1024, o)));
      const before = await canvasStats(page, '#rel-deberta-plot');
      await setValue(page, 'rel-deb-bucket', 64);
      await setValue(page, 'rel-deb-maxpos', 128);
      assert.notEqual((await canvasStats(page, '#rel-deberta-plot')).hash, before.hash);
      await keyTo(page, '#rel-deberta-plot', ['Home', ...Array(26).fill('Shift+ArrowRight')]); // −256 + 260 = 4: exact region
      const small = { bucketSize: 64, maxPosition: 128 };
      assert.equal(await field(page, 'rel-deberta-readout', 'distance'), '4');
      assert.equal(await field(page, 'rel-deberta-readout', 'bucket'), String(pe.deberta.bucket(4, small)));
      assert.match(await page.textContent('#rel-deberta-readout'), /exact region/);
      await setValue(page, 'rel-deb-bucket', 300);
      assert.match(await page.textContent('#rel-deb-status'), /^deberta\.relativePositions: bucketSize \(300\) must be <= maxPosition \(128\)/);
      await setValue(page, 'rel-deb-bucket', 256);
      await setValue(page, 'rel-deb-maxpos', 512);
    });

    test('ALiBi: slopes and the bias of the chosen head are pe.alibi’s', async () => {
      const { page, pe } = ctx;
      await keyTo(page, '#rel-alibi-slopes', ['Home', 'ArrowRight', 'ArrowRight']);
      assert.equal(await page.inputValue('#rel-alibi-head'), '3');
      const slopes = pe.alibi.slopes({ numHeads: 8 });
      assert.equal(await field(page, 'rel-alibi-slopes-readout', 'slope'), `2^−3 = ${sig(slopes[2], 6)}`);
      await heatmapCursor(page, '#rel-alibi-bias', 9, 3);
      const causal = pe.alibi.bias({ numHeads: 8, qLen: 32, kLen: 32 });
      assert.equal(await field(page, 'rel-alibi-readout', 'bias'), signed(causal.data[2 * 1024 + 9 * 32 + 3]));
      await heatmapCursor(page, '#rel-alibi-bias', 3, 9);
      assert.equal(await field(page, 'rel-alibi-readout', 'bias'), '−∞', 'the causal form masks future keys');
      for (const form of ['symmetric', 'bloom']) {
        const before = await canvasStats(page, '#rel-alibi-bias');
        await choose(page, 'rel-alibi-form', form);
        assert.notEqual((await canvasStats(page, '#rel-alibi-bias')).hash, before.hash, form);
        const b = pe.alibi.bias({ numHeads: 8, qLen: 32, kLen: 32, form });
        assert.equal(await field(page, 'rel-alibi-readout', 'bias'), signed(b.data[2 * 1024 + 3 * 32 + 9]), form);
      }
      const before = await canvasStats(page, '#rel-alibi-slopes');
      await setValue(page, 'rel-alibi-heads', 12);
      assert.notEqual((await canvasStats(page, '#rel-alibi-slopes')).hash, before.hash);
      await keyTo(page, '#rel-alibi-slopes', ['End']);
      const twelve = pe.alibi.slopes({ numHeads: 12 });
      assert.equal(await field(page, 'rel-alibi-slopes-readout', 'slope'), `2^−3.5 = ${sig(twelve[11], 6)}`);
      await setValue(page, 'rel-alibi-maxbias', 4);
      assert.equal(await field(page, 'rel-alibi-slopes-readout', 'slope'), `2^−1.75 = ${sig(pe.alibi.slopes({ numHeads: 12, maxBias: 4 })[11], 6)}`);
      await setValue(page, 'rel-alibi-maxbias', -1);
      assert.match(await page.textContent('#rel-alibi-status'), /^alibi\.slopes: maxBias must be/);
      await setValue(page, 'rel-alibi-maxbias', 8);
      await setValue(page, 'rel-alibi-heads', 8);
      await setValue(page, 'rel-alibi-head', 1);
      await choose(page, 'rel-alibi-form', 'causal');
    });

    test('Transformer-XL: R and the rel-shift come from pe.transformerXL', async () => {
      const { page, pe } = ctx;
      await heatmapCursor(page, '#rel-txl-r', 5, 3);
      const r = pe.transformerXL.relativeSinusoid({ qLen: 32, memLen: 8, dModel: 64 });
      assert.equal(await field(page, 'rel-txl-r-readout', 'distance'), '34');
      assert.equal(await field(page, 'rel-txl-r-readout', 'value'), signed(r.data[5 * 64 + 3]));
      await setValue(page, 'rel-txl-clamp', 20);
      const clamped = pe.transformerXL.relativeSinusoid({ qLen: 32, memLen: 8, dModel: 64, clampLen: 20 });
      assert.equal(await field(page, 'rel-txl-r-readout', 'value'), signed(clamped.data[5 * 64 + 3]));
      assert.match(await page.textContent('#rel-txl-r-readout'), /clamped to clampLen = 20/);
      await setValue(page, 'rel-txl-clamp', 0);
      await heatmapCursor(page, '#rel-txl-shifted', 2, 3);
      assert.equal(await field(page, 'rel-txl-shift-readout', 'shifted'), '7', '(memLen + i) − j = 8 + 2 − 3');
      const labels = new Float32Array(32 * 40).map((_, k) => 39 - (k % 40));
      const shifted = pe.transformerXL.relShift({ data: labels, dims: [32, 40] });
      await heatmapCursor(page, '#rel-txl-shifted', 2, 20);
      assert.equal(await field(page, 'rel-txl-shift-readout', 'shifted'), '−∞', 'maskFuture');
      const before = await canvasStats(page, '#rel-txl-shifted');
      await page.click('#rel-txl-mask');
      await frames(page, 3);
      assert.notEqual((await canvasStats(page, '#rel-txl-shifted')).hash, before.hash);
      assert.equal(await field(page, 'rel-txl-shift-readout', 'shifted'), int(shifted.data[2 * 40 + 20]), 'the leftover HF leaves there');
      assert.match(await page.textContent('#rel-txl-shift-readout'), /leftover/);
      await page.click('#rel-txl-mask');
      for (const [id, value] of [['rel-txl-mem', 0], ['rel-txl-dmodel', 16]]) {
        const was = await canvasStats(page, '#rel-txl-r');
        await setValue(page, id, value);
        assert.notEqual((await canvasStats(page, '#rel-txl-r')).hash, was.hash, id);
      }
      await setValue(page, 'rel-txl-dmodel', 15);
      assert.match(await page.textContent('#rel-txl-status'), /^transformerXL\.relativeSinusoid: dModel must be/);
      await setValue(page, 'rel-txl-mem', 8);
      await setValue(page, 'rel-txl-dmodel', 64);
      await page.locator('#relative').screenshot({ path: `${ARTIFACTS}desktop-relative-after.png` });
    });
  });
}
