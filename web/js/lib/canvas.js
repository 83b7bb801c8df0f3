// A canvas that fills its container (whose size the stylesheet fixes, so nothing shifts when
// data change), draws at the device pixel ratio, and redraws at most once per animation frame.

export class PlotCanvas {
  /**
   * @param {HTMLElement} container  an element with a fixed CSS height (class "plot-area")
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
    this.pending = false;
    this.observer = new ResizeObserver(() => this.resize());
    this.observer.observe(container);
    this.resize();
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
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    if (this.width > 0 && this.height > 0) this.draw(ctx, this.width, this.height);
  }
}

/** The font plots use for ticks and labels (the page's sans-serif at a small size). */
export const PLOT_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const INK = '#1d2330';
export const MUTED = '#5a6275';
export const GRID = '#e3e6ee';
