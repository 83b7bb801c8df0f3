// Scalar reference kernels: the oracle the SIMD kernels are tested against. Clarity over speed.
#include <cmath>

#include "kernels/kernels.hpp"

namespace posenc::kernels::reference {
namespace {

void rotate_half(float* x, const float* cos, const float* sin, std::size_t pairs, std::size_t partner) {
  for (std::size_t i = 0; i < pairs; ++i) {
    const float a = x[i];
    const float b = x[i + partner];
    x[i] = a * cos[i] - b * sin[i];
    x[i + partner] = a * sin[i] + b * cos[i];
  }
}

void rotate_interleaved(float* x, const float* cos2, const float* sin2, std::size_t pairs) {
  for (std::size_t i = 0; i < pairs; ++i) {
    const float a = x[2 * i];
    const float b = x[2 * i + 1];
    x[2 * i] = a * cos2[2 * i] + b * sin2[2 * i];
    x[2 * i + 1] = b * cos2[2 * i + 1] + a * sin2[2 * i + 1];
  }
}

/// rotate(row, cos_rows[t], sin_rows[t], pairs) on every head row r of every token t.
template <class Rotate>
void rotate_each_row(Rotate rotate, float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                     std::size_t row_stride, const float* const* cos_rows, const float* const* sin_rows,
                     std::size_t pairs) {
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t r = 0; r < rows; ++r) {
      rotate(x + t * token_stride + r * row_stride, cos_rows[t], sin_rows[t], pairs);
    }
  }
}

}  // namespace

void sincos(const double* angles, std::size_t n, double* sin_out, double* cos_out) {
  for (std::size_t i = 0; i < n; ++i) {
    sin_out[i] = std::sin(angles[i]);
    cos_out[i] = std::cos(angles[i]);
  }
}

void phasor_step(double* c, double* s, const double* cw, const double* sw, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double c0 = c[i];
    const double s0 = s[i];
    c[i] = c0 * cw[i] - s0 * sw[i];
    s[i] = s0 * cw[i] + c0 * sw[i];
  }
}

void phasor_rows_narrow(double* c, double* s, const double* cw, const double* sw, std::size_t n, std::size_t rows,
                        double scale, float* cos_out, float* sin_out, std::size_t row_stride) {
  for (std::size_t r = 0; r < rows; ++r) {
    phasor_step(c, s, cw, sw, n);
    if (cos_out != nullptr) narrow(c, n, scale, cos_out + r * row_stride, 1);
    if (sin_out != nullptr) narrow(s, n, scale, sin_out + r * row_stride, 1);
  }
}

void phasor_rows_narrow_interleave(double* c, double* s, const double* cw, const double* sw, std::size_t n,
                                   std::size_t rows, double scale, float* dst, std::size_t row_stride) {
  for (std::size_t r = 0; r < rows; ++r) {
    phasor_step(c, s, cw, sw, n);
    narrow_interleave(s, c, n, scale, dst + r * row_stride);
  }
}

void anchor_rows(const float* s0, const float* c0, const float* sk, const float* ck, std::size_t n, std::size_t rows,
                 float* cos_out, float* sin_out, std::size_t row_stride) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      const float c = ck[r * n + i];
      const float s = sk[r * n + i];
      if (sin_out != nullptr) sin_out[r * row_stride + i] = s0[i] * c + c0[i] * s;
      if (cos_out != nullptr) cos_out[r * row_stride + i] = c0[i] * c - s0[i] * s;
    }
  }
}

void anchor_rows_interleave(const float* s0, const float* c0, const float* sk, const float* ck, std::size_t n,
                            std::size_t rows, float* dst, std::size_t row_stride) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      const float c = ck[r * n + i];
      const float s = sk[r * n + i];
      dst[r * row_stride + 2 * i] = s0[i] * c + c0[i] * s;
      dst[r * row_stride + 2 * i + 1] = c0[i] * c - s0[i] * s;
    }
  }
}

void combine(const float* a, const float* b, const float* c, const float* s, std::size_t n, float* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] * c[i] + b[i] * s[i];
}

void combine_add(const float* a, const float* b, const float* c, const float* s, std::size_t n, float* x) {
  for (std::size_t i = 0; i < n; ++i) x[i] += a[i] * c[i] + b[i] * s[i];
}

void narrow(const double* src, std::size_t n, double scale, float* dst, std::size_t stride) {
  for (std::size_t i = 0; i < n; ++i) dst[i * stride] = static_cast<float>(src[i] * scale);
}

void narrow_interleave(const double* a, const double* b, std::size_t n, double scale, float* dst) {
  for (std::size_t i = 0; i < n; ++i) {
    dst[2 * i] = static_cast<float>(a[i] * scale);
    dst[2 * i + 1] = static_cast<float>(b[i] * scale);
  }
}

void rotate_half_tokens(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                        std::size_t row_stride, const float* const* cos_rows, const float* const* sin_rows,
                        std::size_t pairs, bool /*grouped: one order here*/, std::size_t partner) {
  const std::size_t span = partner == 0 ? pairs : partner;
  auto rotate = [span](float* row, const float* c, const float* s, std::size_t n) { rotate_half(row, c, s, n, span); };
  rotate_each_row(rotate, x, tokens, token_stride, rows, row_stride, cos_rows, sin_rows, pairs);
}

void rotate_interleaved_tokens(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                               std::size_t row_stride, const float* const* cos2_rows, const float* const* sin2_rows,
                               std::size_t pairs, bool /*grouped: one order here*/) {
  rotate_each_row(rotate_interleaved, x, tokens, token_stride, rows, row_stride, cos2_rows, sin2_rows, pairs);
}

void rotate_tokens_exact(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                         std::size_t row_stride, const double* const* cos_rows, const double* const* sin_rows,
                         std::size_t pairs, std::size_t pair_stride, std::size_t partner) {
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t r = 0; r < rows; ++r) {
      float* row = x + t * token_stride + r * row_stride;
      for (std::size_t i = 0; i < pairs; ++i) {
        const double a = row[i * pair_stride];
        const double b = row[i * pair_stride + partner];
        row[i * pair_stride] = static_cast<float>(a * cos_rows[t][i] - b * sin_rows[t][i]);
        row[i * pair_stride + partner] = static_cast<float>(a * sin_rows[t][i] + b * cos_rows[t][i]);
      }
    }
  }
}

void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2, float* sin2) {
  for (std::size_t i = 0; i < pairs; ++i) {
    cos2[2 * i] = cos[i];
    cos2[2 * i + 1] = cos[i];
    sin2[2 * i] = -sin[i];
    sin2[2 * i + 1] = sin[i];
  }
}

void add(float* dst, const float* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] += src[i];
}

void copy(float* dst, const float* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
}

void copy(std::int32_t* dst, const std::int32_t* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
}

void shifted_rows(const float* diag, std::size_t q_len, std::size_t k_len, float* out) {
  for (std::size_t i = 0; i < q_len; ++i)
    for (std::size_t j = 0; j < k_len; ++j) out[i * k_len + j] = diag[q_len - 1 - i + j];
}

void shifted_rows(const std::int32_t* diag, std::size_t q_len, std::size_t k_len, std::int32_t* out) {
  for (std::size_t i = 0; i < q_len; ++i)
    for (std::size_t j = 0; j < k_len; ++j) out[i * k_len + j] = diag[q_len - 1 - i + j];
}

}  // namespace posenc::kernels::reference
