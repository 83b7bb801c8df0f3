// Section "Rotary position embedding": shared settings (head dim, base, pairing) and three parts,
// each its own module: one pair turning with the position (and the angle of every pair), q·k as a
// function of m − n, and each pair's wavelength against the context length.
// Later: the RoPE scaling types plug in here as a fourth module (a scaling control feeding the
// same frequencies to every part), see the report that came with this section.
import { choiceControl, numberControl, perFrame, showStatus } from '../lib/controls.js';
import { showCall } from '../lib/readout.js';
import { mountRelative } from './rope-relative.js';
import { mountRotation } from './rope-rotation.js';
import { mountWavelength } from './rope-wavelength.js';

export function mount(root, pe) {
  const $ = (id) => document.getElementById(id);
  const status = $('rope-status');
  const update = perFrame(() => recompute());
  const headDim = numberControl('rope-headdim', update);
  const base = numberControl('rope-base', update);
  const pairing = choiceControl('rope-pairing', update, root);
  $('rope-controls').addEventListener('submit', (e) => e.preventDefault());

  const parts = [mountRotation(pe), mountRelative(pe), mountWavelength(pe)];

  function recompute() {
    const spec = { headDim: headDim.get(), base: base.get(), pairing: pairing.get() };
    let freqs;
    try {
      // posenc checks the settings (an odd head dim, a base <= 0 ...) and says what is wrong.
      freqs = pe.rope.frequencies({ rotaryDim: spec.headDim, base: spec.base, pairing: spec.pairing });
    } catch (error) {
      showStatus(status, error.message);
      return;
    }
    showStatus(status, null);
    const calls = [`const { invFreq } = pe.rope.frequencies({ rotaryDim: ${spec.headDim}, base: ${spec.base} });   // θ_i, ${freqs.invFreq.length} pairs`];
    for (const part of parts) calls.push(...part.update(spec, freqs.invFreq));
    showCall($('rope-call'), calls);
  }

  recompute();
}
