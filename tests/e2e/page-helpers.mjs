// Helpers for driving the lesson page: pixels of a plot, readout fields, controls, and the page's
// own number formats (so expected values computed in Node compare as text).

/** Waits until the page has painted `n` more frames (plots redraw on animation frames). */
export function frames(page, n = 2) {
  return page.evaluate((count) => new Promise((resolve) => {
    const step = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => step(left - 1)));
    step(count);
  }), n);
}

/**
 * Pixel statistics of the canvas inside `selector`: share of inked (non-blank, non-white) pixels,
 * number of distinct colours (5 bits per channel) and a hash that changes when the picture does.
 * Reads a copy (an ImageBitmap), so the page's canvas is never read back.
 */
export function canvasStats(page, selector) {
  return page.evaluate(async (sel) => {
    const canvas = document.querySelector(`${sel} canvas`);
    if (!canvas) throw new Error(`no canvas in ${sel}`);
    const bitmap = await createImageBitmap(canvas);
    const copy = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = copy.getContext('2d', { willReadFrequently: true });
    ctx.drawImage(bitmap, 0, 0);
    const { data } = ctx.getImageData(0, 0, copy.width, copy.height);
    const colours = new Set();
    let inked = 0;
    let hash = 2166136261;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
      if (a > 0 && !(r > 245 && g > 245 && b > 245)) inked++;
      if (a > 0) colours.add(((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3));
      hash = Math.imul(hash ^ r ^ (g << 8) ^ (b << 16) ^ (a << 24), 16777619) >>> 0;
    }
    return { width: copy.width, height: copy.height, inked: inked / (data.length / 4), colours: colours.size, hash };
  }, selector);
}

/** The text of `[data-field=name]` inside the readout `#id`. */
export async function field(page, id, name) {
  return page.locator(`#${id} [data-field="${name}"]`).first().textContent();
}

/** Types a value into a number/text field (fires input events) and waits for the redraw. */
export async function setValue(page, id, value) {
  await page.fill(`#${id}`, String(value));
  await frames(page, 3);
}

/** Clicks a radio button by its name and value. */
export async function choose(page, name, value) {
  await page.check(`input[name="${name}"][value="${value}"]`);
  await frames(page, 3);
}

/** Selects an option of a <select>. */
export async function select(page, id, value) {
  await page.selectOption(`#${id}`, value);
  await frames(page, 3);
}

/** Focuses a heatmap and moves its cursor to (row, col) with the keyboard, as a keyboard user would. */
export async function heatmapCursor(page, selector, row, col) {
  await page.focus(`${selector} canvas`);
  await page.keyboard.press('Home');
  for (let r = row; r >= 10; r -= 10) await page.keyboard.press('Shift+ArrowDown');
  for (let r = 0; r < row % 10; r++) await page.keyboard.press('ArrowDown');
  for (let c = col; c >= 10; c -= 10) await page.keyboard.press('Shift+ArrowRight');
  for (let c = 0; c < col % 10; c++) await page.keyboard.press('ArrowRight');
  await frames(page, 2);
}

/** Waits for the similarity matrix in `#id` to be recomputed after a change. */
export async function matrixReady(page, id) {
  await frames(page, 3);
  await page.waitForSelector(`#${id}[data-state="ready"]`, { timeout: 10_000 });
  await frames(page, 2);
}

/** The page's signed fixed-point format: '+0.769231', '−0.125000'. */
export function signed(v, decimals = 6) {
  const s = Math.abs(v).toFixed(decimals);
  return (v < 0 && Number(s) !== 0 ? '−' : '+') + s;
}

/** The page's significant-digits format. */
export function sig(v, digits = 5) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-4) return v.toExponential(digits - 1).replace('e+', 'e').replace('-', '−');
  return v.toPrecision(digits).replace('-', '−');
}

/** Dot product of rows a and b of a [rows, dim] Float32Array, summed in float64 in lane order. */
export function rowDot(data, dim, a, b) {
  let s = 0;
  for (let j = 0; j < dim; j++) s += data[a * dim + j] * data[b * dim + j];
  return s;
}
