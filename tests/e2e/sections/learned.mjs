// e2e: the learned-table section: the table trained on load (the same table train.js trains in Node
// with the package), compared with pe.sinusoidal.table; OUT_OF_RANGE past the last row and the
// stretched table (pe.learned.interpolate); files chosen, dropped and generated; bad files;
// readouts vs pe.io / pe.learned.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { encodeFloats, npyBytes, safetensorsBytes } from '../../js/io-fixtures.mjs';
import { initialState, trainSteps } from '../../../web/js/compute/train.js';
import { int, num, signed } from '../../../web/js/ui/format.js';
import { canvasStats, figure, fill, heatmapCursor, numberField, press, readout, rowDot, section, select, settled } from '../page-helpers.mjs';

/** The table the page trains with these settings, trained here. */
function trained(pe, settings) {
  const state = initialState(settings);
  return trainSteps(pe, state);
}

/** Cosine of rows a and b of a [rows, dim] table. */
function cosine(data, dim, a, b) {
  return rowDot(data, dim, a, b) / Math.sqrt(rowDot(data, dim, a, a) * rowDot(data, dim, b, b));
}

/** Deterministic table values exact in bfloat16 (and so in every format): k/64 for small integers k. */
function tableValues(rows, dim, seed) {
  return Array.from({ length: rows * dim }, (_, i) => ((((i + seed) * 2654435761) >>> 0) % 129 - 64) / 64);
}

export function learnedTests(ctx) {
  describe('learned section', () => {
    const parts = () => {
      const s = section(ctx.page, 'Learned position tables');
      return {
        s, tensor: s.getByRole('combobox', { name: 'tensor' }), info: s.locator('.file-info'), status: s.getByRole('alert'),
        table: figure(s, 'The table'), row: figure(s, 'Row'), matrix: figure(s, 'Similarity of positions'), simRow: figure(s, 'One position against all others'),
      };
    };
    /** Chooses a file as a reader does: the button opens the file picker. */
    async function loadFile(name, bytes) {
      const { page } = ctx;
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), parts().s.getByRole('button', { name: 'Choose a file…' }).click()]);
      await chooser.setFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
      await settled(page);
    }

    test('on load a table is trained in the worker: the one train.js trains in Node, drawn with its loss', async () => {
      const { pe } = ctx;
      const { s, info, table, row, matrix, simRow } = parts();
      const loss = figure(s, 'Training');
      assert.equal(await s.getAttribute('data-training'), 'done');
      const state = trained(pe, { positions: 64, dim: 16, window: 2, steps: 1000, seed: 1 });
      assert.equal(await info.textContent(), `trained here · 64 positions × 16 dims · step 1${'\u2009'}000 of 1${'\u2009'}000 · loss ${num(state.losses[999], 3)}`);
      for (const fig of [loss, table, row, matrix, simRow]) {
        const st = await canvasStats(fig);
        assert.ok(st.inked > 0.03 && st.colours > 8, `a plot looks blank: ${JSON.stringify(st)}`);
      }
      for (const [r, c] of [[7, 3], [40, 15], [63, 0]]) {
        await heatmapCursor(table, r, c);
        assert.equal(await readout(table, 'value'), signed(state.table[r * 16 + c]), `E[${r}, ${c}]`);
      }
      assert.equal(await readout(loss, 'first-loss'), num(state.losses[0], 3));
      assert.equal(await readout(loss, 'loss'), num(state.losses[999], 3));
      assert.ok(state.losses[999] < state.losses[0] / 4, 'it learned');
      // what it learned: neighbouring rows point the same way, far ones do not
      assert.ok(cosine(state.table, 16, 32, 33) > 0.8 && cosine(state.table, 16, 32, 48) < 0.3);
    });

    test('the trained table against pe.sinusoidal.table of the same size', async () => {
      const { pe } = ctx;
      const { s } = parts();
      const versus = figure(s, 'Trained against sinusoidal');
      const state = trained(pe, { positions: 64, dim: 16, window: 2, steps: 1000, seed: 1 });
      const sin = pe.sinusoidal.table({ length: 64, dim: 16 }).data;
      await heatmapCursor(versus, 32, 40);
      assert.equal(await readout(versus, 'trained'), signed(cosine(state.table, 16, 32, 40), 4));
      assert.equal(await readout(versus, 'sinusoidal'), signed(cosine(sin, 16, 32, 40), 4));
      assert.equal(await readout(versus, 'trained-next'), signed(cosine(state.table, 16, 32, 33), 4));
      for (const area of await versus.locator('.plot-area').all()) assert.ok((await canvasStats(area)).inked > 0.05);
    });

    test('past the last row: OUT_OF_RANGE as posenc says it, and the table stretched by pe.learned.interpolate', async () => {
      const { pe } = ctx;
      const { s } = parts();
      const beyond = figure(s, 'Asking the table for position');
      const position = numberField(s, 'ask for position');
      const state = trained(pe, { positions: 64, dim: 16, window: 2, steps: 1000, seed: 1 });
      const positions = pe.learned.createTable({ data: state.table, dims: [64, 16] });
      try {
        assert.equal(await position.inputValue(), '70', 'just past the end on load');
        let error;
        try {
          positions.lookup({ positionIds: [70] });
        } catch (e) {
          error = e;
        }
        assert.equal(error.code, 'OUT_OF_RANGE');
        assert.equal(await readout(beyond, 'lookup'), `OUT_OF_RANGE: ${error.message}`);
        assert.equal(await beyond.locator('output[data-readout="asked"]').getAttribute('data-state'), 'error');
        const stretched = pe.learned.interpolate({ data: state.table, dims: [64, 16] }, { gridSize: [1, 64], newGridSize: [1, 71], numPrefixTokens: 0 });
        assert.equal(await readout(beyond, 'stretched'), signed(stretched.data[70 * 16], 4));
        await fill(numberField(s, 'column shown'), 5);
        assert.equal(await readout(beyond, 'stretched'), signed(stretched.data[70 * 16 + 5], 4));
        await fill(position, 10);
        assert.equal(await readout(beyond, 'lookup'), `row 10 exists: E[10, 5] = ${signed(positions.lookup({ positionIds: [10] }).data[5], 4)}`);
        await fill(position, -1);
        assert.match(await readout(beyond, 'lookup'), /^OUT_OF_RANGE: /, 'no row before the first one either');
        await fill(position, 200000);
        assert.match(await s.getByRole('alert').first().textContent(), /stretching to 200\u2009001 rows of 16 is 3\u2009200\u2009016 values; this page stretches up to 2\u2009097\u2009152/);
        assert.equal(await beyond.getAttribute('data-stale'), 'true');
        await fill(position, 70);
        await fill(numberField(s, 'column shown'), 0);
        assert.equal(await beyond.getAttribute('data-stale'), null);
      } finally {
        positions.dispose();
      }
    });

    test('new settings train again, "Train again" starts from another seed; a bad file changes nothing', async () => {
      const { pe } = ctx;
      const { s, status, info, tensor, table } = parts();
      await fill(numberField(s, 'positions'), 16);
      await fill(numberField(s, 'width'), 8);
      await fill(numberField(s, 'steps'), 300);
      const first = trained(pe, { positions: 16, dim: 8, window: 2, steps: 300, seed: 1 });
      await heatmapCursor(table, 9, 6);
      assert.equal(await readout(table, 'value'), signed(first.table[9 * 8 + 6]));
      await press(s, 'Train again from a new start');
      const second = trained(pe, { positions: 16, dim: 8, window: 2, steps: 300, seed: 2 });
      await heatmapCursor(table, 9, 6);
      assert.equal(await readout(table, 'value'), signed(second.table[9 * 8 + 6]));
      assert.match(await info.textContent(), /^trained here · 16 positions × 8 dims · step 300 of 300 · loss /);
      await fill(numberField(s, 'window'), 16);
      assert.equal(await status.first().textContent(), 'window must be smaller than positions (16), got 16');
      await fill(numberField(s, 'window'), 2);
      // bad files: a specific message each; the trained table stays in the figures
      const trainedInfo = await info.textContent();
      const picture = await canvasStats(table);
      const cases = [
        ['broken.npy', new TextEncoder().encode('hello'), /^Could not use broken\.npy: io\.readNpy: the file is 5 bytes, too short for an \.npy header$/],
        ['notes.txt', new TextEncoder().encode('these are my notes, not a tensor file'),
          /^Could not use notes\.txt: it is neither an \.npy file .* nor a \.safetensors file \(io\.listSafetensors: the header size field is \d+, not a plausible JSON header size/],
        ['cube.npy', npyBytes({ shape: [2, 3, 4], data: encodeFloats(tableValues(2, 12, 1), 'f4') }),
          /^Could not use cube\.npy: the array has shape \[2, 3, 4\]; a position table has two dimensions, \[positions, dim\]$/],
        ['ints.npy', npyBytes({ descr: '<i8', shape: [4, 2], data: new Uint8Array(64) }), /io\.readNpy: dtype '<i8' is not supported/],
        ['ids.safetensors', safetensorsBytes({ 'embeddings.position_ids': { dtype: 'I64', shape: [1, 512], data: new Uint8Array(4096) } }),
          /^Could not use ids\.safetensors: it holds no float tensor of shape \[positions, dim\] \(1 tensor\(s\): embeddings\.position_ids I64 \[1, 512\]\)$/],
        ['cut.safetensors', safetensorsBytes({ 'wpe.weight': { dtype: 'F32', shape: [4, 4], data: encodeFloats(tableValues(4, 4, 2), 'f4') } }).subarray(0, 100),
          /io\.readSafetensors: tensor 'wpe\.weight' ends at byte \d+, but the file has 100 bytes: it is truncated/],
      ];
      for (const [name, bytes, pattern] of cases) {
        await loadFile(name, bytes);
        assert.match(await status.first().textContent(), pattern, name);
        assert.equal(await info.textContent(), trainedInfo, `${name}: the info line is restored`);
        assert.equal(await tensor.isDisabled(), true, `${name}: the picker still has no file`);
        assert.equal((await canvasStats(table)).hash, picture.hash, `${name}: the figures keep the trained table`);
      }
    });

    test('a loaded .npy table is shown; readouts match the file and pe.learned.lookup', async () => {
      const { pe } = ctx;
      const { s, status, info, table, row, matrix, simRow } = parts();
      const [rows, dim] = [40, 24];
      const values = tableValues(rows, dim, 3);
      await loadFile('gpt2-wpe.npy', npyBytes({ descr: '<f2', shape: [rows, dim], data: encodeFloats(values, 'f2') }));
      assert.equal(await status.isVisible(), false, 'a good file clears the error');
      assert.match(await info.textContent(), /^gpt2-wpe\.npy · array · 40 positions × 24 dims · /);
      for (const fig of [table, row, matrix, simRow]) {
        const st = await canvasStats(fig);
        assert.ok(st.inked > 0.05 && st.colours > 8, `a plot looks blank: ${JSON.stringify(st)}`);
      }
      assert.ok((await canvasStats(table)).colours > 40);
      await heatmapCursor(table, 7, 3);
      assert.equal(await readout(table, 'value'), signed(values[7 * dim + 3]));
      const lookup = pe.learned.lookup({ data: Float32Array.from(values), dims: [rows, dim] }, { positionIds: [7] });
      assert.equal(await readout(row, 'row-value'), signed(lookup.data[3]));
      await heatmapCursor(matrix, 7, 30);
      const data = Float32Array.from(values);
      const cosine = rowDot(data, dim, 7, 30) / Math.sqrt(rowDot(data, dim, 7, 7) * rowDot(data, dim, 30, 30));
      assert.equal(await readout(simRow, 'similarity'), signed(cosine));
      await select(s, 'measure', 'dot');
      assert.equal(await readout(simRow, 'similarity'), signed(rowDot(data, dim, 7, 30)));
      await select(s, 'measure', 'cosine');
    });

    test('a .safetensors file offers its 2-D tensors and preselects the position table; a bad file later keeps it', async () => {
      const { s, tensor, info, table, status } = parts();
      const wpe = tableValues(30, 8, 5);
      const file = safetensorsBytes({
        'wte.weight': { dtype: 'F32', shape: [50, 8], data: encodeFloats(tableValues(50, 8, 4), 'f4') },
        'wpe.weight': { dtype: 'BF16', shape: [30, 8], data: encodeFloats(wpe, 'bf16') },
        'h.0.attn.bias': { dtype: 'F32', shape: [1, 1, 4, 4], data: encodeFloats(tableValues(4, 4, 6), 'f4') },
        'h.0.ln.weight': { dtype: 'F32', shape: [8], data: encodeFloats(tableValues(1, 8, 7), 'f4') },
        position_ids: { dtype: 'I64', shape: [1, 30], data: new Uint8Array(240) },
      }, { metadata: { format: 'pt' } });
      await loadFile('model.safetensors', file);
      const options = await tensor.locator('option').evaluateAll((os) => os.map((o) => o.value));
      assert.deepEqual(options, ['wte.weight', 'wpe.weight', 'h.0.attn.bias']);
      assert.equal(await tensor.inputValue(), 'wpe.weight');
      assert.equal(await tensor.isEnabled(), true);
      assert.match(await info.textContent(), /model\.safetensors · wpe\.weight · 30 positions × 8 dims/);
      await heatmapCursor(table, 29, 7);
      assert.equal(await readout(table, 'value'), signed(wpe[29 * 8 + 7]));
      const before = await canvasStats(table);
      await select(s, 'tensor', 'wte.weight');
      assert.match(await info.textContent(), /wte\.weight · 50 positions × 8 dims/);
      assert.notEqual((await canvasStats(table)).hash, before.hash, 'choosing a tensor redraws');
      await select(s, 'tensor', 'h.0.attn.bias');
      assert.match(await info.textContent(), /h\.0\.attn\.bias · 4 positions × 4 dims/, 'leading 1s are dropped');
      // a bad file now: the picker, the info line and the figures still show h.0.attn.bias
      const shown = await canvasStats(table);
      await loadFile('broken.npy', new TextEncoder().encode('hello'));
      assert.match(await status.textContent(), /^Could not use broken\.npy/);
      assert.equal(await tensor.inputValue(), 'h.0.attn.bias');
      assert.deepEqual(await tensor.locator('option').evaluateAll((os) => os.map((o) => o.value)), ['wte.weight', 'wpe.weight', 'h.0.attn.bias']);
      assert.match(await info.textContent(), /^model\.safetensors · h\.0\.attn\.bias/);
      assert.equal((await canvasStats(table)).hash, shown.hash);
    });

    test('dropping a file on the drop zone loads it', async () => {
      const { page } = ctx;
      const { info } = parts();
      const bytes = npyBytes({ shape: [12, 6], data: encodeFloats(tableValues(12, 6, 8), 'f4') });
      await parts().s.locator('.dropzone').evaluate((zone, content) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(content)], 'dropped.npy'));
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }, Array.from(bytes));
      await page.waitForFunction(() => document.querySelector('.file-info')?.textContent?.startsWith('dropped.npy'));
      await settled(page);
      assert.match(await info.textContent(), /12 positions × 6 dims/);
    });

    test('"Use the sinusoidal table above" goes through pe.io.writeNpy and readNpy', async () => {
      const { pe, page } = ctx;
      const { s, info, table } = parts();
      await s.getByRole('button', { name: 'Use the sinusoidal table above' }).click();
      await settled(page);
      const [, rows, dim] = /^sinusoidal-(\d+)x(\d+)\.npy/.exec(await info.textContent());
      const sin = section(page, 'Sinusoidal encoding');
      const layout = await sin.getByRole('radio', { name: 'half' }).isChecked() ? 'half' : 'interleaved';
      const base = Number(await sin.getByRole('spinbutton', { name: 'base' }).inputValue());
      await heatmapCursor(table, 5, 9);
      const t = pe.sinusoidal.table({ length: Number(rows), dim: Number(dim), base, layout });
      assert.equal(await readout(table, 'value'), signed(t.data[5 * Number(dim) + 9]));
    });
  });
}
