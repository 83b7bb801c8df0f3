// Loading posenc.wasm for every entry (browser, Node, CommonJS, embedded): where the bytes come from,
// the one instance per page, worker or process, and a LOAD_FAILED error that names what was tried
// and how to fix it. The Emscripten glue never fetches anything itself: posenc compiles the module
// through the glue's `instantiateWasm` hook, so every failure passes through here.
import { PosEncError, callerError, describe } from './runtime/errors.js';
import { snapshot } from './runtime/caller.js';
import { assemble } from './posenc.js';
import type { CreatePosEncOptions, PosEnc } from './posenc.js';
import type { RawModule } from './runtime/raw-module.js';
import type { Host } from './runtime/host.js';
import { chooseKernels, kernelChoice } from './relaxed.js';
import type { KernelChoice } from './relaxed.js';

/** A factory produced by Emscripten (`-sMODULARIZE -sEXPORT_ES6`). */
export type ModuleFactory = (options: Record<string, unknown>) => Promise<unknown>;

/** Where an entry gets the module's bytes: from a URL (browsers), or bytes it already has. */
export type WasmSource =
  | { kind: 'url'; url: string }
  | { kind: 'bytes'; bytes: BufferSource; from: string }
  | { kind: 'error'; error: PosEncError };

/** The most bytes read as posenc.wasm from a file (the module is about 0.36 MB; tests/js/loading-hostile.test.mjs checks it stays far below). */
export const MAX_WASM_BYTES = 16 * 1024 * 1024;

/** How to avoid every asset problem at once; appended to LOAD_FAILED messages. */
export const FIXES = "pass { wasmBinary } (the bytes of posenc.wasm) or { locateFile: (file) => '<url of the folder>/' + file } " +
  "to createPosEnc, or import from 'posenc/embedded' (the module inside the JS: nothing to serve or copy)";

// The smallest module that uses a SIMD instruction (v128.const; drop): validating it tells whether
// the engine supports WebAssembly SIMD before the real module fails to compile.
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x04, 0x01, 0x60, 0x00, 0x00, //             type section: one () -> () signature
  0x03, 0x02, 0x01, 0x00, //                         function section: one function of type 0
  0x0a, 0x17, 0x01, 0x15, 0x00, //                   code section: one body of 21 bytes, no locals
  0xfd, 0x0c, ...new Array<number>(16).fill(0), //  v128.const 0
  0x1a, 0x0b, //                                     drop, end
]);

function loadFailed(message: string, cause?: unknown): PosEncError {
  return new PosEncError('LOAD_FAILED', `createPosEnc: ${message}`, cause === undefined ? undefined : { cause });
}

/** Fetches and compiles the module at `url` (streaming when the server sends application/wasm). */
async function fromUrl(url: string, imports: WebAssembly.Imports): Promise<WebAssembly.WebAssemblyInstantiatedSource> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (error) {
    throw loadFailed(`could not fetch posenc.wasm from ${url} (${String(error)}). Serve it at that URL, or ${FIXES}`, error);
  }
  if (!response.ok) {
    throw loadFailed(`could not fetch posenc.wasm from ${url}: HTTP ${response.status} ${response.statusText}. ` +
      `Copy node_modules/posenc/dist/posenc.wasm to that URL (bundlers such as esbuild and Rollup do not copy it), or ${FIXES}`);
  }
  const streaming = typeof WebAssembly.instantiateStreaming === 'function'
    && (response.headers.get('content-type') ?? '').split(';')[0]!.trim() === 'application/wasm';
  try {
    if (streaming) return await WebAssembly.instantiateStreaming(response, imports);
    return await WebAssembly.instantiate(await response.arrayBuffer(), imports);
  } catch (error) {
    throw loadFailed(`${url} is not posenc's WebAssembly module (${String(error)}); ` +
      `the server may have answered with another file, such as an HTML page. Serve posenc.wasm there, or ${FIXES}`, error);
  }
}

async function fromBytes(bytes: BufferSource, from: string, imports: WebAssembly.Imports): Promise<WebAssembly.WebAssemblyInstantiatedSource> {
  try {
    return await WebAssembly.instantiate(bytes, imports);
  } catch (error) {
    throw loadFailed(`the bytes of posenc.wasm (${from}) are not posenc's WebAssembly module (${String(error)})`, error);
  }
}

/** The bytes a caller gave as `wasmBinary`, checked. */
export function givenBytes(value: unknown): BufferSource {
  // A view of any kind (a DataView, a Node Buffer, a Float32Array...) as the bytes it covers.
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength) as Uint8Array<ArrayBuffer>;
  if (value instanceof ArrayBuffer || Object.prototype.toString.call(value) === '[object ArrayBuffer]') return value as ArrayBuffer;
  throw new PosEncError('INVALID_TYPE', `createPosEnc: wasmBinary must be an ArrayBuffer or a Uint8Array, got ${describe(value)}`);
}

/**
 * Instantiates the module from `source` through the Emscripten factory, plugs in the relaxed-SIMD
 * kernels when `kernels` asks for them and the engine runs them (relaxed.ts), and assembles the API.
 */
export async function instantiate(factory: ModuleFactory, source: WasmSource, kernels: KernelChoice = 'auto', host: Host = {}): Promise<PosEnc> {
  if (typeof WebAssembly !== 'object' || !WebAssembly.validate(SIMD_PROBE)) {
    throw new PosEncError('UNSUPPORTED', 'posenc needs WebAssembly SIMD (Chrome/Edge 91+, Firefox 89+, Safari 16.4+, Node.js 18+), which this JavaScript engine does not support');
  }
  if (source.kind === 'error') throw source.error;
  let failed: (error: unknown) => void = () => {};
  const failure = new Promise<never>((_, reject) => { failed = reject; });
  const from = source.kind === 'url' ? source.url : source.from;
  // What the glue prints while loading (an abort message) goes into the LOAD_FAILED error, not to
  // the console; once loaded, its messages go to console.warn as the glue's default does.
  let loading = true;
  const printed: string[] = [];
  let mainExports: WebAssembly.Exports = {};
  const moduleOptions = {
    // The glue computes a URL for posenc.wasm from import.meta.url even when it will not fetch it,
    // which throws in bundles without import.meta (esbuild iife, CommonJS): give it a locateFile.
    locateFile: (file: string) => file,
    printErr: (text: string) => {
      if (loading) printed.push(text);
      else console.warn(text);
    },
    onAbort: (what: unknown) => {
      if (loading) failed(loadFailed(`${from} is not posenc's WebAssembly module: it aborted while starting (${String(what)}). ${FIXES}`));
    },
    // Emscripten calls this instead of fetching: compile the module here, report failures here.
    instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      const loaded = source.kind === 'url' ? fromUrl(source.url, imports) : fromBytes(source.bytes, source.from, imports);
      loaded.then((result) => {
        try {
          mainExports = result.instance.exports;
          receive(result.instance, result.module);
        } catch (error) { // a valid WebAssembly module, but another one: the glue finds none of its exports
          failed(loadFailed(`${from} is a WebAssembly module, but not posenc's (${String(error)}). ${FIXES}`, error));
        }
      }, failed);
      return {}; // the exports arrive asynchronously, through receive()
    },
  };
  try {
    const raw = (await Promise.race([factory(moduleOptions), failure])) as RawModule;
    return assemble(raw, await chooseKernels(kernels, mainExports), host);
  } catch (error) {
    if (error instanceof PosEncError) throw error;
    const output = printed.length ? `; it printed: ${printed.join(' / ')}` : '';
    throw loadFailed(`${from} could not be started as posenc's WebAssembly module (${String(error)}${output}). ${FIXES}`, error);
  } finally {
    loading = false;
  }
}

/** The options that decide how the module loads, as the first call gave them. */
interface FirstCall {
  wasmBinary: unknown;
  locateFile: unknown;
  kernels: KernelChoice;
}

/**
 * One instance per page, worker or process for an entry: the first call loads the module, later
 * calls get the same instance. A later call with other loading options cannot be honoured (the
 * module is loaded), so it is an error rather than being ignored.
 */
export function loadOnce(entry: string, load: (options: CreatePosEncOptions, kernels: KernelChoice) => Promise<PosEnc>,
  known: readonly string[] = ['wasmBinary', 'locateFile', 'kernels']): (options?: CreatePosEncOptions) => Promise<PosEnc> {
  let shared: Promise<PosEnc> | undefined;
  let first: FirstCall | undefined;
  // Never throws: whatever goes wrong, the caller's getters and traps included, is a rejection.
  return (given: unknown = {}) => {
    let options: CreatePosEncOptions;
    let kernels: KernelChoice;
    try {
      options = readLoadOptions(entry, given, known);
      kernels = kernelChoice(options.kernels);
    } catch (error) {
      return Promise.reject(error instanceof PosEncError ? error : loadFailed(`reading the options failed (${String(error)})`, error));
    }
    const call: FirstCall = { wasmBinary: options.wasmBinary, locateFile: options.locateFile, kernels };
    if (shared && first) {
      const same = (call.wasmBinary === undefined || call.wasmBinary === first.wasmBinary)
        && (call.locateFile === undefined || call.locateFile === first.locateFile)
        && (options.kernels === undefined || call.kernels === first.kernels);
      if (!same) {
        return Promise.reject(new PosEncError('INVALID_ARGUMENT', `createPosEnc: ${entry} is already loaded (once per page, worker or process) ` +
          'with other loading options; later calls must pass the same wasmBinary, locateFile and kernels, or none'));
      }
      return shared;
    }
    first = call;
    let loading: Promise<PosEnc>;
    try {
      loading = load(options, kernels);
    } catch (error) {
      loading = Promise.reject(error);
    }
    loading = loading.catch((error: unknown) => {
      throw error instanceof PosEncError ? error : loadFailed(`${String(error)}. ${FIXES}`, error);
    });
    shared = loading;
    loading.catch(() => { // a failed load may be retried, with other options too
      if (shared === loading) {
        shared = undefined;
        first = undefined;
      }
    });
    return loading;
  };
}

/**
 * The options of createPosEnc read once into a plain copy (each getter or Proxy trap runs here, and
 * what it throws is INVALID_ARGUMENT naming what was read, with it as the cause); an option the
 * entry does not take is UNKNOWN_OPTION.
 */
function readLoadOptions(entry: string, given: unknown, known: readonly string[]): CreatePosEncOptions {
  if (given === null || typeof given !== 'object') {
    throw new PosEncError('INVALID_TYPE', `createPosEnc: options must be an object, got ${describe(given)}`);
  }
  const options = snapshot('createPosEnc', given, 'options') as Record<string, unknown>;
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length && entry === 'posenc/embedded') {
    throw new PosEncError('UNKNOWN_OPTION', `createPosEnc: posenc/embedded takes only the kernels option (the module is inside it), got '${unknown[0]}'; use 'posenc' for wasmBinary and locateFile`);
  }
  if (unknown.length) throw new PosEncError('UNKNOWN_OPTION', `createPosEnc: unknown option '${unknown[0]}'; known options: ${known.join(', ')}`);
  return options as CreatePosEncOptions;
}

/** What `locateFile` answers for posenc.wasm: a string (or URL), the caller's own errors as PosEncErrors. */
export function located(locateFile: unknown, prefix: string): string {
  if (typeof locateFile !== 'function') {
    throw new PosEncError('INVALID_TYPE', `createPosEnc: locateFile must be a function (file, prefix) => path or url, got ${describe(locateFile)}`);
  }
  let answer: unknown;
  try {
    answer = (locateFile as (file: string, prefix: string) => unknown)('posenc.wasm', prefix);
  } catch (error) {
    throw callerError('createPosEnc', 'locateFile(\'posenc.wasm\')', error);
  }
  if (typeof answer === 'string') return answer;
  if (typeof URL === 'function' && answer instanceof URL) return answer.href;
  throw new PosEncError('INVALID_TYPE', `createPosEnc: locateFile must return a string (or URL), got ${describe(answer)}`);
}
