// The enums and status codes both sides of the C++/JavaScript boundary agree on, defined once.
//
// Each enum lists its values in numeric order (index = value). `cpp` names the core's own enum,
// which the generated C++ header checks value by value (static_assert) and exhaustively (a switch
// compiled with -Werror=switch, so a value added to the C++ enum alone fails to compile); an enum
// without `cpp` exists only at the boundary and is generated as a C++ enum class. `values` are the
// JavaScript names; `[js, cpp]` where the C++ enumerator is spelled differently.

/** @typedef {{ doc: string, cpp?: string, header?: string, ts: string, values: Array<string | [string | null, string]> }} EnumSpec */

/** @type {Record<string, EnumSpec>} */
export const enums = {
  StatusCode: {
    doc: 'Status codes of the bound functions (0 = ok), as PosEncError codes',
    cpp: 'posenc::StatusCode',
    header: 'posenc/status.hpp',
    ts: 'STATUS_ERROR_CODES',
    values: [
      [null, 'ok'],
      ['INVALID_ARGUMENT', 'invalid_argument'],
      ['SHAPE_MISMATCH', 'shape_mismatch'],
      ['OUT_OF_RANGE', 'out_of_range'],
      ['SIZE_OVERFLOW', 'size_overflow'],
      ['OUT_OF_MEMORY', 'out_of_memory'],
      ['INVALID_CONFIG', 'invalid_config'],
      ['INTERNAL', 'internal'],
    ],
  },
  Pairing: {
    doc: 'RoPE lane pairing',
    cpp: 'posenc::Pairing',
    header: 'posenc/rope.hpp',
    ts: 'PAIRINGS',
    values: ['half', 'interleaved'],
  },
  HeadLayout: {
    doc: 'Memory order of a q or k tensor',
    cpp: 'posenc::HeadLayout',
    header: 'posenc/rope.hpp',
    ts: 'HEAD_LAYOUTS',
    values: ['bshd', 'bhsd'],
  },
  RopeScalingType: {
    doc: 'RoPE scaling variants (Hugging Face rope_type names)',
    cpp: 'posenc::RopeScalingType',
    header: 'posenc/rope_scaling.hpp',
    ts: 'SCALING_TYPES',
    values: [['default', 'none'], 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope'],
  },
  Llama3Band: {
    doc: 'Llama 3.1 treatment of one pair',
    cpp: 'posenc::Llama3Band',
    header: 'posenc/rope_scaling.hpp',
    ts: 'LLAMA3_BANDS',
    values: ['unchanged', 'blended', 'divided'],
  },
  AxialFrequencies: {
    doc: 'Frequencies of 2-D axial RoPE (lucidrains freqs_for)',
    cpp: 'posenc::AxialFrequencies',
    header: 'posenc/rope_forms.hpp',
    ts: 'AXIAL_FREQUENCIES',
    values: ['lang', 'pixel'],
  },
  RopeForm: {
    doc: 'How a model layer places its RoPE on a head (docs/encodings.md#812-proportional-rope-gemma-4 to #815-pixtrals-2-d-image-rope)',
    cpp: 'posenc::RopeFormKind',
    header: 'posenc/rope_layer.hpp',
    ts: 'ROPE_FORMS',
    values: ['standard', 'proportional', 'mrope', 'decoupled', 'pixtral'],
  },
  SinusoidLayout: {
    doc: 'Column order of a sinusoidal table',
    cpp: 'posenc::SinusoidLayout',
    header: 'posenc/sinusoidal.hpp',
    ts: 'SINUSOID_LAYOUTS',
    values: ['interleaved', 'half'],
  },
  SinusoidPrecision: {
    doc: 'How sinusoidal table values are computed',
    cpp: 'posenc::SinusoidPrecision',
    header: 'posenc/sinusoidal.hpp',
    ts: 'SINUSOID_PRECISIONS',
    values: ['exact', 'fast'],
  },
  AlibiForm: {
    doc: 'ALiBi bias forms',
    cpp: 'posenc::AlibiForm',
    header: 'posenc/alibi.hpp',
    ts: 'ALIBI_FORMS',
    values: ['causal', 'symmetric', 'bloom'],
  },
  DebertaMatrix: {
    doc: 'Which DeBERTa [qLen, kLen] matrix debertaMatrix writes',
    ts: 'DEBERTA_MATRICES',
    values: [['relativePositions', 'relative_positions'], ['c2p', 'c2p'], ['p2c', 'p2c']],
  },
  AngleRecipe: {
    doc: 'Which upstream recipe the precision oracle emulates',
    cpp: 'posenc::AngleRecipe',
    header: 'posenc/rope_precision.hpp',
    ts: 'ANGLE_RECIPES',
    values: ['hf', 'ggml'],
  },
  AttentionMatrix: {
    doc: 'What attentionMatrix writes: the logits or their softmax scores',
    ts: 'ATTENTION_MATRICES',
    values: ['logits', 'scores'],
  },
};

/** [js, cpp] of every value of an enum. */
export function enumValues(spec) {
  return spec.values.map((v) => (Array.isArray(v) ? v : [v, v]));
}
