// A heatmap of a [rows, cols] matrix on a canvas: axes in the matrix's own units (or token labels),
// a colour legend with its unit, and a cursor cell that follows the mouse, a tap, a sideways drag
// and the keyboard (arrows, Shift for 10, Page Up/Down, Home/End; Enter or a click selects). A
// matrix larger than the plot's pixels is shown averaged to them (compute/resample.js), never sampled.
// Entries that are not finite numbers (a −∞ mask) are grey, with a swatch in the legend.
import { drawAxes, niceTicks } from './axes.js';
import { INK, MUTED, PLOT_FONT, PlotCanvas, interactive } from './canvas.js';
import { ColorMap } from './colormap.js';
import { paintLegend } from './heatmap-legend.js';
import { areaAverage } from '../compute/resample.js';
import { tick } from '../ui/format.js';

/** Room around the cells for the axes (left, bottom) and the legend (right). */
export const MARGIN = { left: 56, right: 78, top: 10, bottom: 44 };

/**
 * @typedef {{ values: Float32Array, rows: number, cols: number }} Grid
 * @typedef {object} MatrixData
 * @property {Float32Array} values  row-major [rows, cols]
 * @property {number} rows
 * @property {number} cols
 * @property {readonly [number, number]} range  the colour scale's [lo, hi]
 * @property {import('./colormap.js').ColormapName} [colormap]  'diverging' (default) or 'sequential'
 * @property {string} [legendNote]  added to the legend's title, e.g. '(first 362 positions)'
 * @property {readonly string[]} [rowLabels]  names of the rows (tokens) instead of numbers
 * @property {readonly string[]} [colLabels]
 * @property {Grid} [view]  the matrix already averaged to the plot's pixels (by a worker)
 */

/**
 * @typedef {object} HeatmapOptions
 * @property {string} label  accessible name
 * @property {string} xLabel  e.g. 'dimension j'
 * @property {string} yLabel  e.g. 'position p'
 * @property {string} legendLabel  what the colour means, with its unit
 * @property {string} [emptyText]  shown before any data
 * @property {(cell: Cell) => void} [onCursor]  the cursor moved (by the reader)
 * @property {(cell: Cell) => void} [onSelect]  Enter / click on a cell
 * @property {Partial<typeof MARGIN>} [margin]
 * @property {(v: number) => string} [cellText]  writes each value in its cell when cells are large enough
 */

/** @typedef {{ row: number, col: number }} Cell */

export class Heatmap {
  /** @param {HTMLElement} container  a ".plot-area" element @param {HeatmapOptions} o */
  constructor(container, o) {
    this.o = o;
    this.margin = { ...MARGIN, ...o.margin };
    /** @type {MatrixData | null} */
    this.matrix = null;
    /** @type {Cell | null} */
    this.cursor = null;
    this.colors = new ColorMap('diverging', [-1, 1]);
    this.image = document.createElement('canvas');
    this.imageKey = '';
    this.masked = false;
    this.plot = new PlotCanvas(container, (ctx, w) => this.paint(ctx, w), o.label);
    interactive(this.plot, 'heatmap', { pointer: (e, press) => this.pointer(e, press), key: (e) => this.key(e) });
    this.plot.canvas.addEventListener('focus', () => {
      if (!this.cursor && this.matrix) this.setCursor(0, 0, true);
    });
  }

  /** Shows a matrix (keeps the cursor on the same cell, clamped). @param {MatrixData} data */
  setData(data) {
    this.matrix = data;
    this.colors = new ColorMap(data.colormap ?? 'diverging', data.range);
    this.imageKey = '';
    this.render(); // now, in the caller's task, rather than in the next frame's paint
    if (this.cursor) this.setCursor(Math.min(this.cursor.row, data.rows - 1), Math.min(this.cursor.col, data.cols - 1));
    this.plot.redraw();
  }

  /** Clears the picture (shows `emptyText`). @param {string} [text] */
  clear(text) {
    if (text !== undefined) this.o.emptyText = text;
    this.matrix = null;
    this.plot.redraw();
  }

  /** The value at a cell. @param {number} row @param {number} col */
  value(row, col) {
    const m = /** @type {MatrixData} */ (this.matrix);
    return m.values[row * m.cols + col];
  }

  /** The cells' rectangle in CSS pixels. */
  rect() {
    const m = this.margin;
    return { x: m.left, y: m.top, w: this.plot.width - m.left - m.right, h: this.plot.height - m.top - m.bottom };
  }

  /** The device pixels of the cells' rectangle: the most rows and columns the picture can show. */
  pixels() {
    const r = this.rect();
    return { rows: Math.max(1, Math.round(r.h * this.plot.dpr)), cols: Math.max(1, Math.round(r.w * this.plot.dpr)) };
  }

  /** Builds the picture: the matrix, averaged to the plot's pixels where it has more cells. */
  render() {
    const m = this.matrix;
    if (!m) return;
    const px = this.pixels();
    const rows = Math.min(m.rows, px.rows);
    const cols = Math.min(m.cols, px.cols);
    const key = `${rows}x${cols}`;
    if (key === this.imageKey) return;
    /** @type {Grid} */
    const view = m.view && m.view.rows === rows && m.view.cols === cols
      ? m.view
      : { values: areaAverage(m.values, m.rows, m.cols, rows, cols), rows, cols };
    this.image.width = cols;
    this.image.height = rows;
    const ictx = /** @type {CanvasRenderingContext2D} */ (this.image.getContext('2d'));
    const pixels = ictx.createImageData(cols, rows);
    this.masked = this.colors.paint(view.values, pixels.data);
    ictx.putImageData(pixels, 0, 0);
    this.imageKey = key;
    this.plot.canvas.dataset.shown = `${rows}x${cols} of ${m.rows}x${m.cols}`; // averaged or not, for the tests
  }

  /** Moves the cursor (clamped to the matrix); `notify` calls onCursor. @param {number} row @param {number} col */
  setCursor(row, col, notify = false) {
    if (!this.matrix) return;
    this.cursor = { row: Math.max(0, Math.min(this.matrix.rows - 1, row)), col: Math.max(0, Math.min(this.matrix.cols - 1, col)) };
    this.plot.redraw();
    if (notify) this.o.onCursor?.(this.cursor);
  }

  /** @param {PointerEvent} event @param {boolean} press */
  pointer(event, press) {
    if (!this.matrix) return;
    const r = this.rect();
    const p = this.plot.local(event);
    const x = p.x - r.x;
    const y = p.y - r.y;
    if (x < 0 || y < 0 || x >= r.w || y >= r.h) return;
    this.setCursor(Math.floor((y / r.h) * this.matrix.rows), Math.floor((x / r.w) * this.matrix.cols), true);
    if (press && this.cursor) this.o.onSelect?.(this.cursor);
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    if (!this.matrix) return;
    const { row, col } = this.cursor ?? { row: 0, col: 0 };
    const step = event.shiftKey ? 10 : 1;
    const page = Math.max(1, Math.round(this.matrix.rows / 16));
    /** @type {Record<string, [number, number]>} */
    const moves = {
      ArrowUp: [-step, 0], ArrowDown: [step, 0], ArrowLeft: [0, -step], ArrowRight: [0, step],
      PageUp: [-page, 0], PageDown: [page, 0], Home: [-row, -col], End: [this.matrix.rows, this.matrix.cols],
    };
    const move = moves[event.key];
    if (move) {
      this.setCursor(row + move[0], col + move[1], true);
      event.preventDefault();
    } else if ((event.key === 'Enter' || event.key === ' ') && this.cursor) {
      this.o.onSelect?.(this.cursor);
      event.preventDefault();
    }
  }

  /** @param {CanvasRenderingContext2D} ctx @param {number} width */
  paint(ctx, width) {
    const r = this.rect();
    if (r.w < 10 || r.h < 10) return;
    const m = this.matrix;
    if (!m) {
      ctx.fillStyle = MUTED;
      ctx.font = PLOT_FONT;
      ctx.textAlign = 'center';
      ctx.fillText(this.o.emptyText ?? 'no data', r.x + r.w / 2, r.y + r.h / 2);
      return;
    }
    this.render(); // a no-op unless the plot changed size
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.image, r.x, r.y, r.w, r.h);
    const xPos = (/** @type {number} */ c) => r.x + ((c + 0.5) / m.cols) * r.w;
    const yPos = (/** @type {number} */ p) => r.y + ((p + 0.5) / m.rows) * r.h;
    ctx.font = PLOT_FONT;
    const xAxis = m.colLabels
      ? labelTicks(ctx, m.colLabels, r.w / m.cols - 4)
      : { ticks: niceTicks(0, m.cols - 1, Math.max(2, Math.floor(r.w / 70))).filter(Number.isInteger), label: tick };
    const yAxis = m.rowLabels
      ? labelTicks(ctx, m.rowLabels, this.margin.left - 22, r.h / m.rows < 14)
      : { ticks: niceTicks(0, m.rows - 1, Math.max(2, Math.floor(r.h / 45))).filter(Number.isInteger), label: tick };
    drawAxes(ctx, r, {
      xTicks: xAxis.ticks, yTicks: yAxis.ticks, xPos, yPos, xLabel: this.o.xLabel, yLabel: this.o.yLabel, grid: false,
      xTickLabel: xAxis.label, yTickLabel: yAxis.label,
    });
    if (this.o.cellText) this.paintCellText(ctx, r, m, this.o.cellText);
    if (this.cursor) this.paintCursor(ctx, r, m, this.cursor);
    paintLegend(ctx, { top: r.y + 4, height: r.h - 8, x: width - this.margin.right + 12, right: width }, this.colors,
      this.o.legendLabel + (m.legendNote ? ` ${m.legendNote}` : ''), this.masked);
  }

  /**
   * @param {CanvasRenderingContext2D} ctx @param {import('./axes.js').Rect} r @param {MatrixData} m @param {Cell} cursor
   */
  paintCursor(ctx, r, m, cursor) {
    const cw = r.w / m.cols;
    const ch = r.h / m.rows;
    const x = r.x + cursor.col * cw;
    const y = r.y + cursor.row * ch;
    ctx.save();
    ctx.lineWidth = 1;
    ctx.strokeStyle = 'rgba(0, 0, 0, 0.55)';
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(r.x, y + ch / 2);
    ctx.lineTo(r.x + r.w, y + ch / 2);
    ctx.moveTo(x + cw / 2, r.y);
    ctx.lineTo(x + cw / 2, r.y + r.h);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#000';
    ctx.strokeRect(x - 1, y - 1, Math.max(cw, 3) + 2, Math.max(ch, 3) + 2);
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 1;
    ctx.strokeRect(x - 2.5, y - 2.5, Math.max(cw, 3) + 5, Math.max(ch, 3) + 5);
    ctx.restore();
  }

  /**
   * Writes each value in its cell (dark or light text by the cell's colour) when the cells are large.
   * @param {CanvasRenderingContext2D} ctx @param {import('./axes.js').Rect} r @param {MatrixData} m @param {(v: number) => string} text
   */
  paintCellText(ctx, r, m, text) {
    const cw = r.w / m.cols;
    const ch = r.h / m.rows;
    if (cw < 40 || ch < 18) return;
    ctx.save();
    ctx.font = PLOT_FONT;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let row = 0; row < m.rows; row++) {
      for (let col = 0; col < m.cols; col++) {
        const v = m.values[row * m.cols + col];
        const [red, green, blue] = this.colors.rgb(v);
        ctx.fillStyle = 0.299 * red + 0.587 * green + 0.114 * blue > 140 || !Number.isFinite(v) ? INK : '#fff';
        ctx.fillText(text(v), r.x + (col + 0.5) * cw, r.y + (row + 0.5) * ch);
      }
    }
    ctx.restore();
  }
}

/**
 * Ticks for labelled rows/columns: every label that fits in `room` px (truncated with …), else every k-th.
 * @param {CanvasRenderingContext2D} ctx @param {readonly string[]} labels @param {number} room
 */
function labelTicks(ctx, labels, room, sparse = false) {
  const widest = Math.max(...labels.map((l) => ctx.measureText(l).width));
  const step = sparse ? Math.ceil(labels.length / 12) : room >= Math.min(widest, 24) ? 1 : Math.ceil(Math.min(widest, 24) / Math.max(room, 1));
  const ticks = [];
  for (let i = 0; i < labels.length; i += step) ticks.push(i);
  /** @param {string} text */
  const fit = (text) => {
    const max = Math.max(room * step, 18);
    if (ctx.measureText(text).width <= max) return text;
    let t = text;
    while (t.length > 1 && ctx.measureText(`${t}…`).width > max) t = t.slice(0, -1);
    return `${t}…`;
  };
  return { ticks, label: (/** @type {number} */ t) => fit(labels[t] ?? '') };
}
