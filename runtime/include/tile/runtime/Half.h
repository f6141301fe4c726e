//===- Half.h - f16 and bf16 bit conversions on the host -------*- C++ -*-===//
//
// Round-to-nearest-even conversions between float and the bits of IEEE half
// (f16) and bfloat16, for host code that prepares or checks device data.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_HALF_H
#define TILE_RUNTIME_HALF_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tile_runtime {

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

} // namespace tile_runtime

#endif // TILE_RUNTIME_HALF_H
