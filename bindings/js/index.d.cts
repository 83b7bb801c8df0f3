// Types of the CommonJS entry (index.cjs). The error class is reachable as `pe.PosEncError`.
import type { CreatePosEncOptions, PosEnc } from './node.js';

export type * from './node.js';

/** Loads the WebAssembly module (once per process) and returns the posenc API. */
export declare function createPosEnc(options?: CreatePosEncOptions): Promise<PosEnc>;
