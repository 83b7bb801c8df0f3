// Anchored sinusoidal tables: the `precision: 'fast'` table of Vaswani et al.'s encoding kept as
// its anchor and offset rows only (see posenc/sinusoidal.hpp and angle_rows_fast.cpp, which
// computes the same rows per call). A cached table then costs a few anchor rows plus 32 offset rows
// of memory, and adding it to x reads those small blocks instead of a full [rows, dim] table.
#include "posenc/sinusoidal.hpp"

#include <vector>

#include "encodings/angle_rows.hpp"
#include "encodings/checks.hpp"
#include "encodings/scratch.hpp"
#include "encodings/sinusoid_columns.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

constexpr std::size_t K = detail::kAnchorRows;

std::size_t anchor_count(std::size_t rows) { return rows / K + (rows % K != 0); }  // no overflow near SIZE_MAX

/// The four blocks of a table and the operands of row p.
struct Blocks {
  const float* a;
  const float* b;
  const float* c;
  const float* s;
  std::size_t dim;

  explicit Blocks(const AnchoredSinusoidTable& t)
      : a(t.data), b(t.data + anchor_count(t.rows) * t.dim), c(b + anchor_count(t.rows) * t.dim), s(c + K * t.dim),
        dim(t.dim) {}

  void row(std::size_t p, float* out) const {
    const std::size_t m = (p / K) * dim;
    const std::size_t r = (p % K) * dim;
    kernels::combine(a + m, b + m, c + r, s + r, dim, out);
  }
  void add_row(std::size_t p, float* x) const {
    const std::size_t m = (p / K) * dim;
    const std::size_t r = (p % K) * dim;
    kernels::combine_add(a + m, b + m, c + r, s + r, dim, x);
  }
};

Status validate(const AnchoredSinusoidTable& t) {
  POSENC_RETURN_IF_ERROR(detail::check_size("table rows", t.rows));
  POSENC_RETURN_IF_ERROR(detail::check_size("dim", t.dim));
  if (t.data == nullptr) return detail::invalid("table must not be empty");
  std::size_t floats = 0;
  return anchored_table_floats(t.rows, t.dim, &floats);
}

}  // namespace

Status anchored_table_floats(std::size_t rows, std::size_t dim, std::size_t* floats) {
  return detail::checked_product({2, anchor_count(rows) + K, dim}, "the anchored table", floats);
}

Status anchored_table_build(const SinusoidalParams& params, std::size_t rows, float* storage) {
  POSENC_RETURN_IF_ERROR(validate(params));
  POSENC_RETURN_IF_ERROR(detail::check_size("table rows", rows));
  if (storage == nullptr) return detail::invalid("storage must be given");
  const std::size_t d = static_cast<std::size_t>(params.dim);
  std::size_t floats = 0;
  POSENC_RETURN_IF_ERROR(anchored_table_floats(rows, d, &floats));
  std::vector<double> freq;
  POSENC_RETURN_IF_ERROR(detail::sinusoid_frequencies(params, &freq));
  const std::size_t n = freq.size();
  const std::size_t anchors = anchor_count(rows);

  // Per-pair values, computed exactly as angle_rows_range_fast computes its anchors and offsets
  // (anchor m at angle m * (K w): the same double as (K m) * w, K being a power of two).
  detail::Scratch<double> anchor_freq;
  detail::Scratch<float> anchor_sin, anchor_cos, offset_sin, offset_cos;
  POSENC_RETURN_IF_ERROR(anchor_freq.allocate(n));
  POSENC_RETURN_IF_ERROR(anchor_sin.allocate(anchors * n));
  POSENC_RETURN_IF_ERROR(anchor_cos.allocate(anchors * n));
  POSENC_RETURN_IF_ERROR(offset_sin.allocate(K * n));
  POSENC_RETURN_IF_ERROR(offset_cos.allocate(K * n));
  for (std::size_t i = 0; i < n; ++i) anchor_freq.data()[i] = freq[i] * static_cast<double>(K);
  detail::angle_rows_range(anchor_freq.data(), n, 0.0, anchors,
                           detail::AngleSink{anchor_sin.data(), anchor_cos.data(), n, 1, 1.0});
  detail::angle_rows_range(freq.data(), n, 0.0, K, detail::AngleSink{offset_sin.data(), offset_cos.data(), n, 1, 1.0});

  // Scatter into columns: each column gets its own function in A and C, its partner in B, and
  // S signed so that A C + B S is the angle-addition formula of that column.
  float* a = storage;
  float* b = a + anchors * d;
  float* c = b + anchors * d;
  float* s = c + K * d;
  const detail::ColumnPlan plan = detail::plan_columns(params);
  for (std::size_t i = 0; i < n; ++i) {
    const bool full = i < plan.full_pairs;
    const std::size_t sin_col = full ? plan.sin_offset + i * plan.elem_stride : plan.extra_sine_column;
    const std::size_t cos_col = plan.cos_offset + i * plan.elem_stride;
    for (std::size_t m = 0; m < anchors; ++m) {
      const float sa = anchor_sin.data()[m * n + i];
      const float ca = anchor_cos.data()[m * n + i];
      a[m * d + sin_col] = sa;
      b[m * d + sin_col] = ca;
      if (full) {
        a[m * d + cos_col] = ca;
        b[m * d + cos_col] = sa;
      }
    }
    for (std::size_t r = 0; r < K; ++r) {
      const float so = offset_sin.data()[r * n + i];
      const float co = offset_cos.data()[r * n + i];
      c[r * d + sin_col] = co;
      s[r * d + sin_col] = so;
      if (full) {
        c[r * d + cos_col] = co;
        s[r * d + cos_col] = -so;
      }
    }
  }
  return {};
}

Status anchored_table_lookup(const AnchoredSinusoidTable& table, const Positions& positions, std::size_t count,
                             float* out) {
  POSENC_RETURN_IF_ERROR(validate(table));
  POSENC_RETURN_IF_ERROR(detail::check_size("length", count));
  if (positions.per_batch) return detail::invalid("positionIds must be one list for a lookup, not one per batch row");
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, 1, count));
  const Blocks blocks(table);
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
  const Blocks blocks(table);
  for (std::size_t b = 0; b < batch; ++b) {
    float* xb = x + b * seq * table.dim;
    for (std::size_t t = 0; t < seq; ++t) blocks.add_row(static_cast<std::size_t>(positions.at(b, t, seq)), xb + t * table.dim);
  }
  return {};
}

}  // namespace posenc
