// The PosEnc object: one per module instance, grouping the encoding families.
import { PosEncError } from './runtime/errors.js';
import { guarded, guardMethods } from './runtime/guard.js';
import { Heap } from './runtime/heap.js';
import { WasmTensor } from './runtime/wasm-tensor.js';
import { RopeCache } from './families/rope/cache.js';
import { PositionTable } from './families/position-table.js';
import { LayerRopeCache } from './model/layer-cache.js';
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
import { tensorsApi } from './io/tensors.js';
import type { TensorsApi } from './io/tensors.js';
import { transformerXLApi } from './families/transformer-xl.js';
import type { TransformerXLApi } from './families/transformer-xl.js';
import { modelApi } from './model/model-api.js';
import type { Host } from './runtime/host.js';
import { fromConfig } from './model/rope-from-config.js';
import type { ModelApi } from './model/model-api.js';
import { doctorApi } from './tools/doctor.js';
import type { DoctorApi } from './tools/doctor.js';
import { precisionApi } from './tools/precision.js';
import type { PrecisionApi } from './tools/precision.js';

import { VERSION } from './generated/boundary.js';
import type { KernelChoice, KernelSlots, Kernels } from './relaxed.js';

/** The package version (package.json's, generated into the build). */
export { VERSION };

/** Everything posenc computes, bound to one WebAssembly instance. */
export interface PosEnc {
  /** The package version. */
  readonly version: string;
  /** The SIMD architecture the kernels were compiled for (`'sse4.1'`: SSE4.1 translated to WebAssembly SIMD). */
  readonly simd: string;
  /** The kernels in use: `'relaxed'` (fused multiply-adds) or `'simd128'` (see the `kernels` option of createPosEnc). */
  readonly kernels: Kernels;
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
  /** The convention doctor: which RoPE convention rotated a tensor; every ambiguity of a config (docs/reference.md). */
  readonly doctor: DoctorApi;
  /** The precision oracle: RoPE as float32/float16/bfloat16 pipelines compute it, against float64 (docs/reference.md). */
  readonly precision: PrecisionApi;
  /** Tensors kept in WebAssembly memory, for hot loops without copies (`pe.memory.tensor(dims)`). */
  readonly memory: MemoryApi;
  /** Other libraries' tensors: float32 copies in (`from`), results out as their tensor class (`wrap`). */
  readonly tensors: TensorsApi;
}

/** Options for loading the module (only the first `createPosEnc` call of a page, worker or process loads it). */
export interface CreatePosEncOptions {
  /**
   * The bytes of `posenc.wasm`, if you load them yourself: then nothing is fetched. The Node entry
   * reads them from the package for you.
   */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /**
   * Maps `'posenc.wasm'` to the URL to fetch it from, for apps that serve it elsewhere than next to
   * the package's JS (the default), e.g. `(file) => '/assets/' + file`. `prefix` is the folder of
   * the module's own script, where known.
   */
  locateFile?: (file: string, prefix: string) => string;
  /**
   * The kernels: `'auto'` (the default: the relaxed-SIMD ones where the engine runs relaxed SIMD,
   * the SIMD128 ones elsewhere, silently), `'relaxed'` (fused multiply-adds for RoPE rotations that
   * fit in cache, sinusoid and angle rows; an `UNSUPPORTED` error naming why where they cannot run)
   * or `'simd128'`. The relaxed kernels ship inside the JavaScript: no extra file. Results stay
   * within the bounds of docs/encodings.md#82-precision either way; `pe.kernels` says which ran.
   */
  kernels?: KernelChoice;
}

// Methods of the objects the API hands out, guarded like the API's functions (runtime/guard.ts).
guardMethods('WasmTensor', WasmTensor.prototype);
guardMethods('RopeCache', RopeCache.prototype);
guardMethods('PositionTable', PositionTable.prototype);
guardMethods('LayerRopeCache', LayerRopeCache.prototype);

/** @internal Builds the API over a loaded module (loading.ts loads it). */
export function assemble(raw: RawModule, slots: KernelSlots, host: Host = {}): PosEnc {
  const heap = new Heap(raw);
  if (slots.slots !== undefined) heap.call.useFusedKernels(slots.slots);
  const rope = guarded('rope', ropeApi(heap, fromConfig));
  const alibi = guarded('alibi', alibiApi(heap));
  const model = guarded('model', modelApi(heap, rope, alibi, host));
  return Object.freeze({
    version: VERSION,
    simd: raw.simdArch(),
    kernels: slots.kernels,
    PosEncError,
    sinusoidal: guarded('sinusoidal', sinusoidalApi(heap)),
    learned: guarded('learned', learnedApi(heap)),
    rope,
    shaw: guarded('shaw', shawApi(heap)),
    transformerXL: guarded('transformerXL', transformerXLApi(heap)),
    t5: guarded('t5', t5Api(heap)),
    deberta: guarded('deberta', debertaApi(heap)),
    alibi,
    attention: guarded('attention', attentionApi(heap)),
    model,
    doctor: guarded('doctor', doctorApi(rope, model)),
    precision: guarded('precision', precisionApi(heap, rope, model)),
    io: guarded('io', ioApi()),
    memory: guarded('memory', memoryApi(heap)),
    tensors: guarded('tensors', tensorsApi()),
  });
}
