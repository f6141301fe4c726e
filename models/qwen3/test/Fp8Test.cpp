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
