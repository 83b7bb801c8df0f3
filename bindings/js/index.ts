// posenc for browsers, workers and bundlers: fetches posenc.wasm from next to this file (bundlers
// that understand `new URL('./posenc.wasm', import.meta.url)`, such as Vite and webpack, emit it as
// an asset and rewrite the URL).
import createPosEncModule from './posenc.mjs';
import { FIXES, givenBytes, instantiate, loadOnce, located } from './loading.js';
import type { WasmSource } from './loading.js';
import { PosEncError } from './runtime/errors.js';
import type { CreatePosEncOptions, PosEnc } from './posenc.js';

export * from './public-types.js';

/** The URL of posenc.wasm next to this file, or undefined in a bundle that has no import.meta.url. */
function besideThisFile(): URL | undefined {
  try {
    return new URL('./posenc.wasm', import.meta.url);
  } catch {
    return undefined; // esbuild --format=iife or cjs replaces import.meta with {}
  }
}

function sourceOf(options: CreatePosEncOptions): WasmSource {
  if (options.wasmBinary !== undefined) return { kind: 'bytes', bytes: givenBytes(options.wasmBinary), from: 'options.wasmBinary' };
  const beside = besideThisFile();
  if (options.locateFile !== undefined) return { kind: 'url', url: located(options.locateFile, beside ? new URL('./', beside).href : '') };
  if (!beside) {
    return {
      kind: 'error',
      error: new PosEncError('LOAD_FAILED', 'createPosEnc: cannot tell where posenc.wasm is: this bundle has no import.meta.url ' +
        `(an iife or CommonJS bundle, such as esbuild's default format). Bundle as an ES module and copy posenc.wasm beside it, or ${FIXES}`),
    };
  }
  return { kind: 'url', url: beside.href };
}

/**
 * Loads the WebAssembly module (once per page or worker) and returns the posenc API. Later calls
 * return the same instance (and must pass the same options, or none).
 *
 * @throws PosEncError `LOAD_FAILED` when posenc.wasm cannot be fetched or compiled: the message
 * names the URL tried and the fixes (copy posenc.wasm, `locateFile`, `wasmBinary`, or `posenc/embedded`).
 *
 * @example
 * const pe = await createPosEnc();
 * const { data, dims } = pe.sinusoidal.table({ length: 128, dim: 64 });
 */
export const createPosEnc: (options?: CreatePosEncOptions) => Promise<PosEnc> = loadOnce('posenc', async (options, kernels) =>
  instantiate(createPosEncModule, sourceOf(options), kernels));
