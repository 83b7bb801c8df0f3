// The same kernels as the Node benchmark (tests/bench/run.mjs), natively (x86 SIMD, whatever
// -march=native gives xsimd), against the same kinds of bounds measured in the same run:
//   fill = memset, copy = memcpy, rmw = an in-place pass x = x * -1 + 0, add = x += t.
// Timing: warm-up, calibration, then round-robin samples of every contender of a case; medians.
//
//   posenc_native_bench [--quick] [--filter REGEX] [--json PATH]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "posenc/learned.hpp"
#include "posenc/rope.hpp"
#include "posenc/sinusoidal.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Runnable {
  std::string id;
  std::string label;
  std::function<void()> run;
};

struct Summary {
  double median_ms = 0, q1 = 0, q3 = 0;
  int samples = 0;
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = (v.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

/// Round-robin sampling, as in tests/bench/harness/timing.mjs.
std::vector<Summary> measure_together(std::vector<Runnable>& rs, double budget_s) {
  struct State {
    long calls_per_sample = 1;
    int wanted = 9;
    std::vector<double> times;
  };
  std::vector<State> st(rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i) {
    long calls = 0;
    const auto t0 = Clock::now();
    while (calls < 2 || seconds_since(t0) < 0.03) {
      rs[i].run();
      ++calls;
      if (seconds_since(t0) > 1.0) break;
    }
    const double per_call = seconds_since(t0) / calls;
    st[i].calls_per_sample = std::max(1L, std::lround(0.004 / std::max(per_call, 1e-9)));
    st[i].wanted = per_call > 0.25 ? 3 : 9;
  }
  const auto t0 = Clock::now();
  for (int round = 0;; ++round) {
    std::vector<std::size_t> active;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const auto n = static_cast<int>(st[i].times.size());
      if (n < st[i].wanted || (seconds_since(t0) < budget_s && n < 41 && st[i].wanted != 3)) active.push_back(i);
    }
    if (active.empty()) break;
    for (std::size_t k = 0; k < active.size(); ++k) {
      State& s = st[active[(k + round) % active.size()]];
      Runnable& r = rs[active[(k + round) % active.size()]];
      const auto t = Clock::now();
      for (long c = 0; c < s.calls_per_sample; ++c) r.run();
      s.times.push_back(seconds_since(t) * 1e3 / s.calls_per_sample);
    }
  }
  std::vector<Summary> out;
  for (auto& s : st) out.push_back({quantile(s.times, 0.5), quantile(s.times, 0.25), quantile(s.times, 0.75),
                                    static_cast<int>(s.times.size())});
  return out;
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned s = seed * 2654435761u + 1u;
  for (auto& x : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x = static_cast<float>(s) / 4294967296.0f * 2.0f - 1.0f;
  }
  return v;
}

void check(const posenc::Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "native bench: %s failed: %s\n", what, st.message().c_str());
    std::exit(1);
  }
}

/// The bounds over `bytes` bytes, added to every case.
struct Bounds {
  std::vector<float> a, b;
  explicit Bounds(std::size_t bytes) : a((bytes + 63) / 4, 0.0f), b((bytes + 63) / 4, 1.25f) {}
  void add_to(std::vector<Runnable>& rs, std::size_t bytes) {
    const std::size_t n = bytes / 4;
    rs.push_back({"bound:fill", "memset", [this, bytes] { std::memset(a.data(), 0, bytes); }});
    rs.push_back({"bound:copy", "memcpy", [this, bytes] { std::memcpy(a.data(), b.data(), bytes); }});
    rs.push_back({"bound:rmw", "in-place pass x = -x", [this, n] {
                    float* x = b.data();
                    for (std::size_t i = 0; i < n; ++i) x[i] = x[i] * -1.0f + 0.0f;
                  }});
    rs.push_back({"bound:add", "in-place add x += t", [this, n] {
                    posenc::kernels::add(b.data(), a.data(), n);
                  }});
  }
};

struct Case {
  std::string id, label;
  std::size_t bytes;
  std::vector<Runnable> runnables;
  std::vector<std::function<void()>> cleanup;
};

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string filter, json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: posenc_native_bench [--quick] [--filter REGEX] [--json PATH]\n");
      return 2;
    }
  }
  const std::regex re(filter.empty() ? ".*" : filter);
  std::printf("posenc native bench - kernels compiled for %s\n\n", posenc::kernels::simd_arch_name());

  std::string json = "{\"arch\": \"" + json_escape(posenc::kernels::simd_arch_name()) + "\", \"cases\": [";
  bool first_case = true;
  auto run_case = [&](const std::string& id, const std::string& label, std::size_t bytes,
                      const std::function<void(std::vector<Runnable>&)>& add) {
    if (!std::regex_search(id, re)) return;
    std::vector<Runnable> rs;
    add(rs);
    Bounds bounds(bytes);
    bounds.add_to(rs, bytes);
    const auto sums = measure_together(rs, 0.8);
    double bound[4];
    for (int k = 0; k < 4; ++k) bound[k] = sums[rs.size() - 4 + k].median_ms;
    std::printf("#### %s (native) - %.1f KiB\n\n| contender | median | GB/s | xfill | xcopy | xrmw | xadd |\n"
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                label.c_str(), bytes / 1024.0);
    json += std::string(first_case ? "" : ",") + "\n {\"id\": \"" + id + "\", \"label\": \"" + json_escape(label) +
            "\", \"bytes\": " + std::to_string(bytes) + ", \"rows\": [";
    first_case = false;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const Summary& s = sums[i];
      const double gbps = bytes / s.median_ms / 1e6;
      const double us = s.median_ms * 1e3;
      std::printf("| %s | %.3g us | %.1f | %.2f | %.2f | %.2f | %.2f |\n", rs[i].label.c_str(), us, gbps,
                  s.median_ms / bound[0], s.median_ms / bound[1], s.median_ms / bound[2], s.median_ms / bound[3]);
      char row[512];
      std::snprintf(row, sizeof row,
                    "%s\n  {\"id\": \"%s\", \"label\": \"%s\", \"median_ms\": %.6g, \"q1_ms\": %.6g, \"q3_ms\": %.6g, "
                    "\"samples\": %d, \"gbps\": %.4g}",
                    i ? "," : "", rs[i].id.c_str(), json_escape(rs[i].label).c_str(), s.median_ms, s.q1, s.q3,
                    s.samples, gbps);
      json += row;
    }
    json += "]}";
    std::printf("\n");
    std::fflush(stdout);
  };

  // RoPE in place on q [1, tokens, heads, dim] (bshd), base 10000: trig every call, and a cos/sin cache.
  const std::vector<std::size_t> tokens_list = quick ? std::vector<std::size_t>{1, 128} : std::vector<std::size_t>{1, 128, 2048};
  for (std::size_t tokens : tokens_list) {
    for (std::size_t heads : {8, 32}) {
      for (std::size_t dim : {64, 128}) {
        for (const char* pairing_name : {"half", "interleaved"}) {
          const auto pairing = std::strcmp(pairing_name, "half") == 0 ? posenc::Pairing::half : posenc::Pairing::interleaved;
          const double offset = tokens == 1 ? 1000.0 : 0.0;
          const std::string id = std::string("rope-") + pairing_name + "-" + std::to_string(tokens) + "x" +
                                 std::to_string(heads) + "x" + std::to_string(dim);
          const std::size_t n = tokens * heads * dim;
          auto x = std::make_shared<std::vector<float>>(random_floats(n, static_cast<unsigned>(tokens + heads + dim)));
          const std::size_t rows = static_cast<std::size_t>(offset) + tokens;
          auto cos = std::make_shared<std::vector<float>>(rows * dim / 2);
          auto sin = std::make_shared<std::vector<float>>(rows * dim / 2);
          run_case(id, std::string("RoPE ") + pairing_name + ", " + std::to_string(tokens) + " tokens x " +
                           std::to_string(heads) + " heads x " + std::to_string(dim),
                   n * 4, [&](std::vector<Runnable>& rs) {
                     posenc::RopeTensors t;
                     t.q = x->data();
                     t.q_heads = heads;
                     t.batch = 1;
                     t.seq = tokens;
                     t.head_dim = dim;
                     t.layout = posenc::HeadLayout::bshd;
                     const posenc::RopeConfig config{static_cast<int>(dim), 10000.0};
                     rs.push_back({"posenc-apply", "posenc rope_apply (trig each call)", [=] {
                                     check(posenc::rope_apply(config, pairing, posenc::Positions::range(offset), t), "rope_apply");
                                   }});
                     posenc::RopeFrequencies freq;
                     check(posenc::rope_frequencies(config, &freq), "rope_frequencies");
                     const posenc::RopeRotation rotation{posenc::Pairing::half, static_cast<int>(dim), freq.inv_freq.data(), 1.0};
                     check(posenc::rope_fill_table(rotation, rows, cos->data(), sin->data()), "rope_fill_table");
                     const posenc::RopeTable table{cos->data(), sin->data(), rows, dim / 2};
                     rs.push_back({"posenc-cache", "posenc rope_apply_table (cos/sin cache)", [=] {
                                     check(posenc::rope_apply_table(table, pairing, static_cast<int>(dim),
                                                                    posenc::Positions::range(offset), t),
                                           "rope_apply_table");
                                   }});
                   });
        }
      }
    }
  }

  // Sinusoidal table and add in place (cached table), interleaved layout.
  for (auto [length, dim] : std::vector<std::pair<std::size_t, int>>{{512, 768}, {2048, 1024}, {8192, 4096}}) {
    const std::size_t n = length * static_cast<std::size_t>(dim);
    auto table = std::make_shared<std::vector<float>>(n);
    const posenc::SinusoidalParams params{dim, 10000.0, posenc::SinusoidLayout::interleaved};
    const std::string shape = std::to_string(length) + "x" + std::to_string(dim);
    run_case("sinusoidal-table-" + shape, "sinusoidal table " + shape, n * 4, [&](std::vector<Runnable>& rs) {
      rs.push_back({"posenc-table", "posenc sinusoidal_table", [=] {
                      check(posenc::sinusoidal_table(params, posenc::Positions::range(0), length, table->data()), "table");
                    }});
    });
    auto x = std::make_shared<std::vector<float>>(random_floats(n, static_cast<unsigned>(length)));
    check(posenc::sinusoidal_table(params, posenc::Positions::range(0), length, table->data()), "table");
    run_case("sinusoidal-add-" + shape, "sinusoidal add in place " + shape, n * 4, [&](std::vector<Runnable>& rs) {
      rs.push_back({"posenc-add", "posenc sinusoidal_add (computes)", [=] {
                      check(posenc::sinusoidal_add(params, posenc::Positions::range(0), 1, length, x->data()), "add");
                    }});
      const posenc::PositionTable t{table->data(), length, static_cast<std::size_t>(dim)};
      rs.push_back({"posenc-table-add", "posenc table_add (cached table)", [=] {
                      check(posenc::table_add(t, posenc::Positions::range(0), 1, length, x->data()), "table_add");
                    }});
    });
  }

  json += "\n]}\n";
  if (!json_path.empty()) {
    std::ofstream(json_path) << json;
    std::printf("native results: %s\n", json_path.c_str());
  }
  return 0;
}
