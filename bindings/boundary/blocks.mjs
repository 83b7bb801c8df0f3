// The blocks of doubles that cross the boundary beside the argument blocks, defined once: a header
// of named doubles, then lists of doubles. A list's length is either counted in the header (a
// field `<list>Count` is generated for it, written by the JS writer from the list itself) or the
// block's `length` parameter, the same for every list.

/** @type {Record<string, { doc: string, header: string[], lists: string[], length?: string }>} */
export const blocks = {
  RopeScalingBlock: {
    doc: 'RoPE scaling parameters (JS writes, C++ reads; NaN marks an absent optional value, type is a RopeScalingType)',
    header: [
      'type', 'factor', 'maxPositionEmbeddings', 'originalMaxPositionEmbeddings', 'betaFast', 'betaSlow', 'mscale',
      'mscaleAllDim', 'attentionFactor', 'ggmlAttnFactor', 'truncate', 'hfV4Factor', 'lowFreqFactor', 'highFreqFactor',
      'llamaCppContextLength', 'alpha',
    ],
    lists: ['shortFactor', 'longFactor'],
  },
  RopeFrequencyBlock: {
    doc: 'The frequencies of a RoPE spec and its variant diagnostics (C++ writes, JS reads; NaN where a variant does not apply)',
    header: ['attentionFactor', 'effectiveBase', 'factor', 'seqLen', 'yarnLow', 'yarnHigh', 'longropeLong'],
    lists: ['invFreq', 'yarnRamp', 'llama3Band', 'llama3Blend'],
    length: 'pairs',
  },
  RopeLayerPairsBlock: {
    doc: 'What a model layer rotates with, pair by pair (C++ writes, JS reads): its lanes (pairing a Pairing, deinterleave 0/1), frequencies and position axes; the lists hold `capacity` values, the first `pairs` used',
    header: ['attentionFactor', 'pairs', 'axes', 'pairing', 'firstLane', 'halfSpan', 'deinterleave'],
    lists: ['freq', 'axisOfPair'],
    length: 'capacity',
  },
};
