// A line plot on a canvas: several series (lines, dots or stems), linear or log y axis,
// reference lines, a legend, and a hover/keyboard cursor along x that the owner turns into a readout.
import { drawAxes, logTicks, niceTicks } from './axes.js';
import { INK, MUTED, PLOT_FONT, PlotCanvas } from './canvas.js';

const MARGIN = { left: 58, right: 14, top: 26, bottom: 44 };

export class LinePlot {
  /**
   * @param {HTMLElement} container  a fixed-height ".plot-area" element
   * @param {object} o
   * @param {string} o.label  accessible name
   * @param {string} o.xLabel
   * @param {string} o.yLabel
   * @param {'linear'|'log'} [o.yScale]
   * @param {[number, number]} [o.yRange]  fixed y range (default: fit the data)
   * @param {number} [o.xPad]  extra room on both sides of x (e.g. half a bar)
   * @param {(x: number) => void} [o.onCursor]  the cursor moved to x (a value of the first series' x)
   */
  constructor(container, o) {
    this.o = o;
    this.series = [];
    this.vlines = [];
    this.hlines = [];
    this.cursorIndex = null;
    this.plot = new PlotCanvas(container, (ctx, w, h) => this.paint(ctx, w, h), o.label);
    const canvas = this.plot.canvas;
    if (o.onCursor) {
      canvas.tabIndex = 0;
      canvas.setAttribute('role', 'application');
      canvas.setAttribute('aria-roledescription', 'line plot');
      canvas.addEventListener('pointermove', (e) => this.pointer(e));
      canvas.addEventListener('pointerdown', (e) => this.pointer(e));
      canvas.addEventListener('keydown', (e) => this.key(e));
    }
  }

  /**
   * @param {Array<{name: string, color: string, x: ArrayLike<number>, y: ArrayLike<number>,
   *   style?: 'line'|'dots'|'stems', width?: number, highlight?: number}>} series
   */
  setSeries(series, { yRange } = {}) {
    this.series = series;
    if (yRange) this.o.yRange = yRange;
    this.plot.redraw();
  }

  /** Vertical and horizontal reference lines: [{ at, label, color, side: 'left' | 'right' (hlines' label) }]. */
  setLines({ vlines = [], hlines = [] } = {}) {
    this.vlines = vlines;
    this.hlines = hlines;
    this.plot.redraw();
  }

  /** Puts the cursor on point `index` of the first series. */
  setCursorIndex(index, notify = false) {
    const first = this.series[0];
    if (!first || first.x.length === 0) return;
    this.cursorIndex = Math.max(0, Math.min(first.x.length - 1, index));
    this.plot.redraw();
    if (notify) this.o.onCursor?.(first.x[this.cursorIndex], this.cursorIndex);
  }

  rect() {
    return { x: MARGIN.left, y: MARGIN.top, w: this.plot.width - MARGIN.left - MARGIN.right, h: this.plot.height - MARGIN.top - MARGIN.bottom };
  }

  extent() {
    let x0 = Infinity;
    let x1 = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    const log = this.o.yScale === 'log';
    for (const s of this.series) {
      for (let i = 0; i < s.x.length; i++) {
        x0 = Math.min(x0, s.x[i]);
        x1 = Math.max(x1, s.x[i]);
        const y = s.y[i];
        if (Number.isFinite(y) && (!log || y > 0)) {
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y);
        }
      }
    }
    for (const l of this.hlines) {
      y0 = Math.min(y0, l.at);
      y1 = Math.max(y1, l.at);
    }
    if (this.o.xPad) {
      x0 -= this.o.xPad;
      x1 += this.o.xPad;
    }
    if (this.o.xRange) [x0, x1] = this.o.xRange;
    if (this.o.yRange) [y0, y1] = this.o.yRange;
    if (!(x1 > x0)) x1 = x0 + 1;
    if (!(y1 > y0)) {
      y0 -= 1;
      y1 += 1;
    }
    if (!this.o.yRange) {
      if (log) {
        y0 = 10 ** Math.floor(Math.log10(y0));
        y1 = 10 ** Math.ceil(Math.log10(y1));
      } else {
        const pad = (y1 - y0) * 0.05;
        y0 -= pad;
        y1 += pad;
      }
    }
    return { x0, x1, y0, y1 };
  }

  scales(r, e) {
    const log = this.o.yScale === 'log';
    const xPos = (x) => r.x + ((x - e.x0) / (e.x1 - e.x0)) * r.w;
    const yPos = log
      ? (y) => r.y + r.h - ((Math.log10(y) - Math.log10(e.y0)) / (Math.log10(e.y1) - Math.log10(e.y0))) * r.h
      : (y) => r.y + r.h - ((y - e.y0) / (e.y1 - e.y0)) * r.h;
    return { xPos, yPos };
  }

  pointer(event) {
    const first = this.series[0];
    if (!first || first.x.length === 0) return;
    const box = this.plot.canvas.getBoundingClientRect();
    const r = this.rect();
    const e = this.extent();
    const xv = e.x0 + ((event.clientX - box.left - r.x) / r.w) * (e.x1 - e.x0);
    let best = 0;
    for (let i = 1; i < first.x.length; i++) if (Math.abs(first.x[i] - xv) < Math.abs(first.x[best] - xv)) best = i;
    this.setCursorIndex(best, true);
  }

  key(event) {
    const first = this.series[0];
    if (!first) return;
    const i = this.cursorIndex ?? 0;
    const step = event.shiftKey ? 10 : 1;
    const to = { ArrowLeft: i - step, ArrowRight: i + step, ArrowDown: i - step, ArrowUp: i + step, Home: 0, End: first.x.length - 1 }[event.key];
    if (to === undefined) return;
    this.setCursorIndex(to, true);
    event.preventDefault();
  }

  paint(ctx, width) {
    const r = this.rect();
    if (r.w < 10 || r.h < 10) return;
    if (this.series.length === 0) {
      ctx.fillStyle = MUTED;
      ctx.font = PLOT_FONT;
      ctx.textAlign = 'center';
      ctx.fillText(this.o.emptyText ?? 'no data', r.x + r.w / 2, r.y + r.h / 2);
      return;
    }
    const e = this.extent();
    const { xPos, yPos } = this.scales(r, e);
    const log = this.o.yScale === 'log';
    const xTicks = niceTicks(e.x0, e.x1, Math.max(2, Math.floor(r.w / 70)));
    const yTicks = log ? logTicks(e.y0, e.y1) : niceTicks(e.y0, e.y1, Math.max(2, Math.floor(r.h / 40)));
    drawAxes(ctx, r, { xTicks, yTicks, xPos, yPos, xLabel: this.o.xLabel, yLabel: this.o.yLabel });
    ctx.save();
    ctx.beginPath();
    ctx.rect(r.x, r.y, r.w, r.h);
    ctx.clip();
    for (const l of this.hlines) this.refLine(ctx, r, l, null, yPos(l.at));
    for (const l of this.vlines) this.refLine(ctx, r, l, xPos(l.at), null);
    const y0 = log ? e.y0 : Math.max(e.y0, Math.min(e.y1, 0));
    for (const s of this.series) {
      ctx.strokeStyle = s.color;
      ctx.fillStyle = s.color;
      ctx.lineWidth = s.width ?? 1.75;
      const style = s.style ?? 'line';
      if (style === 'line') {
        ctx.beginPath();
        let pen = false;
        for (let i = 0; i < s.x.length; i++) {
          const y = s.y[i];
          if (!Number.isFinite(y) || (log && y <= 0)) {
            pen = false;
            continue;
          }
          if (pen) ctx.lineTo(xPos(s.x[i]), yPos(y));
          else ctx.moveTo(xPos(s.x[i]), yPos(y));
          pen = true;
        }
        ctx.stroke();
      } else {
        const radius = s.radius ?? (s.x.length > 200 ? 1.5 : 2.5);
        for (let i = 0; i < s.x.length; i++) {
          const y = s.y[i];
          if (!Number.isFinite(y) || (log && y <= 0)) continue;
          const px = xPos(s.x[i]);
          const py = yPos(y);
          if (style === 'stems') {
            ctx.globalAlpha = s.highlight === undefined || s.highlight === i ? 1 : 0.45;
            ctx.beginPath();
            ctx.moveTo(px, yPos(y0));
            ctx.lineTo(px, py);
            ctx.stroke();
          }
          ctx.beginPath();
          ctx.arc(px, py, s.highlight === i ? radius + 2 : radius, 0, 2 * Math.PI);
          ctx.fill();
        }
        ctx.globalAlpha = 1;
      }
    }
    const first = this.series[0];
    if (this.cursorIndex !== null && first && this.cursorIndex < first.x.length) {
      const px = Math.round(xPos(first.x[this.cursorIndex])) + 0.5;
      ctx.strokeStyle = 'rgba(0,0,0,0.6)';
      ctx.lineWidth = 1;
      ctx.setLineDash([3, 3]);
      ctx.beginPath();
      ctx.moveTo(px, r.y);
      ctx.lineTo(px, r.y + r.h);
      ctx.stroke();
      ctx.setLineDash([]);
      for (const s of this.series) {
        const y = s.y[this.cursorIndex];
        if (s.x[this.cursorIndex] !== first.x[this.cursorIndex] || !Number.isFinite(y)) continue;
        ctx.fillStyle = '#fff';
        ctx.strokeStyle = s.color;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(px, yPos(y), 4, 0, 2 * Math.PI);
        ctx.fill();
        ctx.stroke();
      }
    }
    ctx.restore();
    this.legend(ctx, r, width);
  }

  refLine(ctx, r, l, x, y) {
    ctx.save();
    ctx.strokeStyle = l.color ?? INK;
    ctx.fillStyle = l.color ?? INK;
    ctx.lineWidth = 1.25;
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    if (x !== null) {
      ctx.moveTo(x, r.y);
      ctx.lineTo(x, r.y + r.h);
    } else {
      ctx.moveTo(r.x, y);
      ctx.lineTo(r.x + r.w, y);
    }
    ctx.stroke();
    ctx.font = PLOT_FONT;
    if (l.label) {
      if (x !== null) {
        ctx.textAlign = x > r.x + r.w * 0.7 ? 'right' : 'left';
        ctx.textBaseline = 'top';
        ctx.textBaseline = 'bottom';
        ctx.fillText(l.label, x + (ctx.textAlign === 'left' ? 4 : -4), r.y + r.h - 4);
      } else {
        const right = l.side === 'right';
        ctx.textAlign = right ? 'right' : 'left';
        ctx.textBaseline = y < r.y + 18 ? 'top' : 'bottom';
        ctx.fillText(l.label, right ? r.x + r.w - 6 : r.x + 6, y + (ctx.textBaseline === 'top' ? 3 : -3));
      }
    }
    ctx.restore();
  }

  /** One row above the plot, from the canvas's left edge; what does not fit is counted ("+2"). */
  legend(ctx, r) {
    ctx.save();
    ctx.font = PLOT_FONT;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    const named = this.series.filter((s) => s.name);
    const widths = named.map((s) => 18 + ctx.measureText(s.name).width); // swatch, gap, name
    const right = r.x + r.w;
    const more = (n) => (n > 0 ? 8 + ctx.measureText(`+${n}`).width : 0);
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
}
