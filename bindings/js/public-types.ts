// Everything the package exports besides createPosEnc: the error class and the public types.
export { PosEncError } from './errors.js';
export type { PosEncErrorCode } from './errors.js';
export { VERSION } from './posenc.js';
export type { CreatePosEncOptions, PosEnc } from './posenc.js';
export type { PositionIdsInput, Tensor, TensorInput, TensorLike } from './args.js';
export { PositionTable } from './position-table.js';
export type { TableAddOptions, TableLookupOptions, TablePositionOptions } from './position-table.js';
export type {
  SinusoidalAddOptions, SinusoidalApi, SinusoidalCacheOptions, SinusoidalParams, SinusoidalTableOptions, SinusoidLayout,
} from './sinusoidal.js';
export type { LearnedAddOptions, LearnedApi, LearnedLookupOptions } from './learned.js';
export { RopeCache } from './rope.js';
export type {
  HeadLayout, RopeApi, RopeApplyOptions, RopeCacheApplyOptions, RopeCacheOptions, RopeFrequencies, RopePairing, RopeSpec,
  RotaryEmbeddingOptions,
} from './rope.js';
export type {
  BytesInput, IoApi, ReadNpyOptions, ReadSafetensorsOptions, SafetensorsEntry, SafetensorsHeader, WriteNpyOptions,
} from './io.js';
