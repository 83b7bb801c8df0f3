// Type test: the published typings, used as an ESM consumer would (through the package name).
// `npm test` type-checks this file; each @ts-expect-error line must be a type error.
import { createPosEnc, LayerRopeCache, PosEncError, RopeCache, PositionTable } from 'posenc';
import type {
  PosEnc, PosEncErrorCode, Tensor, TensorLike, RopeApplyOptions, RopeFrequencies, RopeModelSpec, RopeScaling, Float64Tensor,
  Llama3Band, SafetensorsHeader, LearnedInterpolateOptions, ModelPlan, RopeTensorOptions, GgufSource, GgufType, GgufValue,
} from 'posenc';

const pe: PosEnc = await createPosEnc();
const version: string = pe.version;

const table: Tensor = pe.sinusoidal.table({ length: 16, dim: 8, layout: 'half', base: 10000 });
const data: Float32Array = table.data;
const dims: number[] = table.dims;
pe.sinusoidal.table({ positionIds: new BigInt64Array([1n, 2n]), dim: 8 });
pe.sinusoidal.addTo({ data, dims }, { offset: 3 });
// @ts-expect-error layout is 'interleaved' | 'half'
pe.sinusoidal.table({ length: 16, dim: 8, layout: 'concat' });
// @ts-expect-error dim is required
pe.sinusoidal.table({ length: 16 });

const q: TensorLike = { data: new Float32Array(64), dims: [1, 2, 4, 8] };
const opts: RopeApplyOptions = { layout: 'bshd', pairing: 'interleaved', rotaryDim: 8, offset: 5 };
pe.rope.apply(q, null, opts);
pe.rope.apply(new Float32Array(64), new Float32Array(32), { dims: [1, 2, 4, 8], kDims: [1, 2, 2, 8], layout: 'bshd' });
// @ts-expect-error pairing names are 'half' | 'interleaved'
pe.rope.apply(q, null, { layout: 'bshd', pairing: 'neox' });
// @ts-expect-error q must be float32 data
pe.rope.apply(new Float64Array(64), null, { layout: 'bshd' });

const cache: RopeCache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 32 });
cache.apply(q, null, { layout: 'bshd', positionIds: [1, 2] });
const cos: Tensor = cache.toTensors().cos;
const cacheBytes: number = cache.bytes;
// @ts-expect-error bytes is read-only
cache.bytes = 0;
cache.dispose();

const learned: PositionTable = pe.learned.createTable({ data: new Float32Array(40), dims: [10, 4] });
learned.addTo(new Float32Array(8), { dims: [2, 4], positionIds: new Int32Array([0, 9]) });
const tableBytes: number = learned.bytes;
learned.dispose();
const vitOptions: LearnedInterpolateOptions = { gridSize: 14, newGridSize: [24, 32], numPrefixTokens: 2 };
const resized: Tensor = pe.learned.interpolate({ data: new Float32Array(198 * 4), dims: [198, 4] }, vitOptions);
pe.learned.interpolate(new Float32Array(20), { tableDims: [5, 4], gridSize: [2, 2], newGridSize: 3 });
// @ts-expect-error newGridSize is required
pe.learned.interpolate(resized, { gridSize: 14 });
// @ts-expect-error gridSize is a number or [height, width]
pe.learned.interpolate(resized, { gridSize: '14', newGridSize: 24 });

// RoPE scaling, diagnostics, angles, other forms and model configs
const yarn: RopeScaling = { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, truncate: false };
const freqs: RopeFrequencies = pe.rope.frequencies({ rotaryDim: 128, scaling: yarn }, { seqLen: 8192 });
const low: number | undefined = freqs.yarn?.low;
const ramp: Float64Array | undefined = freqs.yarn?.ramp;
const band: Llama3Band | undefined = pe.rope.frequencies({ rotaryDim: 128, scaling: { type: 'llama3' } }).llama3?.band[0];
const list: 'short' | 'long' | undefined = pe.rope.frequencies({
  rotaryDim: 4, scaling: { type: 'longrope', shortFactor: [1, 1], longFactor: new Float64Array([2, 2]), originalMaxPositionEmbeddings: 8, factor: 2 },
}).longrope?.list;
const angles: Float64Tensor = pe.rope.angles({ rotaryDim: 8, scaling: { type: 'linear', factor: 2 } }, [1, 2]);
const model: RopeModelSpec = pe.rope.fromConfig({ hidden_size: 64, num_attention_heads: 2 }, { layerType: 'full_attention' });
pe.rope.apply(q, null, { ...model, layout: 'bshd', seqLen: 16 });
pe.rope.apply(q, null, { layout: 'bshd', scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 4 } });
const scaledCache: RopeCache = pe.rope.createCache({ rotaryDim: 8, maxPositions: 8, scaling: { type: 'ntk', factor: 2 }, seqLen: 8 });
scaledCache.dispose();
pe.rope.apply2d(q, null, { layout: 'bshd', grid: [1, 2], freqs: 'pixel', maxFreq: 10 });
pe.rope.applyXPos(q, null, { layout: 'bshd', gamma: 0.4, scaleBase: 512, center: 1 });
pe.rope.applyMultimodal(q, null, { layout: 'bshd', mropeSection: [1, 1, 2], positionIds: [0, 1, 0, 1, 0, 1] });
pe.rope.applyMultimodal(q, null, { layout: 'bshd', mropeSection: [2, 1, 1], mropeInterleaved: true });
// A model's layers applied to q and k (pe.model.apply), and a layer cache
const plan: ModelPlan = pe.model.fromConfig({ model_type: 'llama', num_hidden_layers: 2, hidden_size: 16, num_attention_heads: 2 });
pe.model.apply(plan, 1, q, null, { layout: 'bshd', positionIds: [3, 4], seqLen: 8, laneOrder: 'vllm' });
const layerCache: LayerRopeCache = pe.model.createCache(plan, 0, { maxPositions: 8 });
layerCache.apply(q, null, { layout: 'bshd', offset: 2 });
const softmax: number = pe.model.softmaxScaleFactor(plan, 0) * layerCache.bytes;
layerCache.dispose();
// @ts-expect-error laneOrder is 'hf' | 'vllm'
pe.model.apply(plan, 0, q, null, { layout: 'bshd', laneOrder: 'sglang' });
// @ts-expect-error unknown scaling type
pe.rope.frequencies({ rotaryDim: 8, scaling: { type: 'ntk-by-parts', factor: 2 } });
// @ts-expect-error linear scaling needs a factor
pe.rope.frequencies({ rotaryDim: 8, scaling: { type: 'linear' } });
// @ts-expect-error mropeSection is required
pe.rope.applyMultimodal(q, null, { layout: 'bshd' });
// @ts-expect-error 2-D RoPE frequencies are 'lang' | 'pixel'
pe.rope.apply2d(q, null, { layout: 'bshd', grid: [1, 2], freqs: 'audio' });
console.log(low, ramp, band, list, angles);

const y: Tensor = pe.rope.rotaryEmbedding(q, cos, cos, { interleaved: true, rotaryEmbeddingDim: 0 });

const npy: Uint8Array = pe.io.writeNpy(table);
const back: Tensor = pe.io.readNpy(npy.buffer, { voidAs: 'bfloat16' });
const listing: SafetensorsHeader = pe.io.listSafetensors(new Uint8Array(8));
const firstName: string | undefined = listing.tensors[0]?.name;
const tensors: Record<string, Tensor> = pe.io.readSafetensors(npy, { names: ['wpe.weight'] });
// @ts-expect-error voidAs only knows 'bfloat16'
pe.io.readNpy(npy, { voidAs: 'float16' });
console.log(back, firstName, tensors);

try {
  pe.rope.frequencies({ rotaryDim: 7 });
} catch (error) {
  if (error instanceof PosEncError) {
    const code: PosEncErrorCode = error.code;
    // @ts-expect-error codes are a closed union
    const bad: PosEncErrorCode = 'NOT_A_CODE';
    console.log(code, bad);
  }
}
// The parts of option types a user can name: the tensor half of rope.apply's options, a GGUF value's type
const shape: RopeTensorOptions = { layout: 'bhsd', offset: 3 };
pe.rope.apply(q, null, { ...shape, rotaryDim: 8 });
const ggufType: GgufType = 'float32';
const ggufValue: GgufValue = { type: ggufType, value: 10000 };
// @ts-expect-error GGUF types are the format's names
const badType: GgufType = 'f32';
console.log(ggufValue, badType);
// A GGUF file's plan from its header alone: a Blob (or File), a stream, or in Node a path
const sources: GgufSource[] = [new Blob([new Uint8Array(8)]), 'model.gguf', new URL('file:///model.gguf'), new Uint8Array(8)];
const fromFile: Promise<ModelPlan> = pe.model.fromGgufFile(sources[0]!, { contextLength: 4096 });
// @ts-expect-error a number is no GGUF source
void pe.model.fromGgufFile(42);
void fromFile;
console.log(version, y, pe.PosEncError === PosEncError);
