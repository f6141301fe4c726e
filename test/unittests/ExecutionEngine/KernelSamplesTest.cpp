//===- KernelSamplesTest.cpp - sample kernels on the host -----------------===//
//
// The shipped sample kernels (examples/) run on the host and match C++
// references.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtils.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace tile;
using namespace tile::testing;

namespace {

TEST(KernelSamples, RMSNormF16) {
  auto file = llvm::MemoryBuffer::getFile(TILE_SOURCE_DIR "/examples/rmsnorm.mlir");
  ASSERT_TRUE(static_cast<bool>(file)) << "examples/rmsnorm.mlir not found";
  HostRunner r = compileOrDie((*file)->getBuffer());
  const int rows = 3, cols = 4096;
  std::vector<float> xf = randomFloats(rows * cols, -2, 2, 21);
  std::vector<float> wf = randomFloats(cols, 0.5, 1.5, 22);
  std::vector<uint16_t> x(rows * cols), w(cols), y(rows * cols, kPoison16);
  for (int i = 0; i < rows * cols; ++i) x[i] = toHalf(xf[i]);
  for (int i = 0; i < cols; ++i) w[i] = toHalf(wf[i]);
  float eps = 1e-6f;
  runOrFail(r, "rmsnorm_f16",
            {HostArg::view(x.data(), {rows, cols}), HostArg::view(w.data(), {cols}),
             HostArg::view(y.data(), {rows, cols}), HostArg::f32(eps)},
            {rows, 1, 1});
  expectRMSNormF16(x, w, y, rows, cols, eps);
}

} // namespace
