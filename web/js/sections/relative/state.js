// The relative section's shared type: the query and key counts every figure of the section draws.
// Its own file, so that the section's parts and index.js, which imports them, can both name it
// without importing each other.

/** @typedef {{ qLen: number, kLen: number, queryOffset: number }} Lengths */

export {};
