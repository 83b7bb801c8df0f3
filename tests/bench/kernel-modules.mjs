// The benchmark's kernels: the modules in tests/bench/kernels/, each default-exporting one kernel
// or an array of them (see README.md). Node only; the browser page imports them by name.
import { readdirSync } from 'node:fs';

const DIR = new URL('./kernels/', import.meta.url);

/** The module names, sorted: 'alibi', 'rope', ... */
export function kernelNames() {
  return readdirSync(DIR).filter((f) => f.endsWith('.mjs')).sort().map((f) => f.slice(0, -4));
}

/** Every kernel of every module, in module order. */
export async function loadKernels() {
  const kernels = [];
  for (const name of kernelNames()) kernels.push(...[(await import(new URL(`${name}.mjs`, DIR).href)).default].flat());
  return kernels;
}
