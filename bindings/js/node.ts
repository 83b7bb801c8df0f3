// posenc for Node.js: reads posenc.wasm from the package folder (Node's fetch cannot load file URLs).
// Also the source of the CommonJS entry (dist/index.cjs), which esbuild bundles from it at build
// time with import.meta.url defined from __filename.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import createPosEncModule from './posenc.mjs';
import { FIXES, givenBytes, instantiate, loadOnce } from './loading.js';
import type { WasmSource } from './loading.js';
import { PosEncError } from './runtime/errors.js';
import { openRangeReader } from './runtime/node-files.js';
import type { CreatePosEncOptions, PosEnc } from './posenc.js';

export * from './public-types.js';

async function sourceOf(options: CreatePosEncOptions): Promise<WasmSource> {
  if (options.wasmBinary !== undefined) return { kind: 'bytes', bytes: givenBytes(options.wasmBinary), from: 'options.wasmBinary' };
  let beside: URL;
  try {
    beside = new URL('./posenc.wasm', import.meta.url);
  } catch (error) {
    return {
      kind: 'error',
      error: new PosEncError('LOAD_FAILED', 'createPosEnc: cannot tell where posenc.wasm is: this bundle has no import.meta.url ' +
        `(a CommonJS bundle of posenc's ES module?). Copy posenc.wasm somewhere and pass its bytes as wasmBinary, or ${FIXES}`, { cause: error }),
    };
  }
  let path = fileURLToPath(beside);
  if (options.locateFile !== undefined) {
    if (typeof options.locateFile !== 'function') {
      throw new PosEncError('INVALID_TYPE', 'createPosEnc: locateFile must be a function (file, prefix) => path');
    }
    const located = String(options.locateFile('posenc.wasm', fileURLToPath(new URL('./', beside))));
    path = located.startsWith('file:') ? fileURLToPath(located) : located;
  }
  try {
    return { kind: 'bytes', bytes: await readFile(path), from: path };
  } catch (error) {
    return {
      kind: 'error',
      error: new PosEncError('LOAD_FAILED', `createPosEnc: could not read posenc.wasm at ${path} (${String(error)}). ` +
        `Keep it beside posenc's JS (node_modules/posenc/dist/), or ${FIXES}`, { cause: error }),
    };
  }
}

/**
 * Loads the WebAssembly module (once per process or worker thread) and returns the posenc API.
 * Later calls return the same instance (and must pass the same options, or none).
 *
 * @throws PosEncError `LOAD_FAILED` when posenc.wasm cannot be read or compiled: the message names
 * the path tried and the fixes (`wasmBinary`, or `posenc/embedded`).
 *
 * @example
 * import { createPosEnc } from 'posenc';
 * const pe = await createPosEnc();
 */
export const createPosEnc: (options?: CreatePosEncOptions) => Promise<PosEnc> = loadOnce('posenc', async (options, kernels) =>
  instantiate(createPosEncModule, await sourceOf(options), kernels, { openFile: openRangeReader }));
