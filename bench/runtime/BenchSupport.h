//===- BenchSupport.h - what the runtime benchmarks share -------*- C++ -*-===//

#ifndef TILE_BENCH_RUNTIME_BENCHSUPPORT_H
#define TILE_BENCH_RUNTIME_BENCHSUPPORT_H

#include "tile/runtime/Runtime.h"
#include "tile/runtime/Status.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tile_bench {

/// The tool's name in messages (each benchmark defines it).
extern const char *const kToolName;

/// Exits with "<tool>: <what>: <message>" when `s` is an error.
inline void check(const tile_runtime::Status &s, const char *what) {
  if (!s) {
    std::fprintf(stderr, "%s: %s: %s\n", kToolName, what, s.message().c_str());
    std::exit(1);
  }
}

inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}
/// The upper middle element for an even count.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Replays `g` once to warm up, then `replays` times between two events:
/// the microseconds per launch of each timed replay (`g` holds
/// `launchesPerGraph` launches).
inline std::vector<double> timeReplays(tile_runtime::Graph &g,
                                       tile_runtime::Stream &s, int replays,
                                       int launchesPerGraph) {
  check(g.replay(s), "warm-up replay");
  std::vector<double> us;
  for (int r = 0; r < replays; ++r) {
    tile_runtime::Event e0, e1;
    check(s.record(e0), "record");
    check(g.replay(s), "replay");
    check(s.record(e1), "record");
    check(e1.wait(), "event wait");
    float ms = 0;
    check(e1.elapsedMs(e0, ms), "elapsed time");
    us.push_back(ms * 1e3 / launchesPerGraph);
  }
  return us;
}

/// The device-to-device copy bandwidth (read + write, TB/s): the median of
/// 7 copies of 1 GiB on `s`.
inline double copyTBps(tile_runtime::Device &dev, tile_runtime::Stream &s) {
  const int64_t n = int64_t{1} << 29;
  tile_runtime::Buffer a, b;
  check(dev.allocate(tile_runtime::DType::F16, n, a), "allocate");
  check(dev.allocate(tile_runtime::DType::F16, n, b), "allocate");
  std::vector<double> ms;
  for (int r = 0; r < 7; ++r) {
    tile_runtime::Event e0, e1;
    check(s.record(e0), "record");
    check(s.copy(b, a, n * 2), "copy");
    check(s.record(e1), "record");
    check(e1.wait(), "event wait");
    float t = 0;
    check(e1.elapsedMs(e0, t), "elapsed time");
    ms.push_back(t);
  }
  return 2.0 * n * 2 / (quantile(ms, 0.5) * 1e-3) / 1e12;
}

} // namespace tile_bench

#define CHECK(expr) ::tile_bench::check((expr), #expr)

#endif // TILE_BENCH_RUNTIME_BENCHSUPPORT_H
