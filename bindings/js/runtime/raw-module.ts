// The shape of the Embind module (bindings/embind/*.cpp) as the JS layer sees it. Internal.

/** Heap addresses are plain numbers. */
export type Ptr = number;

/** The functions and heap views of one instance of the compiled module. */
export interface RawModule {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(bytes: number): Ptr;
  _free(ptr: Ptr): void;

  lastErrorMessage(): string;
  simdArch(): string;

  sinusoidalTable(
    out: Ptr, count: number, dim: number, base: number, layout: number, precision: number, offset: number, ids: Ptr,
  ): number;
  sinusoidalAdd(
    x: Ptr, batch: number, seq: number, dim: number, base: number, layout: number, precision: number, offset: number,
    ids: Ptr, perBatch: boolean,
  ): number;
  sinusoidalFrequencies(out: Ptr, dim: number, base: number): void;
  /** Floats an anchored (compact fast) sinusoidal table needs; -1 if the count overflows. */
  anchoredTableFloats(rows: number, dim: number): number;
  anchoredTableBuild(storage: Ptr, rows: number, dim: number, base: number, layout: number): number;
  anchoredTableLookup(table: Ptr, rows: number, dim: number, out: Ptr, count: number, offset: number, ids: Ptr): number;
  anchoredTableAdd(
    table: Ptr, rows: number, dim: number, x: Ptr, batch: number, seq: number, offset: number, ids: Ptr,
    perBatch: boolean,
  ): number;

  tableLookup(table: Ptr, rows: number, dim: number, out: Ptr, count: number, offset: number, ids: Ptr): number;
  tableAdd(
    table: Ptr, rows: number, dim: number, x: Ptr, batch: number, seq: number, offset: number, ids: Ptr,
    perBatch: boolean,
  ): number;
  /** ViT table interpolation (bindings/embind/vit_bindings.cpp): writes (numPrefixTokens + newH * newW) * dim floats at `out`. */
  vitInterpolate(
    table: Ptr, rows: number, dim: number, gridH: number, gridW: number, newH: number, newW: number,
    numPrefixTokens: number, out: Ptr,
  ): number;

  /**
   * Writes the frequencies of a RoPE spec at `out`: rotaryDim/2 inverse frequencies, then the
   * attention factor and the variant diagnostics (layout in bindings/embind/rope_bindings.cpp).
   * `scaling` is a scaling block (rope-spec.ts) or 0; `seqLen` NaN means absent.
   */
  ropeFrequencies(rotaryDim: number, base: number, scaling: Ptr, seqLen: number, out: Ptr): number;
  ropeApply(
    q: Ptr, qHeads: number, k: Ptr, kHeads: number, batch: number, seq: number, headDim: number, layout: number,
    pairing: number, rotaryDim: number, base: number, scaling: Ptr, seqLen: number, offset: number, ids: Ptr,
    perBatch: boolean,
  ): number;
  /** Writes count * rotaryDim/2 angles (position * inverse frequency) at `out`. */
  ropeAngles(rotaryDim: number, base: number, scaling: Ptr, seqLen: number, ids: Ptr, count: number, out: Ptr): number;
  ropeFillTable(rotaryDim: number, invFreq: Ptr, attentionFactor: number, rows: number, cos: Ptr, sin: Ptr): number;
  /** cos2/sin2: an interleaved cache's expanded rows (ropeExpandTable), or 0 to expand per call. */
  ropeApplyTable(
    cos: Ptr, sin: Ptr, cos2: Ptr, sin2: Ptr, rows: number, pairs: number, pairing: number, rotaryDim: number, q: Ptr,
    qHeads: number, k: Ptr, kHeads: number, batch: number, seq: number, headDim: number, layout: number, offset: number,
    ids: Ptr, perBatch: boolean,
  ): number;
  /** Writes n expanded cos/sin pairs: cos2 = [c0 c0 c1 c1 ...], sin2 = [-s0 s0 -s1 s1 ...]. */
  ropeExpandTable(cos: Ptr, sin: Ptr, n: number, cos2: Ptr, sin2: Ptr): void;

  /** 2-D axial RoPE; with ids = 0 the positions are the gridRows x gridCols grid in row-major order. */
  ropeApplyAxial(
    q: Ptr, qHeads: number, k: Ptr, kHeads: number, batch: number, seq: number, headDim: number, layout: number,
    rotaryDim: number, base: number, freqs: number, maxFreq: number, ids: Ptr, perBatch: boolean, gridRows: number,
    gridCols: number,
  ): number;
  /** M-RoPE; `sections` holds sectionCount doubles; ids are axis-major [sections, (batch,) seq]. */
  ropeApplyMultimodal(
    q: Ptr, qHeads: number, k: Ptr, kHeads: number, batch: number, seq: number, headDim: number, layout: number,
    pairing: number, rotaryDim: number, base: number, scaling: Ptr, seqLen: number, sections: Ptr,
    sectionCount: number, offset: number, ids: Ptr, perBatch: boolean,
  ): number;
  /** xPos; `center` NaN means floor(seq / 2). */
  ropeApplyXPos(
    q: Ptr, qHeads: number, k: Ptr, kHeads: number, batch: number, seq: number, headDim: number, layout: number,
    pairing: number, rotaryDim: number, base: number, scaling: Ptr, seqLen: number, gamma: number, scaleBase: number,
    center: number, offset: number, ids: Ptr, perBatch: boolean,
  ): number;

  // Relative positions and attention helpers (bindings/embind/{shaw,transformer_xl,t5,deberta,alibi,attention}_bindings.cpp).
  shawRelativeIndices(out: Ptr, qLen: number, kLen: number, maxRelativePosition: number, queryOffset: number): number;
  shawGather(
    table: Ptr, rows: number, width: number, out: Ptr, qLen: number, kLen: number, maxRelativePosition: number,
    queryOffset: number,
  ): number;
  shawLogits(
    q: Ptr, k: Ptr, heads: number, kvHeads: number, qLen: number, kLen: number, headDim: number, relativeKeys: Ptr,
    rows: number, maxRelativePosition: number, queryOffset: number, hasScale: boolean, scale: number, causal: boolean,
    out: Ptr,
  ): number;
  shawAttention(
    q: Ptr, k: Ptr, v: Ptr, heads: number, kvHeads: number, qLen: number, kLen: number, headDim: number,
    valueDim: number, relativeKeys: Ptr, relativeValues: Ptr, rows: number, maxRelativePosition: number,
    queryOffset: number, hasScale: boolean, scale: number, causal: boolean, out: Ptr,
  ): number;

  txlRelativeSinusoid(out: Ptr, kLen: number, dModel: number, clampLen: number, base: number): number;
  txlRelShift(bd: Ptr, heads: number, qLen: number, kLen: number, maskFuture: boolean, out: Ptr): number;
  txlScore(
    q: Ptr, k: Ptr, r: Ptr, u: Ptr, v: Ptr, heads: number, qLen: number, kLen: number, headDim: number,
    maskFuture: boolean, out: Ptr,
  ): number;

  /** Writes the bucket (int32) at `out`. */
  t5Bucket(relativePosition: number, numBuckets: number, maxDistance: number, bidirectional: boolean, out: Ptr): number;
  t5BucketMatrix(
    out: Ptr, qLen: number, kLen: number, queryOffset: number, numBuckets: number, maxDistance: number,
    bidirectional: boolean,
  ): number;
  /** The bias [heads, qLen, kLen] at `out`. */
  t5Bias(
    table: Ptr, rows: number, heads: number, out: Ptr, qLen: number, kLen: number, queryOffset: number,
    numBuckets: number, maxDistance: number, bidirectional: boolean,
  ): number;

  /** Writes the bucket (float64) at `out`. */
  debertaBucket(relativePosition: number, bucketSize: number, maxPosition: number, out: Ptr): number;
  /** Writes attSpan (int32) at `out`. */
  debertaAttentionSpan(bucketSize: number, maxPosition: number, out: Ptr): number;
  /** kind 0: relative positions, 1: c2p indices, 2: p2c indices. */
  debertaMatrix(kind: number, out: Ptr, qLen: number, kLen: number, bucketSize: number, maxPosition: number): number;

  alibiSlopes(numHeads: number, maxBias: number, out: Ptr): number;
  /** The bias [batch, heads, qLen, kLen] at `out`. */
  alibiBias(
    out: Ptr, numHeads: number, maxBias: number, form: number, maskFuture: boolean, qLen: number, kLen: number,
    queryOffset: number, attentionMask: Ptr, batch: number,
  ): number;

  /** Logits (softmax false) or softmax scores (softmax true), [heads, qLen, kLen] at `out`. */
  attentionMatrix(
    q: Ptr, k: Ptr, heads: number, kvHeads: number, qLen: number, kLen: number, headDim: number, hasScale: boolean,
    scale: number, causal: boolean, queryOffset: number, bias: Ptr, biasHeads: number, rotaryDim: number,
    ropeBase: number, pairing: number, softmax: boolean, out: Ptr,
  ): number;
  attentionOutput(
    q: Ptr, k: Ptr, v: Ptr, heads: number, kvHeads: number, qLen: number, kLen: number, headDim: number,
    valueDim: number, hasScale: boolean, scale: number, causal: boolean, queryOffset: number, bias: Ptr,
    biasHeads: number, rotaryDim: number, ropeBase: number, pairing: number, out: Ptr, scoresOut: Ptr,
  ): number;
}
