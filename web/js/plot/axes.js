// Axis helpers: "nice" tick positions and drawing axes around a plot rectangle. Tick labels use
// the page's one number format (format.js).
import { tick } from '../ui/format.js';
import { GRID, INK, MUTED, PLOT_FONT } from './canvas.js';

/** @typedef {{ x: number, y: number, w: number, h: number }} Rect */

/** @param {number} lo @param {number} hi @param {number} count */
function stepTicks(lo, hi, count) {
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return ticks;
}

/** About `count` round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten). @param {number} lo @param {number} hi */
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const ticks = stepTicks(lo, hi, count);
  // a narrow axis may round to a step wider than the range: ask for more, smaller steps
  return ticks.length >= 2 ? ticks : stepTicks(lo, hi, Math.max(2, count) * 2.5);
}

/** Powers of ten covering [lo, hi] (both > 0), for log axes; also 2× and 5× them on a short axis. @param {number} lo @param {number} hi */
export function logTicks(lo, hi) {
  /** @param {number[]} steps */
  const pick = (steps) => {
    const ticks = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of steps) {
        const v = m * 10 ** e;
        if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
      }
    }
    return ticks;
  };
  const decades = pick([1]);
  return decades.length >= 3 ? decades : pick([1, 2, 5]);
}

/**
 * @typedef {object} AxesOptions
 * @property {number[]} xTicks
 * @property {number[]} yTicks
 * @property {(x: number) => number} xPos
 * @property {(y: number) => number} yPos
 * @property {string} [xLabel]
 * @property {string} [yLabel]
 * @property {boolean} [grid]
 * @property {(v: number) => string} [xTickLabel]
 * @property {(v: number) => string} [yTickLabel]
 */

/**
 * Draws axes on the rectangle `r`: ticks and labels for x (below) and y (left), optional grid
 * lines, and the axis titles.
 * @param {CanvasRenderingContext2D} ctx @param {Rect} r @param {AxesOptions} o
 */
export function drawAxes(ctx, r, { xTicks, yTicks, xPos, yPos, xLabel, yLabel, grid = true, xTickLabel = tick, yTickLabel = tick }) {
  ctx.save();
  ctx.font = PLOT_FONT;
  ctx.lineWidth = 1;
  if (grid) {
    ctx.strokeStyle = GRID;
    ctx.beginPath();
    for (const t of yTicks) {
      const y = Math.round(yPos(t)) + 0.5;
      ctx.moveTo(r.x, y);
      ctx.lineTo(r.x + r.w, y);
    }
    for (const t of xTicks) {
      const x = Math.round(xPos(t)) + 0.5;
      ctx.moveTo(x, r.y);
      ctx.lineTo(x, r.y + r.h);
    }
    ctx.stroke();
  }
  ctx.strokeStyle = MUTED;
  ctx.strokeRect(Math.round(r.x) + 0.5, Math.round(r.y) + 0.5, Math.round(r.w), Math.round(r.h));
  ctx.fillStyle = INK;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.beginPath();
  const right = ctx.canvas.width / (ctx.getTransform().a || 1); // the canvas's width in CSS pixels
  for (const t of xTicks) {
    const x = Math.round(xPos(t)) + 0.5;
    ctx.moveTo(x, r.y + r.h);
    ctx.lineTo(x, r.y + r.h + 4);
    // a label at the right edge ends there rather than past the canvas
    const text = xTickLabel(t);
    const half = ctx.measureText(text).width / 2;
    ctx.fillText(text, Math.min(x, right - half - 2), r.y + r.h + 6);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of yTicks) {
    const y = Math.round(yPos(t)) + 0.5;
    ctx.moveTo(r.x - 4, y);
    ctx.lineTo(r.x, y);
    ctx.fillText(yTickLabel(t), r.x - 6, y);
  }
  ctx.stroke();
  ctx.fillStyle = MUTED;
  if (xLabel) {
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    ctx.fillText(xLabel, r.x + r.w / 2, r.y + r.h + 38);
  }
  if (yLabel) {
    ctx.translate(4, r.y + r.h / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillText(yLabel, 0, 0);
  }
  ctx.restore();
}
