//===- Fp8Test.cpp - fine-grained FP8 weights -----------------------------===//

#include "Fp8.h"

#include <gtest/gtest.h>

#include "tile/runtime/Half.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace qwen3;

// e4m3fn: bias 7, 3 mantissa bits, subnormals, no infinities.
TEST(Fp8, E4M3DecodesEveryClassOfByte) {
  EXPECT_EQ(e4m3ToFloat(0x00), 0.0f);
  EXPECT_TRUE(std::signbit(e4m3ToFloat(0x80)));
  EXPECT_EQ(e4m3ToFloat(0x01), std::ldexp(1.0f, -9));  // the smallest subnormal
  EXPECT_EQ(e4m3ToFloat(0x07), 7 * std::ldexp(1.0f, -9));
  EXPECT_EQ(e4m3ToFloat(0x08), std::ldexp(1.0f, -6));  // the smallest normal
  EXPECT_EQ(e4m3ToFloat(0x38), 1.0f);
  EXPECT_EQ(e4m3ToFloat(0x3C), 1.5f);
  EXPECT_EQ(e4m3ToFloat(0x7E), 448.0f);  // the largest finite
  EXPECT_EQ(e4m3ToFloat(0xFE), -448.0f);
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0xFF)));
  // Monotone over the positive bytes: each a distinct, larger value.
  for (int b = 1; b < 0x7F; ++b)
    EXPECT_GT(e4m3ToFloat(uint8_t(b)), e4m3ToFloat(uint8_t(b - 1))) << b;
}

// A 3 x 5 weight in blocks of 2 x 2 (partial blocks on both edges) with F32
// scales: each element is its byte's value times its block's scale, rounded
// once into bf16.
TEST(Fp8, DequantizesEachBlockWithItsScale) {
  std::vector<uint8_t> w = {0x38, 0x40, 0x3C, 0x44, 0x30, //
                            0xB8, 0x00, 0x7E, 0x01, 0x48, //
                            0x39, 0x3A, 0x3B, 0x3D, 0x3E};
  std::vector<float> s = {0.5f, 2.0f, -1.0f, 0.25f, 3.0f, 1.0f / 3};
  TensorInfo wt, st;
  wt.name = "w", st.name = "w_scale_inv";
  wt.dtype = TensorDType::F8E4M3, st.dtype = TensorDType::F32;
  wt.shape = {3, 5}, st.shape = {2, 3};
  wt.data = w.data(), st.data = reinterpret_cast<const uint8_t *>(s.data());
  std::vector<uint16_t> out(15, 0x7FC0);
  ASSERT_TRUE(dequantizeFp8(wt, st, 2, 2, tile_runtime::DType::BF16,
                            reinterpret_cast<uint8_t *>(out.data()))
                  .isOk());
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) {
      const float want = e4m3ToFloat(w[r * 5 + c]) * s[(r / 2) * 3 + c / 2];
      EXPECT_EQ(out[r * 5 + c], tile_runtime::toBF16(want)) << r << ", " << c;
    }
  // A NaN byte is refused, naming the element.
  w[7] = 0x7F;
  Status bad = dequantizeFp8(wt, st, 2, 2, tile_runtime::DType::BF16,
                             reinterpret_cast<uint8_t *>(out.data()));
  EXPECT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("'w' holds NaN at [1, 2]"), std::string::npos) << bad.message();
}

// Encoding: every finite byte's value encodes to that byte; a value between
// two neighbours goes to the nearer, a midpoint to the even byte; beyond
// 448 saturates.
TEST(Fp8, E4M3EncodesToTheNearestByteTiesToEven) {
  for (int b = 0; b < 256; ++b) {
    if ((b & 0x7F) == 0x7F)
      continue;
    EXPECT_EQ(floatToE4m3(e4m3ToFloat(uint8_t(b))), b) << b;
  }
  for (int b = 0; b + 1 < 0x7F; ++b) {
    const float lo = e4m3ToFloat(uint8_t(b)), hi = e4m3ToFloat(uint8_t(b + 1));
    const float mid = (lo + hi) / 2; // exact in f32
    EXPECT_EQ(floatToE4m3(mid), (b % 2 == 0) ? b : b + 1) << b;
    EXPECT_EQ(floatToE4m3(mid * 0.999f + lo * 0.001f), b) << b;
    EXPECT_EQ(floatToE4m3(-(mid * 0.999f + hi * 0.001f)), 0x80 | (b + 1)) << b;
  }
  EXPECT_EQ(floatToE4m3(1000.0f), 0x7E);
  EXPECT_EQ(floatToE4m3(-460.0f), 0xFE);
}

// Quantizing a block: its largest magnitude maps to 448 exactly, and every
// element comes back within half a step of e4m3 (1/16 of itself, or the
// subnormal step near zero).
TEST(Fp8, QuantizesEachBlockByItsLargestMagnitude) {
  const int64_t rows = 256, cols = 128;
  std::vector<float> w(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    w[i] = std::sin(0.37f * i) * (i < 128 * 128 ? 0.01f : 3.0f);
  std::vector<uint8_t> q(rows * cols);
  std::vector<float> scales(2);
  quantizeFp8(w.data(), rows, cols, q.data(), scales.data());
  for (int blk = 0; blk < 2; ++blk) {
    float amax = 0;
    for (int64_t i = blk * 128 * 128; i < (blk + 1) * 128 * 128; ++i)
      amax = std::max(amax, std::fabs(w[i]));
    EXPECT_FLOAT_EQ(scales[blk], amax / 448);
    for (int64_t i = blk * 128 * 128; i < (blk + 1) * 128 * 128; ++i) {
      const float back = e4m3ToFloat(q[i]) * scales[blk];
      EXPECT_LE(std::fabs(back - w[i]),
                std::max(std::fabs(w[i]) / 16, scales[blk] * std::ldexp(1.0f, -10)))
          << i;
    }
  }
}

// A slice of a 16-bit or F32 checkpoint matrix (rows a stride apart, more
// strips than one thread takes) quantizes to exactly what quantizeFp8
// makes of its values.
TEST(Fp8, QuantizesACheckpointSliceAsItsValues) {
  const int64_t rows = 640, cols = 256, stride = 384, col0 = 64;
  for (TensorDType from : {TensorDType::BF16, TensorDType::F16, TensorDType::F32}) {
    const int64_t eb = from == TensorDType::F32 ? 4 : 2;
    std::vector<uint8_t> data(rows * stride * eb);
    std::vector<float> values(rows * cols);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < stride; ++c) {
        float v = std::sin(0.1f * r + 0.37f * c) * (1 + r % 7);
        uint8_t *at = data.data() + (r * stride + c) * eb;
        if (from == TensorDType::F32) {
          std::memcpy(at, &v, 4);
        } else {
          uint16_t h = from == TensorDType::BF16 ? tile_runtime::toBF16(v) : tile_runtime::toHalf(v);
          std::memcpy(at, &h, 2);
          v = from == TensorDType::BF16 ? tile_runtime::fromBF16(h) : tile_runtime::fromHalf(h);
        }
        if (c >= col0 && c < col0 + cols)
          values[r * cols + c - col0] = v;
      }
    std::vector<uint8_t> want(rows * cols), got(rows * cols, 0x7F);
    std::vector<float> wantScales(rows / 128 * cols / 128), gotScales(wantScales.size(), -1);
    quantizeFp8(values.data(), rows, cols, want.data(), wantScales.data());
    quantizeFp8Matrix(data.data() + col0 * eb, from, stride, rows, cols, got.data(),
                      gotScales.data());
    EXPECT_EQ(got, want) << dtypeName(from);
    EXPECT_EQ(gotScales, wantScales) << dtypeName(from);
  }
}
