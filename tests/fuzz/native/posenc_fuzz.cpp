// libFuzzer target over posenc's public C++ API: each input decodes (deterministically) into one call.
//
// Built by clang with ASan + UBSan (npm run fuzz -- native; scripts/fuzz.mjs). Every output buffer
// is sized exactly as the API documents, so a write past it is an ASan report. Invariants checked
// on top of the sanitizers:
//   - the Status code is one of the documented codes, never `internal`, with a message on failure;
//   - an accepted call with "tame" inputs (finite parameters inside the documented working ranges,
//     positions |p| <= 2^20) gives finite numbers (biases may be -Infinity where masked);
//   - with POSENC_FUZZ_STRICT=1 in the environment, every accepted call must give finite numbers.
// The first byte chooses the entry point; the rest feeds its parameters.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "posenc/alibi.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc/t5.hpp"

namespace {

using posenc::Status;
using posenc::StatusCode;

bool strict_mode() {
  static const bool strict = [] {
    const char* v = std::getenv("POSENC_FUZZ_STRICT");
    return v != nullptr && v[0] == '1';
  }();
  return strict;
}

const char* g_entry = "";  // the entry point the current input calls, for the report

[[noreturn]] void fail(const char* what, const char* detail = "") {
  std::fprintf(stderr, "posenc_fuzz: invariant broken in %s: %s %s\n", g_entry, what, detail);
  std::abort();
}

/// Decodes parameters and remembers whether every one stayed inside its working range.
class Input {
 public:
  explicit Input(FuzzedDataProvider& p) : p_(p) {}

  bool tame() const { return tame_; }

  /// A number meant to lie in [lo, hi]: usually there, sometimes an extreme (NaN, infinities,
  /// signed zero, subnormals, huge values) or any bit pattern.
  double number(double lo, double hi) {
    static const double kExtremes[] = {
        0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 10000.0, 1e6,
        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min(),
        1e-300, 1e-40, 1e300, std::numeric_limits<double>::max(), 1e12, 1e16, 1e18, 1e20,
        4294967296.0, 9007199254740993.0, -1e300};
    double v;
    switch (p_.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: v = kExtremes[p_.ConsumeIntegralInRange<std::size_t>(0, std::size(kExtremes) - 1)]; break;
      case 1: v = p_.ConsumeFloatingPoint<double>(); break;
      default: v = p_.ConsumeFloatingPointInRange<double>(lo, hi); break;
    }
    if (!(v >= lo && v <= hi)) tame_ = false;
    return v;
  }
  /// An integer meant to lie in [lo, hi], sometimes a little outside it (an invalid size).
  int integer(int lo, int hi) {
    const int v = p_.ConsumeIntegralInRange<int>(lo - 2, hi + 2);
    if (v < lo || v > hi) tame_ = false;
    return v;
  }
  std::size_t size(std::size_t lo, std::size_t hi) { return p_.ConsumeIntegralInRange<std::size_t>(lo, hi); }
  bool flag() { return p_.ConsumeBool(); }
  template <typename E>
  E choice(int count) {  // sometimes one past the last value: an invalid enum
    const int v = p_.ConsumeIntegralInRange<int>(0, count);
    if (v == count) tame_ = false;
    return static_cast<E>(v);
  }
  std::vector<double> numbers(std::size_t n, double lo, double hi) {
    std::vector<double> out(n);
    for (double& x : out) x = number(lo, hi);
    return out;
  }
  std::vector<float> floats(std::size_t n) {
    std::vector<float> out(n);
    for (float& x : out) x = static_cast<float>(p_.ConsumeFloatingPointInRange<double>(-4.0, 4.0));
    return out;
  }

 private:
  FuzzedDataProvider& p_;
  bool tame_ = true;
};

constexpr double kPositionLimit = 1048576.0;  // 2^20: every documented accuracy bound holds here

/// The status invariant: a known code, never `internal`, a message on failure.
void check_status(const Status& s) {
  const int code = static_cast<int>(s.code());
  if (code < 0 || code > static_cast<int>(StatusCode::internal)) fail("unknown status code");
  if (s.code() == StatusCode::internal) fail("internal error:", s.message().c_str());
  if (!s.ok() && s.message().empty()) fail("failure without a message");
}

template <typename T>
void check_finite(const Status& s, const Input& in, const T* v, std::size_t n, bool allow_neg_inf = false) {
  check_status(s);
  if (!s.ok() || !(in.tame() || strict_mode())) return;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(v[i]);
    if (std::isfinite(x) || (allow_neg_inf && x == -std::numeric_limits<double>::infinity())) continue;
    char detail[96];
    std::snprintf(detail, sizeof detail, "output[%zu] = %g of %zu", i, x, n);
    fail("accepted call gave a non-finite value:", detail);
  }
}

/// Positions: a range from an offset or a list of ids (per batch or shared).
struct PositionsBuf {
  std::vector<double> ids;
  posenc::Positions positions;
};
PositionsBuf decode_positions(Input& in, std::size_t batch, std::size_t seq) {
  PositionsBuf out;
  switch (in.size(0, 2)) {
    case 0: out.positions = posenc::Positions::range(in.number(0, kPositionLimit - 64)); break;
    case 1:
      out.ids = in.numbers(seq, 0, kPositionLimit);
      out.positions = posenc::Positions::list(out.ids.data());
      break;
    default:
      out.ids = in.numbers(batch * seq, 0, kPositionLimit);
      out.positions = posenc::Positions::list(out.ids.data(), true);
      break;
  }
  return out;
}

posenc::RopeConfig decode_rope_config(Input& in, int rotary_dim) {
  posenc::RopeConfig config;
  config.rotary_dim = rotary_dim;
  config.base = in.number(2.0, 1e7);
  posenc::RopeScaling& s = config.scaling;
  s.type = in.choice<posenc::RopeScalingType>(7);
  const auto maybe = [&](double lo, double hi) -> std::optional<double> {
    if (in.flag()) return std::nullopt;
    return in.number(lo, hi);
  };
  s.factor = maybe(1e-2, 1e3);
  s.max_position_embeddings = maybe(16, 1e6);
  s.original_max_position_embeddings = maybe(16, 1e6);
  s.alpha = maybe(1e-2, 1e3);
  if (in.flag()) s.beta_fast = in.number(1, 64);
  if (in.flag()) s.beta_slow = in.number(0.5, 1);
  s.mscale = maybe(0, 4);
  s.mscale_all_dim = maybe(0, 4);
  s.truncate = in.flag();
  s.attention_factor = maybe(1e-2, 1e2);
  if (in.flag()) s.low_freq_factor = in.number(1, 2);
  if (in.flag()) s.high_freq_factor = in.number(2, 8);
  const std::size_t pairs = rotary_dim > 0 ? static_cast<std::size_t>(rotary_dim) / 2 : 0;
  if (in.flag()) s.short_factor = in.numbers(in.flag() ? pairs : in.size(0, 8), 1, 64);
  if (in.flag()) s.long_factor = in.numbers(in.flag() ? pairs : in.size(0, 8), 1, 64);
  if (in.flag()) config.seq_len = in.number(1, kPositionLimit);
  return config;
}

void fuzz_sinusoidal(Input& in) {
  g_entry = "sinusoidal_table/add";
  posenc::SinusoidalParams params;
  params.dim = in.integer(1, 64);
  params.base = in.number(2.0, 1e7);
  params.layout = in.choice<posenc::SinusoidLayout>(2);
  params.precision = in.choice<posenc::SinusoidPrecision>(2);
  const std::size_t dim = params.dim > 0 ? static_cast<std::size_t>(params.dim) : 0;
  const std::size_t batch = in.size(1, 2), seq = in.size(0, 16);
  PositionsBuf pos = decode_positions(in, batch, seq);
  if (in.flag()) {
    std::vector<float> out(seq * dim);
    const Status s = posenc::sinusoidal_table(params, pos.positions, seq, out.data());
    check_finite(s, in, out.data(), out.size());
  } else {
    std::vector<float> x = in.floats(batch * seq * dim);
    const Status s = posenc::sinusoidal_add(params, pos.positions, batch, seq, x.data());
    check_finite(s, in, x.data(), x.size());
  }
}

void fuzz_frequencies(Input& in) {
  g_entry = "rope_frequencies(_at)";
  const int rotary_dim = 2 * in.integer(1, 32);
  posenc::RopeConfig config = decode_rope_config(in, in.flag() ? rotary_dim : rotary_dim + 1);
  posenc::RopeFrequencies f;
  const Status s = in.flag() ? posenc::rope_frequencies(config, &f)
                             : posenc::rope_frequencies_at(config, in.number(1, kPositionLimit), &f);
  check_finite(s, in, f.inv_freq.data(), f.inv_freq.size());
  check_finite(s, in, &f.attention_factor, 1);
  if (s.ok() && f.inv_freq.size() != static_cast<std::size_t>(config.rotary_dim / 2)) fail("inv_freq size");
}

void fuzz_rope_apply(Input& in) {
  g_entry = "rope_apply(config)";
  const std::size_t head_dim = 2 * in.size(1, 16);
  const int rotary_dim = in.integer(2, static_cast<int>(head_dim));
  posenc::RopeConfig config = decode_rope_config(in, rotary_dim);
  posenc::RopeTensors t;
  t.batch = in.size(1, 2);
  t.seq = in.size(0, 8);
  t.head_dim = head_dim;
  t.q_heads = in.size(1, 3);
  t.k_heads = in.size(0, 3);
  t.layout = in.choice<posenc::HeadLayout>(2);
  const auto pairing = in.choice<posenc::Pairing>(2);
  PositionsBuf pos = decode_positions(in, t.batch, t.seq);
  std::vector<float> q = in.floats(t.batch * t.seq * t.q_heads * head_dim);
  std::vector<float> k = in.floats(t.batch * t.seq * t.k_heads * head_dim);
  t.q = q.data();
  t.k = t.k_heads ? k.data() : nullptr;
  const Status s = posenc::rope_apply(config, pairing, pos.positions, t);
  if (s.ok() && (rotary_dim % 2 != 0 || rotary_dim < 2 || rotary_dim > static_cast<int>(head_dim))) {
    fail("rope_apply accepted an invalid rotaryDim");
  }
  check_finite(s, in, q.data(), q.size());
  check_finite(s, in, k.data(), k.size());
}

void fuzz_rope_angles(Input& in) {
  g_entry = "rope_angles";
  const int rotary_dim = 2 * in.integer(1, 16);
  posenc::RopeConfig config = decode_rope_config(in, rotary_dim);
  const std::size_t count = in.size(0, 16);
  std::vector<double> positions = in.numbers(count, 0, kPositionLimit);
  std::vector<double> out(count * static_cast<std::size_t>(rotary_dim > 0 ? rotary_dim / 2 : 0));
  const Status s = posenc::rope_angles(config, positions.data(), count, out.data());
  check_finite(s, in, out.data(), out.size());
}

void fuzz_rope_table(Input& in) {
  g_entry = "rope_fill_table/rope_apply_table";
  const std::size_t pairs = in.size(1, 16), rows = in.size(1, 32);
  const int rotary_dim = static_cast<int>(2 * pairs);
  posenc::RopeConfig config = decode_rope_config(in, rotary_dim);
  posenc::RopeFrequencies f;
  Status s = posenc::rope_frequencies(config, &f);
  check_status(s);
  if (!s.ok()) return;
  posenc::RopeRotation rotation;
  rotation.pairing = in.choice<posenc::Pairing>(2);
  rotation.rotary_dim = rotary_dim;
  rotation.inv_freq = f.inv_freq.data();
  rotation.attention_factor = f.attention_factor;
  std::vector<float> cos(rows * pairs), sin(rows * pairs);
  s = posenc::rope_fill_table(rotation, rows, cos.data(), sin.data());
  check_finite(s, in, cos.data(), cos.size());
  if (!s.ok()) return;
  posenc::RopeTable table{cos.data(), sin.data(), rows, pairs};
  posenc::RopeTensors t;
  t.batch = in.size(1, 2);
  t.seq = in.size(1, 8);
  t.head_dim = 2 * pairs + 2 * in.size(0, 2);
  t.q_heads = in.size(1, 2);
  t.k_heads = in.size(0, 2);
  std::vector<double> ids(t.batch * t.seq);
  for (double& id : ids) id = in.flag() ? static_cast<double>(in.size(0, rows + 1)) : in.number(0, double(rows - 1));
  std::vector<float> q = in.floats(t.batch * t.seq * t.q_heads * t.head_dim);
  std::vector<float> k = in.floats(t.batch * t.seq * t.k_heads * t.head_dim);
  t.q = q.data();
  t.k = t.k_heads ? k.data() : nullptr;
  s = posenc::rope_apply_table(table, rotation.pairing, rotary_dim, posenc::Positions::list(ids.data(), true), t);
  check_finite(s, in, q.data(), q.size());
  check_finite(s, in, k.data(), k.size());
}

void fuzz_t5(Input& in) {
  g_entry = "t5_bucket/bias";
  posenc::T5BucketParams params;
  params.num_buckets = in.integer(2, 64);
  params.max_distance = in.integer(2, 256);
  params.bidirectional = in.flag();
  int bucket = -1;
  Status s = posenc::t5_bucket(params, in.number(-1e6, 1e6), &bucket);
  check_status(s);
  if (s.ok() && (bucket < 0 || bucket >= params.num_buckets)) fail("t5 bucket out of range");
  const std::size_t q_len = in.size(0, 12), k_len = in.size(0, 12), offset = in.size(0, 1000);
  const std::size_t heads = in.size(1, 3);
  const std::size_t buckets = params.num_buckets > 0 ? static_cast<std::size_t>(params.num_buckets) : 0;
  std::vector<float> table = in.floats(buckets * heads);
  const posenc::T5BiasTable bias_table{table.data(), in.flag() ? buckets : in.size(0, 70), heads};
  switch (in.size(0, 2)) {
    case 0: {
      std::vector<std::int32_t> out(q_len * k_len);
      s = posenc::t5_bucket_matrix(params, q_len, k_len, offset, out.data());
      check_status(s);
      for (std::int32_t b : out) {
        if (s.ok() && (b < 0 || b >= params.num_buckets)) fail("t5 matrix bucket out of range");
      }
      break;
    }
    case 1: {
      if (bias_table.rows > buckets) return;  // the table must hold the rows it claims
      std::vector<float> out(heads * q_len * k_len);
      s = posenc::t5_bias(params, bias_table, q_len, k_len, offset, out.data());
      check_finite(s, in, out.data(), out.size());
      break;
    }
    default: {
      if (bias_table.rows > buckets) return;
      const std::size_t diag = q_len + k_len > 0 ? q_len + k_len - 1 : 0;
      std::vector<float> out(heads * diag);
      s = posenc::t5_bias_diagonals(params, bias_table, q_len, k_len, offset, out.data());
      check_finite(s, in, out.data(), out.size());
      break;
    }
  }
}

void fuzz_alibi(Input& in) {
  g_entry = "alibi_slopes/bias";
  posenc::AlibiParams params;
  params.num_heads = in.integer(1, 64);
  params.max_bias = in.number(1e-3, 64);
  params.form = in.choice<posenc::AlibiForm>(3);
  params.mask_future = in.flag();
  params.q_len = in.size(0, 12);
  params.k_len = in.size(0, 12);
  params.query_offset = in.size(0, 1000);
  params.batch = in.size(1, 2);
  std::vector<std::int32_t> mask(params.batch * params.k_len);
  if (in.flag()) {
    for (std::int32_t& m : mask) m = in.flag() ? 1 : static_cast<std::int32_t>(in.integer(0, 1));
    params.attention_mask = mask.data();
  } else {
    params.batch = 1;
  }
  const std::size_t heads = params.num_heads > 0 ? static_cast<std::size_t>(params.num_heads) : 0;
  Status s;
  switch (in.size(0, 3)) {
    case 0: {
      std::vector<double> out(heads);
      s = posenc::alibi_slopes(params.num_heads, params.max_bias, out.data());
      check_finite(s, in, out.data(), out.size());
      break;
    }
    case 1: {
      std::vector<float> out(params.batch * heads * params.q_len * params.k_len);
      s = posenc::alibi_bias(params, out.data());
      check_finite(s, in, out.data(), out.size(), true);
      break;
    }
    case 2: {
      const std::size_t diag = params.q_len + params.k_len > 0 ? params.q_len + params.k_len - 1 : 0;
      std::vector<float> out(heads * diag);
      s = posenc::alibi_bias_diagonals(params, out.data());
      check_finite(s, in, out.data(), out.size(), true);
      break;
    }
    default: {
      std::vector<float> out(params.batch * heads * params.k_len);
      s = posenc::alibi_bloom_rows(params, out.data());
      check_finite(s, in, out.data(), out.size(), true);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider provider(data, size);
  Input in(provider);
  switch (provider.ConsumeIntegralInRange<int>(0, 6)) {
    case 0: fuzz_sinusoidal(in); break;
    case 1: fuzz_frequencies(in); break;
    case 2: fuzz_rope_apply(in); break;
    case 3: fuzz_rope_angles(in); break;
    case 4: fuzz_rope_table(in); break;
    case 5: fuzz_t5(in); break;
    default: fuzz_alibi(in); break;
  }
  return 0;
}
