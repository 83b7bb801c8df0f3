// A heatmap of a [rows, cols] matrix on a canvas: one cell per value, axes in the matrix's own
// units, a colour legend with its unit, and a cursor cell that follows the mouse and the keyboard
// (arrows, Page Up/Down, Home/End; Enter or a click selects). The owner renders the readout.
// Rows and columns may carry labels (tokens) instead of numbers; entries that are not finite
// numbers (a −∞ mask) are grey, with a swatch in the legend.
import { niceTicks, tickLabel, drawAxes } from './axes.js';
import { INK, MUTED, PLOT_FONT, PlotCanvas } from './canvas.js';
import { ColorMap, MASKED_CSS } from './colormap.js';

const MARGIN = { left: 56, right: 78, top: 10, bottom: 44 };

export class Heatmap {
  /**
   * @param {HTMLElement} container  a fixed-height ".plot-area" element
   * @param {object} o
   * @param {string} o.label  accessible name
   * @param {string} o.xLabel  e.g. 'dimension j'
   * @param {string} o.yLabel  e.g. 'position p'
   * @param {string} o.legendLabel  what the colour means, with its unit
   * @param {(cell: {row: number, col: number}) => void} [o.onCursor]  the cursor moved
   * @param {(cell: {row: number, col: number}) => void} [o.onSelect]  Enter / click on a cell
   * @param {{left?: number, right?: number, top?: number, bottom?: number}} [o.margin]  room for axes and legend
   * @param {(v: number) => string} [o.cellText]  writes each value in its cell when cells are large enough
   */
  constructor(container, o) {
    this.o = o;
    this.margin = { ...MARGIN, ...o.margin };
    this.matrix = null;
    this.cursor = null;
    this.image = document.createElement('canvas');
    this.plot = new PlotCanvas(container, (ctx, w, h) => this.paint(ctx, w, h), o.label);
    const canvas = this.plot.canvas;
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'application');
    canvas.setAttribute('aria-roledescription', 'heatmap');
    canvas.addEventListener('pointermove', (e) => this.pointer(e, false));
    canvas.addEventListener('pointerdown', (e) => this.pointer(e, true));
    canvas.addEventListener('keydown', (e) => this.key(e));
    canvas.addEventListener('focus', () => {
      if (!this.cursor && this.matrix) this.setCursor(0, 0, true);
    });
  }

  /**
   * Shows `values` (row-major [rows, cols]). `range` is the colour scale's [lo, hi]; `colormap`
   * 'diverging' or 'sequential'; `rowStart`/`colStart` label the first row/column (default 0);
   * `rowLabels`/`colLabels` (arrays of strings) replace the numbers on the axes.
   */
  setData({ values, rows, cols, range, colormap = 'diverging', rowStart = 0, colStart = 0, legendNote = '', rowLabels = null, colLabels = null }) {
    let masked = false;
    for (let i = 0; i < values.length && !masked; i++) masked = !Number.isFinite(values[i]);
    this.matrix = { values, rows, cols, rowStart, colStart, legendNote, rowLabels, colLabels, masked };
    this.colors = new ColorMap(colormap, range);
    this.image.width = cols;
    this.image.height = rows;
    const ictx = this.image.getContext('2d');
    const pixels = ictx.createImageData(cols, rows);
    this.colors.paint(values, pixels.data);
    ictx.putImageData(pixels, 0, 0);
    if (this.cursor) this.setCursor(Math.min(this.cursor.row, rows - 1), Math.min(this.cursor.col, cols - 1), true);
    this.plot.redraw();
  }

  /** The value at a cell. */
  value(row, col) {
    return this.matrix.values[row * this.matrix.cols + col];
  }

  /** Moves the cursor (clamped to the matrix); `notify` calls onCursor. */
  setCursor(row, col, notify = false) {
    if (!this.matrix) return;
    const r = Math.max(0, Math.min(this.matrix.rows - 1, row));
    const c = Math.max(0, Math.min(this.matrix.cols - 1, col));
    this.cursor = { row: r, col: c };
    this.plot.redraw();
    if (notify) this.o.onCursor?.(this.cursor);
  }

  rect() {
    const m = this.margin;
    return { x: m.left, y: m.top, w: this.plot.width - m.left - m.right, h: this.plot.height - m.top - m.bottom };
  }

  pointer(event, select) {
    if (!this.matrix) return;
    const box = this.plot.canvas.getBoundingClientRect();
    const r = this.rect();
    const x = event.clientX - box.left - r.x;
    const y = event.clientY - box.top - r.y;
    if (x < 0 || y < 0 || x >= r.w || y >= r.h) return;
    const col = Math.floor((x / r.w) * this.matrix.cols);
    const row = Math.floor((y / r.h) * this.matrix.rows);
    this.setCursor(row, col, true);
    if (select) this.o.onSelect?.(this.cursor);
  }

  key(event) {
    if (!this.matrix) return;
    const { row, col } = this.cursor ?? { row: 0, col: 0 };
    const big = Math.max(1, Math.round(this.matrix.rows / 16));
    const moves = {
      ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      PageUp: [-big, 0], PageDown: [big, 0], Home: [-row, -col], End: [this.matrix.rows, this.matrix.cols],
    };
    if (event.key in moves) {
      const [dr, dc] = moves[event.key];
      const step = event.shiftKey ? 10 : 1;
      this.setCursor(row + dr * (event.key.startsWith('Arrow') ? step : 1), col + dc * (event.key.startsWith('Arrow') ? step : 1), true);
      event.preventDefault();
    } else if (event.key === 'Enter' || event.key === ' ') {
      if (this.cursor) this.o.onSelect?.(this.cursor);
      event.preventDefault();
    }
  }

  paint(ctx, width, height) {
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
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.image, r.x, r.y, r.w, r.h);
    const xPos = (c) => r.x + ((c - m.colStart + 0.5) / m.cols) * r.w;
    const yPos = (p) => r.y + ((p - m.rowStart + 0.5) / m.rows) * r.h;
    ctx.font = PLOT_FONT;
    const xAxis = m.colLabels
      ? labelTicks(ctx, m.colLabels, r.w / m.cols - 4, m.colStart)
      : { ticks: niceTicks(m.colStart, m.colStart + m.cols - 1, Math.max(2, Math.floor(r.w / 70))).filter(Number.isInteger), label: tickLabel };
    const yAxis = m.rowLabels
      ? labelTicks(ctx, m.rowLabels, this.margin.left - 22, m.rowStart, r.h / m.rows < 14)
      : { ticks: niceTicks(m.rowStart, m.rowStart + m.rows - 1, Math.max(2, Math.floor(r.h / 45))).filter(Number.isInteger), label: tickLabel };
    drawAxes(ctx, r, {
      xTicks: xAxis.ticks, yTicks: yAxis.ticks, xPos, yPos, xLabel: this.o.xLabel, yLabel: this.o.yLabel, grid: false,
      xTickLabel: xAxis.label, yTickLabel: yAxis.label,
    });
    if (this.o.cellText) this.paintCellText(ctx, r);
    if (this.cursor) {
      const cw = r.w / m.cols;
      const ch = r.h / m.rows;
      const x = r.x + this.cursor.col * cw;
      const y = r.y + this.cursor.row * ch;
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
    this.paintLegend(ctx, r, width);
  }

  /** Writes each value in its cell (dark or light text by the cell's colour) when the cells are large. */
  paintCellText(ctx, r) {
    const m = this.matrix;
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
        const i = this.colors.index(v) * 3;
        const lut = this.colors.lut;
        const light = 0.299 * lut[i] + 0.587 * lut[i + 1] + 0.114 * lut[i + 2] > 140 || !Number.isFinite(v);
        ctx.fillStyle = light ? INK : '#fff';
        ctx.fillText(this.o.cellText(v), r.x + (col + 0.5) * cw, r.y + (row + 0.5) * ch);
      }
    }
    ctx.restore();
  }

  paintLegend(ctx, r, width) {
    const [lo, hi] = this.colors.range;
    const x = width - this.margin.right + 12;
    const barW = 12;
    const top = r.y + 4;
    const swatch = this.matrix.masked ? 26 : 0; // room for the grey "masked" swatch below the bar
    const h = r.h - 8 - swatch;
    for (let i = 0; i < h; i++) {
      ctx.fillStyle = this.colors.css(hi - ((hi - lo) * i) / (h - 1));
      ctx.fillRect(x, top + i, barW, 1);
    }
    ctx.strokeStyle = MUTED;
    ctx.strokeRect(x + 0.5, top + 0.5, barW, h);
    ctx.font = PLOT_FONT;
    ctx.fillStyle = INK;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    const ticks = niceTicks(lo, hi, Math.max(2, Math.floor(h / 50)));
    for (const t of ticks) {
      const y = top + ((hi - t) / (hi - lo)) * h;
      ctx.fillRect(x + barW, Math.round(y), 3, 1);
      ctx.fillText(tickLabel(t), x + barW + 5, y);
    }
    if (swatch) {
      ctx.fillStyle = MASKED_CSS;
      ctx.fillRect(x, top + h + 12, barW, 12);
      ctx.strokeRect(x + 0.5, top + h + 12.5, barW, 12);
      ctx.fillStyle = INK;
      ctx.fillText('−∞', x + barW + 5, top + h + 18);
    }
    ctx.save();
    ctx.fillStyle = MUTED;
    ctx.translate(width - 4, top + h / 2);
    ctx.rotate(Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.fillText(this.o.legendLabel + (this.matrix.legendNote ? ` ${this.matrix.legendNote}` : ''), 0, 0);
    ctx.restore();
  }
}

/** Ticks for labelled rows/columns: every label that fits in `room` px (truncated with …), else every k-th. */
function labelTicks(ctx, labels, room, start, sparse = false) {
  const widest = Math.max(...labels.map((l) => ctx.measureText(l).width));
  const step = sparse ? Math.ceil(labels.length / 12) : room >= Math.min(widest, 24) ? 1 : Math.ceil(Math.min(widest, 24) / Math.max(room, 1));
  const ticks = [];
  for (let i = 0; i < labels.length; i += step) ticks.push(start + i);
  const fit = (text) => {
    const max = Math.max(room * step, 18);
    if (ctx.measureText(text).width <= max) return text;
    let t = text;
    while (t.length > 1 && ctx.measureText(`${t}…`).width > max) t = t.slice(0, -1);
    return `${t}…`;
  };
  return { ticks, label: (t) => fit(labels[t - start] ?? '') };
}
