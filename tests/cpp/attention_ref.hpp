// Float64 reference attention for the Catch2 suites, written from the formulas (not from posenc's
// code): logits, softmax and outputs of one head, naive loops.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace posenc::test {

/// A matrix of doubles [rows, cols].
struct Mat {
  std::size_t rows = 0, cols = 0;
  std::vector<double> v;
  Mat(std::size_t r, std::size_t c, double fill = 0) : rows(r), cols(c), v(r * c, fill) {}
  double& at(std::size_t r, std::size_t c) { return v[r * cols + c]; }
  double at(std::size_t r, std::size_t c) const { return v[r * cols + c]; }
};

/// Rows [rows, cols] of head `h` of a float tensor [heads, rows, cols], as doubles.
inline Mat head_of(const std::vector<float>& x, std::size_t h, std::size_t rows, std::size_t cols) {
  Mat m(rows, cols);
  for (std::size_t i = 0; i < rows * cols; ++i) m.v[i] = x[h * rows * cols + i];
  return m;
}

/// Softmax of each row; a row of only -inf stays all zeros (posenc's documented behaviour).
inline Mat softmax_rows(const Mat& logits) {
  Mat p(logits.rows, logits.cols);
  for (std::size_t i = 0; i < logits.rows; ++i) {
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < logits.cols; ++j) m = std::max(m, logits.at(i, j));
    if (std::isinf(m) && m < 0) continue;
    double sum = 0;
    for (std::size_t j = 0; j < logits.cols; ++j) sum += std::exp(logits.at(i, j) - m);
    for (std::size_t j = 0; j < logits.cols; ++j) p.at(i, j) = std::exp(logits.at(i, j) - m) / sum;
  }
  return p;
}

/// a [n, m] times b [m, p].
inline Mat matmul(const Mat& a, const Mat& b) {
  Mat c(a.rows, b.cols);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t k = 0; k < a.cols; ++k)
      for (std::size_t j = 0; j < b.cols; ++j) c.at(i, j) += a.at(i, k) * b.at(k, j);
  return c;
}

/// max |float result - double reference| over one head.
inline double head_error(const std::vector<float>& got, std::size_t h, const Mat& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.v.size(); ++i) {
    const double g = got[h * want.v.size() + i];
    const double w = want.v[i];
    if (std::isinf(w) || std::isinf(g)) {
      if (g != w) return std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::fabs(g - w));
  }
  return worst;
}

}  // namespace posenc::test
