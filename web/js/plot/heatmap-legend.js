// A heatmap's colour legend: a vertical bar with ticks in the page's number format, a grey swatch
// for masked (−∞) entries when there are some, and the legend's title written along the edge.
import { niceTicks } from './axes.js';
import { INK, MUTED, PLOT_FONT } from './canvas.js';
import { ColorMap, MASKED_CSS } from './colormap.js';
import { tick } from '../ui/format.js';

const BAR = 12;

/** The bars drawn so far, by colour map and height: a plot repaints its legend on every cursor move. */
const bars = new Map();

/**
 * The bar of a colour map, `h` CSS pixels tall, one pixel a row: row i has the colour of the value
 * a fraction i/(h − 1) down from the top of the range, which depends on the map alone.
 * @param {import('./colormap.js').ColormapName} name @param {number} h
 * @returns {HTMLCanvasElement}
 */
function bar(name, h) {
  const rows = Math.max(1, Math.ceil(h));
  const key = `${name} ${h}`;
  let image = bars.get(key);
  if (!image) {
    image = document.createElement('canvas');
    image.width = 1;
    image.height = rows;
    const pixels = new ImageData(1, rows);
    new ColorMap(name, [0, 1]).paint(Float32Array.from({ length: rows }, (_, i) => 1 - i / (h - 1)), pixels.data);
    /** @type {CanvasRenderingContext2D} */ (image.getContext('2d')).putImageData(pixels, 0, 0);
    bars.set(key, image);
  }
  return image;
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {{ x: number, top: number, height: number, right: number }} at  the bar's left edge and
 *   vertical extent; `right`, the canvas's right edge (the title sits against it)
 * @param {import('./colormap.js').ColorMap} colors @param {string} title @param {boolean} masked
 */
export function paintLegend(ctx, at, colors, title, masked) {
  const [lo, hi] = colors.range;
  const { x, top } = at;
  const swatch = masked ? 26 : 0; // room for the grey "masked" swatch below the bar
  const h = at.height - swatch;
  const image = bar(colors.name, h);
  const smoothing = ctx.imageSmoothingEnabled;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(image, x, top, BAR, image.height);
  ctx.imageSmoothingEnabled = smoothing;
  ctx.strokeStyle = MUTED;
  ctx.strokeRect(x + 0.5, top + 0.5, BAR, h);
  ctx.font = PLOT_FONT;
  ctx.fillStyle = INK;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const t of niceTicks(lo, hi, Math.max(2, Math.floor(h / 50)))) {
    const y = top + ((hi - t) / (hi - lo || 1)) * h;
    ctx.fillRect(x + BAR, Math.round(y), 3, 1);
    ctx.fillText(tick(t), x + BAR + 5, y);
  }
  if (swatch) {
    ctx.fillStyle = MASKED_CSS;
    ctx.fillRect(x, top + h + 12, BAR, 12);
    ctx.strokeRect(x + 0.5, top + h + 12.5, BAR, 12);
    ctx.fillStyle = INK;
    ctx.fillText('−∞', x + BAR + 5, top + h + 18);
  }
  ctx.save();
  ctx.fillStyle = MUTED;
  ctx.translate(at.right - 4, top + h / 2);
  ctx.rotate(Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillText(title, 0, 0);
  ctx.restore();
}
