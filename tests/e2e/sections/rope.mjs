// e2e: the RoPE section (unscaled): the turning pair, the angle of every pair, q·k over (m, n) and
// the wavelengths, each readout checked against pe.rope in Node for the same inputs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { randomVector } from '../../../web/js/lib/toy.js';
import { canvasStats, choose, field, frames, heatmapCursor, select, setValue, sig, signed } from '../page-helpers.mjs';

async function settings(page, { headDim, base, pairing }) {
  await setValue(page, 'rope-headdim', headDim);
  await setValue(page, 'rope-base', base);
  await choose(page, 'rope-pairing', pairing);
}

/** A unit vector (1, 0) in every pair, rotated to position m by pe.rope.apply. */
function rotatedUnit(pe, headDim, pairing, base, m) {
  const x = new Float32Array(headDim);
  for (let i = 0; i < headDim / 2; i++) x[pairing === 'half' ? i : 2 * i] = 1;
  pe.rope.apply(x, null, { dims: [1, headDim], positionIds: [m], base, pairing });
  return x;
}

export function ropeTests(ctx) {
  describe('rope section', () => {
    test('draws the turning pair, the angles, q·k and the wavelengths', async () => {
      const { page } = ctx;
      for (const id of ['rope-circle', 'rope-angles', 'rope-qk', 'rope-wave']) {
        const s = await canvasStats(page, `#${id}`);
        assert.ok(s.inked > 0.015 && s.colours > 6, `${id} looks blank: ${JSON.stringify(s)}`);
      }
      assert.ok((await canvasStats(page, '#rope-qk')).colours > 40, 'the q·k heatmap has a colour scale');
    });

    test('the turning pair and the angles are what pe.rope.apply gives', async () => {
      const { page, pe } = ctx;
      for (const p of [
        { headDim: 64, base: 10000, pairing: 'half', pair: 2, m: 3, lanes: '(2, 34)' },
        { headDim: 32, base: 500000, pairing: 'interleaved', pair: 1, m: 7.25, lanes: '(2, 3)' },
      ]) {
        await settings(page, p);
        await setValue(page, 'rope-pair', p.pair);
        await setValue(page, 'rope-pos', p.m);
        const x = rotatedUnit(pe, p.headDim, p.pairing, p.base, p.m);
        const [a, b] = p.pairing === 'half' ? [p.pair, p.pair + p.headDim / 2] : [2 * p.pair, 2 * p.pair + 1];
        const { invFreq } = pe.rope.frequencies({ rotaryDim: p.headDim, base: p.base });
        const what = JSON.stringify(p);
        assert.equal(await field(page, 'rope-circle-readout', 'x'), signed(x[a]), what);
        assert.equal(await field(page, 'rope-circle-readout', 'y'), signed(x[b]), what);
        assert.equal(await field(page, 'rope-circle-readout', 'theta'), sig(invFreq[p.pair], 6), what);
        assert.equal(await field(page, 'rope-circle-readout', 'angle'), sig(p.m * invFreq[p.pair], 6), what);
        assert.equal(await field(page, 'rope-circle-readout', 'wrapped'), signed(Math.atan2(x[b], x[a])), what);
        assert.match(await page.textContent('#rope-circle-readout'), new RegExp(`lanes \\${p.lanes.replace(')', '\\)')}`), what);
        assert.equal(await field(page, 'rope-angles-readout', 'angle'), signed(Math.atan2(x[b], x[a])), what);
      }
    });

    test('picking a pair in the angle plot with the keyboard selects it everywhere', async () => {
      const { page } = ctx;
      await settings(page, { headDim: 64, base: 10000, pairing: 'half' });
      await setValue(page, 'rope-pair', 2);
      await page.focus('#rope-angles canvas');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await frames(page);
      assert.equal(await page.inputValue('#rope-pair'), '4');
      assert.equal(await field(page, 'rope-circle-readout', 'pair'), '4');
    });

    test('q·k over (m, n) matches rotating q and k with pe.rope.apply; each diagonal is constant', async () => {
      const { page, pe } = ctx;
      await settings(page, { headDim: 16, base: 10000, pairing: 'half' });
      await setValue(page, 'rope-qk-n', 24);
      await heatmapCursor(page, '#rope-qk', 10, 4);
      const d = 16;
      // the page's first pair of random vectors (seed 1: q from 2, k from 3)
      const rotate = (v, m) => {
        const x = v.slice();
        pe.rope.apply(x, null, { dims: [1, d], positionIds: [m] });
        return x;
      };
      const score = (m, n) => {
        const q = rotate(randomVector(d, 2), m);
        const k = rotate(randomVector(d, 3), n);
        let s = 0;
        for (let l = 0; l < d; l++) s += q[l] * k[l];
        return s;
      };
      assert.equal(await field(page, 'rope-qk-readout', 'm'), '10');
      assert.equal(await field(page, 'rope-qk-readout', 'n'), '4');
      assert.equal(await field(page, 'rope-qk-readout', 'distance'), '6');
      assert.equal(await field(page, 'rope-qk-readout', 'score'), signed(score(10, 4)));
      assert.ok(Math.abs(score(10, 4) - score(20, 14)) < 1e-5, 'the same distance, the same score');
      const spread = Number((await field(page, 'rope-qk-readout', 'spread')).replace('−', '-'));
      assert.ok(spread < 1e-5, `cells on one diagonal differ by ${spread}`);
      const before = await canvasStats(page, '#rope-qk');
      await page.click('#rope-qk-new');
      await frames(page, 3);
      assert.notEqual((await canvasStats(page, '#rope-qk')).hash, before.hash, 'new random vectors redraw');
      assert.notEqual(await field(page, 'rope-qk-readout', 'score'), signed(score(10, 4)));
    });

    test('wavelengths: 2π/θ from pe.rope.frequencies against the context length', async () => {
      const { page, pe } = ctx;
      await settings(page, { headDim: 64, base: 10000, pairing: 'half' });
      await setValue(page, 'rope-context', 2048);
      const { invFreq } = pe.rope.frequencies({ rotaryDim: 64, base: 10000 });
      const turning = Array.from(invFreq).filter((w) => (2 * Math.PI) / w <= 2048).length;
      assert.equal(await field(page, 'rope-wave-readout', 'turning'), String(turning));
      assert.equal(await field(page, 'rope-wave-readout', 'slow'), String(32 - turning));
      await page.focus('#rope-wave canvas');
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await frames(page);
      assert.equal(await field(page, 'rope-wave-readout', 'pair'), '1');
      assert.equal(await field(page, 'rope-wave-readout', 'wavelength'), sig((2 * Math.PI) / invFreq[1], 6));
      await setValue(page, 'rope-context', 100000);
      assert.equal(await field(page, 'rope-wave-readout', 'slow'), '0');
      await setValue(page, 'rope-context', 4096);
    });

    test('every control changes the output; Play advances the position', async () => {
      const { page } = ctx;
      await settings(page, { headDim: 64, base: 10000, pairing: 'half' });
      await setValue(page, 'rope-pos', 3);
      const changes = [
        ['head dim', '#rope-wave', () => setValue(page, 'rope-headdim', 48)],
        ['base', '#rope-wave', () => setValue(page, 'rope-base', 500000)],
        ['pairing', '#rope-qk', () => choose(page, 'rope-pairing', 'interleaved')],
        ['pair', '#rope-circle', () => setValue(page, 'rope-pair', 5)],
        ['position', '#rope-circle', () => setValue(page, 'rope-pos', 4.5)],
        ['positions of q·k', '#rope-qk', () => setValue(page, 'rope-qk-n', 40)],
      ];
      for (const [name, plot, change] of changes) {
        const before = await canvasStats(page, plot);
        await change();
        assert.notEqual((await canvasStats(page, plot)).hash, before.hash, `${name} did not change ${plot}`);
      }
      await select(page, 'rope-speed', '4');
      const m0 = Number(await field(page, 'rope-circle-readout', 'm'));
      await page.click('#rope-play');
      assert.equal(await page.getAttribute('#rope-play', 'aria-pressed'), 'true');
      await page.waitForFunction((start) => Number(document.querySelector('#rope-circle-readout [data-field="m"]').textContent) > start + 0.5, m0);
      await page.click('#rope-play');
      assert.equal(await page.getAttribute('#rope-play', 'aria-pressed'), 'false');
      await frames(page, 2);
      const stopped = await field(page, 'rope-circle-readout', 'm');
      await frames(page, 10);
      assert.equal(await field(page, 'rope-circle-readout', 'm'), stopped, 'Pause stops the position');
      await setValue(page, 'rope-headdim', 63);
      assert.match(await page.textContent('#rope-status'), /rope\.frequencies: rotaryDim must be an even integer/);
      await setValue(page, 'rope-headdim', 64);
      assert.equal(await page.isVisible('#rope-status'), false);
    });
  });
}
