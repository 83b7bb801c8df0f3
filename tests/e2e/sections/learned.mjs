// e2e: the learned-table section: files chosen, dropped and generated; bad files; readouts vs pe.io / pe.learned.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { encodeFloats, npyBytes, safetensorsBytes } from '../../js/io-fixtures.mjs';
import { ARTIFACTS } from '../harness.mjs';
import { canvasStats, field, heatmapCursor, matrixReady, rowDot, select, signed } from '../page-helpers.mjs';

/** Deterministic table values exact in bfloat16 (and so in every format): k/64 for small integers k. */
function tableValues(rows, dim, seed) {
  return Array.from({ length: rows * dim }, (_, i) => ((((i + seed) * 2654435761) >>> 0) % 129 - 64) / 64);
}

async function loadFile(page, name, bytes) {
  await page.setInputFiles('#learned-file', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
}

export function learnedTests(ctx) {
  describe('learned section', () => {
    test('a bad or unsupported file shows a specific message', async () => {
      const { page } = ctx;
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
        await loadFile(page, name, bytes);
        await page.waitForSelector('#learned-status:not([hidden])');
        assert.match(await page.textContent('#learned-status'), pattern, name);
        assert.equal(await page.getAttribute('#learned-status', 'role'), 'alert');
        assert.equal(await page.textContent('#learned-info'), 'No table loaded yet.', `${name}: the info line is restored`);
      }
      await page.locator('#learned-drop').evaluate((zone) => zone.scrollIntoView());
      const zone = await page.locator('#learned-drop').boundingBox();
      const status = await page.locator('#learned-status').boundingBox();
      await page.screenshot({ path: `${ARTIFACTS}desktop-learned-error.png`, fullPage: true,
        clip: { x: 0, y: zone.y + (await page.evaluate(() => scrollY)) - 10, width: 1280, height: status.y + status.height - zone.y + 20 } });
    });

    test('a loaded .npy table is shown; readouts match the file and pe.learned.lookup', async () => {
      const { page, pe } = ctx;
      const [rows, dim] = [40, 24];
      const values = tableValues(rows, dim, 3);
      await loadFile(page, 'gpt2-wpe.npy', npyBytes({ descr: '<f2', shape: [rows, dim], data: encodeFloats(values, 'f2') }));
      await matrixReady(page, 'learned-sim-matrix');
      assert.equal(await page.isVisible('#learned-status'), false, 'a good file clears the error');
      assert.match(await page.textContent('#learned-info'), /^gpt2-wpe\.npy · array · 40 positions × 24 dims · /);
      for (const id of ['learned-heatmap', 'learned-row', 'learned-sim-matrix', 'learned-sim-row']) {
        const s = await canvasStats(page, `#${id}`);
        assert.ok(s.inked > 0.05 && s.colours > 8, `${id} looks blank: ${JSON.stringify(s)}`);
      }
      assert.ok((await canvasStats(page, '#learned-heatmap')).colours > 40);
      await heatmapCursor(page, '#learned-heatmap', 7, 3);
      assert.equal(await field(page, 'learned-readout', 'value'), signed(values[7 * dim + 3]));
      const row = pe.learned.lookup({ data: Float32Array.from(values), dims: [rows, dim] }, { positionIds: [7] });
      assert.equal(await field(page, 'learned-row-readout', 'row-value'), signed(row.data[3]));
      assert.match(await page.textContent('#learned-call'), /positionIds: \[7\]/);
      await heatmapCursor(page, '#learned-sim-matrix', 7, 30);
      const data = Float32Array.from(values);
      const cosine = rowDot(data, dim, 7, 30) / Math.sqrt(rowDot(data, dim, 7, 7) * rowDot(data, dim, 30, 30));
      assert.equal(await field(page, 'learned-sim-readout', 'similarity'), signed(cosine));
      await select(page, 'learned-sim-measure', 'dot');
      assert.equal(await field(page, 'learned-sim-readout', 'similarity'), signed(rowDot(data, dim, 7, 30)));
      await select(page, 'learned-sim-measure', 'cosine');
      await page.locator('#learned').screenshot({ path: `${ARTIFACTS}desktop-learned-npy.png` });
    });

    test('a .safetensors file with several tensors offers the 2-D ones and preselects the position table', async () => {
      const { page } = ctx;
      const wpe = tableValues(30, 8, 5);
      const file = safetensorsBytes({
        'wte.weight': { dtype: 'F32', shape: [50, 8], data: encodeFloats(tableValues(50, 8, 4), 'f4') },
        'wpe.weight': { dtype: 'BF16', shape: [30, 8], data: encodeFloats(wpe, 'bf16') },
        'h.0.attn.bias': { dtype: 'F32', shape: [1, 1, 4, 4], data: encodeFloats(tableValues(4, 4, 6), 'f4') },
        'h.0.ln.weight': { dtype: 'F32', shape: [8], data: encodeFloats(tableValues(1, 8, 7), 'f4') },
        position_ids: { dtype: 'I64', shape: [1, 30], data: new Uint8Array(240) },
      }, { metadata: { format: 'pt' } });
      await loadFile(page, 'model.safetensors', file);
      await matrixReady(page, 'learned-sim-matrix');
      const options = await page.locator('#learned-tensor option').evaluateAll((os) => os.map((o) => o.value));
      assert.deepEqual(options, ['wte.weight', 'wpe.weight', 'h.0.attn.bias']);
      assert.equal(await page.inputValue('#learned-tensor'), 'wpe.weight');
      assert.equal(await page.isEnabled('#learned-tensor'), true);
      assert.match(await page.textContent('#learned-info'), /model\.safetensors · wpe\.weight · 30 positions × 8 dims/);
      await heatmapCursor(page, '#learned-heatmap', 29, 7);
      assert.equal(await field(page, 'learned-readout', 'value'), signed(wpe[29 * 8 + 7]));
      const before = await canvasStats(page, '#learned-heatmap');
      await select(page, 'learned-tensor', 'wte.weight');
      await matrixReady(page, 'learned-sim-matrix');
      assert.match(await page.textContent('#learned-info'), /wte\.weight · 50 positions × 8 dims/);
      assert.notEqual((await canvasStats(page, '#learned-heatmap')).hash, before.hash, 'choosing a tensor redraws');
      await page.locator('#learned').screenshot({ path: `${ARTIFACTS}desktop-learned-safetensors.png` });
      await select(page, 'learned-tensor', 'h.0.attn.bias');
      assert.match(await page.textContent('#learned-info'), /h\.0\.attn\.bias · 4 positions × 4 dims/, 'leading 1s are dropped');
    });

    test('dropping a file on the drop zone loads it', async () => {
      const { page } = ctx;
      const bytes = npyBytes({ shape: [12, 6], data: encodeFloats(tableValues(12, 6, 8), 'f4') });
      await page.evaluate((content) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(content)], 'dropped.npy'));
        const zone = document.getElementById('learned-drop');
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }, Array.from(bytes));
      await page.waitForFunction(() => document.getElementById('learned-info').textContent.startsWith('dropped.npy'));
      assert.match(await page.textContent('#learned-info'), /12 positions × 6 dims/);
    });

    test('"Use the sinusoidal table above" goes through pe.io.writeNpy and readNpy', async () => {
      const { page, pe } = ctx;
      await page.click('#learned-sample');
      await matrixReady(page, 'learned-sim-matrix');
      const info = await page.textContent('#learned-info');
      const [, rows, dim] = /^sinusoidal-(\d+)x(\d+)\.npy/.exec(info);
      const layout = await page.locator('input[name="sin-layout"]:checked').inputValue();
      const base = Number(await page.inputValue('#sin-base'));
      await heatmapCursor(page, '#learned-heatmap', 5, 9);
      const table = pe.sinusoidal.table({ length: Number(rows), dim: Number(dim), base, layout });
      assert.equal(await field(page, 'learned-readout', 'value'), signed(table.data[5 * Number(dim) + 9]));
    });
  });
}
