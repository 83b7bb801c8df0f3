// The relaxed-SIMD rotation kernels (posenc-relaxed.wasm, src/kernels-relaxed/): feature detection,
// and plugging the module's exports into the main module's function table so RoPE calls use them.
import { PosEncError, describe } from './runtime/errors.js';

/** Which rotation kernels to load: `'simd128'` (the default), `'relaxed'`, or `'auto'` (relaxed where it runs). */
export type KernelChoice = 'auto' | 'simd128' | 'relaxed';

/** The kernels an instance rotates with: `'simd128'` or `'relaxed'` (fused multiply-add). */
export type Kernels = 'simd128' | 'relaxed';

/** Fetches or reads the bytes of posenc-relaxed.wasm for an entry; rejects with why it cannot. */
export type RelaxedBytes = () => Promise<BufferSource>;

/** What the loader hands to the assembled API: the kernels in use and, if relaxed, their table slots. */
export interface KernelSlots {
  kernels: Kernels;
  half: number;
  interleaved: number;
}

export const SIMD128_SLOTS: KernelSlots = { kernels: 'simd128', half: 0, interleaved: 0 };

// The smallest module holding one f32x4.relaxed_madd (three v128.const 0, relaxed_madd, return the
// v128): an engine that validates it runs posenc-relaxed.wasm (tests/js/relaxed-kernels.test.mjs).
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, //       type section: one () -> v128 signature
  0x03, 0x02, 0x01, 0x00, //                         function section: one function of type 0
  0x0a, 0x3d, 0x01, 0x3b, 0x00, //                   code section: one body of 59 bytes, no locals
  ...[0, 1, 2].flatMap(() => [0xfd, 0x0c, ...new Array<number>(16).fill(0)]), // v128.const 0 (x3)
  0xfd, 0x85, 0x02, 0x0b, //                         f32x4.relaxed_madd, end
]);

/** Whether this engine runs relaxed SIMD (Chromium 114+, Firefox ~145+; Node 20 with --experimental-wasm-relaxed-simd). */
export function relaxedSupported(): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_PROBE);
}

/** The `kernels` option, checked (undefined: 'simd128'). */
export function kernelChoice(value: unknown): KernelChoice {
  if (value === undefined) return 'simd128';
  if (typeof value !== 'string') throw new PosEncError('INVALID_TYPE', `createPosEnc: kernels must be a string, got ${describe(value)}`);
  if (value !== 'auto' && value !== 'simd128' && value !== 'relaxed') {
    throw new PosEncError('INVALID_ARGUMENT', `createPosEnc: kernels must be 'auto', 'simd128' or 'relaxed', got '${value}'`);
  }
  return value;
}

/** Instantiates posenc-relaxed.wasm on the main module's memory and puts its kernels into grown table slots. */
async function plug(main: WebAssembly.Exports, bytes: BufferSource): Promise<KernelSlots> {
  // Emscripten minifies export names: find the one memory and the one function table by type.
  const exported = Object.values(main);
  const memory = exported.find((e): e is WebAssembly.Memory => e instanceof WebAssembly.Memory);
  const table = exported.find((e): e is WebAssembly.Table => e instanceof WebAssembly.Table);
  if (memory === undefined || table === undefined) throw new Error('posenc.wasm exports no memory or function table');
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
  const { rotate_half_tokens: half, rotate_interleaved_tokens: interleaved } = instance.exports;
  if (typeof half !== 'function' || typeof interleaved !== 'function') throw new Error('posenc-relaxed.wasm lacks the rotation kernels');
  const first = table.grow(2); // throws if the table cannot grow (posenc.wasm linked without -sALLOW_TABLE_GROWTH)
  table.set(first, half);
  table.set(first + 1, interleaved);
  return { kernels: 'relaxed', half: first, interleaved: first + 1 };
}

/**
 * The kernels for `choice`: SIMD128 for 'simd128'; for 'auto' the relaxed ones when the engine runs
 * them and the bytes load, SIMD128 otherwise (silently); for 'relaxed' the relaxed ones or an
 * UNSUPPORTED error saying why not.
 */
export async function chooseKernels(choice: KernelChoice, main: WebAssembly.Exports, bytes: RelaxedBytes | undefined): Promise<KernelSlots> {
  if (choice === 'simd128') return SIMD128_SLOTS;
  let why: string;
  if (!relaxedSupported()) {
    why = 'this JavaScript engine does not run relaxed SIMD (Chromium 114+ and Firefox 145+ do; Node.js 20 needs --experimental-wasm-relaxed-simd)';
  } else if (bytes === undefined) {
    why = 'this entry carries no posenc-relaxed.wasm (use the posenc entry)';
  } else {
    try {
      return await plug(main, await bytes());
    } catch (error) {
      why = `posenc-relaxed.wasm could not be loaded (${String(error)})`;
      if (choice === 'relaxed') throw new PosEncError('UNSUPPORTED', `createPosEnc: kernels 'relaxed': ${why}`, { cause: error });
    }
  }
  if (choice === 'relaxed') throw new PosEncError('UNSUPPORTED', `createPosEnc: kernels 'relaxed': ${why}`);
  return SIMD128_SLOTS;
}
