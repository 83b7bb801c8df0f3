// posenc with the WebAssembly module inside its JavaScript ('posenc/embedded'): nothing to serve,
// copy or locate, for bundlers and workers that cannot handle asset URLs (esbuild's iife and cjs
// formats, Rollup without plugins, classic workers). Costs the base64 size and a decode at load.
import createPosEncModule from './posenc.mjs';
import { instantiate, loadOnce } from './loading.js';
import { PosEncError } from './runtime/errors.js';
import type { PosEnc } from './posenc.js';
import wasmBase64 from './wasm-base64.js';

export * from './public-types.js';

/** Options of the embedded entry: none (the module is inside it). */
export type EmbeddedOptions = Record<string, never>;

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

const load = loadOnce('posenc/embedded', async () => instantiate(createPosEncModule, { kind: 'bytes', bytes: decode(wasmBase64), from: 'posenc/embedded' }));

/**
 * Loads the WebAssembly module embedded in this entry (once per page, worker or process) and
 * returns the posenc API. Takes no loading options: there is no file to locate.
 *
 * @example
 * import { createPosEnc } from 'posenc/embedded';
 * const pe = await createPosEnc();
 */
export function createPosEnc(options: EmbeddedOptions = {}): Promise<PosEnc> {
  if (options !== null && typeof options === 'object' && Object.keys(options).length > 0) {
    return Promise.reject(new PosEncError('UNKNOWN_OPTION', `createPosEnc: posenc/embedded takes no options (the module is inside it), got '${Object.keys(options)[0]}'; use 'posenc' for wasmBinary and locateFile`));
  }
  return load();
}
