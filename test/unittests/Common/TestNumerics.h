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

/// Checks f16 RMSNorm output `y` against Hugging Face's definition in double
/// (x * rsqrt(mean(x^2) + eps) * w, row by row), every element written.
inline void expectRMSNormF16(const std::vector<uint16_t> &x,
                             const std::vector<uint16_t> &w,
                             const std::vector<uint16_t> &y, int rows, int cols,
                             float eps) {
  std::vector<float> got;
  std::vector<double> ref;
  for (int i = 0; i < rows; ++i) {
    double ss = 0;
    for (int j = 0; j < cols; ++j)
      ss += double(fromHalf(x[i * cols + j])) * fromHalf(x[i * cols + j]);
    double inv = 1.0 / std::sqrt(ss / cols + eps);
    for (int j = 0; j < cols; ++j) {
      ASSERT_NE(y[i * cols + j], kPoison16) << "unwritten " << i << "," << j;
      got.push_back(fromHalf(y[i * cols + j]));
      ref.push_back(fromHalf(x[i * cols + j]) * inv * fromHalf(w[j]));
    }
  }
  // Two f16 roundings (the normalized value, the product): ~1e-3 each.
  expectClose(got, ref, 2e-3, 1e-3);
}

} // namespace tile::testing

#endif // TEST_UNITTESTS_COMMON_TESTNUMERICS_H
