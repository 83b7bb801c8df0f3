// Everything the package exports besides createPosEnc: the error class and the public types.
export { PosEncError } from './errors.js';
export type { PosEncErrorCode } from './errors.js';
export { VERSION } from './posenc.js';
export type { CreatePosEncOptions, PosEnc } from './posenc.js';
export type { PositionIdsInput, Tensor, TensorInput, TensorLike } from './args.js';
export { PositionTable } from './position-table.js';
export type { TableAddOptions, TableLookupOptions, TablePositionOptions } from './position-table.js';
export type {
  SinusoidalAddOptions, SinusoidalApi, SinusoidalCacheOptions, SinusoidalParams, SinusoidalTableOptions, SinusoidLayout, SinusoidPrecision,
} from './sinusoidal.js';
export type { LearnedAddOptions, LearnedApi, LearnedLookupOptions } from './learned.js';
export type { GridSizeInput, LearnedInterpolateOptions } from './vit.js';
export { RopeCache } from './rope.js';
export type {
  DefaultRopeScaling, DynamicRopeScaling, Float64Tensor, HeadLayout, LinearRopeScaling, Llama3Band, Llama3RopeScaling,
  LongRopeScaling, NtkRopeScaling, Rope2dOptions, RopeApi, RopeApplyOptions, RopeCacheApplyOptions, RopeCacheOptions,
  RopeConfigOptions, RopeFrequencies, RopeLengthOptions, RopeModelSpec, RopeMultimodalOptions, RopePairing, RopeScaling,
  RopeScalingType, RopeSpec, RopeXPosOptions, RotaryEmbeddingOptions, YarnRopeScaling,
} from './rope.js';
export type { Rope2dFrequencies } from './rope-forms.js';
export type { HeadsAttentionOptions, IndexTensor } from './relative-args.js';
export type { ShawApi, ShawAttentionOptions, ShawGatherOptions, ShawIndexOptions } from './shaw.js';
export type { TransformerXLApi, TxlRelShiftOptions, TxlScoreOptions, TxlSinusoidOptions } from './transformer-xl.js';
export type { T5Api, T5BiasOptions, T5BucketOptions, T5MatrixOptions } from './t5.js';
export type { DebertaApi, DebertaBucketOptions, DebertaMatrixOptions } from './deberta.js';
export type { AlibiApi, AlibiBiasOptions, AlibiForm, AlibiSlopeOptions, AttentionMaskInput } from './alibi.js';
export type { AttentionApi, AttentionOptions, AttentionRopeOptions } from './attention.js';
export type {
  BytesInput, IoApi, ReadNpyOptions, ReadSafetensorsOptions, SafetensorsEntry, SafetensorsHeader, WriteNpyOptions,
} from './io.js';
export { WasmTensor } from './memory.js';
export type { MemoryApi } from './memory.js';
