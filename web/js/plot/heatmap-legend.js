// A heatmap's colour legend: a vertical bar with ticks in the page's number format, a grey swatch
// for masked (−∞) entries when there are some, and the legend's title written along the edge.
import { niceTicks } from './axes.js';
import { INK, MUTED, PLOT_FONT } from './canvas.js';
import { MASKED_CSS } from './colormap.js';
import { tick } from '../ui/format.js';

const BAR = 12;

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
  for (let i = 0; i < h; i++) {
    ctx.fillStyle = colors.css(hi - ((hi - lo) * i) / (h - 1));
    ctx.fillRect(x, top + i, BAR, 1);
  }
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
