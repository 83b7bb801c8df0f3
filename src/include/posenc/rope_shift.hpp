// KV-cache context shift: keys already rotated by RoPE for some positions, re-rotated in place for
// other positions, as when a span of tokens is dropped from a cache (llama.cpp's K-shift).
#pragma once

#include "posenc/positions.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// Moves rotated keys from positions `from` to positions `to`: pair i of token (b, s) is rotated by
/// (to(b, s) - from(b, s)) * w_i, the difference of the two absolute positions taken in double for
/// every call, so that nothing accumulates from call to call. The rotation is evaluated in double
/// and each value rounded to float once (kernels::rotate_tokens_exact): n successive shifts add at
/// most n roundings (half an ulp each), and `shift(rope(k, p), d)` equals `rope(k, p + d)` to
/// within those roundings. The attention factor is not applied: the keys carry it already.
///
/// The keys are `tensors.q` (`tensors.k`, if given, is moved the same way). Only frequencies that
/// stay fixed for a sequence can be shifted: `dynamic` scaling is refused (its base depends on the
/// length at which each key was rotated, which the cache does not record), and `longrope` is
/// refused when the factor list at max(from) + 1 differs from the one at max(to) + 1 (unless
/// `config.seq_len` or `llama_cpp_context_length` fixes the list).
Status rope_shift(const RopeConfig& config, Pairing pairing, const Positions& from, const Positions& to,
                  const RopeTensors& tensors);

/// The same with given frequencies (`rotation.attention_factor` is not applied), e.g. those of a
/// cos/sin cache: keys rotated with fixed frequencies can always be shifted exactly.
Status rope_shift(const RopeRotation& rotation, const Positions& from, const Positions& to, const RopeTensors& tensors);

}  // namespace posenc
