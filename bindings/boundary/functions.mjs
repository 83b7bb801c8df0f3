// Every function the WebAssembly module exports to JavaScript, with named, typed arguments.
//
// A function with arguments is called with one address: that of its argument block, a struct the
// JavaScript side writes field by field (bindings/js/generated/boundary.ts, generated) into a block
// each module instance keeps for this, and the C++ side reads by name (posenc_boundary.hpp,
// generated). Its C++ body is `Status <snake_name>_binding(const <Name>Args&)` in
// bindings/embind/; the generated registry turns the Status into the returned code. Field types:
// `ptr` (a heap address, 0 for none), `i32`, `f64`, `bool`, or an enum of enums.mjs (its value).
// `returns` is `status` unless given: `f64`, `void` (no Status: the body cannot fail) or `string`.

const ropeTensors = {
  q: 'ptr', qHeads: 'i32', k: 'ptr', kHeads: 'i32', batch: 'i32', seq: 'i32', headDim: 'i32', layout: 'HeadLayout',
};
const ropeSpec = { pairing: 'Pairing', rotaryDim: 'i32', base: 'f64', scaling: 'ptr', seqLen: 'f64' };
const positions = { offset: 'f64', ids: 'ptr', perBatch: 'bool' };
const attentionShape = { heads: 'i32', kvHeads: 'i32', qLen: 'i32', kLen: 'i32', headDim: 'i32' };
const scale = { hasScale: 'bool', scale: 'f64' };
// A model layer's RoPE form (posenc/rope_layer.hpp RopeLayerForm); sections holds sectionCount doubles
const ropeForm = {
  form: 'RopeForm', rotatedPairs: 'i32', firstLane: 'i32', deinterleave: 'bool', sections: 'ptr', sectionCount: 'i32',
  interleavedSections: 'bool', patchesPerSide: 'i32',
};
// A per-position query scale (posenc/rope_layer.hpp QueryScale), used when hasQueryScale
const queryScale = { hasQueryScale: 'bool', queryScale: 'f64', queryFloorScale: 'f64', queryPositionOffset: 'f64' };

/**
 * The kernels a relaxed-SIMD module may replace (posenc/fused_kernels.hpp FusedKernels): the
 * arguments of useFusedKernels, and in snake_case the exports of src/kernels-relaxed/.
 */
export const fusedKernels = ['rotateHalfTokens', 'rotateInterleavedTokens', 'phasorRowsNarrow', 'phasorRowsNarrowInterleave'];

/** @type {Record<string, { doc: string, args?: Record<string, string>, returns?: string }>} */
export const functions = {
  // Module-wide (module_bindings.cpp)
  lastErrorMessage: { doc: 'The message of the last call that returned a non-zero status', returns: 'string' },
  simdArch: { doc: 'The SIMD architecture the kernels were compiled for', returns: 'string' },
  version: { doc: 'The version this module was built as (package.json, through CMake)', returns: 'string' },
  useFusedKernels: {
    doc: 'Later calls use the functions at these function-table indices (posenc/fused_kernels.hpp; 0: the built-in kernel). ' +
      'The argument names, in snake_case, are the exports of the relaxed-SIMD module (src/kernels-relaxed/)',
    args: Object.fromEntries(fusedKernels.map((name) => [name, 'ptr'])),
    returns: 'void',
  },

  // Sinusoidal (sinusoidal_bindings.cpp)
  sinusoidalTable: {
    doc: 'count rows of the table at out, by offset or ids',
    args: { out: 'ptr', count: 'i32', dim: 'i32', base: 'f64', layout: 'SinusoidLayout', precision: 'SinusoidPrecision', offset: 'f64', ids: 'ptr' },
  },
  sinusoidalAdd: {
    doc: 'Adds the encoding into x [batch, seq, dim] in place',
    args: { x: 'ptr', batch: 'i32', seq: 'i32', dim: 'i32', base: 'f64', layout: 'SinusoidLayout', precision: 'SinusoidPrecision', ...positions },
  },
  sinusoidalFrequencies: { doc: 'The ceil(dim/2) frequencies (float64) at out, each checked finite', args: { out: 'ptr', dim: 'i32', base: 'f64' } },
  anchoredTableFloats: { doc: 'Floats an anchored table needs, or -1 if the count overflows', args: { rows: 'i32', dim: 'i32' }, returns: 'f64' },
  anchoredTableBuild: { doc: 'Builds an anchored (cached fast) table', args: { storage: 'ptr', rows: 'i32', dim: 'i32', base: 'f64', layout: 'SinusoidLayout' } },
  anchoredTableLookup: { doc: 'count rows of an anchored table at out', args: { table: 'ptr', rows: 'i32', dim: 'i32', out: 'ptr', count: 'i32', offset: 'f64', ids: 'ptr' } },
  anchoredTableAdd: { doc: 'Adds an anchored table into x in place', args: { table: 'ptr', rows: 'i32', dim: 'i32', x: 'ptr', batch: 'i32', seq: 'i32', ...positions } },

  // Learned tables and ViT (learned_bindings.cpp, vit_bindings.cpp)
  tableLookup: { doc: 'count rows of a table at out', args: { table: 'ptr', rows: 'i32', dim: 'i32', out: 'ptr', count: 'i32', offset: 'f64', ids: 'ptr' } },
  tableAdd: { doc: 'Adds a table into x in place', args: { table: 'ptr', rows: 'i32', dim: 'i32', x: 'ptr', batch: 'i32', seq: 'i32', ...positions } },
  vitInterpolate: {
    doc: 'The table resized to a new grid: (numPrefixTokens + newH * newW) * dim floats at out',
    args: { table: 'ptr', rows: 'i32', dim: 'i32', gridH: 'i32', gridW: 'i32', newH: 'i32', newW: 'i32', numPrefixTokens: 'i32', out: 'ptr' },
  },

  // RoPE (rope_bindings.cpp, rope_forms_bindings.cpp); scaling is a RopeScalingBlock or 0, seqLen NaN = absent
  ropeFrequencies: {
    doc: 'The frequencies of a RoPE spec at out, as a RopeFrequencyBlock',
    args: { rotaryDim: 'i32', base: 'f64', scaling: 'ptr', seqLen: 'f64', out: 'ptr' },
  },
  ropeApply: { doc: 'Rotates q and k in place', args: { ...ropeTensors, ...ropeSpec, ...positions } },
  ropeAngles: {
    doc: 'count * rotaryDim/2 angles (position * inverse frequency) at out',
    args: { rotaryDim: 'i32', base: 'f64', scaling: 'ptr', seqLen: 'f64', ids: 'ptr', count: 'i32', out: 'ptr' },
  },
  ropeFillTable: {
    doc: 'cos/sin rows for positions 0..rows-1',
    args: { rotaryDim: 'i32', invFreq: 'ptr', attentionFactor: 'f64', rows: 'i32', cos: 'ptr', sin: 'ptr' },
  },
  ropeApplyTable: {
    doc: 'Rotates q and k with rows of a cos/sin table; cos2/sin2: expanded interleaved rows, or 0',
    args: {
      cos: 'ptr', sin: 'ptr', cos2: 'ptr', sin2: 'ptr', rows: 'i32', pairs: 'i32', pairing: 'Pairing', rotaryDim: 'i32',
      ...ropeTensors, ...positions,
    },
  },
  ropeExpandTable: {
    doc: 'n expanded cos/sin pairs: cos2 = [c0 c0 c1 c1 ...], sin2 = [-s0 s0 -s1 s1 ...]',
    args: { cos: 'ptr', sin: 'ptr', n: 'i32', cos2: 'ptr', sin2: 'ptr' },
    returns: 'void',
  },
  ropeApplyAxial: {
    doc: '2-D axial RoPE; with ids = 0 the positions are the gridRows x gridCols grid in row-major order',
    args: {
      ...ropeTensors, rotaryDim: 'i32', base: 'f64', freqs: 'AxialFrequencies', maxFreq: 'f64', ids: 'ptr', perBatch: 'bool',
      gridRows: 'i32', gridCols: 'i32',
    },
  },
  ropeApplyMultimodal: {
    doc: 'M-RoPE: sections holds sectionCount doubles; ids are axis-major [sections, (batch,) seq]; interleaved: Qwen3-VL slots',
    args: { ...ropeTensors, ...ropeSpec, sections: 'ptr', sectionCount: 'i32', ...positions, interleaved: 'bool' },
  },
  ropeApplyXPos: {
    doc: 'xPos; center NaN means floor(seq / 2)',
    args: { ...ropeTensors, ...ropeSpec, gamma: 'f64', scaleBase: 'f64', center: 'f64', ...positions },
  },

  // Relative positions (shaw, transformer_xl, t5, deberta, alibi bindings)
  shawRelativeIndices: { doc: 'The clipped index matrix (int32)', args: { out: 'ptr', qLen: 'i32', kLen: 'i32', maxRelativePosition: 'i32', queryOffset: 'i32' } },
  shawGather: {
    doc: 'Rows of a relative table gathered per (query, key)',
    args: { table: 'ptr', rows: 'i32', width: 'i32', out: 'ptr', qLen: 'i32', kLen: 'i32', maxRelativePosition: 'i32', queryOffset: 'i32' },
  },
  shawLogits: {
    doc: 'Logits with relative keys',
    args: {
      q: 'ptr', k: 'ptr', ...attentionShape, relativeKeys: 'ptr', rows: 'i32', maxRelativePosition: 'i32', queryOffset: 'i32',
      ...scale, causal: 'bool', out: 'ptr',
    },
  },
  shawAttention: {
    doc: 'Attention output with relative keys and values',
    args: {
      q: 'ptr', k: 'ptr', v: 'ptr', ...attentionShape, valueDim: 'i32', relativeKeys: 'ptr', relativeValues: 'ptr', rows: 'i32',
      maxRelativePosition: 'i32', queryOffset: 'i32', ...scale, causal: 'bool', out: 'ptr',
    },
  },
  txlRelativeSinusoid: { doc: 'The relative sinusoid R', args: { out: 'ptr', kLen: 'i32', dModel: 'i32', clampLen: 'i32', base: 'f64' } },
  txlRelShift: { doc: 'The relative shift of bd', args: { bd: 'ptr', heads: 'i32', qLen: 'i32', kLen: 'i32', maskFuture: 'bool', out: 'ptr' } },
  txlScore: {
    doc: 'The four-term score',
    args: { q: 'ptr', k: 'ptr', r: 'ptr', u: 'ptr', v: 'ptr', heads: 'i32', qLen: 'i32', kLen: 'i32', headDim: 'i32', maskFuture: 'bool', out: 'ptr' },
  },
  t5Bucket: { doc: 'One bucket (int32) at out', args: { relativePosition: 'f64', numBuckets: 'i32', maxDistance: 'i32', bidirectional: 'bool', out: 'ptr' } },
  t5BucketMatrix: {
    doc: 'The [qLen, kLen] bucket matrix (int32)',
    args: { out: 'ptr', qLen: 'i32', kLen: 'i32', queryOffset: 'i32', numBuckets: 'i32', maxDistance: 'i32', bidirectional: 'bool' },
  },
  t5Bias: {
    doc: 'The bias [heads, qLen, kLen] at out',
    args: {
      table: 'ptr', rows: 'i32', heads: 'i32', out: 'ptr', qLen: 'i32', kLen: 'i32', queryOffset: 'i32', numBuckets: 'i32',
      maxDistance: 'i32', bidirectional: 'bool',
    },
  },
  debertaBucket: { doc: 'One bucket (float64) at out', args: { relativePosition: 'f64', bucketSize: 'i32', maxPosition: 'i32', out: 'ptr' } },
  debertaAttentionSpan: { doc: 'attSpan (int32) at out', args: { bucketSize: 'i32', maxPosition: 'i32', out: 'ptr' } },
  debertaMatrix: {
    doc: 'A [qLen, kLen] int32 matrix at out',
    args: { kind: 'DebertaMatrix', out: 'ptr', qLen: 'i32', kLen: 'i32', bucketSize: 'i32', maxPosition: 'i32' },
  },
  alibiSlopes: { doc: 'numHeads slopes (float64) at out', args: { numHeads: 'i32', maxBias: 'f64', out: 'ptr' } },
  alibiBias: {
    doc: 'The bias [batch, heads, qLen, kLen] at out',
    args: {
      out: 'ptr', numHeads: 'i32', maxBias: 'f64', form: 'AlibiForm', maskFuture: 'bool', qLen: 'i32', kLen: 'i32',
      queryOffset: 'i32', attentionMask: 'ptr', batch: 'i32',
    },
  },

  // Attention helpers (attention_bindings.cpp); rotaryDim 0 means no RoPE
  attentionMatrix: {
    doc: 'Logits or softmax scores, [heads, qLen, kLen] at out',
    args: {
      kind: 'AttentionMatrix', q: 'ptr', k: 'ptr', ...attentionShape, ...scale, causal: 'bool', queryOffset: 'i32', bias: 'ptr',
      biasHeads: 'i32', rotaryDim: 'i32', ropeBase: 'f64', pairing: 'Pairing', out: 'ptr',
    },
  },
  attentionOutput: {
    doc: 'The attention output, and the scores if scoresOut is not 0',
    args: {
      q: 'ptr', k: 'ptr', v: 'ptr', ...attentionShape, valueDim: 'i32', ...scale, causal: 'bool', queryOffset: 'i32',
      bias: 'ptr', biasHeads: 'i32', rotaryDim: 'i32', ropeBase: 'f64', pairing: 'Pairing', out: 'ptr', scoresOut: 'ptr',
    },
  },

  // A model layer's RoPE form (rope_forms_bindings.cpp); ids are axis-major [axes, (batch,) seq]
  ropeApplyLayer: {
    doc: "One model layer's RoPE on q and k (its form) and its query scale on q",
    args: { ...ropeTensors, ...ropeSpec, ...ropeForm, axes: 'i32', ...positions, ...queryScale },
  },
  ropeLayerPairs: {
    doc: 'What a layer rotates with at seqLen (NaN: at model load), as a RopeLayerPairsBlock of capacity rotaryDim/2 at out',
    args: { ...ropeSpec, ...ropeForm, out: 'ptr' },
  },
  ropeApplyLanesTable: {
    doc: 'Rotates the lanes of a layer (from ropeLayerPairs) with rows of a cos/sin table, and scales q',
    args: {
      cos: 'ptr', sin: 'ptr', cos2: 'ptr', sin2: 'ptr', rows: 'i32', pairs: 'i32', pairing: 'Pairing', firstLane: 'i32',
      halfSpan: 'i32', deinterleave: 'bool', ...ropeTensors, ...positions, ...queryScale,
    },
  },
  ropeScaleQueries: {
    doc: 'Multiplies q by its query scale at each position (a layer without RoPE); k must be 0',
    args: { ...ropeTensors, ...positions, queryScale: 'f64', queryFloorScale: 'f64', queryPositionOffset: 'f64' },
  },

  // KV-cache context shift (rope_shift_bindings.cpp): keys (q, and k if not 0) move from (offset, ids) to (toOffset, toIds)
  ropeShift: {
    doc: 'Re-rotates rotated keys in place from their positions to new ones (a spec; refuses non-shiftable scalings)',
    args: { ...ropeTensors, ...ropeSpec, ...positions, toOffset: 'f64', toIds: 'ptr', toPerBatch: 'bool' },
  },
  ropeShiftRotation: {
    doc: 'The same with given inverse frequencies (rotaryDim/2 doubles at invFreq), e.g. a cache\'s',
    args: { ...ropeTensors, pairing: 'Pairing', rotaryDim: 'i32', invFreq: 'ptr', ...positions, toOffset: 'f64', toIds: 'ptr', toPerBatch: 'bool' },
  },

  // Precision oracle (precision_bindings.cpp): an upstream pipeline against float64, see posenc/rope_precision.hpp
  ropePrecision: {
    doc: 'Errors per bucket of positions, [variants][cos/sin, rotation][buckets] doubles at out; pipelineFreq: float32 values (hf: inverse frequencies, ggml: freq factors or 0)',
    args: {
      invFreq: 'ptr', pairs: 'i32', attentionFactor: 'f64', recipe: 'AngleRecipe', pipelineFreq: 'ptr', attention: 'f64', thetaScale: 'f64',
      freqScale: 'f64', extFactor: 'f64', corrLow: 'f64', corrHigh: 'f64', start: 'f64', count: 'i32', bucket: 'i32', out: 'ptr',
    },
  },
};
