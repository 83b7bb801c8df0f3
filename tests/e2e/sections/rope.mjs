// e2e: the RoPE section (unscaled): the turning pair, the angle of every pair, q·k over (m, n) and
// the wavelengths, each readout checked against pe.rope in Node for the same inputs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { randomVector } from '../../../web/js/toy.js';
import { num, signed } from '../../../web/js/ui/format.js';
import {
  canvasStats, choose, figure, fill, frames, heatmapCursor, numberField, parseNumber, plotKeys, readout, section, select, settled,
} from '../page-helpers.mjs';

/** A unit vector (1, 0) in every pair, rotated to position m by pe.rope.apply. */
function rotatedUnit(pe, headDim, pairing, base, m) {
  const x = new Float32Array(headDim);
  for (let i = 0; i < headDim / 2; i++) x[pairing === 'half' ? i : 2 * i] = 1;
  pe.rope.apply(x, null, { dims: [1, headDim], positionIds: [m], base, pairing });
  return x;
}

/** The parts of the RoPE section a test uses. */
export function ropeParts(page) {
  const s = section(page, 'Rotary position embedding (RoPE)');
  const turning = figure(s, 'One pair, turning');
  return {
    s, headDim: numberField(s, 'head dim'), rotaryDim: numberField(s, 'rotary dim'), base: numberField(s, 'base'), context: numberField(s, 'context'),
    turning, pair: numberField(turning, 'pair i'), position: numberField(turning, 'position m'),
    angles: figure(s, 'The angle of every pair'), scores: figure(s, 'q·k depends only on'), wave: figure(s, 'Wavelength of each pair'),
    stretch: figure(s, 'Stretch of each pair'), config: figure(s, /^Paste a model’s config\.json/),
  };
}

/** Sets the RoPE settings (pairing: 'half' | 'interleaved'). */
export async function ropeSettings(page, { headDim, base, pairing }) {
  const p = ropeParts(page);
  await fill(p.headDim, headDim);
  await fill(p.base, base);
  await choose(p.s, pairing === 'half' ? 'half (NeoX, HF Llama)' : 'interleaved (GPT-J)');
}

export function ropeTests(ctx) {
  describe('rope section', () => {
    test('draws the turning pair, the angles, q·k and the wavelengths; circle labels do not collide', async () => {
      const { turning, angles, scores, wave } = ropeParts(ctx.page);
      for (const fig of [turning, angles, scores, wave]) {
        const st = await canvasStats(fig);
        assert.ok(st.inked > 0.015 && st.colours > 6, `a plot looks blank: ${JSON.stringify(st)}`);
      }
      assert.ok((await canvasStats(scores)).colours > 40, 'the q·k heatmap has a colour scale');
      // a slow pair at a late position: 48 dots crowd the circle; labels go only where they fit
      const { pair, position } = ropeParts(ctx.page);
      await fill(pair, 20);
      await fill(position, 300);
      const canvas = turning.locator('canvas');
      assert.equal(await canvas.getAttribute('data-label-overlaps'), '0');
      assert.ok(Number(await canvas.getAttribute('data-labels')) >= 4, 'some positions are labelled');
      await fill(pair, 2);
      await fill(position, 3);
    });

    test('the turning pair and the angles are what pe.rope.apply gives', async () => {
      const { pe, page } = ctx;
      for (const p of [
        { headDim: 64, base: 10000, pairing: 'half', pair: 2, m: 3, lanes: '(2, 34)' },
        { headDim: 32, base: 500000, pairing: 'interleaved', pair: 1, m: 7.25, lanes: '(2, 3)' },
      ]) {
        await ropeSettings(page, p);
        const { turning, angles, pair, position } = ropeParts(page);
        await fill(pair, p.pair);
        await fill(position, p.m);
        const x = rotatedUnit(pe, p.headDim, p.pairing, p.base, p.m);
        const [a, b] = p.pairing === 'half' ? [p.pair, p.pair + p.headDim / 2] : [2 * p.pair, 2 * p.pair + 1];
        const { invFreq } = pe.rope.frequencies({ rotaryDim: p.headDim, base: p.base });
        const what = JSON.stringify(p);
        assert.equal(await readout(turning, 'x'), signed(x[a]), what);
        assert.equal(await readout(turning, 'y'), signed(x[b]), what);
        assert.equal(await readout(turning, 'theta'), num(invFreq[p.pair], 6), what);
        assert.equal(await readout(turning, 'angle'), num(p.m * invFreq[p.pair], 6), what);
        assert.equal(await readout(turning, 'wrapped'), signed(Math.atan2(x[b], x[a])), what);
        assert.ok((await turning.locator('output').textContent()).includes(`lanes ${p.lanes}`), what);
        assert.equal(await readout(angles, 'angle'), signed(Math.atan2(x[b], x[a])), what);
      }
      await ropeSettings(page, { headDim: 64, base: 10000, pairing: 'half' });
    });

    test('the position steps one token with the arrow keys and a hundredth with Shift', async () => {
      const { page } = ctx;
      const { s, turning, position } = ropeParts(page);
      await fill(position, 3);
      const slider = turning.getByRole('slider', { name: /^position m/ });
      await slider.focus();
      await page.keyboard.press('ArrowRight');
      await settled(page);
      assert.equal(await position.inputValue(), '4');
      assert.equal(await readout(turning, 'm'), '4.00');
      await page.keyboard.press('Shift+ArrowRight');
      await settled(page);
      assert.equal(await position.inputValue(), '4.01');
      assert.equal(await slider.getAttribute('aria-valuetext'), '4.01 tokens');
      await position.focus();
      await page.keyboard.press('ArrowDown');
      await settled(page);
      assert.equal(await position.inputValue(), '3.01', 'the field steps one token too');
      await fill(position, 3);
      assert.equal(await s.getByRole('alert').count(), 0);
      // a pair past the last one is said, and not drawn as another pair
      const { pair } = ropeParts(page);
      const picture = await canvasStats(turning);
      await fill(pair, 99);
      assert.equal(await turning.getByRole('alert').textContent(), 'pair i must be from 0 to 31 on this page, got 99');
      assert.equal(await turning.getAttribute('data-stale'), 'true');
      assert.equal((await canvasStats(turning)).hash, picture.hash);
      await fill(pair, 2);
      assert.equal(await turning.getAttribute('data-stale'), null);
    });

    test('picking a pair in the angle plot with the keyboard selects it everywhere', async () => {
      const { page } = ctx;
      const { turning, angles, pair } = ropeParts(page);
      await fill(pair, 2);
      await plotKeys(angles, ['ArrowRight', 'ArrowRight']);
      await settled(page);
      assert.equal(await pair.inputValue(), '4');
      assert.equal(await readout(turning, 'pair'), '4');
    });

    test('q·k over (m, n) matches rotating q and k with pe.rope.apply; each diagonal is constant', async () => {
      const { pe, page } = ctx;
      await ropeSettings(page, { headDim: 16, base: 10000, pairing: 'half' });
      const { scores } = ropeParts(page);
      await fill(numberField(scores, 'positions'), 24);
      await heatmapCursor(scores, 10, 4);
      const d = 16;
      const seed = Number(await scores.getAttribute('data-seed'));
      const rotate = (v, m) => {
        const x = v.slice();
        pe.rope.apply(x, null, { dims: [1, d], positionIds: [m] });
        return x;
      };
      const score = (m, n) => {
        const q = rotate(randomVector(d, 2 * seed), m);
        const k = rotate(randomVector(d, 2 * seed + 1), n);
        let s = 0;
        for (let l = 0; l < d; l++) s += q[l] * k[l];
        return s;
      };
      assert.equal(await readout(scores, 'm'), '10');
      assert.equal(await readout(scores, 'n'), '4');
      assert.equal(await readout(scores, 'distance'), '6');
      assert.equal(await readout(scores, 'score'), signed(score(10, 4)));
      assert.ok(Math.abs(score(10, 4) - score(20, 14)) < 1e-5, 'the same distance, the same score');
      const spread = parseNumber(await readout(scores, 'spread'));
      assert.ok(spread < 1e-5, `cells on one diagonal differ by ${spread}`);
      const before = await canvasStats(scores);
      await scores.getByRole('button', { name: 'New random q, k' }).click();
      await settled(page);
      assert.notEqual((await canvasStats(scores)).hash, before.hash, 'new random vectors redraw');
      assert.notEqual(await readout(scores, 'score'), signed(score(10, 4)));
    });

    test('wavelengths: 2π/θ from pe.rope.frequencies against the context length', async () => {
      const { pe, page } = ctx;
      await ropeSettings(page, { headDim: 64, base: 10000, pairing: 'half' });
      const { wave, context } = ropeParts(page);
      await fill(context, 2048);
      const { invFreq } = pe.rope.frequencies({ rotaryDim: 64, base: 10000 });
      const turning = Array.from(invFreq).filter((w) => (2 * Math.PI) / w <= 2048).length;
      assert.equal(await readout(wave, 'turning'), String(turning));
      assert.equal(await readout(wave, 'slow'), String(32 - turning));
      await plotKeys(wave, ['Home', 'ArrowRight']);
      assert.equal(await readout(wave, 'pair'), '1');
      assert.equal(await readout(wave, 'wavelength'), num((2 * Math.PI) / invFreq[1], 6));
      await fill(context, 100000);
      assert.equal(await readout(wave, 'slow'), '0');
      await fill(context, 4096);
    });

    test('every control changes the output; Play advances the position, Pause stops it', async () => {
      const { page } = ctx;
      await ropeSettings(page, { headDim: 64, base: 10000, pairing: 'half' });
      const p = ropeParts(page);
      await fill(p.position, 3);
      const changes = [
        ['head dim', p.wave, () => fill(p.headDim, 48)],
        ['base', p.wave, () => fill(p.base, 500000)],
        ['pairing', p.scores, () => choose(p.s, 'interleaved (GPT-J)')],
        ['pair', p.turning, () => fill(p.pair, 5)],
        ['position', p.turning, () => fill(p.position, 4.5)],
        ['positions of q·k', p.scores, () => fill(numberField(p.scores, 'positions'), 40)],
      ];
      for (const [name, plot, change] of changes) {
        const before = await canvasStats(plot);
        await change();
        assert.notEqual((await canvasStats(plot)).hash, before.hash, `${name} did not change its plot`);
      }
      await select(p.turning, 'speed', '4');
      const play = p.turning.getByRole('button', { name: '▶ Play' });
      const m0 = Number(await readout(p.turning, 'm'));
      await play.click();
      assert.equal(await play.getAttribute('aria-pressed'), 'true');
      await page.waitForFunction((start) => Number(document.querySelector('#rope [data-field="m"]').textContent) > start + 0.5, m0);
      await play.click();
      assert.equal(await play.getAttribute('aria-pressed'), 'false');
      await frames(page, 2);
      const stopped = await readout(p.turning, 'm');
      await frames(page, 10);
      assert.equal(await readout(p.turning, 'm'), stopped, 'Pause stops the position');
      await fill(p.headDim, 63);
      assert.match(await p.s.getByRole('alert').textContent(), /rope\.frequencies: rotaryDim must be an even integer/);
      await fill(p.headDim, 64);
      await fill(numberField(p.scores, 'positions'), 64);
      await fill(p.position, 3);
      await fill(p.pair, 2);
      await choose(p.s, 'half (NeoX, HF Llama)');
      await fill(p.base, 10000);
      assert.equal(await p.s.getByRole('alert').count(), 0);
    });
  });
}
