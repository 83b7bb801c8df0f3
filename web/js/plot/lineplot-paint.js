// Painting a LinePlot: axes, series, the cursor, reference lines and their labels (placed where
// no line runs, labels.js), and the legend row above the plot.
import { drawAxes, logTicks, niceTicks } from './axes.js';
import { INK, MUTED, PLOT_FONT } from './canvas.js';
import { LabelLayout } from './labels.js';

/** @typedef {import('./lineplot.js').LinePlot} LinePlot */
/** @typedef {import('./lineplot.js').Series} Series */
/** @typedef {import('./axes.js').Rect} Rect */

/**
 * Draws one series and marks it in the label layout.
 * @param {CanvasRenderingContext2D} ctx @param {Series} s @param {(x: number) => number} xPos @param {(y: number) => number} yPos
 * @param {boolean} log @param {number} baseline  the y of stems' feet @param {LabelLayout} layout
 */
function paintSeries(ctx, s, xPos, yPos, log, baseline, layout) {
  ctx.strokeStyle = s.color;
  ctx.fillStyle = s.color;
  ctx.lineWidth = s.width ?? 1.75;
  const style = s.style ?? 'line';
  const visible = (/** @type {number} */ y) => Number.isFinite(y) && (!log || y > 0);
  if (style === 'line') {
    ctx.beginPath();
    let pen = false;
    let px = 0;
    let py = 0;
    for (let i = 0; i < s.x.length; i++) {
      if (!visible(s.y[i])) {
        pen = false;
        continue;
      }
      const x = xPos(s.x[i]);
      const y = yPos(s.y[i]);
      if (pen) {
        ctx.lineTo(x, y);
        layout.segment(px, py, x, y);
      } else ctx.moveTo(x, y);
      [px, py, pen] = [x, y, true];
    }
    ctx.stroke();
    return;
  }
  const radius = s.radius ?? (s.x.length > 200 ? 1.5 : 2.5);
  for (let i = 0; i < s.x.length; i++) {
    if (!visible(s.y[i])) continue;
    const px = xPos(s.x[i]);
    const py = yPos(s.y[i]);
    if (style === 'stems') {
      ctx.globalAlpha = s.highlight === undefined || s.highlight === i ? 1 : 0.45;
      ctx.beginPath();
      ctx.moveTo(px, baseline);
      ctx.lineTo(px, py);
      ctx.stroke();
      layout.segment(px, baseline, px, py);
    }
    const r = s.highlight === i ? radius + 2 : radius;
    ctx.beginPath();
    ctx.arc(px, py, r, 0, 2 * Math.PI);
    ctx.fill();
    layout.box({ x: px - r, y: py - r, w: 2 * r, h: 2 * r });
  }
  ctx.globalAlpha = 1;
}

/**
 * The dashed line at the cursor and a ring on each series there.
 * @param {CanvasRenderingContext2D} ctx @param {LinePlot} plot @param {Rect} r @param {(x: number) => number} xPos @param {(y: number) => number} yPos
 */
function paintCursor(ctx, plot, r, xPos, yPos) {
  const first = plot.series[0];
  const i = plot.cursorIndex;
  if (i === null || !first || i >= first.x.length) return;
  const px = Math.round(xPos(first.x[i])) + 0.5;
  ctx.strokeStyle = 'rgba(0,0,0,0.6)';
  ctx.lineWidth = 1;
  ctx.setLineDash([3, 3]);
  ctx.beginPath();
  ctx.moveTo(px, r.y);
  ctx.lineTo(px, r.y + r.h);
  ctx.stroke();
  ctx.setLineDash([]);
  for (const s of plot.series) {
    const y = s.y[i];
    if (s.x[i] !== first.x[i] || !Number.isFinite(y)) continue;
    ctx.fillStyle = '#fff';
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(px, yPos(y), 4, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
}

/**
 * Reference lines, then their labels at the free end of each line.
 * @param {CanvasRenderingContext2D} ctx @param {LinePlot} plot @param {Rect} r @param {(x: number) => number} xPos @param {(y: number) => number} yPos
 * @param {LabelLayout} layout
 */
function paintRefLines(ctx, plot, r, xPos, yPos, layout) {
  /** @type {Array<() => void>} */
  const labels = [];
  ctx.save();
  ctx.lineWidth = 1.25;
  ctx.setLineDash([6, 4]);
  for (const l of plot.vlines) {
    const x = xPos(l.at);
    if (x < r.x - 1 || x > r.x + r.w + 1) continue;
    ctx.strokeStyle = l.color ?? INK;
    ctx.beginPath();
    ctx.moveTo(x, r.y);
    ctx.lineTo(x, r.y + r.h);
    ctx.stroke();
    layout.segment(x, r.y, x, r.y + r.h);
    if (l.label) {
      labels.push(() => layout.draw(ctx, l.label, [
        { x: x + 4, y: r.y + r.h - 4, align: 'left', baseline: 'bottom' }, { x: x - 4, y: r.y + r.h - 4, align: 'right', baseline: 'bottom' },
        { x: x + 4, y: r.y + 4, align: 'left', baseline: 'top' }, { x: x - 4, y: r.y + 4, align: 'right', baseline: 'top' },
        { x: x + 4, y: r.y + r.h / 2, align: 'left', baseline: 'middle' }, { x: x - 4, y: r.y + r.h / 2, align: 'right', baseline: 'middle' },
      ], { color: l.color ?? INK }));
    }
  }
  for (const l of plot.hlines) {
    const y = yPos(l.at);
    if (!Number.isFinite(y) || y < r.y - 1 || y > r.y + r.h + 1) continue;
    ctx.strokeStyle = l.color ?? INK;
    ctx.beginPath();
    ctx.moveTo(r.x, y);
    ctx.lineTo(r.x + r.w, y);
    ctx.stroke();
    layout.segment(r.x, y, r.x + r.w, y);
    if (l.label) {
      const left = r.x + 6;
      const right = r.x + r.w - 6;
      const mid = r.x + r.w / 2;
      labels.push(() => layout.draw(ctx, l.label, [
        { x: left, y: y - 3, align: 'left', baseline: 'bottom' }, { x: right, y: y - 3, align: 'right', baseline: 'bottom' },
        { x: left, y: y + 3, align: 'left', baseline: 'top' }, { x: right, y: y + 3, align: 'right', baseline: 'top' },
        { x: mid, y: y - 3, align: 'center', baseline: 'bottom' }, { x: mid, y: y + 3, align: 'center', baseline: 'top' },
      ], { color: l.color ?? INK }));
    }
  }
  ctx.restore();
  for (const label of labels) label();
}

/**
 * One row above the plot, from the canvas's left edge; what does not fit is counted ("+2").
 * @param {CanvasRenderingContext2D} ctx @param {LinePlot} plot @param {Rect} r
 */
function paintLegend(ctx, plot, r) {
  ctx.save();
  ctx.font = PLOT_FONT;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  const named = plot.series.filter((s) => s.name);
  const widths = named.map((s) => 18 + ctx.measureText(s.name).width); // swatch, gap, name
  const right = r.x + r.w;
  const more = (/** @type {number} */ n) => (n > 0 ? 8 + ctx.measureText(`+${n}`).width : 0);
  let x = 4;
  const y = 10;
  let shown = 0;
  while (shown < named.length && x + widths[shown] + more(named.length - shown - 1) <= right) {
    const s = named[shown];
    ctx.fillStyle = s.color;
    ctx.fillRect(x, y - 2, 14, 4);
    ctx.fillStyle = INK;
    ctx.fillText(s.name, x + 18, y);
    x += widths[shown] + 10;
    shown++;
  }
  if (shown < named.length) {
    ctx.fillStyle = INK;
    ctx.fillText(`+${named.length - shown}`, x, y);
  }
  ctx.restore();
}

/** Paints the whole plot. @param {CanvasRenderingContext2D} ctx @param {LinePlot} plot @param {number} width @param {number} height */
export function paintLinePlot(ctx, plot, width, height) {
  const r = plot.rect();
  if (r.w < 10 || r.h < 10) return;
  if (plot.series.length === 0) {
    ctx.fillStyle = MUTED;
    ctx.font = PLOT_FONT;
    ctx.textAlign = 'center';
    ctx.fillText(plot.o.emptyText ?? 'no data', r.x + r.w / 2, r.y + r.h / 2);
    return;
  }
  const e = plot.extent();
  const { xPos, yPos } = plot.scales(r, e);
  const log = plot.o.yScale === 'log';
  const xTicks = niceTicks(e.x0, e.x1, Math.max(2, Math.floor(r.w / 70)));
  const yTicks = log ? logTicks(e.y0, e.y1) : niceTicks(e.y0, e.y1, Math.max(2, Math.floor(r.h / 40)));
  drawAxes(ctx, r, { xTicks, yTicks, xPos, yPos, xLabel: plot.o.xLabel, yLabel: plot.o.yLabel });
  const layout = new LabelLayout(width, height);
  ctx.save();
  ctx.beginPath();
  ctx.rect(r.x, r.y, r.w, r.h);
  ctx.clip();
  const baseline = yPos(log ? e.y0 : Math.max(e.y0, Math.min(e.y1, 0)));
  for (const s of plot.series) paintSeries(ctx, s, xPos, yPos, log, baseline, layout);
  paintCursor(ctx, plot, r, xPos, yPos);
  ctx.restore();
  // labels stay inside the plot: everything outside it counts as taken
  layout.box({ x: 0, y: 0, w: width, h: r.y });
  layout.box({ x: 0, y: r.y + r.h, w: width, h: height - r.y - r.h });
  layout.box({ x: 0, y: 0, w: r.x, h: height });
  layout.box({ x: r.x + r.w, y: 0, w: width - r.x - r.w, h: height });
  paintRefLines(ctx, plot, r, xPos, yPos, layout);
  layout.report(plot.plot.canvas);
  paintLegend(ctx, plot, r);
}
