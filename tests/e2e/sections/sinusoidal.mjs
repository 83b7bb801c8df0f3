// e2e: the sinusoidal section. Expected numbers come from the package in Node, for the same inputs.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';

import { MARGIN } from '../../../web/js/plot/heatmap.js';
import { int, num, signed } from '../../../web/js/ui/format.js';
import {
  canvasStats, choose, figure, fill, frames, heatmapCursor, numberField, readout, rowDot, section, select, settled,
} from '../page-helpers.mjs';

export function sinusoidalTests(ctx) {
  describe('sinusoidal section', () => {
    const parts = () => {
      const s = section(ctx.page, 'Sinusoidal encoding');
      return {
        s, length: numberField(s, 'length'), dim: numberField(s, 'dim'), base: numberField(s, 'base'),
        table: figure(s, 'The table'), waves: figure(s, 'Waves'), matrix: figure(s, 'Similarity of positions'), row: figure(s, 'One position against all others'),
      };
    };
    async function settings({ length, dim, base, layout }) {
      const { s, length: l, dim: d, base: b } = parts();
      await fill(l, length);
      await fill(d, dim);
      await fill(b, base);
      await choose(s, layout === 'half' ? 'half' : 'interleaved (paper)');
    }

    test('PE ∈ R^{L×d} is written with the live L and d', async () => {
      const { s, length, dim } = parts();
      const shape = s.locator('[data-part="shape"]');
      const text = () => shape.textContent().then((t) => t.replace(/\s+/g, ' ').trim());
      assert.equal(await text(), 'PE ∈ ℝL×d = ℝ256×128, X = E + PE ∈ ℝ256×128 (32 768 numbers, none of them learned)');
      await fill(length, 300);
      await fill(dim, 12);
      assert.equal(await shape.locator('[data-field="L"]').textContent(), '300');
      assert.equal(await shape.locator('[data-field="d2"]').textContent(), '12');
      assert.equal(await shape.locator('[data-field="values"]').textContent(), int(3600));
      await fill(length, 256);
      await fill(dim, 128);
    });

    test('draws the table, the waves and both similarity plots', async () => {
      const { table, waves, matrix, row } = parts();
      const heat = await canvasStats(table);
      assert.ok(heat.inked > 0.5 && heat.colours > 60, `heatmap looks blank: ${JSON.stringify(heat)}`);
      for (const fig of [waves, matrix, row]) {
        const st = await canvasStats(fig);
        assert.ok(st.inked > 0.05 && st.colours > 8, `a plot looks blank: ${JSON.stringify(st)}`);
      }
    });

    test('the readout shows the value of pe.sinusoidal.table and the formula with its numbers', async () => {
      const { pe } = ctx;
      for (const p of [
        { length: 64, dim: 32, base: 10000, layout: 'interleaved', row: 10, col: 5, pair: 2, fn: 'cos' },
        { length: 64, dim: 32, base: 10000, layout: 'half', row: 10, col: 5, pair: 5, fn: 'sin' },
        { length: 40, dim: 31, base: 500, layout: 'half', row: 33, col: 27, pair: 11, fn: 'cos' },
        { length: 40, dim: 31, base: 500, layout: 'half', row: 33, col: 16, pair: 0, fn: 'cos' }, // first cosine
        { length: 40, dim: 31, base: 500, layout: 'half', row: 33, col: 15, pair: 15, fn: 'sin' }, // odd dim: the extra sine
      ]) {
        await settings(p);
        const { table } = parts();
        await heatmapCursor(table, p.row, p.col);
        const t = pe.sinusoidal.table({ length: p.length, dim: p.dim, base: p.base, layout: p.layout });
        const w = pe.sinusoidal.frequencies({ dim: p.dim, base: p.base });
        const what = JSON.stringify(p);
        assert.equal(await readout(table, 'p'), String(p.row), what);
        assert.equal(await readout(table, 'j'), String(p.col), what);
        assert.equal(await readout(table, 'pair'), String(p.pair), what);
        assert.equal(await readout(table, 'w'), num(w[p.pair], 6), what);
        assert.equal(await readout(table, 'angle'), num(p.row * w[p.pair], 6), what);
        assert.equal(await readout(table, 'value'), signed(t.data[p.row * p.dim + p.col], 6), what);
        assert.match(await table.locator('output').textContent(), new RegExp(`PE\\[${p.row}, ${p.col}\\] = ${p.fn}\\(`), what);
      }
    });

    test('hovering a cell with the mouse reads that cell', async () => {
      const { pe, page } = ctx;
      await settings({ length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      const { table, waves } = parts();
      const box = await table.locator('canvas').boundingBox();
      const w = box.width - MARGIN.left - MARGIN.right;
      const h = box.height - MARGIN.top - MARGIN.bottom;
      const at = (row, col) => [box.x + MARGIN.left + ((col + 0.5) / 32) * w, box.y + MARGIN.top + ((row + 0.5) / 64) * h];
      await page.mouse.move(...at(3, 7));
      await frames(page);
      const t = pe.sinusoidal.table({ length: 64, dim: 32 });
      assert.equal(await readout(table, 'p'), '3');
      assert.equal(await readout(table, 'j'), '7');
      assert.equal(await readout(table, 'value'), signed(t.data[3 * 32 + 7]));
      assert.equal(await readout(waves, 'p'), '3', 'the waves follow the chosen position');
      await page.mouse.move(1, 1);
    });

    test('similarity readouts are dot products (or cosines) of table rows; the row plot starts at 0', async () => {
      const { pe } = ctx;
      const { s, matrix, row } = parts();
      await heatmapCursor(matrix, 10, 17);
      const { data } = pe.sinusoidal.table({ length: 64, dim: 32 });
      assert.equal(await readout(row, 'p'), '10');
      assert.equal(await readout(row, 'q'), '17');
      assert.equal(await readout(row, 'p − q'), '−7');
      assert.equal(await readout(row, 'similarity'), signed(rowDot(data, 32, 10, 17)));
      await select(s, 'measure', 'cosine');
      const cosine = rowDot(data, 32, 10, 17) / Math.sqrt(rowDot(data, 32, 10, 10) * rowDot(data, 32, 17, 17));
      assert.equal(await readout(row, 'similarity'), signed(cosine));
      await select(s, 'measure', 'dot');
    });

    test('every control changes the output and the calls shown', async () => {
      const { page } = ctx;
      await settings({ length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      const { s, length, dim, base, table, waves, row } = parts();
      const calls = s.locator('pre');
      const changes = [
        ['length', table, () => fill(length, 80)],
        ['length slider (keyboard)', table, async () => {
          await s.getByRole('slider', { name: /^length/ }).focus();
          for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
          await settled(page);
        }],
        ['dim', table, () => fill(dim, 48)],
        ['base', table, () => fill(base, 100)],
        ['layout', table, () => choose(s, 'half')],
        ['wave columns', waves, () => fill(s.getByRole('textbox', { name: 'columns j' }), '3, 7')],
        ['wave window', waves, () => select(s, 'positions', '32')],
        ['similarity measure', row, () => select(s, 'measure', 'cosine')],
      ];
      for (const [name, plot, change] of changes) {
        const before = await canvasStats(plot);
        const call = await calls.textContent();
        await change();
        assert.notEqual((await canvasStats(plot)).hash, before.hash, `${name} did not change its plot`);
        if (!['wave columns', 'wave window', 'similarity measure'].includes(name)) assert.notEqual(await calls.textContent(), call, `${name} did not change the call shown`);
      }
      assert.equal(await length.inputValue(), '77', 'the slider moves the number field');
      await select(s, 'measure', 'dot');
      await select(s, 'positions', '64');
      await fill(s.getByRole('textbox', { name: 'columns j' }), '0, 1, 24, 50');
    });

    test('Enter on a cell adds its column to the waves; six columns fit the readout', async () => {
      const { page } = ctx;
      await settings({ length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      const { s, table, waves } = parts();
      const columns = s.getByRole('textbox', { name: 'columns j' });
      await fill(columns, '0, 1');
      await heatmapCursor(table, 4, 12);
      await page.keyboard.press('Enter');
      await settled(page);
      assert.equal(await columns.inputValue(), '0, 1, 12');
      assert.equal(await waves.locator('[data-field="wave-12"]').count(), 1);
      await fill(columns, '0, 1, 24, 50, 30, 31');
      const box = await waves.locator('output').evaluate((r) => [r.scrollWidth, r.clientWidth, r.scrollHeight, r.clientHeight]);
      assert.ok(box[0] <= box[1] && box[2] <= box[3], `the readout scrolls: ${box}`);
      assert.equal(await waves.locator('[data-field="wave-31"]').count(), 1);
      await fill(columns, '0, 1, 24, 99');
      assert.equal(await columns.getAttribute('aria-invalid'), 'true', 'a column past the table is marked');
      await fill(columns, '0, 1, 24, 50');
    });

    test("a bad value shows posenc's message; the figures keep their picture, marked as not redrawn", async () => {
      const { s, length, dim, base, table } = parts();
      const status = s.getByRole('alert');
      const download = s.getByRole('button', { name: /^Download/ });
      const before = await canvasStats(table);
      await fill(base, -5);
      assert.equal(await status.textContent(), 'sinusoidal.table: base must be a finite number > 0, got -5');
      assert.equal((await canvasStats(table)).hash, before.hash);
      assert.equal(await table.getAttribute('data-stale'), 'true');
      assert.equal(await download.isDisabled(), true, 'the download would not be the table the fields describe');
      await fill(dim, 2.5);
      await fill(base, 10000);
      assert.match(await status.textContent(), /sinusoidal\.table: dim must be an integer >= 1, got 2\.5/);
      // a size past the page's limit: the message names the field and the limit
      await fill(dim, 32);
      await fill(length, 5000);
      assert.equal(await status.textContent(), `length must be at most ${int(4096)} on this page, got ${int(5000)}`);
      assert.equal(await length.getAttribute('aria-invalid'), 'true');
      assert.equal(await table.getAttribute('data-stale'), 'true');
      await fill(length, 64);
      assert.equal(await status.isVisible(), false);
      assert.equal(await table.getAttribute('data-stale'), null);
      assert.equal(await download.isDisabled(), false);
    });

    test('the table downloads as an .npy that pe.io.readNpy reads back', async () => {
      const { pe, page } = ctx;
      await settings({ length: 64, dim: 32, base: 10000, layout: 'interleaved' });
      const { s } = parts();
      const [download] = await Promise.all([page.waitForEvent('download'), s.getByRole('button', { name: /^Download/ }).click()]);
      assert.equal(download.suggestedFilename(), 'sinusoidal-64x32.npy');
      const read = pe.io.readNpy(await readFile(await download.path()));
      assert.deepEqual(read, pe.sinusoidal.table({ length: 64, dim: 32 }));
    });

    test('dim 2048 is drawn averaged over each device pixel, not sampled (no moiré)', async () => {
      const { pe } = ctx;
      await settings({ length: 64, dim: 2048, base: 10000, layout: 'interleaved' });
      const { table } = parts();
      const canvas = table.locator('canvas');
      const shown = await canvas.getAttribute('data-shown');
      const [, rows, cols] = /^(\d+)x(\d+) of 64x2048$/.exec(shown).map(Number);
      assert.equal(rows, 64);
      assert.ok(cols < 2048, `the columns are averaged to the plot's pixels: ${shown}`);
      // pixel x of the picture shows the mean of the columns [x·2048/cols, (x+1)·2048/cols) of row 30
      const t = pe.sinusoidal.table({ length: 64, dim: 2048 });
      const expected = (x) => {
        let sum = 0;
        let weight = 0;
        for (let c = Math.floor((x * 2048) / cols); c < Math.ceil(((x + 1) * 2048) / cols); c++) {
          const w = Math.min(c + 1, ((x + 1) * 2048) / cols) - Math.max(c, (x * 2048) / cols);
          sum += w * t.data[30 * 2048 + c];
          weight += w;
        }
        return sum / weight;
      };
      // read the picture's colours along row 30 and turn them back into values with the legend's map
      const pixels = await canvas.evaluate(async (el, { left, top, bottom, cols: n }) => {
        const bitmap = await createImageBitmap(el);
        const c = new OffscreenCanvas(bitmap.width, bitmap.height);
        const g = c.getContext('2d', { willReadFrequently: true });
        g.drawImage(bitmap, 0, 0);
        const dpr = bitmap.width / el.clientWidth;
        const h = el.clientHeight - top - bottom;
        const y = Math.round((top + ((30 + 0.5) / 64) * h) * dpr);
        const out = [];
        for (const x of [5, Math.floor(n / 3), Math.floor(n / 2), n - 6]) {
          const px = Math.round(left * dpr) + x;
          out.push([x, Array.from(g.getImageData(px, y, 1, 1).data.slice(0, 3))]);
        }
        return out;
      }, { left: MARGIN.left, top: MARGIN.top, bottom: MARGIN.bottom, cols });
      const { ColorMap } = await import('../../../web/js/plot/colormap.js');
      const map = new ColorMap('diverging', [-1, 1]);
      for (const [x, rgb] of pixels) {
        const want = map.rgb(expected(x));
        const off = Math.max(...want.map((v, k) => Math.abs(v - rgb[k])));
        assert.ok(off <= 6, `pixel ${x}: colour ${rgb} for the mean ${expected(x)} (${want})`);
      }
      await settings({ length: 256, dim: 128, base: 10000, layout: 'interleaved' });
    });
  });
}
