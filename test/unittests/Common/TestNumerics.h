//===- TestNumerics.h - inputs, poison and references for kernel tests ----===//
//
// Random inputs (never zeros), poisoned outputs, f16/bf16 conversions, and
// relative-error comparison against higher-precision references. No LLVM:
// usable by tests of code that must run without it.
//
//===----------------------------------------------------------------------===//

#ifndef TEST_UNITTESTS_COMMON_TESTNUMERICS_H
#define TEST_UNITTESTS_COMMON_TESTNUMERICS_H

#include "tile/runtime/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace tile::testing {

using tile_runtime::fromBF16;
using tile_runtime::fromHalf;
using tile_runtime::toBF16;
using tile_runtime::toHalf;

/// Uniform in [lo, hi], never exactly zero.
inline std::vector<float> randomFloats(size_t n, float lo, float hi,
                                       unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) {
    do
      x = dist(gen);
    while (x == 0.0f);
  }
  return v;
}

/// A float NaN pattern nothing computes, to detect unwritten outputs.
constexpr uint32_t kPoison32 = 0x7fbadbad;
constexpr uint16_t kPoison16 = 0x7dad;

inline std::vector<float> poisoned32(size_t n) {
  std::vector<float> v(n);
  for (float &x : v)
    std::memcpy(&x, &kPoison32, 4);
  return v;
}

inline bool isPoison(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b == kPoison32;
}

/// Checks every element was written and matches `ref` to `rtol` relative
/// error (with `atol` for values near zero).
inline void expectClose(const std::vector<float> &got,
                        const std::vector<double> &ref, double rtol,
                        double atol = 1e-6) {
  ASSERT_EQ(got.size(), ref.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (isPoison(got[i])) {
      ADD_FAILURE() << "element " << i << " was never written";
      return;
    }
    double err = std::abs(static_cast<double>(got[i]) - ref[i]);
    if (err > atol + rtol * std::abs(ref[i]) && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", expected "
                    << ref[i];
  }
  EXPECT_EQ(bad, 0u) << "elements out of tolerance";
}

} // namespace tile::testing

#endif // TEST_UNITTESTS_COMMON_TESTNUMERICS_H
