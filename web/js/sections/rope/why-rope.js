// RoPE, "why it works", with this section's numbers: what it learns (nothing: the frequencies
// come from the base), how much a learned table for the same context would hold (at GPT-2's width
// of 768, the width of the embeddings such a table is added to), how many pairs
// never complete a turn inside the context (the ones that meet new angles past it), with and
// without the scaling chosen, and what a cos/sin cache costs (pe.rope.createCache's size).
import { int, plain, bytes } from '../../ui/format.js';

/** @typedef {import('../../ui/section.js').Section} Section */
/** @typedef {import('./state.js').RopeState} RopeState */

/** The width of GPT-2's embeddings, which its learned table (wpe, 1024 × 768) is added to. */
const GPT2_WIDTH = 768;

/** Pairs whose wavelength 2π/θ is longer than `length` tokens. @param {Float64Array} invFreq @param {number} length */
export function slowPairs(invFreq, length) {
  let n = 0;
  for (const w of invFreq) if ((2 * Math.PI) / w > length) n++;
  return n;
}

/** @param {Section} section */
export function whyRopePart(section) {
  const part = section.part('why-rope');
  /** @param {string} name @param {string} text */
  const set = (name, text) => part.querySelector(`[data-field="${name}"]`)?.replaceChildren(text);
  return {
    figures: [],
    /** @param {RopeState} state */
    update(state) {
      const { spec, seqLen, freqs, plain: unscaled } = state;
      const pairs = spec.rotaryDim / 2;
      set('pairs', int(pairs));
      set('base', plain(spec.base));
      set('context', int(seqLen));
      set('table', int(seqLen * GPT2_WIDTH));
      set('slow-plain', int(slowPairs(unscaled.invFreq, seqLen)));
      set('slow-scaled', int(slowPairs(freqs.invFreq, seqLen)));
      set('scaling', freqs.scalingType === 'default' ? 'no scaling' : `${freqs.scalingType} scaling`);
      // createCache: 8 · maxPositions · rotaryDim/2 bytes (cos and sin in float32), three times that interleaved
      set('cache', bytes(8 * seqLen * pairs * (spec.pairing === 'interleaved' ? 3 : 1)));
      return [];
    },
  };
}
