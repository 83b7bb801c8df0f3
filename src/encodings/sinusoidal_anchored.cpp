// Anchored sinusoidal tables: the `precision: 'fast'` table of Vaswani et al.'s encoding kept as
// its anchor and offset rows only (see posenc/sinusoidal.hpp and angle_rows_fast.cpp, which
// computes the same rows per call). A cached table then costs a few anchor rows plus 32 offset rows
// of memory, and adding it to x reads those small blocks instead of a full [rows, dim] table.
#include "posenc/sinusoidal.hpp"

#include <vector>

#include "encodings/detail/anchored_rows.hpp"
#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"
#include "encodings/detail/sinusoid_columns.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

constexpr std::size_t K = detail::kAnchorRows;

Status validate(const AnchoredSinusoidTable& t) {
  POSENC_RETURN_IF_ERROR(detail::check_size("table rows", t.rows));
  POSENC_RETURN_IF_ERROR(detail::check_size("dim", t.dim));
  if (t.data == nullptr) return detail::invalid("table must not be empty");
  std::size_t floats = 0;
  return anchored_table_floats(t.rows, t.dim, &floats);
}

}  // namespace

namespace detail {

Status build_anchored_rows(const SinusoidalParams& params, const std::vector<double>& freq, double start,
                           std::size_t rows, float* storage) {
  const std::size_t d = static_cast<std::size_t>(params.dim);
  const std::size_t n = freq.size();
  const std::size_t anchors = anchored_anchor_count(rows);

  AnchorAngles angles;  // the same per-pair values angle_rows_range_fast starts from
  POSENC_RETURN_IF_ERROR(angles.compute(freq.data(), n, start, anchors, 1.0));

  // Scatter into columns: each column gets its own function in A and C, its partner in B, and
  // S signed so that A C + B S is the angle-addition formula of that column. Row by row, so that
  // reads and writes both walk memory in order (pair-major loops were 40% of a fast addTo).
  float* a = storage;
  float* b = a + anchors * d;
  float* c = b + anchors * d;
  float* s = c + K * d;
  const ColumnPlan plan = plan_columns(params);
  // f(i, sine column, cosine column or d when pair i has none)
  const auto each_pair = [&](auto&& f) {
    for (std::size_t i = 0; i < n; ++i) {
      if (i < plan.full_pairs) {
        f(i, plan.sin_offset + i * plan.elem_stride, plan.cos_offset + i * plan.elem_stride);
      } else {
        f(i, plan.extra_sine_column, d);
      }
    }
  };
  for (std::size_t m = 0; m < anchors; ++m) {
    const float* sin_a = angles.anchor_sin.data() + m * n;
    const float* cos_a = angles.anchor_cos.data() + m * n;
    float* own = a + m * d;
    float* partner = b + m * d;
    each_pair([&](std::size_t i, std::size_t sin_col, std::size_t cos_col) {
      own[sin_col] = sin_a[i];
      partner[sin_col] = cos_a[i];
      if (cos_col < d) {
        own[cos_col] = cos_a[i];
        partner[cos_col] = sin_a[i];
      }
    });
  }
  for (std::size_t r = 0; r < K; ++r) {
    const float* sin_r = angles.offset_sin + r * n;
    const float* cos_r = angles.offset_cos + r * n;
    float* cos_row = c + r * d;
    float* signed_sin_row = s + r * d;
    each_pair([&](std::size_t i, std::size_t sin_col, std::size_t cos_col) {
      cos_row[sin_col] = cos_r[i];
      signed_sin_row[sin_col] = sin_r[i];
      if (cos_col < d) {
        cos_row[cos_col] = cos_r[i];
        signed_sin_row[cos_col] = -sin_r[i];
      }
    });
  }
  return {};
}

}  // namespace detail

Status anchored_table_floats(std::size_t rows, std::size_t dim, std::size_t* floats) {
  return detail::checked_product({2, detail::anchored_anchor_count(rows) + K, dim}, "the anchored table", floats);
}

Status anchored_table_build(const SinusoidalParams& params, std::size_t rows, float* storage) {
  POSENC_RETURN_IF_ERROR(validate(params));
  POSENC_RETURN_IF_ERROR(detail::check_size("table rows", rows));
  if (storage == nullptr) return detail::invalid("storage must be given");
  std::size_t floats = 0;
  POSENC_RETURN_IF_ERROR(anchored_table_floats(rows, static_cast<std::size_t>(params.dim), &floats));
  std::vector<double> freq;
  POSENC_RETURN_IF_ERROR(detail::sinusoid_frequencies(params, &freq));
  POSENC_RETURN_IF_ERROR(detail::check_angles("the table's positions 0 .. maxPositions - 1", static_cast<double>(rows - 1),
                                              freq.data(), freq.size()));
  return detail::build_anchored_rows(params, freq, 0.0, rows, storage);
}

Status anchored_table_lookup(const AnchoredSinusoidTable& table, const Positions& positions, std::size_t count,
                             float* out) {
  POSENC_RETURN_IF_ERROR(validate(table));
  POSENC_RETURN_IF_ERROR(detail::check_size("length", count));
  if (positions.per_batch) return detail::invalid("positionIds must be one list for a lookup, not one per batch row");
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({count, table.dim}, "the output", &total));
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, 1, count));
  const detail::AnchoredBlocks blocks(table.data, table.rows, table.dim);
  for (std::size_t t = 0; t < count; ++t) {
    blocks.row(static_cast<std::size_t>(positions.at(0, t, count)), out + t * table.dim);
  }
  return {};
}

Status anchored_table_add(const AnchoredSinusoidTable& table, const Positions& positions, std::size_t batch,
                          std::size_t seq, float* x) {
  POSENC_RETURN_IF_ERROR(validate(table));
  POSENC_RETURN_IF_ERROR(detail::check_size("batch", batch));
  POSENC_RETURN_IF_ERROR(detail::check_size("seq", seq));
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({batch, seq, table.dim}, "x", &total));
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, batch, seq));
  const detail::AnchoredBlocks blocks(table.data, table.rows, table.dim);
  for (std::size_t b = 0; b < batch; ++b) {
    float* xb = x + b * seq * table.dim;
    for (std::size_t t = 0; t < seq; ++t) blocks.add_row(static_cast<std::size_t>(positions.at(b, t, seq)), xb + t * table.dim);
  }
  return {};
}

}  // namespace posenc
