// posenc for browsers and bundlers: the module fetches posenc.wasm from next to this file.
import createPosEncModule from './posenc.mjs';
import { instantiate } from './posenc.js';
import type { CreatePosEncOptions, PosEnc } from './posenc.js';

export * from './public-types.js';

let shared: Promise<PosEnc> | undefined;

/**
 * Loads the WebAssembly module (once per page or worker) and returns the posenc API.
 * Later calls return the same instance; `options` only matter on the first call.
 *
 * @example
 * const pe = await createPosEnc();
 * const { data, dims } = pe.sinusoidal.table({ length: 128, dim: 64 });
 */
export function createPosEnc(options: CreatePosEncOptions = {}): Promise<PosEnc> {
  if (!shared) {
    shared = instantiate(createPosEncModule, options);
    shared.catch(() => { shared = undefined; });
  }
  return shared;
}
