// The PosEnc object: one per module instance, grouping the encoding families.
import { PosEncError } from './runtime/errors.js';
import { Heap } from './runtime/heap.js';
import { ioApi } from './io/io.js';
import type { IoApi } from './io/io.js';
import { learnedApi } from './families/learned.js';
import type { LearnedApi } from './families/learned.js';
import { memoryApi } from './runtime/memory.js';
import type { MemoryApi } from './runtime/memory.js';
import type { RawModule } from './runtime/raw-module.js';
import { ropeApi } from './families/rope/rope.js';
import type { RopeApi } from './families/rope/rope.js';
import { sinusoidalApi } from './families/sinusoidal.js';
import type { SinusoidalApi } from './families/sinusoidal.js';
import { alibiApi } from './families/alibi.js';
import type { AlibiApi } from './families/alibi.js';
import { attentionApi } from './families/attention.js';
import type { AttentionApi } from './families/attention.js';
import { debertaApi } from './families/deberta.js';
import type { DebertaApi } from './families/deberta.js';
import { shawApi } from './families/shaw.js';
import type { ShawApi } from './families/shaw.js';
import { t5Api } from './families/t5.js';
import type { T5Api } from './families/t5.js';
import { transformerXLApi } from './families/transformer-xl.js';
import type { TransformerXLApi } from './families/transformer-xl.js';
import { modelApi } from './model/model-api.js';
import type { ModelApi } from './model/model-api.js';

import { VERSION } from './generated/boundary.js';

/** The package version (package.json's, generated into the build). */
export { VERSION };

/** Everything posenc computes, bound to one WebAssembly instance. */
export interface PosEnc {
  /** The package version. */
  readonly version: string;
  /** The SIMD architecture the kernels were compiled for (`'sse4.1'`: SSE4.1 translated to WebAssembly SIMD). */
  readonly simd: string;
  /** The error class, also exported by the package (handy from CommonJS). */
  readonly PosEncError: typeof PosEncError;
  /** Sinusoidal absolute encodings (Vaswani et al. 2017). */
  readonly sinusoidal: SinusoidalApi;
  /** Learned absolute position tables (BERT, GPT-2, ViT). */
  readonly learned: LearnedApi;
  /** Rotary position embeddings (RoPE). */
  readonly rope: RopeApi;
  /** Shaw et al. 2018 clipped relative position representations. */
  readonly shaw: ShawApi;
  /** Transformer-XL relative sinusoid, relative shift and four-term score (Dai et al. 2019). */
  readonly transformerXL: TransformerXLApi;
  /** T5 relative position buckets and bias. */
  readonly t5: T5Api;
  /** DeBERTa-v2/v3 log-bucket relative positions and c2p/p2c indices. */
  readonly deberta: DebertaApi;
  /** ALiBi slopes and linear biases. */
  readonly alibi: AlibiApi;
  /** Attention logits, scores and outputs for small sizes (mask, bias, RoPE). */
  readonly attention: AttentionApi;
  /** A model's per-layer position plan from its config.json or GGUF header (docs/models.md). */
  readonly model: ModelApi;
  /** Reading and writing tables: `.npy` and `.safetensors` files (plain JS, no WebAssembly). */
  readonly io: IoApi;
  /** Tensors kept in WebAssembly memory, for hot loops without copies (`pe.memory.tensor(dims)`). */
  readonly memory: MemoryApi;
}

/** Options for loading the module. */
export interface CreatePosEncOptions {
  /** The bytes of `posenc.wasm`, if you load them yourself (the Node entry does this for you). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Maps `'posenc.wasm'` to the URL to fetch it from (default: next to the package's JS). */
  locateFile?: (file: string, prefix: string) => string;
}

/** A factory produced by Emscripten (`-sMODULARIZE -sEXPORT_ES6`). */
export type ModuleFactory = (options: Record<string, unknown>) => Promise<unknown>;

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

/** Instantiates the module and wraps it. */
export async function instantiate(factory: ModuleFactory, options: CreatePosEncOptions): Promise<PosEnc> {
  if (typeof WebAssembly !== 'object' || !WebAssembly.validate(SIMD_PROBE)) {
    throw new PosEncError('UNSUPPORTED', 'posenc needs WebAssembly SIMD, which this JavaScript engine does not support');
  }
  const moduleOptions: Record<string, unknown> = {};
  if (options.wasmBinary !== undefined) moduleOptions.wasmBinary = options.wasmBinary;
  if (options.locateFile !== undefined) moduleOptions.locateFile = options.locateFile;
  const raw = (await factory(moduleOptions)) as RawModule;
  return wrap(raw);
}

function wrap(raw: RawModule): PosEnc {
  const heap = new Heap(raw);
  const rope = Object.freeze(ropeApi(heap));
  const alibi = Object.freeze(alibiApi(heap));
  return Object.freeze({
    version: VERSION,
    simd: raw.simdArch(),
    PosEncError,
    sinusoidal: Object.freeze(sinusoidalApi(heap)),
    learned: Object.freeze(learnedApi(heap)),
    rope,
    shaw: Object.freeze(shawApi(heap)),
    transformerXL: Object.freeze(transformerXLApi(heap)),
    t5: Object.freeze(t5Api(heap)),
    deberta: Object.freeze(debertaApi(heap)),
    alibi,
    attention: Object.freeze(attentionApi(heap)),
    model: Object.freeze(modelApi(rope, alibi)),
    io: Object.freeze(ioApi()),
    memory: Object.freeze(memoryApi(heap)),
  });
}
