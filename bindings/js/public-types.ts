// Everything the package exports besides createPosEnc: the error class and the public types.
export { PosEncError } from './runtime/errors.js';
export type { PosEncErrorCode } from './runtime/errors.js';
export { VERSION } from './posenc.js';
export type { CreatePosEncOptions, PosEnc } from './posenc.js';
export type { KernelChoice, Kernels } from './relaxed.js';
export type { PositionIdsInput, Tensor, TensorInput, TensorLike } from './runtime/args.js';
export { PositionTable } from './families/position-table.js';
export type { TableAddOptions, TableCopyOptions, TableLookupOptions, TablePositionOptions, TableStorage } from './families/position-table.js';
export type {
  SinusoidalAddOptions, SinusoidalApi, SinusoidalCreateTableOptions, SinusoidalFrequencyOptions, SinusoidalParams, SinusoidalTableOptions, SinusoidLayout,
  SinusoidPrecision, TableStorageChoice,
} from './families/sinusoidal.js';
export type { LearnedAddOptions, LearnedApi, LearnedLookupOptions } from './families/learned.js';
export type { GridSizeInput, LearnedInterpolateOptions } from './families/vit.js';
export { RopeCache } from './families/rope/rope.js';
export type {
  DefaultRopeScaling, DynamicRopeScaling, Float64Tensor, HeadLayout, LinearRopeScaling, Llama3Band, Llama3RopeScaling,
  LongRopeScaling, NtkRopeScaling, Rope2dOptions, RopeAnglesOptions, RopeApi, RopeApplyOptions, RopeCacheApplyOptions, RopeCacheCopyOptions, RopeCacheOptions,
  RopeConfigOptions, RopeFrequencies, RopeLengthOptions, RopeModelSpec, RopeMultimodalOptions, RopePairing, RopeScaling,
  RopeScalingType, RopeSpec, RopeTensorOptions, RopeXPosOptions, RotaryEmbeddingOptions, YarnRopeScaling,
} from './families/rope/rope.js';
export type { Rope2dFrequencies } from './families/rope/forms.js';
export type { RopeShiftMoveOptions, RopeShiftOptions } from './families/rope/shift.js';
export type { RopePermuteOptions, WeightData, WeightTensor } from './families/rope/permute.js';
export type { HeadsAttentionOptions, IndexTensor } from './families/relative-args.js';
export type { ShawApi, ShawAttentionOptions, ShawGatherOptions, ShawIndexOptions } from './families/shaw.js';
export type { TransformerXLApi, TxlRelShiftOptions, TxlScoreOptions, TxlSinusoidOptions } from './families/transformer-xl.js';
export type { T5Api, T5BiasOptions, T5BucketOptions, T5MatrixOptions } from './families/t5.js';
export type { DebertaApi, DebertaBucketOptions, DebertaMatrixOptions } from './families/deberta.js';
export type { AlibiApi, AlibiBiasOptions, AlibiForm, AlibiHeads, AlibiSlopeOptions, AttentionMaskInput } from './families/alibi.js';
export type { AttentionApi, AttentionOptions, AttentionRopeOptions } from './families/attention.js';
export type {
  AbsolutePositions, AttentionWindow, GgufMetadata, GgufReadOptions, GgufSource, GgufType, GgufValue, LayerAlibi, LayerCosSin, LayerPlan, LayerRope,
  LongRopeSwitch, ModelApi, ModelConfigOptions, ModelLengthOptions, ModelPlan, QueryScaling, RopeForm,
} from './model/model-api.js';
export type { LaneOrder, LayerCacheApplyOptions, ModelApplyOptions, ModelCacheOptions } from './model/model-api.js';
export { LayerRopeCache } from './model/model-api.js';
export type {
  BytesInput, IoApi, OutputDtype, ReadNpyOptions, ReadSafetensorsOptions, SafetensorsEntry, SafetensorsHeader, WriteNpyOptions,
  WriteSafetensorsOptions,
} from './io/io.js';
export type { ForeignTensor, TensorClass, TensorsApi, TfjsTensorLike } from './io/tensors.js';
export type { DoctorApi, DoctorConfigReport, DoctorFinding, DoctorIdentification, DoctorIdentifyOptions } from './tools/doctor.js';
export type {
  PrecisionApi, PrecisionOptions, PrecisionPipeline, PrecisionPipelineReport, PrecisionReport,
} from './tools/precision.js';
export { WasmTensor } from './runtime/memory.js';
export type { HeapObject } from './runtime/disposable.js';
export type { MemoryApi } from './runtime/memory.js';
