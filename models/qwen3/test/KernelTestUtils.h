//===- KernelTestUtils.h - launching Qwen3 kernels directly in tests -*- C++ -*-===//
//
// What the kernel-level tests (AttentionKernelTest, LinearKernelTest) share:
// the model dtype's conversions and rounding unit, the test device with its
// kernel set loaded, and uploads.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_KERNEL_TEST_UTILS_H
#define QWEN3_KERNEL_TEST_UTILS_H

#include "Qwen3TestUtils.h"
#include "qwen3/KernelTable.h"

#include "tile/runtime/Half.h"
#include "tile/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace qwen3::test {

/// A 16-bit model dtype ("bf16" or "f16"): host conversions, the type's
/// rounding unit, and its runtime dtype.
struct HalfType {
  uint16_t (*encode)(float);
  float (*decode)(uint16_t);
  double eps;
  tile_runtime::DType type;

  static HalfType of(const std::string &dtype) {
    if (dtype == "bf16")
      return {tile_runtime::toBF16, tile_runtime::fromBF16, 1.0 / 256,
              tile_runtime::DType::BF16};
    return {tile_runtime::toHalf, tile_runtime::fromHalf, 1.0 / 2048,
            tile_runtime::DType::F16};
  }
};

/// A head of a query or key as the kernels see it, in fp64: QK-norm
/// (x / rms(x) times w), then NeoX RoPE at `pos` with `invFreq` (HD / 2
/// frequencies), rounded to the type wherever rope.tile rounds.
inline std::vector<double> normRopeReference(const HalfType &ht, const uint16_t *x,
                                             const uint16_t *w,
                                             const std::vector<float> &invFreq,
                                             int64_t pos, double normEps) {
  const int64_t hd = static_cast<int64_t>(invFreq.size()) * 2;
  auto round = [&](double v) { return double(ht.decode(ht.encode(float(v)))); };
  double ss = 0;
  for (int64_t d = 0; d < hd; ++d)
    ss += double(ht.decode(x[d])) * ht.decode(x[d]);
  const double r = 1.0 / std::sqrt(ss / hd + normEps);
  std::vector<double> xn(hd), out(hd);
  for (int64_t d = 0; d < hd; ++d)
    xn[d] = round(round(ht.decode(x[d]) * r) * ht.decode(w[d]));
  for (int64_t d = 0; d < hd; ++d) {
    const double ang = double(invFreq[d % (hd / 2)]) * double(pos);
    const double rot = d < hd / 2 ? -xn[d + hd / 2] : xn[d - hd / 2];
    out[d] = round(round(xn[d] * round(std::cos(ang))) + round(rot * round(std::sin(ang))));
  }
  return out;
}

/// NaN in f16 and in bf16: outputs are filled with it, so an element the
/// kernel never wrote is seen.
constexpr uint16_t kPoison = 0x7E00;

/// The test device with the `dtype` kernel set loaded, and one of its
/// kernels. Use with ASSERT_NO_FATAL_FAILURE.
struct KernelUnderTest {
  std::unique_ptr<tile_runtime::Device> device;
  tile_runtime::Module module;
  tile_runtime::Kernel kernel;

  /// The instance `name` (the kernel table's name of it).
  void open(const std::string &dtype, const std::string &name) {
    tile_runtime::Status st = tile_runtime::Device::open(testDevice().c_str(), device);
    ASSERT_TRUE(st.isOk()) << st.message();
    st = device->loadModule(kernelsDir() + "/qwen3_" + dtype + ".json", module);
    ASSERT_TRUE(st.isOk()) << st.message();
    st = module.kernel(name, kernel);
    ASSERT_TRUE(st.isOk()) << st.message();
  }

  /// A device buffer of `count` elements of `type` (`bytes` each) holding
  /// `data`.
  tile_runtime::Buffer upload(tile_runtime::DType type, const void *data, int64_t count,
                              int64_t bytes) {
    tile_runtime::Buffer b;
    tile_runtime::Status s = device->allocate(type, count, b);
    EXPECT_TRUE(s.isOk()) << s.message();
    s = device->defaultStream().copyToDevice(b, data, count * bytes);
    EXPECT_TRUE(s.isOk()) << s.message();
    return b;
  }
};

} // namespace qwen3::test

#endif // QWEN3_KERNEL_TEST_UTILS_H
