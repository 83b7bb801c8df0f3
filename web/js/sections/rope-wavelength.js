// RoPE, part 3: the wavelength 2π/θ_i of every pair (tokens per full turn, from posenc's
// frequencies) against the context length. A scaled RoPE will add its own series here.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { numberControl, perFrame } from '../lib/controls.js';
import { int, sig } from '../lib/format.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, valueSpan } from '../lib/readout.js';

export function mountWavelength() {
  const $ = (id) => document.getElementById(id);
  let freqs = null;
  let pair = null; // first shown: the first pair that does not complete a turn
  const context = numberControl('rope-context', perFrame(() => draw()));
  const plot = new LinePlot($('rope-wave'), {
    label: 'Wavelength of every RoPE pair against the context length', xLabel: 'pair i', yLabel: 'wavelength (tokens)',
    yScale: 'log', xPad: 0.5,
    onCursor: (i) => {
      pair = i;
      showReadout();
    },
  });

  function draw() {
    if (!freqs) return;
    const n = freqs.length;
    const x = Float64Array.from({ length: n }, (_, i) => i);
    const y = Float64Array.from(freqs, (w) => (2 * Math.PI) / w);
    plot.setSeries([
      { name: 'wavelength 2π/θᵢ', color: SERIES_COLOURS[0], x, y, style: 'line' },
      { name: '', color: SERIES_COLOURS[0], x, y, style: 'dots', radius: n > 96 ? 1.5 : 2.5 },
    ]);
    const L = context.get();
    plot.setLines({ hlines: Number.isFinite(L) && L > 0 ? [{ at: L, label: `context: ${int(L)} tokens`, color: SERIES_COLOURS[1], side: 'left' }] : [] });
    if (pair === null) {
      const slow = y.findIndex((v) => v > L);
      pair = slow < 0 ? n - 1 : slow;
    }
    pair = Math.min(pair, n - 1);
    plot.setCursorIndex(pair);
    showReadout();
  }

  function showReadout() {
    if (!freqs) return;
    const L = context.get();
    const w = freqs[pair];
    const wavelength = (2 * Math.PI) / w;
    const turning = Array.from(freqs).filter((f) => (2 * Math.PI) / f <= L).length;
    setReadout($('rope-wave-readout'),
      field('pair i', String(pair), 'pair'), '   ', field('θ', sig(w, 6), 'theta'), ' rad/token\n',
      field('wavelength', sig(wavelength, 6)), ` tokens = ${sig(wavelength / L, 3)} × the context length\n`,
      valueSpan('turning', String(turning)), ` of ${freqs.length} pairs turn fully within ${int(L)} tokens; `,
      valueSpan('slow', String(freqs.length - turning)), ' do not',
    );
  }

  return {
    update(spec, invFreq) {
      freqs = invFreq;
      draw();
      return [];
    },
  };
}
