// e2e: the sinusoidal section. Expected numbers come from the package in Node, for the same inputs.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';

import {
  canvasStats, choose, field, frames, heatmapCursor, matrixReady, rowDot, select, setValue, sig, signed,
} from '../page-helpers.mjs';

async function settings(page, { length, dim, base, layout }) {
  await setValue(page, 'sin-length', length);
  await setValue(page, 'sin-dim', dim);
  await setValue(page, 'sin-base', base);
  await choose(page, 'sin-layout', layout);
}

export function sinusoidalTests(ctx) {
  describe('sinusoidal section', () => {
    test('draws the table, the waves and both similarity plots', async () => {
      const { page } = ctx;
      await matrixReady(page, 'sin-sim-matrix');
      const heat = await canvasStats(page, '#sin-heatmap');
      assert.ok(heat.inked > 0.5 && heat.colours > 60, `heatmap looks blank: ${JSON.stringify(heat)}`);
      for (const id of ['sin-waves', 'sin-sim-matrix', 'sin-sim-row']) {
        const s = await canvasStats(page, `#${id}`);
        assert.ok(s.inked > 0.05 && s.colours > 8, `${id} looks blank: ${JSON.stringify(s)}`);
      }
    });

    test('the readout shows the value of pe.sinusoidal.table and the formula with its numbers', async () => {
      const { page, pe } = ctx;
      for (const p of [
        { length: 64, dim: 32, base: 10000, layout: 'interleaved', row: 10, col: 5, pair: 2, fn: 'cos' },
        { length: 64, dim: 32, base: 10000, layout: 'half', row: 10, col: 5, pair: 5, fn: 'sin' },
        { length: 40, dim: 31, base: 500, layout: 'half', row: 33, col: 27, pair: 11, fn: 'cos' },
        { length: 40, dim: 31, base: 500, layout: 'half', row: 33, col: 16, pair: 0, fn: 'cos' }, // first cosine
        { length: 40, dim: 31, base: 500, layout: 'half', row: 33, col: 15, pair: 15, fn: 'sin' }, // odd dim: the extra sine
      ]) {
        await settings(page, p);
        await heatmapCursor(page, '#sin-heatmap', p.row, p.col);
        const table = pe.sinusoidal.table({ length: p.length, dim: p.dim, base: p.base, layout: p.layout });
        const w = pe.sinusoidal.frequencies({ dim: p.dim, base: p.base });
        const what = JSON.stringify(p);
        assert.equal(await field(page, 'sin-readout', 'p'), String(p.row), what);
        assert.equal(await field(page, 'sin-readout', 'j'), String(p.col), what);
        assert.equal(await field(page, 'sin-readout', 'pair'), String(p.pair), what);
        assert.equal(await field(page, 'sin-readout', 'w'), sig(w[p.pair], 6), what);
        assert.equal(await field(page, 'sin-readout', 'angle'), sig(p.row * w[p.pair], 6), what);
        assert.equal(await field(page, 'sin-readout', 'value'), signed(table.data[p.row * p.dim + p.col], 6), what);
        assert.match(await page.textContent('#sin-readout'), new RegExp(`PE\\[${p.row}, ${p.col}\\] = ${p.fn}\\(`), what);
      }
    });

    test('hovering a cell with the mouse reads that cell', async () => {
      const { page, pe } = ctx;
      await settings(page, { length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      const box = await page.locator('#sin-heatmap canvas').boundingBox();
      // the plot rectangle inside the canvas: margins 56 left, 78 right, 10 top, 44 bottom (heatmap.js)
      const at = (row, col) => [box.x + 56 + ((col + 0.5) / 32) * (box.width - 134), box.y + 10 + ((row + 0.5) / 64) * (box.height - 54)];
      await page.mouse.move(...at(3, 7));
      await frames(page);
      const table = pe.sinusoidal.table({ length: 64, dim: 32 });
      assert.equal(await field(page, 'sin-readout', 'p'), '3');
      assert.equal(await field(page, 'sin-readout', 'j'), '7');
      assert.equal(await field(page, 'sin-readout', 'value'), signed(table.data[3 * 32 + 7]));
      assert.equal(await field(page, 'sin-waves-readout', 'p'), '3', 'the waves follow the chosen position');
    });

    test('similarity readouts are dot products (or cosines) of table rows', async () => {
      const { page, pe } = ctx;
      await matrixReady(page, 'sin-sim-matrix');
      await heatmapCursor(page, '#sin-sim-matrix', 10, 17);
      const { data } = pe.sinusoidal.table({ length: 64, dim: 32 });
      assert.equal(await field(page, 'sin-sim-readout', 'p'), '10');
      assert.equal(await field(page, 'sin-sim-readout', 'q'), '17');
      assert.equal(await field(page, 'sin-sim-readout', 'p − q'), '−7');
      assert.equal(await field(page, 'sin-sim-readout', 'similarity'), signed(rowDot(data, 32, 10, 17)));
      await select(page, 'sin-sim-measure', 'cosine');
      const cosine = rowDot(data, 32, 10, 17) / Math.sqrt(rowDot(data, 32, 10, 10) * rowDot(data, 32, 17, 17));
      assert.equal(await field(page, 'sin-sim-readout', 'similarity'), signed(cosine));
      await select(page, 'sin-sim-measure', 'dot');
    });

    test('every control changes the output', async () => {
      const { page } = ctx;
      await settings(page, { length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      const changes = [
        ['length', '#sin-heatmap', () => setValue(page, 'sin-length', 80)],
        ['length slider (keyboard)', '#sin-heatmap', async () => {
          await page.focus('#sin-length-range');
          for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
          await frames(page, 3);
        }],
        ['dim', '#sin-heatmap', () => setValue(page, 'sin-dim', 48)],
        ['base', '#sin-heatmap', () => setValue(page, 'sin-base', 100)],
        ['layout', '#sin-heatmap', () => choose(page, 'sin-layout', 'half')],
        ['wave columns', '#sin-waves', () => setValue(page, 'sin-waves-cols', '3, 7')],
        ['wave window', '#sin-waves', () => select(page, 'sin-waves-window', '32')],
        ['similarity measure', '#sin-sim-row', () => select(page, 'sin-sim-measure', 'cosine')],
      ];
      for (const [name, plot, change] of changes) {
        const before = await canvasStats(page, plot);
        const call = await page.textContent('#sin-call');
        await change();
        const after = await canvasStats(page, plot);
        assert.notEqual(after.hash, before.hash, `${name} did not change ${plot}`);
        if (!['wave columns', 'wave window', 'similarity measure'].includes(name)) {
          assert.notEqual(await page.textContent('#sin-call'), call, `${name} did not change the call shown`);
        }
      }
      assert.equal(await page.inputValue('#sin-length'), '77', 'the slider moves the number field');
      await select(page, 'sin-sim-measure', 'dot');
      await select(page, 'sin-waves-window', '64');
      await setValue(page, 'sin-waves-cols', '0, 1, 24, 50');
    });

    test('Enter on a cell adds its column to the waves', async () => {
      const { page } = ctx;
      await settings(page, { length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      await setValue(page, 'sin-waves-cols', '0, 1');
      await heatmapCursor(page, '#sin-heatmap', 4, 12);
      await page.keyboard.press('Enter');
      await frames(page);
      assert.equal(await page.inputValue('#sin-waves-cols'), '0, 1, 12');
      assert.equal(await page.locator('#sin-waves-readout [data-field="wave-12"]').count(), 1);
    });

    test('the waves readout shows six columns without scrolling or changing size', async () => {
      const { page } = ctx;
      await settings(page, { length: 256, dim: 128, base: 10000, layout: 'interleaved' });
      const box = () => page.locator('#sin-waves-readout').evaluate((r) => [r.scrollWidth, r.clientWidth, r.scrollHeight, r.clientHeight, r.offsetHeight]);
      await setValue(page, 'sin-waves-cols', '0');
      const one = await box();
      await setValue(page, 'sin-waves-cols', '0, 1, 24, 50, 100, 127');
      const six = await box();
      assert.ok(six[0] <= six[1] && six[2] <= six[3], `the readout scrolls: ${six}`);
      assert.equal(six[4], one[4], 'the readout keeps its height');
      assert.equal(await page.locator('#sin-waves-readout [data-field="wave-127"]').count(), 1);
      await setValue(page, 'sin-waves-cols', '0, 1, 24, 50');
    });

    test("a bad value shows posenc's error message and keeps the last table", async () => {
      const { page } = ctx;
      const before = await canvasStats(page, '#sin-heatmap');
      await setValue(page, 'sin-base', -5);
      assert.equal(await page.isVisible('#sin-status'), true);
      assert.equal(await page.textContent('#sin-status'), 'sinusoidal.table: base must be a finite number > 0, got -5');
      assert.equal((await canvasStats(page, '#sin-heatmap')).hash, before.hash);
      await setValue(page, 'sin-dim', 2.5);
      await setValue(page, 'sin-base', 10000);
      assert.match(await page.textContent('#sin-status'), /sinusoidal\.table: dim must be an integer >= 1, got 2\.5/);
      await setValue(page, 'sin-dim', 32);
      assert.equal(await page.isVisible('#sin-status'), false);
    });

    test('the table downloads as an .npy that pe.io.readNpy reads back', async () => {
      const { page, pe } = ctx;
      await settings(page, { length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sin-download')]);
      assert.equal(download.suggestedFilename(), 'sinusoidal-64x32.npy');
      const read = pe.io.readNpy(await readFile(await download.path()));
      assert.deepEqual(read, pe.sinusoidal.table({ length: 64, dim: 32 }));
    });
  });
}
