//===- HostSharedObjectTest.cpp - AOT host code runs without LLVM ----------===//
//
// tile-translate --emit=host-so compiles the RMSNorm sample; this test loads
// it with dlopen and calls its C entry point directly, the way the runtime's
// CPU device will: no LLVM or MLIR in this process.
//
//===----------------------------------------------------------------------===//

#include "../Common/TestNumerics.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

using namespace tile::testing;

namespace {

/// MLIR's C interface for a rank-R memref.
template <int R> struct MemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[R];
  int64_t strides[R];
};

template <int R>
MemRef<R> memref(void *data, const int64_t (&sizes)[R],
                 const int64_t (&strides)[R]) {
  MemRef<R> m{data, data, 0, {}, {}};
  for (int i = 0; i < R; ++i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = strides[i];
  }
  return m;
}

using RMSNormEntry = void (*)(MemRef<2> *, MemRef<1> *, MemRef<2> *, float,
                              int64_t, int64_t, int64_t);

TEST(HostSharedObject, RMSNormRunsThroughDlopen) {
  std::string so = "/tmp/tile-host-so-test-" + std::to_string(getpid()) + ".so";
  std::string command = std::string(TILE_TOOLS_DIR) + "/tile-translate " +
                        TILE_SOURCE_DIR + "/examples/rmsnorm.mlir " +
                        "--emit=host-so --no-cache -o " + so;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto entry = reinterpret_cast<RMSNormEntry>(
      dlsym(handle, "_mlir_ciface_rmsnorm_f16_grid"));
  ASSERT_NE(entry, nullptr) << dlerror();

  const int rows = 4, cols = 4096;
  std::vector<float> xf = randomFloats(rows * cols, -2, 2, 31);
  std::vector<float> wf = randomFloats(cols, 0.5, 1.5, 32);
  std::vector<uint16_t> x(rows * cols), w(cols), y(rows * cols, kPoison16);
  for (int i = 0; i < rows * cols; ++i) x[i] = toHalf(xf[i]);
  for (int i = 0; i < cols; ++i) w[i] = toHalf(wf[i]);
  MemRef<2> mx = memref<2>(x.data(), {rows, cols}, {cols, 1});
  MemRef<1> mw = memref<1>(w.data(), {cols}, {1});
  MemRef<2> my = memref<2>(y.data(), {rows, cols}, {cols, 1});
  float eps = 1e-6f;
  entry(&mx, &mw, &my, eps, rows, 1, 1);

  expectRMSNormF16(x, w, y, rows, cols, eps);
  dlclose(handle);
  std::remove(so.c_str());
}

} // namespace
