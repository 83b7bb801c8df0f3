// The types of a line plot, apart from its class (lineplot.js) and its painting (lineplot-paint.js),
// so that both can name them without importing each other.

/**
 * @typedef {object} Series
 * @property {string} name  '' for no legend entry
 * @property {string} color
 * @property {ArrayLike<number>} x
 * @property {ArrayLike<number>} y  non-finite values leave a gap
 * @property {'line' | 'dots' | 'stems'} [style]
 * @property {number} [width]
 * @property {number} [radius]
 * @property {number} [highlight]  the index drawn larger (stems: the others fainter)
 */

/**
 * @typedef {object} RefLine  a dashed reference line across the plot
 * @property {number} at
 * @property {string} label
 * @property {string} [color]
 */

/**
 * @typedef {object} LinePlotOptions
 * @property {string} label  accessible name
 * @property {string} xLabel
 * @property {string} yLabel
 * @property {'linear' | 'log'} [yScale]
 * @property {'linear' | 'log1p'} [xScale]  'log1p': x drawn at log(1 + x), for distances from 0 that span decades
 * @property {[number, number]} [yRange]  a fixed y range (default: fit the data)
 * @property {boolean} [yZero]  the fitted y range includes 0 (a similarity does not start at its minimum)
 * @property {number} [xPad]  extra room on both sides of x (e.g. half a bar)
 * @property {string} [emptyText]
 * @property {(x: number, index: number) => void} [onCursor]  the cursor moved to point `index` of the first series
 */

/** @typedef {{ x0: number, x1: number, y0: number, y1: number }} Extent */

/**
 * What painting reads of a line plot (a LinePlot is one): its options and data, the cursor, the
 * top of the plot area (set by painting, below the legend), its canvas and its geometry.
 * @typedef {object} PaintedPlot
 * @property {LinePlotOptions} o
 * @property {Series[]} series
 * @property {RefLine[]} vlines
 * @property {RefLine[]} hlines
 * @property {number | null} cursorIndex
 * @property {number} top
 * @property {{ canvas: HTMLCanvasElement }} plot
 * @property {() => import('./axes.js').Rect} rect
 * @property {() => Extent} extent
 * @property {(e: Extent, width: number) => number[]} xTicks
 * @property {(r: import('./axes.js').Rect, e: Extent) => { xPos: (x: number) => number, yPos: (y: number) => number }} scales
 */

export {};
