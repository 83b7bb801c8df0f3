// Labels that do not sit on the lines of a plot or on each other. What a plot draws is marked in
// a coarse grid of occupied cells; each label tries its candidate positions in order and takes the
// first free one (or, if none is free, the least covered, counted as an overlap). Labels are drawn
// with a halo of the background colour, so they stay legible wherever they land.
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

  /** Marks a rectangle (text, a legend, a dot). @param {Box} b */
  box(b) {
    for (let y = b.y; y <= b.y + b.h; y += CELL) for (let x = b.x; x <= b.x + b.w; x += CELL) this.#mark(x, y);
    this.#mark(b.x + b.w, b.y + b.h);
  }

  /** How many occupied cells a box covers. @param {Box} b */
  cost(b) {
    let n = 0;
    const c0 = Math.max(0, Math.floor(b.x / CELL));
    const c1 = Math.min(this.cols - 1, Math.floor((b.x + b.w) / CELL));
    const r0 = Math.max(0, Math.floor(b.y / CELL));
    const r1 = Math.min(this.rows - 1, Math.floor((b.y + b.h) / CELL));
    for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) n += this.grid[r * this.cols + c];
    // a box that leaves the canvas is as bad as one on a line
    const outside = b.x < 0 || b.y < 0 || c1 < Math.floor((b.x + b.w) / CELL) || r1 < Math.floor((b.y + b.h) / CELL);
    return n + (outside ? 1000 : 0);
  }

  /** The box a text takes at a candidate. @param {number} width @param {Candidate} at @returns {Box} */
  static boxOf(width, at) {
    const x = at.align === 'left' ? at.x : at.align === 'right' ? at.x - width : at.x - width / 2;
    const y = at.baseline === 'top' ? at.y : at.baseline === 'bottom' ? at.y - TEXT_HEIGHT : at.y - TEXT_HEIGHT / 2;
    return { x: x - 2, y: y - 1, w: width + 4, h: TEXT_HEIGHT + 2 };
  }

  /**
   * Draws `text` at the first free candidate (else the least covered) and marks its box.
   * `optional` labels are skipped instead of drawn over something. Returns whether it was drawn.
   * @param {CanvasRenderingContext2D} ctx @param {string} text @param {Candidate[]} candidates
   * @param {{ color?: string, optional?: boolean }} [style]
   */
  draw(ctx, text, candidates, { color = INK, optional = false } = {}) {
    ctx.save();
    ctx.font = PLOT_FONT;
    const width = ctx.measureText(text).width;
    /** @type {{ at: Candidate, box: Box, cost: number } | null} */
    let best = null;
    for (const at of candidates) {
      const box = LabelLayout.boxOf(width, at);
      const cost = this.cost(box);
      if (!best || cost < best.cost) best = { at, box, cost };
      if (cost === 0) break;
    }
    if (!best || (optional && best.cost > 0)) {
      ctx.restore();
      return false;
    }
    if (best.cost > 0) this.overlaps++;
    this.placed++;
    this.box(best.box);
    ctx.textAlign = best.at.align;
    ctx.textBaseline = best.at.baseline;
    ctx.lineJoin = 'round';
    ctx.lineWidth = 4;
    ctx.strokeStyle = PAPER;
    ctx.strokeText(text, best.at.x, best.at.y);
    ctx.fillStyle = color;
    ctx.fillText(text, best.at.x, best.at.y);
    ctx.restore();
    return true;
  }

  /** Records the outcome on the canvas for the tests: data-labels, data-label-overlaps. @param {HTMLCanvasElement} canvas */
  report(canvas) {
    canvas.dataset.labels = String(this.placed);
    canvas.dataset.labelOverlaps = String(this.overlaps);
  }
}
