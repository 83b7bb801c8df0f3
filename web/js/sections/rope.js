// Section "Rotary position embedding": shared settings (head dim, rotary dim, base, pairing, the
// context length and a scaling type) and its parts, each its own module: one pair turning with the
// position (and the angle of every pair), q·k as a function of m − n, each pair's wavelength against
// the context length, the stretch each scaling gives each pair, and a model's config.json.
// All parts get the same spec and the frequencies pe.rope.frequencies(spec, { seqLen }) gives.
import { choiceControl, numberControl, perFrame, showStatus } from '../lib/controls.js';
import { showCall } from '../lib/readout.js';
import { mountConfig } from './rope-config.js';
import { mountRelative } from './rope-relative.js';
import { mountRotation } from './rope-rotation.js';
import { scalingControls, scalingText } from './rope-scaling-controls.js';
import { mountStretch } from './rope-stretch.js';
import { mountWavelength } from './rope-wavelength.js';

export function mount(root, pe) {
  const $ = (id) => document.getElementById(id);
  const status = $('rope-status');
  const update = perFrame(() => recompute());
  let rotaryFollows = true; // the rotary dim follows the head dim until set to something else
  const headDim = numberControl('rope-headdim', () => {
    if (rotaryFollows) rotaryDim.set(headDim.get());
    update();
  });
  const rotaryDim = numberControl('rope-rotarydim', () => {
    rotaryFollows = rotaryDim.get() === headDim.get();
    update();
  });
  const base = numberControl('rope-base', update);
  const pairing = choiceControl('rope-pairing', update, root);
  const context = numberControl('rope-context', update);
  const scaling = scalingControls(root, update);
  scaling.init();
  $('rope-controls').addEventListener('submit', (e) => e.preventDefault());

  const parts = [mountRotation(pe), mountRelative(pe), mountWavelength(pe), mountStretch(pe)];

  function recompute() {
    const d = headDim.get();
    const r = rotaryDim.get();
    const s = scaling.scaling(Math.max(1, Math.floor(r / 2)) || 1);
    const spec = { headDim: d, rotaryDim: r, base: base.get(), pairing: pairing.get(), ...(s ? { scaling: s } : {}) };
    const seqLen = context.get();
    let freqs;
    let plain;
    const calls = [];
    try {
      // posenc checks everything (an odd rotary dim, a bad scaling parameter, a list of the wrong
      // length...) and says what is wrong.
      freqs = pe.rope.frequencies(spec, { seqLen });
      plain = pe.rope.frequencies({ rotaryDim: r, base: spec.base, pairing: spec.pairing });
      calls.push(`const spec = { headDim: ${d}, rotaryDim: ${r}, base: ${spec.base}, pairing: '${spec.pairing}', scaling: ${scalingText(s)} };`);
      calls.push(`const { invFreq, attentionFactor } = pe.rope.frequencies(spec, { seqLen: ${seqLen} });   // θ′_i, ${freqs.invFreq.length} pairs`);
      const shared = { spec, seqLen, apply: { ...spec, seqLen } };
      for (const part of parts) calls.push(...part.update(shared, freqs, plain));
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    showStatus(status, null);
    root.dataset.scaling = freqs.scalingType;
    showCall($('rope-call'), calls);
  }

  mountConfig(pe, (spec, contextLength) => {
    headDim.set(spec.headDim);
    rotaryDim.set(spec.rotaryDim);
    rotaryFollows = spec.rotaryDim === spec.headDim;
    base.set(spec.base);
    pairing.set(spec.pairing);
    if (contextLength) context.set(contextLength);
    scaling.set(spec.scaling ?? null);
    recompute();
  });

  recompute();
}
