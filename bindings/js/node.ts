// posenc for Node.js: reads posenc.wasm from the package folder (Node's fetch cannot load file URLs).
// Also the source of the CommonJS entry (dist/index.cjs), which esbuild bundles from it at build
// time with import.meta.url defined from __filename.
import { fileURLToPath } from 'node:url';

import createPosEncModule from './posenc.mjs';
import { FIXES, givenBytes, instantiate, loadOnce, located, MAX_WASM_BYTES } from './loading.js';
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
    const answer = located(options.locateFile, fileURLToPath(new URL('./', beside)));
    try {
      path = answer.startsWith('file:') ? fileURLToPath(answer) : answer;
    } catch (error) {
      throw new PosEncError('INVALID_ARGUMENT', `createPosEnc: locateFile gave ${answer}, which is not a file path (${(error as Error).message})`, { cause: error });
    }
  }
  try {
    return { kind: 'bytes', bytes: await readModuleFile(path), from: path };
  } catch (error) {
    return {
      kind: 'error',
      error: new PosEncError('LOAD_FAILED', `createPosEnc: could not read posenc.wasm at ${path} (${error instanceof Error ? error.message : String(error)}). ` +
        `Keep it beside posenc's JS (node_modules/posenc/dist/), or ${FIXES}`, { cause: error }),
    };
  }
}

/**
 * The bytes of the module file at `path`: a regular file only (a FIFO, device or folder is never
 * read: opening does not wait for a writer), of at most MAX_WASM_BYTES, read up to its size.
 */
async function readModuleFile(path: string): Promise<Uint8Array<ArrayBuffer>> {
  const file = await openRangeReader('createPosEnc', path);
  try {
    if (file.size! > MAX_WASM_BYTES) {
      throw new PosEncError('LOAD_FAILED', `createPosEnc: ${path} is ${file.size} bytes; posenc.wasm is far smaller (at most ${MAX_WASM_BYTES} bytes are read)`);
    }
    return (await file.read(0, file.size!)) as Uint8Array<ArrayBuffer>;
  } finally {
    await file.close();
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
