// The relaxed-SIMD kernels (src/kernels-relaxed/, embedded in every entry as base64): whether the
// engine runs them, and plugging the module's exports into the main module's function table so
// that later calls use them (posenc/fused_kernels.hpp).
import { FUSED_KERNELS } from './generated/boundary.js';
import type { UseFusedKernelsArgs } from './generated/boundary.js';
import relaxedBase64 from './relaxed-base64.js';
import { decodeBase64 } from './runtime/base64.js';
import { PosEncError, describe } from './runtime/errors.js';

/** Which kernels to load: `'auto'` (the default: relaxed where the engine runs them), `'simd128'` or `'relaxed'`. */
export type KernelChoice = 'auto' | 'simd128' | 'relaxed';

/** The kernels an instance runs: `'simd128'` or `'relaxed'` (fused multiply-adds). */
export type Kernels = 'simd128' | 'relaxed';

/** What the loader hands to the assembled API: the kernels in use and, if relaxed, their table slots. */
export interface KernelSlots {
  kernels: Kernels;
  slots?: UseFusedKernelsArgs;
}

/**
 * The main module's exports as this file reads them. Structural, not `WebAssembly.Exports`: the
 * declaration files must type-check without the WebAssembly namespace, which a Node-only project
 * (`lib: ["ES2022"]` and `@types/node`) does not have.
 */
export type ModuleExports = Readonly<Record<string, unknown>>;

const SIMD128: KernelSlots = { kernels: 'simd128' };

let decoded: Uint8Array<ArrayBuffer> | undefined;

/** The kernel module's bytes, or undefined when this build has none (built without clang-19). */
function relaxedModule(): Uint8Array<ArrayBuffer> | undefined {
  if (relaxedBase64 === '') return undefined;
  decoded ??= decodeBase64(relaxedBase64);
  return decoded;
}

/** The `kernels` option, checked (undefined: 'auto'). */
export function kernelChoice(value: unknown): KernelChoice {
  if (value === undefined) return 'auto';
  if (typeof value !== 'string') throw new PosEncError('INVALID_TYPE', `createPosEnc: kernels must be a string, got ${describe(value)}`);
  if (value !== 'auto' && value !== 'simd128' && value !== 'relaxed') {
    throw new PosEncError('INVALID_ARGUMENT', `createPosEnc: kernels must be 'auto', 'simd128' or 'relaxed', got '${value}'`);
  }
  return value;
}

/** Instantiates the kernel module on the main module's memory and puts its kernels into grown table slots. */
async function plug(main: ModuleExports, bytes: Uint8Array<ArrayBuffer>): Promise<KernelSlots> {
  // Emscripten minifies export names: find the one memory and the one function table by type.
  const exported = Object.values(main);
  const memory = exported.find((e): e is WebAssembly.Memory => e instanceof WebAssembly.Memory);
  const table = exported.find((e): e is WebAssembly.Table => e instanceof WebAssembly.Table);
  if (memory === undefined || table === undefined) throw new Error('posenc.wasm exports no memory or function table');
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
  const functions = FUSED_KERNELS.map(([, name]) => {
    const f = instance.exports[name];
    if (typeof f !== 'function') throw new Error(`the relaxed-SIMD module lacks ${name}`);
    return f;
  });
  const first = table.grow(functions.length); // throws if the table cannot grow (posenc.wasm linked without -sALLOW_TABLE_GROWTH)
  functions.forEach((f, i) => table.set(first + i, f));
  const slots = Object.fromEntries(FUSED_KERNELS.map(([kernel], i) => [kernel, first + i])) as unknown as UseFusedKernelsArgs;
  return { kernels: 'relaxed', slots };
}

/**
 * The kernels for `choice`: SIMD128 for 'simd128'; for 'auto' the relaxed ones when the engine runs
 * them, SIMD128 otherwise (silently); for 'relaxed' the relaxed ones or an UNSUPPORTED error saying why not.
 */
export async function chooseKernels(choice: KernelChoice, main: ModuleExports): Promise<KernelSlots> {
  if (choice === 'simd128') return SIMD128;
  const bytes = relaxedModule();
  let why: string;
  if (bytes === undefined) {
    why = 'this build of posenc carries no relaxed-SIMD kernels (it was built without clang-19; docs/building.md#14-relaxed-simd)';
  } else if (typeof WebAssembly !== 'object' || !WebAssembly.validate(bytes)) {
    why = 'this JavaScript engine does not run relaxed SIMD (Chromium 114+, Firefox 145+ and Node.js 22+ do; Node.js 20 needs --experimental-wasm-relaxed-simd)';
  } else {
    try {
      return await plug(main, bytes);
    } catch (error) {
      why = `the relaxed-SIMD kernels could not be loaded (${String(error)})`;
      if (choice === 'relaxed') throw new PosEncError('UNSUPPORTED', `createPosEnc: kernels 'relaxed': ${why}`, { cause: error });
    }
  }
  if (choice === 'relaxed') throw new PosEncError('UNSUPPORTED', `createPosEnc: kernels 'relaxed': ${why}`);
  return SIMD128;
}
