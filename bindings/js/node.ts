// posenc for Node.js: reads posenc.wasm from the package folder (Node's fetch cannot load file URLs).
import { readFile } from 'node:fs/promises';

import createPosEncModule from './posenc.mjs';
import { instantiate } from './posenc.js';
import type { CreatePosEncOptions, PosEnc } from './posenc.js';

export * from './public-types.js';

let shared: Promise<PosEnc> | undefined;

/**
 * Loads the WebAssembly module (once per process) and returns the posenc API.
 * Later calls return the same instance; `options` only matter on the first call.
 *
 * @example
 * import { createPosEnc } from 'posenc';
 * const pe = await createPosEnc();
 */
export function createPosEnc(options: CreatePosEncOptions = {}): Promise<PosEnc> {
  if (!shared) {
    shared = (async () => {
      const wasmBinary = options.wasmBinary ?? (await readFile(new URL('./posenc.wasm', import.meta.url)));
      return instantiate(createPosEncModule, { ...options, wasmBinary });
    })();
    shared.catch(() => { shared = undefined; });
  }
  return shared;
}
