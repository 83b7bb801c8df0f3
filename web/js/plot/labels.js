// Labels that do not sit on the lines of a plot or on each other. What a plot draws is marked in
// a coarse grid of occupied cells; each label tries its candidate positions in order and takes the
// first free one. A label with no free place is left out, moved elsewhere by its plot (a line
// plot's legend) or, if it must be drawn, counted as an overlap. Labels have a halo of the
// background colour.
import { INK, PAPER, PLOT_FONT } from './canvas.js';

/**
 * @typedef {object} Candidate  where a label may go: its anchor and how the text sits on it
 * @property {number} x
 * @property {number} y
 * @property {CanvasTextAlign} align  'left' | 'right' | 'center'
 * @property {'top' | 'bottom' | 'middle'} baseline
 */

/** @typedef {{ x: number, y: number, w: number, h: number }} Box */

const CELL = 3; // px per grid cell: fine enough for thin lines, coarse enough to be cheap
const TEXT_HEIGHT = 14;

export class LabelLayout {
  /** @param {number} width @param {number} height  the canvas in CSS pixels */
  constructor(width, height) {
    this.cols = Math.max(1, Math.ceil(width / CELL));
    this.rows = Math.max(1, Math.ceil(height / CELL));
    this.grid = new Uint8Array(this.cols * this.rows);
    /** Labels that could not be placed on free space. */
    this.overlaps = 0;
    this.placed = 0;
  }

  /** @param {number} x @param {number} y */
  #mark(x, y) {
    const c = Math.floor(x / CELL);
    const r = Math.floor(y / CELL);
    if (c >= 0 && r >= 0 && c < this.cols && r < this.rows) this.grid[r * this.cols + c] = 1;
  }

  /** Marks a straight segment. @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1 */
  segment(x0, y0, x1, y1) {
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / (CELL / 2)));
    if (steps > 4000) return; // off-scale (a line far outside the plot): its visible part is marked by neighbours
    for (let s = 0; s <= steps; s++) this.#mark(x0 + ((x1 - x0) * s) / steps, y0 + ((y1 - y0) * s) / steps);
  }

  /** The grid cells a box covers: [c0, c1] × [r0, r1] (its right and bottom edges excluded). @param {Box} b */
  #cells(b) {
    const last = (/** @type {number} */ v) => Math.ceil(v / CELL) - 1;
    return { c0: Math.floor(b.x / CELL), c1: last(b.x + b.w), r0: Math.floor(b.y / CELL), r1: last(b.y + b.h) };
  }

  /** Marks a rectangle (text, a legend, a dot). @param {Box} b */
  box(b) {
    const { c0, c1, r0, r1 } = this.#cells(b);
    for (let r = Math.max(0, r0); r <= Math.min(this.rows - 1, r1); r++) {
      for (let c = Math.max(0, c0); c <= Math.min(this.cols - 1, c1); c++) this.grid[r * this.cols + c] = 1;
    }
  }

  /** How many occupied cells a box covers; a box that leaves the canvas costs as much as a line under it. @param {Box} b */
  cost(b) {
    const { c0, c1, r0, r1 } = this.#cells(b);
    let n = c0 < 0 || r0 < 0 || c1 >= this.cols || r1 >= this.rows ? 1000 : 0;
    for (let r = Math.max(0, r0); r <= Math.min(this.rows - 1, r1); r++) {
      for (let c = Math.max(0, c0); c <= Math.min(this.cols - 1, c1); c++) n += this.grid[r * this.cols + c];
    }
    return n;
  }

  /** The box a text takes at a candidate. @param {number} width @param {Candidate} at @returns {Box} */
  static boxOf(width, at) {
    const x = at.align === 'left' ? at.x : at.align === 'right' ? at.x - width : at.x - width / 2;
    const y = at.baseline === 'top' ? at.y : at.baseline === 'bottom' ? at.y - TEXT_HEIGHT : at.y - TEXT_HEIGHT / 2;
    return { x: x - 2, y, w: width + 4, h: TEXT_HEIGHT };
  }

  /**
   * The first free candidate for `text` (else the least covered one) and its cost; a free one is
   * marked as taken. Null without candidates.
   * @param {CanvasRenderingContext2D} ctx @param {string} text @param {Candidate[]} candidates
   */
  place(ctx, text, candidates) {
    ctx.save();
    ctx.font = PLOT_FONT;
    const width = ctx.measureText(text).width;
    ctx.restore();
    /** @type {{ at: Candidate, box: Box, cost: number } | null} */
    let best = null;
    for (const at of candidates) {
      const box = LabelLayout.boxOf(width, at);
      const cost = this.cost(box);
      if (!best || cost < best.cost) best = { at, box, cost };
      if (cost === 0) break;
    }
    if (best?.cost === 0) this.box(best.box);
    return best;
  }

  /** Writes `text` at `at` with a halo of the background colour. @param {CanvasRenderingContext2D} ctx @param {string} text @param {Candidate} at */
  static write(ctx, text, at, color = INK) {
    ctx.save();
    ctx.font = PLOT_FONT;
    ctx.textAlign = at.align;
    ctx.textBaseline = at.baseline;
    ctx.lineJoin = 'round';
    ctx.lineWidth = 4;
    ctx.strokeStyle = PAPER;
    ctx.strokeText(text, at.x, at.y);
    ctx.fillStyle = color;
    ctx.fillText(text, at.x, at.y);
    ctx.restore();
  }

  /**
   * Draws `text` at the first free candidate, else (unless `optional`: then it is left out) at the
   * least covered one, counted as an overlap. Returns whether it was drawn.
   * @param {CanvasRenderingContext2D} ctx @param {string} text @param {Candidate[]} candidates
   * @param {{ color?: string, optional?: boolean }} [style]
   */
  draw(ctx, text, candidates, { color = INK, optional = false } = {}) {
    const best = this.place(ctx, text, candidates);
    if (!best || (optional && best.cost > 0)) return false;
    if (best.cost > 0) {
      this.overlaps++;
      this.box(best.box);
    }
    this.placed++;
    LabelLayout.write(ctx, text, best.at, color);
    return true;
  }

  /** Records the outcome on the canvas for the tests: data-labels, data-label-overlaps. @param {HTMLCanvasElement} canvas */
  report(canvas) {
    canvas.dataset.labels = String(this.placed);
    canvas.dataset.labelOverlaps = String(this.overlaps);
  }
}
