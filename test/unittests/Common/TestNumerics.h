//===- TestNumerics.h - inputs, poison and references for kernel tests ----===//
//
// Random inputs (never zeros), poisoned outputs, f16/bf16 conversions, and
// relative-error comparison against higher-precision references. No LLVM:
// usable by tests of code that must run without it.
//
//===----------------------------------------------------------------------===//

#ifndef TEST_UNITTESTS_COMMON_TESTNUMERICS_H
#define TEST_UNITTESTS_COMMON_TESTNUMERICS_H

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace tile::testing {

inline uint16_t toHalf(float f) {
  // Round to nearest even, with subnormals, inf and NaN.
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff)
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31)
    return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10)
      return sign;
    mant |= 0x800000;
    uint32_t shift = 14 - exp;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half;
  return half;
}

inline float fromHalf(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  int32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000 | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      float f = std::ldexp(static_cast<float>(mant), -24);
      return sign ? -f : f;
    }
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline uint16_t toBF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

inline float fromBF16(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

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
