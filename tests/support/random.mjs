// Deterministic test and benchmark data, the same on every run and machine: the page's toy
// generator (xorshift32), so the tests, the benchmark and the lesson draw from one definition.
export { randomFloats } from '../../web/js/toy.js';
