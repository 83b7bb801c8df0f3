// A line plot on a canvas: several series (lines, dots or stems), a linear or log y axis, reference
// lines with labels placed off the data (labels.js), a legend, and a cursor along x that follows
// the mouse, a tap, a sideways drag and the arrow keys; the owner turns it into a readout.
import { interactive, PlotCanvas } from './canvas.js';
import { niceTicks } from './axes.js';
import { MARGIN, paintLinePlot } from './lineplot-paint.js';

/** @typedef {import('./lineplot-types.js').Series} Series */
/** @typedef {import('./lineplot-types.js').RefLine} RefLine */
/** @typedef {import('./lineplot-types.js').LinePlotOptions} LinePlotOptions */

export class LinePlot {
  /** @param {HTMLElement} container @param {LinePlotOptions} o */
  constructor(container, o) {
    this.o = o;
    /** @type {Series[]} */
    this.series = [];
    /** @type {RefLine[]} */
    this.vlines = [];
    /** @type {RefLine[]} */
    this.hlines = [];
    /** @type {number | null} */
    this.cursorIndex = null;
    /** The top of the plot: below the legend, which may take several rows (lineplot-paint.js). */
    this.top = MARGIN.top;
    this.plot = new PlotCanvas(container, (ctx, w, h) => paintLinePlot(ctx, this, w, h), o.label);
    if (o.onCursor) interactive(this.plot, 'line plot', { pointer: (e) => this.pointer(e), key: (e) => this.key(e) });
  }

  /** @param {Series[]} series @param {{ yRange?: [number, number] }} [options] */
  setSeries(series, { yRange } = {}) {
    this.series = series;
    if (yRange) this.o.yRange = yRange;
    this.plot.redraw();
  }

  /** Vertical and horizontal reference lines. @param {{ vlines?: RefLine[], hlines?: RefLine[] }} lines */
  setLines({ vlines = [], hlines = [] } = {}) {
    this.vlines = vlines;
    this.hlines = hlines;
    this.plot.redraw();
  }

  /** Clears the plot (shows `emptyText`). @param {string} [text] */
  clear(text) {
    if (text !== undefined) this.o.emptyText = text;
    this.series = [];
    this.vlines = [];
    this.hlines = [];
    this.plot.redraw();
  }

  /** Puts the cursor on point `index` of the first series. @param {number} index */
  setCursorIndex(index, notify = false) {
    const first = this.series[0];
    if (!first || first.x.length === 0) return;
    this.cursorIndex = Math.max(0, Math.min(first.x.length - 1, index));
    this.plot.redraw();
    if (notify) this.o.onCursor?.(first.x[this.cursorIndex], this.cursorIndex);
  }

  rect() {
    return { x: MARGIN.left, y: this.top, w: this.plot.width - MARGIN.left - MARGIN.right, h: this.plot.height - this.top - MARGIN.bottom };
  }

  /** The data's extent, padded, with the options' fixed ranges. */
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
    if (this.o.yZero && !log) {
      y0 = Math.min(y0, 0);
      y1 = Math.max(y1, 0);
    }
    if (this.o.xPad) {
      x0 -= this.o.xPad;
      x1 += this.o.xPad;
    }
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
        y0 = this.o.yZero && y0 === 0 ? 0 : y0 - pad; // an axis that starts at 0 starts there exactly
        y1 += pad;
      }
    }
    return { x0, x1, y0, y1 };
  }

  /** How x is laid out: the identity, or log(1 + x). */
  xMap() {
    return this.o.xScale === 'log1p' ? { f: Math.log1p, inverse: Math.expm1 } : { f: (/** @type {number} */ x) => x, inverse: (/** @type {number} */ x) => x };
  }

  /** The x ticks for the extent `e` in a plot `width` pixels wide. @param {{ x0: number, x1: number }} e @param {number} width */
  xTicks(e, width) {
    if (this.o.xScale !== 'log1p') return niceTicks(e.x0, e.x1, Math.max(2, Math.floor(width / 70)));
    const { f } = this.xMap();
    const candidates = [0];
    for (let p = 1; p <= 1e9 && p <= e.x1; p *= 10) candidates.push(p, 2 * p, 5 * p);
    const ticks = [];
    let last = -Infinity;
    for (const t of candidates.filter((v) => v >= e.x0 && v <= e.x1).sort((a, b) => a - b)) {
      const at = ((f(t) - f(e.x0)) / (f(e.x1) - f(e.x0))) * width;
      if (at - last >= 34) {
        ticks.push(t);
        last = at;
      }
    }
    return ticks;
  }

  /** @param {import('./axes.js').Rect} r @param {{ x0: number, x1: number, y0: number, y1: number }} e */
  scales(r, e) {
    const log = this.o.yScale === 'log';
    const { f } = this.xMap();
    const xPos = (/** @type {number} */ x) => r.x + ((f(x) - f(e.x0)) / (f(e.x1) - f(e.x0))) * r.w;
    const yPos = log
      ? (/** @type {number} */ y) => r.y + r.h - ((Math.log10(y) - Math.log10(e.y0)) / (Math.log10(e.y1) - Math.log10(e.y0))) * r.h
      : (/** @type {number} */ y) => r.y + r.h - ((y - e.y0) / (e.y1 - e.y0)) * r.h;
    return { xPos, yPos };
  }

  /** @param {PointerEvent} event */
  pointer(event) {
    const first = this.series[0];
    if (!first || first.x.length === 0) return;
    const r = this.rect();
    const e = this.extent();
    const { f, inverse } = this.xMap();
    const xv = inverse(f(e.x0) + ((this.plot.local(event).x - r.x) / r.w) * (f(e.x1) - f(e.x0)));
    let best = 0;
    for (let i = 1; i < first.x.length; i++) if (Math.abs(first.x[i] - xv) < Math.abs(first.x[best] - xv)) best = i;
    this.setCursorIndex(best, true);
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    const first = this.series[0];
    if (!first) return;
    const i = this.cursorIndex ?? 0;
    const step = event.shiftKey ? 10 : 1;
    /** @type {Record<string, number>} */
    const targets = { ArrowLeft: i - step, ArrowRight: i + step, ArrowDown: i - step, ArrowUp: i + step, Home: 0, End: first.x.length - 1 };
    const to = targets[event.key];
    if (to === undefined) return;
    this.setCursorIndex(to, true);
    event.preventDefault();
  }
}
