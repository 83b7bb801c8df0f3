// Section "Rotary position embedding (RoPE)": the settings every part shares (head dim, rotary
// dim, base, pairing, the context length and a scaling type, scaling.js) and the parts, each its
// own module: one pair turning and the angle of every pair, q·k as a function of m − n, each
// pair's wavelength against the context, R_Θ,m as a matrix, q and k under a common shift,
// RoFormer's long-term decay, why RoPE works (with these numbers), the stretch of each scaling,
// a model's config.json, the per-layer plan of a model, the precision oracle and a KV-cache shift.
// All parts get the same spec and the frequencies pe.rope.frequencies(spec, { seqLen }) gives.
import { choice, number } from '../../ui/control-specs.js';
import { PageError } from '../../ui/section.js';
import { configPart } from './config.js';
import { decayPart } from './decay.js';
import { kvShiftPart } from './kv-shift.js';
import { matrixPart } from './matrix.js';
import { planPart } from './plan.js';
import { precisionPart } from './precision.js';
import { rotationPart } from './rotation.js';
import { scalingControls, scalingText } from './scaling.js';
import { scoresPart } from './scores.js';
import { shiftPart } from './shift.js';
import { stretchPart } from './stretch.js';
import { wavelengthPart } from './wavelength.js';
import { whyRopePart } from './why-rope.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

export const SETTINGS = {
  headDim: number({ label: 'head dim', unit: 'lanes d, even', value: 64, step: 2, max: 512, slider: [2, 256] }),
  rotaryDim: number({ label: 'rotary dim', unit: 'lanes that turn', value: 64, step: 2, max: 512 }),
  base: number({ label: 'base', unit: 'θ', value: 10000, step: 'any' }),
  pairing: choice({ label: 'pairing', as: 'radio', value: 'half', options: [['half', 'half (NeoX, HF Llama)'], ['interleaved', 'interleaved (GPT-J)']] }),
};

/** @param {Section} section */
export function mount(section) {
  const { pe } = section;
  const settings = section.panel('settings', SETTINGS);
  section.callOrder(['spec', 'turning', 'scores', 'matrix', 'shift', 'decay', 'plan', 'precision', 'kv-shift']);
  const scaling = scalingControls(section, () => update());
  const parts = [
    rotationPart(section), scoresPart(section), wavelengthPart(section), matrixPart(section), shiftPart(section), decayPart(section),
    whyRopePart(section), stretchPart(section), precisionPart(section), kvShiftPart(section),
  ];
  let rotaryFollows = true; // the rotary dim follows the head dim until set to something else

  const update = section.updater({ status: section.status(scaling.panel), figures: parts.flatMap((p) => p.figures) }, () => {
    const problem = settings.problem();
    if (problem) throw new PageError(problem);
    const { headDim, rotaryDim, base, pairing } = settings.values();
    const s = scaling.scaling(Math.max(1, Math.floor(rotaryDim / 2)) || 1);
    const spec = { headDim, rotaryDim, base, pairing, ...(s ? { scaling: s } : {}) };
    const seqLen = scaling.context();
    // posenc checks everything (an odd rotary dim, a bad scaling parameter, a list of the wrong length...)
    const freqs = pe.rope.frequencies(spec, { seqLen });
    const plain = pe.rope.frequencies({ rotaryDim, base, pairing });
    const state = { spec, seqLen, apply: { ...spec, seqLen }, freqs, plain };
    section.calls('spec', [
      `const spec = { headDim: ${headDim}, rotaryDim: ${rotaryDim}, base: ${base}, pairing: '${pairing}', scaling: ${scalingText(s)} };`,
      `const { invFreq, attentionFactor } = pe.rope.frequencies(spec, { seqLen: ${seqLen} });   // θ′_i, ${freqs.invFreq.length} pairs`,
    ]);
    for (const part of parts) {
      const lines = part.update(state);
      if (lines.length) section.calls(part.figures[0]?.element.dataset.figure ?? '', lines);
    }
    section.root.dataset.scaling = freqs.scalingType;
  });
  settings.onChange((key) => {
    if (key === 'headDim' && rotaryFollows) settings.set('rotaryDim', settings.get('headDim'));
    if (key === 'rotaryDim') rotaryFollows = settings.get('rotaryDim') === settings.get('headDim');
    update();
  });

  planPart(section);
  configPart(section, (spec, contextLength) => {
    settings.set('headDim', spec.headDim);
    settings.set('rotaryDim', spec.rotaryDim);
    rotaryFollows = spec.rotaryDim === spec.headDim;
    settings.set('base', spec.base);
    settings.set('pairing', spec.pairing);
    if (contextLength) scaling.setContext(contextLength);
    scaling.set(spec.scaling ?? null);
    update();
  });

  update();
}
