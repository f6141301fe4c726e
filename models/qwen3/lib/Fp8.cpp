//===- Fp8.cpp - fine-grained FP8 weights (e4m3, block scales) ------------===//

#include "Fp8.h"

#include "tile/runtime/Half.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace qwen3 {

using namespace tile_runtime;

float e4m3ToFloat(uint8_t b) {
  const float sign = (b & 0x80) ? -1.0f : 1.0f;
  const int exp = (b >> 3) & 0xF, mant = b & 0x7;
  if (exp == 0xF && mant == 0x7)
    return std::numeric_limits<float>::quiet_NaN();
  if (exp == 0)
    return sign * std::ldexp(float(mant), -9); // subnormal: mant / 8 * 2^-6
  return sign * std::ldexp(1.0f + float(mant) / 8.0f, exp - 7);
}

namespace {

float scaleAt(const TensorInfo &s, int64_t i) {
  switch (s.dtype) {
  case TensorDType::BF16: {
    uint16_t v;
    std::memcpy(&v, s.data + 2 * i, 2);
    return fromBF16(v);
  }
  case TensorDType::F16: {
    uint16_t v;
    std::memcpy(&v, s.data + 2 * i, 2);
    return fromHalf(v);
  }
  case TensorDType::F32: {
    float v;
    std::memcpy(&v, s.data + 4 * i, 4);
    return v;
  }
  case TensorDType::F8E4M3:
    break;
  }
  return std::numeric_limits<float>::quiet_NaN();
}

} // namespace

Status dequantizeFp8(const TensorInfo &w, const TensorInfo &scaleInv, int64_t blockOut,
                     int64_t blockIn, DType to, uint8_t *dst) {
  float table[256];
  for (int i = 0; i < 256; ++i)
    table[i] = e4m3ToFloat(uint8_t(i));
  const int64_t rows = w.shape[0], cols = w.shape[1];
  const int64_t scaleCols = scaleInv.shape[1];
  auto *out = reinterpret_cast<uint16_t *>(dst);
  std::vector<float> rowScales(scaleCols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < scaleCols; ++b) {
      rowScales[b] = scaleAt(scaleInv, (r / blockOut) * scaleCols + b);
      if (!std::isfinite(rowScales[b]))
        return Status::error(scaleInv.file + ": tensor '" + scaleInv.name + "' holds " +
                             std::to_string(rowScales[b]) + " at [" +
                             std::to_string(r / blockOut) + ", " + std::to_string(b) + "]");
    }
    const uint8_t *src = w.data + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = table[src[c]] * rowScales[c / blockIn];
      if (std::isnan(v))
        return Status::error(w.file + ": tensor '" + w.name + "' holds NaN at [" +
                             std::to_string(r) + ", " + std::to_string(c) + "]");
      out[r * cols + c] = to == DType::BF16 ? toBF16(v) : toHalf(v);
    }
  }
  return Status::ok();
}

} // namespace qwen3
