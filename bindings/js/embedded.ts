// posenc with the WebAssembly module inside its JavaScript ('posenc/embedded'): nothing to serve,
// copy or locate, for bundlers and workers that cannot handle asset URLs (esbuild's iife and cjs
// formats, Rollup without plugins, classic workers). Costs the base64 size and a decode at load.
import createPosEncModule from './posenc.mjs';
import { instantiate, loadOnce } from './loading.js';
import { decodeBase64 } from './runtime/base64.js';
import type { CreatePosEncOptions, PosEnc } from './posenc.js';
import wasmBase64 from './wasm-base64.js';

export * from './public-types.js';

/** Options of the embedded entry: only `kernels` (the module is inside it, so there is nothing to locate). */
export type EmbeddedOptions = Pick<CreatePosEncOptions, 'kernels'>;

const load = loadOnce('posenc/embedded', async (_, kernels) =>
  instantiate(createPosEncModule, { kind: 'bytes', bytes: decodeBase64(wasmBase64), from: 'posenc/embedded' }, kernels), ['kernels']);

/**
 * Loads the WebAssembly module embedded in this entry (once per page, worker or process) and
 * returns the posenc API. Takes no file options (there is no file to locate); `kernels` as in 'posenc'.
 *
 * @example
 * import { createPosEnc } from 'posenc/embedded';
 * const pe = await createPosEnc();
 */
export function createPosEnc(options: EmbeddedOptions = {}): Promise<PosEnc> {
  return load(options);
}
