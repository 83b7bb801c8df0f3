// A strip of categories, one column per item and one row per aspect (a model's layers: what each
// does with positions, and which keys it attends to), each category a colour named in a legend
// above. The cursor (a column) follows the mouse, a tap and the arrow keys (Shift: 10, Home/End).
import { interactive, INK, MUTED, PLOT_FONT, PlotCanvas } from './canvas.js';
import { tick } from '../ui/format.js';

/**
 * @typedef {object} StripRow  one aspect: each column's category (an index into `categories`)
 * @property {string} name
 * @property {string[]} categories
 * @property {string[]} colors  one per category
 * @property {number[]} values  one per column
 */

const LEFT = 84;
const RIGHT = 10;
const ROW_HEIGHT = 34;
const LEGEND_ROW = 17;

export class LayerStrip {
  /** @param {HTMLElement} container @param {{ label: string, xLabel: string, onCursor: (column: number) => void }} o */
  constructor(container, o) {
    this.o = o;
    /** @type {StripRow[]} */
    this.rows = [];
    this.columns = 0;
    /** @type {number | null} */
    this.cursor = null;
    this.top = 0;
    this.plot = new PlotCanvas(container, (ctx, w, h) => this.paint(ctx, w, h), o.label);
    interactive(this.plot, 'layer strip', { pointer: (e) => this.pointer(e), key: (e) => this.key(e) });
  }

  /** @param {StripRow[]} rows @param {number} columns */
  setRows(rows, columns) {
    this.rows = rows;
    this.columns = columns;
    if (this.cursor !== null) this.cursor = Math.min(this.cursor, columns - 1);
    this.plot.redraw();
  }

  /** @param {number} column */
  setCursor(column, notify = false) {
    if (!this.columns) return;
    this.cursor = Math.max(0, Math.min(this.columns - 1, column));
    this.plot.redraw();
    if (notify) this.o.onCursor(this.cursor);
  }

  /** The legend's entries, in rows that fit the width. @param {CanvasRenderingContext2D} ctx @param {number} width */
  legend(ctx, width) {
    ctx.font = PLOT_FONT;
    /** @type {Array<Array<{ name: string, color: string, x: number }>>} */
    const lines = [];
    let x = Infinity;
    for (const row of this.rows) {
      row.categories.forEach((name, k) => {
        const w = 18 + ctx.measureText(name).width;
        if (x + w > width) {
          lines.push([]);
          x = 4;
        }
        lines[lines.length - 1]?.push({ name, color: /** @type {string} */ (row.colors[k]), x });
        x += w + 14;
      });
    }
    return lines;
  }

  rect() {
    return { x: LEFT, y: this.top, w: this.plot.width - LEFT - RIGHT, h: this.rows.length * ROW_HEIGHT };
  }

  /** @param {CanvasRenderingContext2D} ctx @param {number} w @param {number} h */
  paint(ctx, w, h) {
    if (!this.columns || !this.rows.length) {
      ctx.fillStyle = MUTED;
      ctx.font = PLOT_FONT;
      ctx.textAlign = 'center';
      ctx.fillText('no plan yet', w / 2, h / 2);
      return;
    }
    const lines = this.legend(ctx, w - 8);
    ctx.textBaseline = 'middle';
    lines.forEach((line, k) => {
      const y = 9 + k * LEGEND_ROW;
      for (const e of line) {
        ctx.fillStyle = e.color;
        ctx.fillRect(e.x, y - 5, 14, 10);
        ctx.fillStyle = INK;
        ctx.textAlign = 'left';
        ctx.fillText(e.name, e.x + 18, y);
      }
    });
    this.top = 8 + lines.length * LEGEND_ROW + 6;
    const r = this.rect();
    const cw = r.w / this.columns;
    this.rows.forEach((row, k) => {
      const y = r.y + k * ROW_HEIGHT;
      ctx.fillStyle = MUTED;
      ctx.textAlign = 'right';
      ctx.fillText(row.name, r.x - 8, y + ROW_HEIGHT / 2);
      for (let c = 0; c < this.columns; c++) {
        ctx.fillStyle = /** @type {string} */ (row.colors[/** @type {number} */ (row.values[c])]);
        ctx.fillRect(r.x + c * cw + (cw > 4 ? 0.5 : 0), y + 3, Math.max(1, cw - (cw > 4 ? 1 : 0)), ROW_HEIGHT - 6);
      }
    });
    // layer numbers under the strip
    ctx.fillStyle = INK;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const every = Math.max(1, Math.ceil(28 / cw));
    const step = [1, 2, 4, 5, 10, 20, 50, 100].find((s) => s >= every) ?? every;
    for (let c = 0; c < this.columns; c += step) ctx.fillText(tick(c), r.x + (c + 0.5) * cw, r.y + r.h + 4);
    ctx.fillStyle = MUTED;
    ctx.fillText(this.o.xLabel, r.x + r.w / 2, r.y + r.h + 22);
    if (this.cursor !== null) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 2;
      ctx.strokeRect(r.x + this.cursor * cw - 1, r.y + 1, Math.max(cw, 3) + 2, r.h - 2);
    }
  }

  /** @param {PointerEvent} event */
  pointer(event) {
    if (!this.columns) return;
    const r = this.rect();
    const x = this.plot.local(event).x - r.x;
    if (x < 0 || x >= r.w) return;
    this.setCursor(Math.floor((x / r.w) * this.columns), true);
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    const c = this.cursor ?? 0;
    const step = event.shiftKey ? 10 : 1;
    /** @type {Record<string, number>} */
    const to = { ArrowLeft: c - step, ArrowRight: c + step, ArrowDown: c - step, ArrowUp: c + step, Home: 0, End: this.columns - 1 };
    const next = to[event.key];
    if (next === undefined) return;
    this.setCursor(next, true);
    event.preventDefault();
  }
}
