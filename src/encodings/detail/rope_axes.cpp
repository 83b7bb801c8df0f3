// Axis maps of the multi-axis RoPE forms: M-RoPE (sectioned and interleaved) and Pixtral.
#include "encodings/detail/rope_axes.hpp"

#include <string>

#include "encodings/detail/checks.hpp"

namespace posenc::detail {

Status mrope_axis_map(const std::vector<int>& sections, bool interleaved, std::size_t pairs,
                      std::vector<std::size_t>* axis_of_pair) {
  if (sections.empty()) return invalid("mropeSection must hold at least one section");
  std::size_t sum = 0;
  for (std::size_t a = 0; a < sections.size(); ++a) {
    if (sections[a] < 0) {
      return invalid("mropeSection[" + std::to_string(a) + "] must be an integer >= 0, got " + std::to_string(sections[a]));
    }
    sum += static_cast<std::size_t>(sections[a]);
  }
  if (sum != pairs) {
    return error(StatusCode::shape_mismatch,
                 "mropeSection must sum to rotaryDim/2 = " + std::to_string(pairs) + ", got " + std::to_string(sum));
  }
  if (interleaved && sections.size() != 3) {
    return invalid("interleaved M-RoPE takes 3 sections (temporal, height, width), got " + std::to_string(sections.size()));
  }
  POSENC_RETURN_IF_ERROR(allocate(*axis_of_pair, pairs));
  if (interleaved) {  // slots t h w t h w ..., each axis for as many slots as its section
    const auto h_end = 3 * static_cast<std::size_t>(sections[1]);
    const auto w_end = 3 * static_cast<std::size_t>(sections[2]);
    for (std::size_t i = 0; i < pairs; ++i) {
      (*axis_of_pair)[i] = (i % 3 == 1 && i < h_end) ? 1 : (i % 3 == 2 && i < w_end) ? 2 : 0;
    }
    return {};
  }
  for (std::size_t a = 0, i = 0; a < sections.size(); ++a) {
    for (int k = 0; k < sections[a]; ++k) (*axis_of_pair)[i++] = a;
  }
  return {};
}

Status pixtral_axis_map(std::size_t pairs, std::vector<std::size_t>* axis_of_pair) {
  if (pairs % 2 != 0) {
    return invalid("Pixtral's 2-D RoPE needs a head size that is a multiple of 4 (half the pairs per axis), got " +
                   std::to_string(2 * pairs));
  }
  POSENC_RETURN_IF_ERROR(allocate(*axis_of_pair, pairs));
  for (std::size_t i = 0; i < pairs; ++i) (*axis_of_pair)[i] = i < pairs / 2 ? 0 : 1;
  return {};
}

}  // namespace posenc::detail
