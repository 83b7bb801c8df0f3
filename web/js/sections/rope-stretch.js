// RoPE, part 4: how much a scaling stretches each pair, θ_i / θ′_i (the scaled wavelength over the
// unscaled one), with what pe.rope.frequencies reports about it: the effective base, the attention
// factor, YaRN's ramp between pairs low and high, Llama 3.1's bands, LongRoPE's list in use.
import { SERIES_COLOURS } from '../lib/colormap.js';
import { int, sig } from '../lib/format.js';
import { LinePlot } from '../lib/lineplot.js';
import { field, setReadout, sub, valueSpan } from '../lib/readout.js';

const BAND_COLOURS = { unchanged: SERIES_COLOURS[2], blended: SERIES_COLOURS[4], divided: SERIES_COLOURS[1] };

/** 'pairs 0–28' for a run of indices. */
function runText(from, to) {
  return from === to ? `pair ${from}` : `pairs ${from}–${to}`;
}

/** The Llama 3.1 bands as runs: 'unchanged: pairs 0–28, blended: 29–34, divided: 35–63'. */
export function bandRuns(bands) {
  const runs = [];
  bands.forEach((b, i) => {
    const last = runs[runs.length - 1];
    if (last && last.band === b) last.to = i;
    else runs.push({ band: b, from: i, to: i });
  });
  return runs.map((r) => `${r.band} ${runText(r.from, r.to)}`).join(', ');
}

export function mountStretch() {
  const $ = (id) => document.getElementById(id);
  let state = null; // { freqs, plain, ratio, shared }
  let pair = 8;
  const plot = new LinePlot($('rope-stretch'), {
    label: 'How many times longer each pair’s wavelength is after scaling', xLabel: 'pair i',
    yLabel: 'stretch θᵢ / θ′ᵢ (log)', yScale: 'log', xPad: 0.5,
    onCursor: (i) => {
      pair = i;
      showReadout();
    },
  });

  function draw() {
    const { freqs, ratio } = state;
    const n = ratio.length;
    const x = Float64Array.from({ length: n }, (_, i) => i);
    // Llama 3.1: the legend names the bands instead of the line (a phone has room for three names)
    const name = freqs.llama3 ? '' : freqs.scalingType === 'default' ? 'no scaling: 1' : `stretch (${freqs.scalingType})`;
    const series = [{ name, color: SERIES_COLOURS[0], x, y: ratio, style: 'line' }];
    if (freqs.llama3) {
      for (const band of ['unchanged', 'blended', 'divided']) {
        const y = Float64Array.from(ratio, (v, i) => (freqs.llama3.band[i] === band ? v : NaN));
        series.push({ name: band, color: BAND_COLOURS[band], x, y, style: 'dots', radius: 3 });
      }
    } else {
      series.push({ name: '', color: SERIES_COLOURS[0], x, y: ratio, style: 'dots', radius: n > 96 ? 1.5 : 2.5 });
    }
    const top = Math.max(...ratio);
    const yRange = [0.7, 10 ** Math.max(1, Math.ceil(Math.log10(top * 1.05)))];
    plot.setSeries(series, { yRange });
    const vlines = freqs.yarn
      ? [{ at: freqs.yarn.low, label: `low ${sig(freqs.yarn.low, 4)}`, color: '#888' }, { at: freqs.yarn.high, label: `high ${sig(freqs.yarn.high, 4)}`, color: '#888' }]
      : [];
    const hlines = freqs.factor !== 1 && Number.isFinite(freqs.factor) && !['ntk', 'dynamic', 'longrope'].includes(freqs.scalingType)
      ? [{ at: freqs.factor, label: `factor ${sig(freqs.factor, 4)}`, color: SERIES_COLOURS[1], side: 'left' }]
      : [];
    plot.setLines({ vlines, hlines });
    pair = Math.min(pair, n - 1);
    plot.setCursorIndex(pair);
    showReadout();
  }

  /** The line saying what the scaling did as a whole. */
  function summary() {
    const { freqs, shared } = state;
    const r = shared.spec.rotaryDim;
    switch (freqs.scalingType) {
      case 'linear': return ['every θ is divided by the factor'];
      case 'ntk': return [`base′ = base · factor^(r/(r−2)) = `, valueSpan('effective-base', sig(freqs.effectiveBase, 6)), ` (r = ${r})`];
      case 'dynamic':
        return ['L = max(seqLen, max length) = ', valueSpan('seqlen', int(freqs.seqLen)), ', base′ = ', valueSpan('effective-base', sig(freqs.effectiveBase, 6)),
          freqs.effectiveBase === shared.spec.base ? ' (unscaled)' : ''];
      case 'yarn':
        return ['ramp from pair ', valueSpan('low', sig(freqs.yarn.low, 6)), ' to ', valueSpan('high', sig(freqs.yarn.high, 6)),
          ': before it θ, after it θ/factor'];
      case 'llama3': return [valueSpan('bands', bandRuns(freqs.llama3.band))];
      case 'longrope':
        return ['list in use: ', valueSpan('list', freqs.longrope.list), ` (seqLen ${int(shared.seqLen)} ${freqs.longrope.list === 'long' ? '>' : '≤'} trained ${int(shared.spec.scaling.originalMaxPositionEmbeddings ?? shared.spec.scaling.maxPositionEmbeddings)})`];
      default: return ['every pair keeps θᵢ = base^(−2i/d)'];
    }
  }

  /** What the diagnostics say about one pair. */
  function pairNote(i) {
    const { freqs } = state;
    if (freqs.yarn) return ['   ramp ', valueSpan('ramp', freqs.yarn.ramp[i].toFixed(4))];
    if (freqs.llama3) return ['   ', valueSpan('band', freqs.llama3.band[i]), ` (s ${freqs.llama3.blend[i].toFixed(3)})`];
    if (freqs.longrope) return ['   list factor ', valueSpan('ext', sig(freqs.longrope.factors[i], 6))];
    return [];
  }

  function showReadout() {
    if (!state) return;
    const { freqs, plain, ratio } = state;
    const i = pair;
    const w0 = (2 * Math.PI) / plain[i];
    setReadout($('rope-stretch-readout'),
      valueSpan('type', freqs.scalingType), '   ', field('factor', sig(freqs.factor, 6), 'factor'), '   ',
      field('attention factor', freqs.attentionFactor.toFixed(6), 'attention-factor'), '\n',
      ...summary(), '\n',
      field('pair i', String(i), 'pair'), `   θ${sub(i)} ${sig(plain[i], 6)} → θ′${sub(i)} `, valueSpan('theta', sig(freqs.invFreq[i], 6)), ' rad/token\n',
      'stretch × ', valueSpan('ratio', sig(ratio[i], 6)), ` (${sig(w0, 4)} → ${sig(w0 * ratio[i], 4)} tokens)`, ...pairNote(i),
    );
  }

  return {
    update(shared, freqs, plain) {
      const ratio = Float64Array.from(plain.invFreq, (w, i) => w / freqs.invFreq[i]);
      state = { shared, freqs, plain: plain.invFreq, ratio };
      draw();
      return [];
    },
  };
}
