// The lesson page on a phone: 390 × 844 CSS pixels, touch, 3 device pixels per CSS pixel. Nothing
// is wider than the screen (tables become cards), readouts wrap without empty boxes, a swipe over
// any plot scrolls the page while a tap still picks a cell, and no plot label sits on a line.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { MARGIN } from '../../web/js/plot/heatmap.js';
import { ARTIFACTS, PHONE } from './harness.mjs';
import { HEADINGS, canvasStats, figure, photograph, readout, section, settled } from './page-helpers.mjs';

/** Waits until the page has stopped scrolling (a swipe's fling goes on after the finger lifts). */
async function scrollStill(page) {
  await page.evaluate(() => new Promise((resolve) => {
    let last = NaN;
    let still = 0;
    const check = () => {
      still = scrollY === last ? still + 1 : 0;
      last = scrollY;
      if (still >= 3) resolve();
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  }));
}

/** The phone's tests: a page of their own in the suite's browser (`shared.browser`). */
export function phoneTests(shared) {
  const ctx = {};
  describe('on a phone (390 × 844, touch)', () => {
    before(async () => {
      ctx.browser = shared.browser;
      ctx.page = await ctx.browser.newPage(PHONE);
      await ctx.page.goto(ctx.browser.url);
      await ctx.page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
      await settled(ctx.page);
    });
    after(() => ctx.page?.close());

    test('one column, nothing wider than the screen, tables as cards', async () => {
      const { page } = ctx;
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'the page does not scroll sideways');
      const wide = await page.$$eval('main *', (els) => els.filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && (r.right > 390.5 || r.left < -0.5) && !e.closest('.sr-only, thead');
      }).map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${Math.round(e.getBoundingClientRect().left)}–${Math.round(e.getBoundingClientRect().right)}`));
      assert.deepEqual(wide, [], 'elements past the screen edge');
      for (const table of await page.getByRole('table').all()) {
        const [width, room] = await table.evaluate((t) => [t.getBoundingClientRect().width, t.parentElement.clientWidth]);
        assert.ok(width <= room + 0.5, `a table is ${width} px wide in ${room} px`);
      }
      const sin = section(page, 'Sinusoidal encoding');
      const [a, b] = await Promise.all([figure(sin, 'The table').boundingBox(), figure(sin, 'Waves').boundingBox()]);
      assert.ok(b.y >= a.y + a.height, 'figures stack in one column');
      const compare = section(page, 'Comparison').getByRole('table', { name: /^Every method at a glance/ });
      assert.match(await compare.locator('tbody td').first().evaluate((td) => getComputedStyle(td, '::before').content), /Kind/, 'each card cell says its column');
    });

    test('readouts wrap: none scrolls or clips, none keeps an empty box', async () => {
      const { page } = ctx;
      const boxes = await page.$$eval('output.readout', (all) => all.filter((r) => r.getClientRects().length).map((r) => {
        const range = document.createRange();
        range.selectNodeContents(r);
        const content = range.getBoundingClientRect().height;
        const line = parseFloat(getComputedStyle(r).lineHeight);
        return { text: r.textContent.slice(0, 40), scrolls: r.scrollWidth > r.clientWidth + 1 || r.scrollHeight > r.clientHeight + 1, empty: (r.clientHeight - content) / line };
      }));
      assert.ok(boxes.length > 20);
      assert.deepEqual(boxes.filter((b) => b.scrolls), [], 'readouts that scroll');
      assert.deepEqual(boxes.filter((b) => b.text.trim() && b.empty > 1.6), [], 'readouts with more than a line of empty box');
    });

    test('a swipe over any plot scrolls the page; a tap on a heatmap picks its cell', async () => {
      const { page } = ctx;
      const cdp = await page.context().newCDPSession(page);
      const plots = await page.locator('main .plot-area canvas').all();
      assert.ok(plots.length >= 40, `${plots.length} plots`);
      // every plot lets a vertical pan through (touch-action: none would keep the page still) ...
      const blocking = await page.$$eval('main .plot-area canvas', (all) => all.filter((c) => !/pan-y|auto|manipulation/.test(getComputedStyle(c).touchAction))
        .map((c) => `${c.getAttribute('aria-label')}: ${getComputedStyle(c).touchAction}`));
      assert.deepEqual(blocking, [], 'plots that keep a swipe from scrolling');
      // ... and a real swipe scrolls the page over one plot of every kind (heatmap, line plot, layer strip, drawing)
      const kinds = new Map();
      for (const canvas of plots) {
        const kind = (await canvas.getAttribute('aria-roledescription')) ?? 'drawing';
        if (!kinds.has(kind)) kinds.set(kind, canvas);
      }
      assert.deepEqual([...kinds.keys()].sort(), ['drawing', 'heatmap', 'layer strip', 'line plot']);
      const stuck = [];
      for (const canvas of kinds.values()) {
        await canvas.evaluate((el) => el.scrollIntoView({ block: 'center' }));
        await scrollStill(page);
        const box = await canvas.boundingBox();
        const before = await page.evaluate(() => scrollY);
        // a finger put down on the plot and moved 200 px up (with touch-action: none nothing scrolls)
        const [x, y] = [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)];
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
        for (let k = 1; k <= 5; k++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: y - 40 * k }] });
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
        await scrollStill(page);
        const moved = (await page.evaluate(() => scrollY)) - before;
        if (moved < 100) stuck.push(`${await canvas.getAttribute('aria-label')}: ${moved} px`);
      }
      await cdp.detach();
      assert.deepEqual(stuck, [], 'plots a swipe could not scroll past');
      const table = figure(section(page, 'Sinusoidal encoding'), 'The table');
      await table.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await scrollStill(page);
      const box = await table.locator('canvas').boundingBox();
      // the cell (100, 60) of the 256 × 128 table, at its centre
      const w = box.width - MARGIN.left - MARGIN.right;
      const h = box.height - MARGIN.top - MARGIN.bottom;
      await page.touchscreen.tap(box.x + MARGIN.left + (60.5 / 128) * w, box.y + MARGIN.top + (100.5 / 256) * h);
      await settled(page);
      assert.equal(await readout(table, 'p'), '100', 'the tap picked its cell');
      assert.equal(await readout(table, 'j'), '60');
    });

    test('no plot label sits on a line; every figure is drawn; each section is photographed', async () => {
      const { page } = ctx;
      const overlaps = await page.$$eval('canvas[data-label-overlaps]', (all) => all.filter((c) => c.dataset.labelOverlaps !== '0').map((c) => c.getAttribute('aria-label')));
      assert.deepEqual(overlaps, []);
      for (const heading of HEADINGS) {
        const s = section(page, heading);
        for (const area of await s.locator('.plot-area').all()) {
          const st = await canvasStats(area);
          assert.ok(st.inked > 0.01 && st.colours > 5, `a plot of "${heading}" looks blank: ${JSON.stringify(st)}`);
        }
        await photograph(s, `${ARTIFACTS}phone-${heading.split(' ')[0].toLowerCase()}.png`, { scale: 'css' });
      }
    });
  });
}
