// Painting a LinePlot: axes, series, the cursor, reference lines and their labels, and the legend
// above the plot. A reference line's label goes where no line runs (labels.js); when there is no
// such place (a narrow plot on a phone), it goes to the legend, beside a dashed swatch. The legend
// wraps onto as many rows as it needs, and the plot below it shrinks to make room.
import { drawAxes, logTicks, niceTicks } from './axes.js';
import { INK, MUTED, PLOT_FONT } from './canvas.js';
import { LabelLayout } from './labels.js';

/** @typedef {import('./lineplot-types.js').PaintedPlot} PaintedPlot */
/** @typedef {import('./lineplot-types.js').Series} Series */
/** @typedef {import('./lineplot-types.js').RefLine} RefLine */
/** @typedef {import('./axes.js').Rect} Rect */
/** @typedef {import('./labels.js').Candidate} Candidate */
/** @typedef {{ name: string, color: string, dashed: boolean }} LegendEntry */
/** @typedef {{ xPos: (x: number) => number, yPos: (y: number) => number, log: boolean, baseline: number }} Geometry */

/** Room for the legend (top: its first row) and the axes (left, bottom). */
export const MARGIN = { left: 58, right: 14, top: 26, bottom: 44 };
const ROW = 16; // px per legend row

/**
 * A line with many points per pixel column, as the points that draw the same picture: in each
 * column its first, lowest, highest and last point (in their order); null marks a gap. A sine of
 * 4096 positions across 600 pixels becomes ~2400 points instead of 4096 full-height zigzags.
 * @param {Series} s @param {Geometry} g @param {(y: number) => boolean} visible
 */
function columnPoints(s, g, visible) {
  /** @type {Array<[number, number] | null>} */
  const out = [];
  /** @type {Array<[number, number, number]>} */
  let column = []; // [x, y, index] of first, min, max, last
  let at = NaN;
  const flush = () => {
    column.sort((a, b) => a[2] - b[2]);
    let last = -1;
    for (const [x, y, i] of column) if (i !== last) { out.push([x, y]); last = i; }
    column = [];
  };
  for (let i = 0; i < s.x.length; i++) {
    if (!visible(s.y[i])) {
      flush();
      out.push(null);
      at = NaN;
      continue;
    }
    const x = g.xPos(s.x[i]);
    const y = g.yPos(s.y[i]);
    const c = Math.floor(x);
    if (c !== at) {
      flush();
      at = c;
      column = [[x, y, i], [x, y, i], [x, y, i], [x, y, i]];
    } else {
      if (y < column[1][1]) column[1] = [x, y, i];
      if (y > column[2][1]) column[2] = [x, y, i];
      column[3] = [x, y, i];
    }
  }
  flush();
  return out;
}

/**
 * Calls `segment` for each straight piece and `dot` for each marker of a series, in CSS pixels.
 * @param {Series} s @param {Geometry} g
 * @param {(x0: number, y0: number, x1: number, y1: number) => void} segment @param {(x: number, y: number, r: number, i: number) => void} dot
 */
function trace(s, g, segment, dot) {
  const visible = (/** @type {number} */ y) => Number.isFinite(y) && (!g.log || y > 0);
  const style = s.style ?? 'line';
  const span = s.x.length > 1 ? Math.abs(g.xPos(s.x[s.x.length - 1]) - g.xPos(s.x[0])) : 0;
  if (style === 'line' && s.x.length > 3 * span) {
    let prev = null;
    for (const p of columnPoints(s, g, visible)) {
      if (p && prev) segment(prev[0], prev[1], p[0], p[1]);
      prev = p;
    }
    return;
  }
  let pen = false;
  let [px, py] = [0, 0];
  const radius = s.radius ?? (s.x.length > 200 ? 1.5 : 2.5);
  for (let i = 0; i < s.x.length; i++) {
    if (!visible(s.y[i])) {
      pen = false;
      continue;
    }
    const x = g.xPos(s.x[i]);
    const y = g.yPos(s.y[i]);
    if (style === 'line') {
      if (pen) segment(px, py, x, y);
      [px, py, pen] = [x, y, true];
    } else {
      if (style === 'stems') segment(x, g.baseline, x, y);
      dot(x, y, s.highlight === i ? radius + 2 : radius, i);
    }
  }
}

/** @param {CanvasRenderingContext2D} ctx @param {Series} s @param {Geometry} g */
function paintSeries(ctx, s, g) {
  ctx.strokeStyle = s.color;
  ctx.fillStyle = s.color;
  ctx.lineWidth = s.width ?? 1.75;
  if ((s.style ?? 'line') === 'line') {
    ctx.beginPath();
    let [lx, ly] = [NaN, NaN];
    trace(s, g, (x0, y0, x1, y1) => {
      if (x0 !== lx || y0 !== ly) ctx.moveTo(x0, y0); // after a gap
      ctx.lineTo(x1, y1);
      [lx, ly] = [x1, y1];
    }, () => {});
    ctx.stroke();
    return;
  }
  trace(s, g, (x0, y0, x1, y1) => {
    ctx.globalAlpha = s.highlight === undefined ? 1 : 0.45;
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
  }, (x, y, r, i) => {
    ctx.globalAlpha = s.highlight === undefined || s.highlight === i ? 1 : 0.45;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fill();
  });
  ctx.globalAlpha = 1;
}

/**
 * The dashed line at the cursor and a ring on each series there.
 * @param {CanvasRenderingContext2D} ctx @param {PaintedPlot} plot @param {Rect} r @param {Geometry} g
 */
function paintCursor(ctx, plot, r, g) {
  const first = plot.series[0];
  const i = plot.cursorIndex;
  if (i === null || !first || i >= first.x.length) return;
  const px = Math.round(g.xPos(first.x[i])) + 0.5;
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
    ctx.arc(px, g.yPos(y), 4, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
}

/**
 * Where each reference line is drawn (null when off the plot) and where its label may go.
 * @param {PaintedPlot} plot @param {Rect} r @param {Geometry} g
 * @returns {Array<{ line: RefLine, from: [number, number], to: [number, number], candidates: Candidate[] }>}
 */
function refLines(plot, r, g) {
  const out = [];
  for (const line of plot.vlines) {
    const x = g.xPos(line.at);
    if (x < r.x - 1 || x > r.x + r.w + 1) continue;
    const ys = [r.y + r.h - 4, r.y + 4, r.y + r.h / 2];
    /** @type {Candidate[]} */
    const candidates = ys.flatMap((y, k) => {
      const baseline = k === 0 ? 'bottom' : k === 1 ? 'top' : 'middle';
      return [{ x: x + 6, y, align: 'left', baseline }, { x: x - 6, y, align: 'right', baseline }];
    });
    out.push({ line, from: /** @type {[number, number]} */ ([x, r.y]), to: /** @type {[number, number]} */ ([x, r.y + r.h]), candidates });
  }
  for (const line of plot.hlines) {
    const y = g.yPos(line.at);
    if (!Number.isFinite(y) || y < r.y - 1 || y > r.y + r.h + 1) continue;
    /** @type {Candidate[]} */
    const candidates = [];
    for (const [x, align] of /** @type {Array<[number, CanvasTextAlign]>} */ ([[r.x + 6, 'left'], [r.x + r.w - 6, 'right'], [r.x + r.w / 2, 'center']])) {
      candidates.push({ x, y: y - 5, align, baseline: 'bottom' }, { x, y: y + 5, align, baseline: 'top' });
    }
    out.push({ line, from: /** @type {[number, number]} */ ([r.x, y]), to: /** @type {[number, number]} */ ([r.x + r.w, y]), candidates });
  }
  return out;
}

/**
 * The legend's entries in rows that fit `width`.
 * @param {CanvasRenderingContext2D} ctx @param {LegendEntry[]} entries @param {number} width @returns {Array<Array<LegendEntry & { x: number }>>}
 */
function legendRows(ctx, entries, width) {
  ctx.save();
  ctx.font = PLOT_FONT;
  /** @type {Array<Array<LegendEntry & { x: number }>>} */
  const rows = [];
  let x = Infinity;
  for (const e of entries) {
    const w = 18 + ctx.measureText(e.name).width; // swatch, gap, name
    if (x + w > width) {
      rows.push([]);
      x = 4;
    }
    rows[rows.length - 1]?.push({ ...e, x });
    x += w + 12;
  }
  ctx.restore();
  return rows;
}

/** @param {CanvasRenderingContext2D} ctx @param {Array<Array<LegendEntry & { x: number }>>} rows */
function paintLegend(ctx, rows) {
  ctx.save();
  ctx.font = PLOT_FONT;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  rows.forEach((row, k) => {
    const y = 10 + k * ROW;
    for (const e of row) {
      ctx.fillStyle = e.color;
      if (e.dashed) {
        ctx.fillRect(e.x, y - 1, 5, 2);
        ctx.fillRect(e.x + 9, y - 1, 5, 2);
      } else ctx.fillRect(e.x, y - 2, 14, 4);
      ctx.fillStyle = INK;
      ctx.fillText(e.name, e.x + 18, y);
    }
  });
  ctx.restore();
}

/** Paints the whole plot. @param {CanvasRenderingContext2D} ctx @param {PaintedPlot} plot @param {number} width @param {number} height */
export function paintLinePlot(ctx, plot, width, height) {
  if (plot.series.length === 0) {
    plot.top = MARGIN.top;
    const r = plot.rect();
    ctx.fillStyle = MUTED;
    ctx.font = PLOT_FONT;
    ctx.textAlign = 'center';
    ctx.fillText(plot.o.emptyText ?? 'no data', r.x + r.w / 2, r.y + r.h / 2);
    return;
  }
  const named = plot.series.filter((s) => s.name).map((s) => ({ name: s.name, color: s.color, dashed: false }));
  /** @type {Set<RefLine>} */
  let moved = new Set();
  let plan;
  // Which labels fit inside depends on the plot's height, which depends on the legend: settle it.
  for (let pass = 0; pass < 3; pass++) {
    const rows = legendRows(ctx, [...named, ...[...moved].map((l) => ({ name: l.label, color: l.color ?? INK, dashed: true }))], width - 8);
    plot.top = Math.max(MARGIN.top, 10 + rows.length * ROW);
    const r = plot.rect();
    if (r.w < 10 || r.h < 10) return;
    const e = plot.extent();
    const log = plot.o.yScale === 'log';
    const { xPos, yPos } = plot.scales(r, e);
    const g = { xPos, yPos, log, baseline: yPos(log ? e.y0 : Math.max(e.y0, Math.min(e.y1, 0))) };
    const layout = new LabelLayout(width, height);
    // labels stay inside the plot: everything outside it counts as taken
    layout.box({ x: 0, y: 0, w: width, h: r.y });
    layout.box({ x: 0, y: r.y + r.h, w: width, h: height - r.y - r.h });
    layout.box({ x: 0, y: 0, w: r.x, h: height });
    layout.box({ x: r.x + r.w, y: 0, w: width - r.x - r.w, h: height });
    for (const s of plot.series) trace(s, g, (x0, y0, x1, y1) => layout.segment(x0, y0, x1, y1), (x, y, rad) => layout.box({ x: x - rad, y: y - rad, w: 2 * rad, h: 2 * rad }));
    const lines = refLines(plot, r, g);
    for (const l of lines) layout.segment(...l.from, ...l.to);
    const placed = lines.filter((l) => l.line.label).map((l) => ({ l, spot: layout.place(ctx, l.line.label, l.candidates) }));
    const nowMoved = new Set(placed.filter((p) => !p.spot || p.spot.cost > 0).map((p) => p.l.line));
    plan = { rows, r, g, lines, placed, layout };
    if (nowMoved.size === moved.size && [...nowMoved].every((l) => moved.has(l))) break;
    moved = nowMoved;
  }
  if (!plan) return;
  const { rows, r, g, lines, placed, layout } = plan;
  const e = plot.extent();
  const xTicks = plot.xTicks(e, r.w);
  const yTicks = g.log ? logTicks(e.y0, e.y1) : niceTicks(e.y0, e.y1, Math.max(2, Math.floor(r.h / 40)));
  drawAxes(ctx, r, { xTicks, yTicks, xPos: g.xPos, yPos: g.yPos, xLabel: plot.o.xLabel, yLabel: plot.o.yLabel });
  ctx.save();
  ctx.beginPath();
  ctx.rect(r.x, r.y, r.w, r.h);
  ctx.clip();
  for (const s of plot.series) paintSeries(ctx, s, g);
  paintCursor(ctx, plot, r, g);
  ctx.lineWidth = 1.25;
  ctx.setLineDash([6, 4]);
  for (const l of lines) {
    ctx.strokeStyle = l.line.color ?? INK;
    ctx.beginPath();
    ctx.moveTo(...l.from);
    ctx.lineTo(...l.to);
    ctx.stroke();
  }
  ctx.restore();
  for (const { l, spot } of placed) {
    if (spot && spot.cost === 0) {
      LabelLayout.write(ctx, l.line.label, spot.at, l.line.color ?? INK);
      layout.placed++;
    }
  }
  layout.report(plot.plot.canvas);
  plot.plot.canvas.dataset.legendLabels = String(moved.size);
  paintLegend(ctx, rows);
}
