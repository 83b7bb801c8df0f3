// RoPE, part 3: the wavelength 2π/θ_i of every pair (tokens per full turn, from posenc's
// frequencies) against the context length; with a scaling type, the scaled wavelengths over the
// unscaled ones, and the length the model was trained on.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { int, sig } from '../lib/format.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';

/** The length a scaling was trained at (the reference of its stretch), if it has one. */
export function trainedLength(scaling) {
  if (!scaling) return null;
  return scaling.originalMaxPositionEmbeddings ?? (scaling.type === 'dynamic' ? scaling.maxPositionEmbeddings : null) ?? null;
}

export function mountWavelength() {
  const $ = (id) => document.getElementById(id);
  let state = null; // { scaled: Float64Array, plain: Float64Array, L, type, trained }
  let pair = null; // first shown: the first pair that does not complete a turn
  const plot = new LinePlot($('rope-wave'), {
    label: 'Wavelength of every RoPE pair against the context length', xLabel: 'pair i', yLabel: 'wavelength (tokens)',
    yScale: 'log', xPad: 0.5,
    onCursor: (i) => {
      pair = i;
      showReadout();
    },
  });

  function draw() {
    const { scaled, plain, L, type, trained } = state;
    const n = scaled.length;
    const x = Float64Array.from({ length: n }, (_, i) => i);
    const y = Float64Array.from(scaled, (w) => (2 * Math.PI) / w);
    const radius = n > 96 ? 1.5 : 2.5;
    const series = [
      { name: type === 'default' ? 'wavelength 2π/θᵢ' : `scaled (${type})`, color: SERIES_COLOURS[0], x, y, style: 'line' },
      { name: '', color: SERIES_COLOURS[0], x, y, style: 'dots', radius },
    ];
    if (type !== 'default') {
      const y0 = Float64Array.from(plain, (w) => (2 * Math.PI) / w);
      series.push({ name: 'unscaled', color: '#9aa1b1', x, y: y0, style: 'line', width: 1.5 });
    }
    plot.setSeries(series);
    const hlines = [];
    if (Number.isFinite(L) && L > 0) hlines.push({ at: L, label: `context: ${int(L)} tokens`, color: SERIES_COLOURS[1], side: 'left' });
    if (trained && trained !== L) hlines.push({ at: trained, label: `trained: ${int(trained)}`, color: SERIES_COLOURS[2], side: 'right' });
    plot.setLines({ hlines });
    if (pair === null) {
      const slow = y.findIndex((v) => v > L);
      pair = slow < 0 ? n - 1 : slow;
    }
    pair = Math.min(pair, n - 1);
    plot.setCursorIndex(pair);
    showReadout();
  }

  function showReadout() {
    if (!state) return;
    const { scaled, plain, L } = state;
    const w = scaled[pair];
    const wavelength = (2 * Math.PI) / w;
    const turning = Array.from(scaled).filter((f) => (2 * Math.PI) / f <= L).length;
    setReadout($('rope-wave-readout'),
      field('pair i', String(pair), 'pair'), '   ', field('θ', sig(w, 6), 'theta'), ' rad/token\n',
      field('wavelength', sig(wavelength, 6)), ` tokens = ${sig(wavelength / L, 3)} × the context length\n`,
      'unscaled: ', valueSpan('wavelength-unscaled', sig((2 * Math.PI) / plain[pair], 6)), ' tokens',
      state.type === 'default' ? ' (no scaling)\n' : `, stretched × ${sig(plain[pair] / w, 4)}\n`,
      valueSpan('turning', String(turning)), ` of ${scaled.length} pairs turn fully within ${int(L)} tokens; `,
      valueSpan('slow', String(scaled.length - turning)), ' do not',
    );
  }

  return {
    update(shared, freqs, plain) {
      state = { scaled: freqs.invFreq, plain: plain.invFreq, L: shared.seqLen, type: freqs.scalingType, trained: trainedLength(shared.spec.scaling) };
      draw();
      return [];
    },
  };
}
