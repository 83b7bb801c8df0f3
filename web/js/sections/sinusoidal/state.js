// The sinusoidal section's shared type: the table every figure of the section draws. Its own file,
// so that the section's parts and index.js, which imports them, can both name it without importing
// each other.

/**
 * @typedef {object} TableState  a table and what it was made from
 * @property {{ length: number, dim: number, base: number, layout: 'interleaved' | 'half' }} params
 * @property {import('posenc').Tensor} table
 * @property {Float64Array} freqs  pe.sinusoidal.frequencies: w_i, rad/token
 * @property {{ values: Float32Array, rows: number, cols: number } | null} view  the heatmap's averaged picture
 */

export {};
