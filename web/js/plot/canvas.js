// A canvas that fills its container (whose size the stylesheet sets), draws at the device pixel
// ratio, and redraws at most once per animation frame. Touch: a vertical swipe over a plot scrolls
// the page (touch-action: pan-y in page.css); a tap or a sideways drag moves the plot's cursor.

/** The font plots use for ticks and labels (the page's sans-serif at a small size). */
export const PLOT_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const INK = '#1d2330';
export const MUTED = '#5a6275';
export const GRID = '#e3e6ee';
export const PAPER = '#ffffff';

export class PlotCanvas {
  /**
   * @param {HTMLElement} container  an element with a CSS height (class "plot-area")
   * @param {(ctx: CanvasRenderingContext2D, width: number, height: number) => void} draw  paints in CSS pixels
   * @param {string} label  the accessible name of the canvas
   */
  constructor(container, draw, label) {
    this.container = container;
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', label);
    container.append(this.canvas);
    this.draw = draw;
    this.width = 0;
    this.height = 0;
    this.dpr = 1;
    this.pending = false;
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  /** The 2-D context (the canvas always has one). */
  context() {
    return /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
  }

  resize() {
    const { width, height } = this.container.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    if (width === this.width && height === this.height && this.dpr === dpr) return;
    this.width = width;
    this.height = height;
    this.dpr = dpr;
    this.canvas.width = Math.max(1, Math.round(width * dpr));
    this.canvas.height = Math.max(1, Math.round(height * dpr));
    this.redraw();
  }

  /** Schedules a repaint on the next animation frame. */
  redraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.paintNow();
    });
  }

  /** Repaints immediately. */
  paintNow() {
    const ctx = this.context();
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    if (this.width > 0 && this.height > 0) this.draw(ctx, this.width, this.height);
  }

  /** The pointer's position in CSS pixels from the canvas's top left. @param {PointerEvent} event */
  local(event) {
    const box = this.canvas.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }
}

/**
 * Makes a plot's canvas a keyboard- and pointer-operated control: focusable, named, announced as
 * `roleDescription`; `pointer` gets every move and press (a mouse hover, a tap, a sideways drag).
 * @param {PlotCanvas} plot @param {string} roleDescription
 * @param {{ pointer: (event: PointerEvent, press: boolean) => void, key: (event: KeyboardEvent) => void }} handlers
 */
export function interactive(plot, roleDescription, { pointer, key }) {
  const canvas = plot.canvas;
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'application');
  canvas.setAttribute('aria-roledescription', roleDescription);
  canvas.addEventListener('pointermove', (e) => pointer(e, false));
  canvas.addEventListener('pointerdown', (e) => pointer(e, true));
  canvas.addEventListener('keydown', key);
}

/**
 * Two light axes crossing at (cx, cy), each reaching `reach` pixels from the centre: the plane of
 * the circle and arrow figures.
 * @param {CanvasRenderingContext2D} ctx @param {number} cx @param {number} cy @param {number} reach
 */
export function crossAxes(ctx, cx, cy, reach) {
  ctx.font = PLOT_FONT;
  ctx.strokeStyle = '#d5d9e3';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(cx - reach, cy);
  ctx.lineTo(cx + reach, cy);
  ctx.moveTo(cx, cy - reach);
  ctx.lineTo(cx, cy + reach);
  ctx.stroke();
}
