// Colour maps for heatmaps and legends: 256-entry RGB lookup tables interpolated between fixed
// colour stops. Diverging (blue - white - red) for signed values, sequential (viridis) otherwise.

/** ColorBrewer RdBu (11 classes), reversed so that negative is blue and positive red. */
const DIVERGING = ['#053061', '#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7', '#fddbc7', '#f4a582', '#d6604d', '#b2182b', '#67001f'];
/** matplotlib's viridis, sampled at ten points: dark blue to yellow, perceptually uniform. */
const SEQUENTIAL = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'];

/** @param {string} hex @returns {[number, number, number]} */
function hexToRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** @param {string[]} stops */
function buildLut(stops) {
  const rgb = stops.map(hexToRgb);
  const lut = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (rgb.length - 1);
    const k = Math.min(Math.floor(t), rgb.length - 2);
    const f = t - k;
    const a = rgb[k];
    const b = rgb[k + 1];
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = a[c] + (b[c] - a[c]) * f;
  }
  return lut;
}

/** @typedef {'diverging' | 'sequential'} ColormapName */

const LUTS = { diverging: buildLut(DIVERGING), sequential: buildLut(SEQUENTIAL) };

/** The colour of entries that are not numbers (−∞ = masked): a neutral grey outside both maps. */
/** @type {readonly [number, number, number]} */
export const MASKED = [0xc4, 0xc8, 0xd2];
export const MASKED_CSS = `rgb(${MASKED.join(', ')})`;

/** A colour map: `name` is 'diverging' or 'sequential'; `range` is [lo, hi]; values outside saturate. */
export class ColorMap {
  /** @param {ColormapName} name @param {readonly [number, number]} range */
  constructor(name, range) {
    this.name = name;
    this.lut = LUTS[name];
    this.range = range;
  }

  /** Index 0..255 of the colour of v (NaN maps to the middle). @param {number} v */
  index(v) {
    const [lo, hi] = this.range;
    const t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    if (Number.isNaN(t)) return 128;
    return t <= 0 ? 0 : t >= 1 ? 255 : Math.round(t * 255);
  }

  /** The [r, g, b] of v. @param {number} v @returns {[number, number, number]} */
  rgb(v) {
    if (!Number.isFinite(v)) return [MASKED[0], MASKED[1], MASKED[2]];
    const i = this.index(v) * 3;
    return [this.lut[i], this.lut[i + 1], this.lut[i + 2]];
  }

  /**
   * Writes the RGBA pixels of `values` into `pixels` (an ImageData's data); ±∞ and NaN are grey.
   * Returns whether any value was such a masked one.
   * @param {Float32Array} values @param {Uint8ClampedArray} pixels
   */
  paint(values, pixels) {
    const lut = this.lut;
    const [m0, m1, m2] = MASKED;
    const [lo, hi] = this.range;
    const scale = hi > lo ? 255 / (hi - lo) : 0;
    const middle = hi > lo ? -1 : 128;
    let masked = false;
    for (let i = 0, p = 0; i < values.length; i++, p += 4) {
      const v = values[i];
      if (v - v !== 0) { // not finite
        masked = true;
        pixels[p] = m0;
        pixels[p + 1] = m1;
        pixels[p + 2] = m2;
      } else {
        const t = middle >= 0 ? middle : Math.round((v - lo) * scale); // the same index as index(v)
        const c = (t <= 0 ? 0 : t >= 255 ? 255 : t) * 3;
        pixels[p] = lut[c];
        pixels[p + 1] = lut[c + 1];
        pixels[p + 2] = lut[c + 2];
      }
      pixels[p + 3] = 255;
    }
    return masked;
  }
}

/** Okabe-Ito colours: distinguishable with the common colour-vision deficiencies. */
export const SERIES_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'];

/** The i-th series colour (cycling). @param {number} i */
export const seriesColour = (i) => SERIES_COLOURS[i % SERIES_COLOURS.length];
