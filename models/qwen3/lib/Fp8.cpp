//===- Fp8.cpp - fine-grained FP8 weights (e4m3, block scales) ------------===//

#include "Fp8.h"

#include "tile/runtime/Half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
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

/// Element `i` of BF16, F16 or F32 data as a float (NaN for other types).
float elementAt(const uint8_t *data, TensorDType type, int64_t i) {
  switch (type) {
  case TensorDType::BF16:
  case TensorDType::F16: {
    uint16_t v;
    std::memcpy(&v, data + 2 * i, 2);
    return type == TensorDType::BF16 ? fromBF16(v) : fromHalf(v);
  }
  case TensorDType::F32: {
    float v;
    std::memcpy(&v, data + 4 * i, 4);
    return v;
  }
  case TensorDType::F8E4M3:
    break;
  }
  return std::numeric_limits<float>::quiet_NaN();
}

float scaleAt(const TensorInfo &s, int64_t i) { return elementAt(s.data, s.dtype, i); }

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

uint8_t floatToE4m3(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  const uint8_t sign = (bits >> 24) & 0x80;
  const float a = std::fabs(v);
  if (std::isnan(v))
    return sign | 0x7F;
  if (a >= 448.0f)
    return sign | 0x7E;
  if (a < std::ldexp(1.0f, -6)) // subnormal: a multiple of 2^-9
    return sign | uint8_t(std::nearbyint(a * 512.0f)); // 8 is the smallest normal
  uint32_t m;
  std::memcpy(&m, &a, 4);
  // Keep 3 of the 23 mantissa bits, rounding to nearest even.
  m += 0x7FFFF + ((m >> 20) & 1);
  m &= ~uint32_t(0xFFFFF);
  const int exp = int(m >> 23) - 127 + 7;
  const uint8_t byte = uint8_t((exp << 3) | ((m >> 20) & 7));
  return sign | (byte > 0x7E ? 0x7E : byte);
}

Status readFp8Scales(const TensorInfo &scaleInv, int64_t row0, int64_t rows, int64_t col0,
                     int64_t cols, float *dst) {
  const int64_t stride = scaleInv.shape[1];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const float v = scaleAt(scaleInv, (row0 + r) * stride + col0 + c);
      if (!std::isfinite(v))
        return Status::error(scaleInv.file + ": tensor '" + scaleInv.name + "' holds " +
                             std::to_string(v) + " at [" + std::to_string(row0 + r) + ", " +
                             std::to_string(col0 + c) + "]");
      dst[r * cols + c] = v;
    }
  return Status::ok();
}

void quantizeFp8(const float *src, int64_t rows, int64_t cols, uint8_t *bytes, float *scales) {
  const int64_t B = 128, bcols = cols / B;
  for (int64_t br = 0; br < rows / B; ++br)
    for (int64_t bc = 0; bc < bcols; ++bc) {
      float amax = 0;
      for (int64_t r = br * B; r < (br + 1) * B; ++r)
        for (int64_t c = bc * B; c < (bc + 1) * B; ++c)
          amax = std::max(amax, std::fabs(src[r * cols + c]));
      const float scale = std::max(amax, 1e-12f) / 448.0f;
      scales[br * bcols + bc] = scale;
      for (int64_t r = br * B; r < (br + 1) * B; ++r)
        for (int64_t c = bc * B; c < (bc + 1) * B; ++c)
          bytes[r * cols + c] = floatToE4m3(src[r * cols + c] / scale);
    }
}

void quantizeFp8Matrix(const uint8_t *src, TensorDType from, int64_t stride, int64_t rows,
                       int64_t cols, uint8_t *bytes, float *scales) {
  const int64_t strips = rows / 128, bcols = cols / 128;
  const int64_t eb = from == TensorDType::F32 ? 4 : 2;
  auto work = [&](int64_t first, int64_t step) {
    std::vector<float> strip(128 * cols);
    for (int64_t s = first; s < strips; s += step) {
      for (int64_t i = 0; i < 128; ++i) {
        const uint8_t *row = src + (s * 128 + i) * stride * eb;
        for (int64_t c = 0; c < cols; ++c)
          strip[i * cols + c] = elementAt(row, from, c);
      }
      quantizeFp8(strip.data(), 128, cols, bytes + s * 128 * cols, scales + s * bcols);
    }
  };
  const int64_t threads = std::min<int64_t>(
      strips, std::max<unsigned>(1, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t)
    pool.emplace_back(work, t, threads);
  work(0, std::max<int64_t>(threads, 1));
  for (std::thread &t : pool)
    t.join();
}

} // namespace qwen3
