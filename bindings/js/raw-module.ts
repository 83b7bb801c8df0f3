// The shape of the Embind module (bindings/embind/*.cpp) as the JS layer sees it. Internal.

/** Heap addresses are plain numbers. */
export type Ptr = number;

/** The functions and heap views of one instance of the compiled module. */
export interface RawModule {
  HEAPU8: Uint8Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(bytes: number): Ptr;
  _free(ptr: Ptr): void;

  lastErrorMessage(): string;
  simdArch(): string;

  sinusoidalTable(out: Ptr, count: number, dim: number, base: number, layout: number, offset: number, ids: Ptr): number;
  sinusoidalAdd(
    x: Ptr, batch: number, seq: number, dim: number, base: number, layout: number, offset: number, ids: Ptr,
    perBatch: boolean,
  ): number;
  sinusoidalFrequencies(out: Ptr, dim: number, base: number): void;

  tableLookup(table: Ptr, rows: number, dim: number, out: Ptr, count: number, offset: number, ids: Ptr): number;
  tableAdd(
    table: Ptr, rows: number, dim: number, x: Ptr, batch: number, seq: number, offset: number, ids: Ptr,
    perBatch: boolean,
  ): number;

  /** Writes rotaryDim/2 inverse frequencies, then the attention factor, at `out`. */
  ropeFrequencies(rotaryDim: number, base: number, out: Ptr): number;
  ropeApply(
    q: Ptr, qHeads: number, k: Ptr, kHeads: number, batch: number, seq: number, headDim: number, layout: number,
    pairing: number, rotaryDim: number, base: number, offset: number, ids: Ptr, perBatch: boolean,
  ): number;
  ropeFillTable(rotaryDim: number, invFreq: Ptr, attentionFactor: number, rows: number, cos: Ptr, sin: Ptr): number;
  ropeApplyTable(
    cos: Ptr, sin: Ptr, rows: number, pairs: number, pairing: number, rotaryDim: number, q: Ptr, qHeads: number,
    k: Ptr, kHeads: number, batch: number, seq: number, headDim: number, layout: number, offset: number, ids: Ptr,
    perBatch: boolean,
  ): number;
}
