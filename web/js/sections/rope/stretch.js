// RoPE, part 4: how much a scaling stretches each pair, θ_i / θ′_i (the scaled wavelength over the
// unscaled one), with what pe.rope.frequencies reports about it: the effective base, the attention
// factor, YaRN's ramp between pairs low and high, Llama 3.1's bands, LongRoPE's list in use.
import { seriesColour } from '../../plot/colormap.js';
import { LinePlot } from '../../plot/lineplot.js';
import { fixed, int, num, plain, sub } from '../../ui/format.js';
import { field, setReadout, valueSpan } from '../../ui/readout.js';
import { trainedLength } from './wavelength.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

const BAND_COLOURS = { unchanged: seriesColour(2), blended: seriesColour(4), divided: seriesColour(1) };

/** The Llama 3.1 bands as runs: 'unchanged pairs 0–28, blended pairs 29–34, divided pairs 35–63'. @param {readonly string[]} bands */
export function bandRuns(bands) {
  /** @type {Array<{ band: string, from: number, to: number }>} */
  const runs = [];
  bands.forEach((b, i) => {
    const last = runs[runs.length - 1];
    if (last && last.band === b) last.to = i;
    else runs.push({ band: b, from: i, to: i });
  });
  return runs.map((r) => `${r.band} ${r.from === r.to ? `pair ${r.from}` : `pairs ${r.from}–${r.to}`}`).join(', ');
}

/** @param {Section} section */
export function stretchPart(section) {
  const figure = section.figure('stretch');
  /** @type {RopeState | null} */
  let rope = null;
  /** @type {Float64Array} */
  let ratio = new Float64Array(0);
  let pair = 8;
  const plot = new LinePlot(figure.plot(), {
    label: 'How many times longer each pair’s wavelength is after scaling', xLabel: 'pair i', yLabel: 'stretch θᵢ / θ′ᵢ (log)', yScale: 'log', xPad: 0.5,
    onCursor: (i) => {
      pair = i;
      read();
    },
  });

  /** The line saying what the scaling did as a whole. @param {RopeState} r @returns {Array<string | Node>} */
  function summary(r) {
    const { freqs } = r;
    switch (freqs.scalingType) {
      case 'linear': return ['every θ is divided by the factor'];
      case 'ntk': return ['base′ = base · factor^(r/(r−2)) = ', valueSpan('effective-base', num(freqs.effectiveBase, 6)), ` (r = ${r.spec.rotaryDim})`];
      case 'dynamic':
        return ['L = max(seqLen, max length) = ', valueSpan('seqlen', int(freqs.seqLen ?? r.seqLen)), ', base′ = ', valueSpan('effective-base', num(freqs.effectiveBase, 6)),
          freqs.effectiveBase === r.spec.base ? ' (unscaled)' : ''];
      case 'yarn':
        return freqs.yarn ? ['ramp from pair ', valueSpan('low', num(freqs.yarn.low, 6)), ' to ', valueSpan('high', num(freqs.yarn.high, 6)), ': before it θ, after it θ/factor'] : [];
      case 'llama3': return freqs.llama3 ? [valueSpan('bands', bandRuns(freqs.llama3.band))] : [];
      case 'longrope': {
        const list = freqs.longrope?.list ?? '';
        return ['list in use: ', valueSpan('list', list), ` (seqLen ${int(r.seqLen)} ${list === 'long' ? '>' : '≤'} trained ${int(trainedLength(r.spec.scaling) ?? 0)})`];
      }
      default: return ['every pair keeps θᵢ = base^(−2i/d)'];
    }
  }

  /** What the diagnostics say about one pair. @param {RopeState} r @param {number} i @returns {Array<string | Node>} */
  function pairNote(r, i) {
    const { yarn, llama3, longrope } = r.freqs;
    if (yarn) return ['   ramp ', valueSpan('ramp', fixed(yarn.ramp[i], 4))];
    if (llama3) return ['   ', valueSpan('band', llama3.band[i]), ` (s ${fixed(llama3.blend[i], 3)})`];
    if (longrope) return ['   list factor ', valueSpan('ext', num(longrope.factors[i], 6))];
    return [];
  }

  function read() {
    if (!rope) return;
    const { freqs, plain } = rope;
    const i = pair;
    const w0 = (2 * Math.PI) / plain.invFreq[i];
    setReadout(figure.readout(),
      [valueSpan('type', freqs.scalingType), '   ', field('factor', num(freqs.factor, 6), 'factor'), '   ', field('attention factor', fixed(freqs.attentionFactor, 6), 'attention-factor')],
      summary(rope),
      [field('pair i', String(i), 'pair'), `   θ${sub(i)} ${num(plain.invFreq[i], 6)} → θ′${sub(i)} `, valueSpan('theta', num(freqs.invFreq[i], 6)), ' rad/token'],
      ['stretch × ', valueSpan('ratio', num(ratio[i], 6)), ` (${num(w0, 4)} → ${num(w0 * ratio[i], 4)} tokens)`, ...pairNote(rope, i)]);
  }

  return {
    figures: [figure],
    /** @param {RopeState} state @returns {string[]} the calls it makes (none: it draws the frequencies) */
    update(state) {
      rope = state;
      const { freqs } = state;
      ratio = Float64Array.from(state.plain.invFreq, (w, i) => w / freqs.invFreq[i]);
      const n = ratio.length;
      const x = Float64Array.from({ length: n }, (_, i) => i);
      const llama3 = freqs.llama3;
      // Llama 3.1: the legend names the bands instead of the line (a phone has room for three names)
      const name = llama3 ? '' : freqs.scalingType === 'default' ? 'no scaling: 1' : `stretch (${freqs.scalingType})`;
      /** @type {import('../../plot/lineplot.js').Series[]} */
      const series = [{ name, color: seriesColour(0), x, y: ratio }];
      if (llama3) {
        for (const band of /** @type {Array<keyof typeof BAND_COLOURS>} */ (['unchanged', 'blended', 'divided'])) {
          series.push({ name: band, color: BAND_COLOURS[band], x, y: Float64Array.from(ratio, (v, i) => (llama3.band[i] === band ? v : NaN)), style: 'dots', radius: 3 });
        }
      } else series.push({ name: '', color: seriesColour(0), x, y: ratio, style: 'dots', radius: n > 96 ? 1.5 : 2.5 });
      const top = Math.max(...ratio);
      plot.setSeries(series, { yRange: [0.7, 10 ** Math.max(1, Math.ceil(Math.log10(top * 1.05)))] });
      const yarn = freqs.yarn;
      plot.setLines({
        vlines: yarn ? [{ at: yarn.low, label: `low ${num(yarn.low, 4)}`, color: '#888' }, { at: yarn.high, label: `high ${num(yarn.high, 4)}`, color: '#888' }] : [],
        hlines: freqs.factor !== 1 && Number.isFinite(freqs.factor) && !['ntk', 'dynamic', 'longrope'].includes(freqs.scalingType)
          ? [{ at: freqs.factor, label: `factor ${plain(freqs.factor)}`, color: seriesColour(1) }] : [],
      });
      pair = Math.min(pair, n - 1);
      plot.setCursorIndex(pair);
      read();
      return [];
    },
  };
}
