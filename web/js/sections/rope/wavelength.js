// RoPE, part 3: the wavelength 2π/θ_i of every pair (tokens per full turn, from posenc's
// frequencies) against the context length; with a scaling type, the scaled wavelengths over the
// unscaled ones, and the length the model was trained on.
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { int, num } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

/** The length a scaling was trained at (the reference of its stretch), if it has one. @param {import('posenc').RopeScaling | null | undefined} scaling */
export function trainedLength(scaling) {
  if (!scaling) return null;
  const s = /** @type {{ type: string, originalMaxPositionEmbeddings?: number, maxPositionEmbeddings?: number }} */ (scaling);
  return s.originalMaxPositionEmbeddings ?? (s.type === 'dynamic' ? s.maxPositionEmbeddings : null) ?? null;
}

/** @param {Section} section */
export function wavelengthPart(section) {
  const figure = section.figure('wavelength');
  /** @type {RopeState | null} */
  let rope = null;
  /** @type {number | null} */
  let pair = null; // first shown: the first pair that does not complete a turn
  const plot = new LinePlot(figure.plot(), {
    label: 'Wavelength of every RoPE pair against the context length', xLabel: 'pair i', yLabel: 'wavelength (tokens)', yScale: 'log', xPad: 0.5,
    onCursor: (i) => {
      pair = i;
      read();
    },
  });

  function read() {
    if (!rope || pair === null) return;
    const scaled = rope.freqs.invFreq;
    const plain = rope.plain.invFreq;
    const L = rope.seqLen;
    const w = scaled[pair];
    const wavelength = (2 * Math.PI) / w;
    const turning = Array.from(scaled).filter((f) => (2 * Math.PI) / f <= L).length;
    setReadout(figure.readout(),
      [field('pair i', String(pair), 'pair'), '   ', field('θ', num(w, 6), 'theta'), ' rad/token'],
      [field('wavelength', num(wavelength, 6)), ` tokens = ${num(wavelength / L, 3)} × the context length`],
      ['unscaled: ', valueSpan('wavelength-unscaled', num((2 * Math.PI) / plain[pair], 6)), ' tokens',
        rope.freqs.scalingType === 'default' ? ' (no scaling)' : `, stretched × ${num(plain[pair] / w, 4)}`],
      [valueSpan('turning', String(turning)), ` of ${scaled.length} pairs turn fully within ${int(L)} tokens; `, valueSpan('slow', String(scaled.length - turning)), ' do not']);
  }

  return {
    figures: [figure],
    /** @param {RopeState} state @returns {string[]} the calls it makes (none: it draws the frequencies) */
    update(state) {
      rope = state;
      const { invFreq } = state.freqs;
      const n = invFreq.length;
      const type = state.freqs.scalingType;
      const x = Float64Array.from({ length: n }, (_, i) => i);
      const y = Float64Array.from(invFreq, (w) => (2 * Math.PI) / w);
      /** @type {import('../../plot/lineplot.js').Series[]} */
      const series = [
        { name: type === 'default' ? 'wavelength 2π/θᵢ' : `scaled (${type})`, color: seriesColour(0), x, y },
        { name: '', color: seriesColour(0), x, y, style: 'dots', radius: n > 96 ? 1.5 : 2.5 },
      ];
      if (type !== 'default') series.push({ name: 'unscaled', color: '#9aa1b1', x, y: Float64Array.from(state.plain.invFreq, (w) => (2 * Math.PI) / w), width: 1.5 });
      plot.setSeries(series);
      const L = state.seqLen;
      const trained = trainedLength(state.spec.scaling);
      /** @type {import('../../plot/lineplot.js').RefLine[]} */
      const hlines = [];
      if (Number.isFinite(L) && L > 0) hlines.push({ at: L, label: `context: ${int(L)} tokens`, color: seriesColour(1) });
      if (trained && trained !== L) hlines.push({ at: trained, label: `trained: ${int(trained)}`, color: seriesColour(2) });
      plot.setLines({ hlines });
      if (pair === null) {
        const slow = y.findIndex((v) => v > L);
        pair = slow < 0 ? n - 1 : slow;
      }
      pair = Math.min(pair, n - 1);
      plot.setCursorIndex(pair);
      read();
      return [];
    },
  };
}
