// Driving the lesson page as a reader does: sections found by their headings, controls by role
// and accessible name, figures by their captions. Plus the pixels of a plot, the numbers in a
// readout (value spans tagged data-field), and waiting until the page has finished an update.

/** The headings of the lesson's six sections, in order. */
export const HEADINGS = ['Why order matters', 'Sinusoidal encoding', 'Learned position tables', 'Relative positions', 'Rotary position embedding (RoPE)', 'Comparison'];

/** A section, by its heading. */
export const section = (page, heading) => page.getByRole('region', { name: heading });

/** A figure, by the start of its caption (or a pattern). */
export function figure(scope, caption) {
  const name = caption instanceof RegExp ? caption : new RegExp(`^${caption.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
  return scope.getByRole('figure', { name });
}

/** A number field (spinbutton) by its label: the start of its accessible name. */
export const numberField = (scope, label) => scope.getByRole('spinbutton', { name: new RegExp(`^${label}`) });

/** Waits until the page has painted `n` more frames (plots redraw on animation frames). */
export function frames(page, n = 2) {
  return page.evaluate((count) => new Promise((resolve) => {
    const step = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => step(left - 1)));
    step(count);
  }), n);
}

/** Waits until no section is busy (updates, worker jobs, file reads) and the plots have painted. */
export async function settled(page) {
  await frames(page, 1);
  await page.waitForFunction(() => !document.querySelector('[data-busy]'), null, { timeout: 30_000 });
  await frames(page, 2);
}

/** Types into a field (input events, as typing does) and waits for the page. */
export async function fill(control, value) {
  await control.fill(String(value));
  await settled(control.page());
}

/** Checks the radio button named `name` in `scope`. */
export async function choose(scope, name) {
  const radio = scope.getByRole('radio', { name, exact: true });
  await radio.check();
  await settled(radio.page());
}

/** Picks an option (by value) of the select labelled `label` in `scope`. */
export async function select(scope, label, value) {
  const box = scope.getByRole('combobox', { name: label });
  await box.selectOption(value);
  await settled(box.page());
}

/** Presses the button named `name` in `scope`. */
export async function press(scope, name) {
  const b = scope.getByRole('button', { name, exact: true });
  await b.click();
  await settled(b.page());
}

/** The text of the value tagged `name` in a figure's readout (or in `scope` itself). */
export function readout(scope, name) {
  return scope.locator(`[data-field="${name}"]`).first().textContent();
}

/**
 * Pixel statistics of the (first) canvas in `scope`: the share of inked (not white) pixels, the
 * number of distinct colours (5 bits per channel) and a hash that changes when the picture does.
 * Reads a copy (an ImageBitmap), so the page's canvas is never read back.
 */
export function canvasStats(scope) {
  return scope.locator('canvas').first().evaluate(async (canvas) => {
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
  });
}

/** Focuses the plot in `scope` and moves a heatmap's cursor to (row, col) with the keyboard. */
export async function heatmapCursor(scope, row, col) {
  const canvas = scope.locator('canvas').first();
  await canvas.focus();
  const { keyboard } = canvas.page();
  await keyboard.press('Home');
  for (let r = row; r >= 10; r -= 10) await keyboard.press('Shift+ArrowDown');
  for (let r = 0; r < row % 10; r++) await keyboard.press('ArrowDown');
  for (let c = col; c >= 10; c -= 10) await keyboard.press('Shift+ArrowRight');
  for (let c = 0; c < col % 10; c++) await keyboard.press('ArrowRight');
  await frames(canvas.page(), 2);
}

/** Focuses the plot in `scope` and presses `keys`. */
export async function plotKeys(scope, keys) {
  const canvas = scope.locator('canvas').first();
  await canvas.focus();
  for (const key of keys) await canvas.page().keyboard.press(key);
  await frames(canvas.page(), 2);
}

/** Dot product of rows a and b of a [rows, dim] Float32Array, summed in float64 in lane order. */
export function rowDot(data, dim, a, b) {
  let s = 0;
  for (let j = 0; j < dim; j++) s += data[a * dim + j] * data[b * dim + j];
  return s;
}

const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/** A number as the page writes it ('−1 234.5', '8.1 × 10⁻⁷', '∞') back into a number. */
export function parseNumber(text) {
  const plain = text.trim().replaceAll('\u2009', '').replaceAll('−', '-').replace('∞', 'Infinity')
    .replace(/ × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/, (_, e) => `e${[...e].map((c) => (c === '⁻' ? '-' : String(SUPERSCRIPTS.indexOf(c)))).join('')}`);
  const v = Number(plain);
  if (Number.isNaN(v) && plain !== 'NaN') throw new Error(`not a number as the page writes it: ${text}`);
  return v;
}

/**
 * Photographs a section whole: scrolled to first, so that it is laid out (sections out of view
 * skip rendering and stand in with an estimated height until they come near).
 */
export async function photograph(scope, path, options = {}) {
  await scope.evaluate((el) => el.scrollIntoView());
  await settled(scope.page());
  await scope.screenshot({ path, ...options });
}

/**
 * How an element looks: its effective opacity (its own times its ancestors'), its filter, and the
 * WCAG contrast ratio of its text colour on its background (the first ancestor's with a colour).
 */
export function appearance(scope) {
  return scope.evaluate((el) => {
    const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]) => {
      const lin = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    let opacity = 1;
    let background;
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      opacity *= Number(style.opacity);
      const bg = rgb(style.backgroundColor);
      if (background === undefined && (bg.length === 3 || bg[3] > 0)) background = bg.slice(0, 3);
    }
    const fg = luminance(rgb(getComputedStyle(el).color));
    const bg = luminance(background ?? [255, 255, 255]);
    return { opacity, filter: getComputedStyle(el).filter, contrast: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05) };
  });
}
