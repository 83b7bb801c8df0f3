// The rope section's shared type: what every part of the RoPE section draws from. Its own file, so
// that the section's parts and index.js, which imports them, can both name it without importing
// each other.

/**
 * @typedef {object} RopeState  what every part draws from
 * @property {import('posenc').RopeSpec & { headDim: number, rotaryDim: number, base: number, pairing: 'half' | 'interleaved' }} spec
 * @property {number} seqLen  the context length
 * @property {import('posenc').RopeApplyOptions} apply  the options of pe.rope.apply: the spec and seqLen
 * @property {import('posenc').RopeFrequencies} freqs  the scaled frequencies at seqLen
 * @property {import('posenc').RopeFrequencies} plain  the unscaled ones
 */

export {};
