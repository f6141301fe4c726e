//===- RuntimeTestUtils.h - shared by the CPU and GPU runtime tests -*- C++ -*-===//

#ifndef TILE_RUNTIME_TEST_RUNTIMETESTUTILS_H
#define TILE_RUNTIME_TEST_RUNTIMETESTUTILS_H

#include "TestNumerics.h"
#include "tile/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tile_runtime::test {

/// The manifest of runtime/test/kernels.tile, built by tilec (--with-host);
/// TILE_RUNTIME_TEST_KERNELS overrides it (a GPU machine runs the tests on
/// artifacts compiled elsewhere).
inline std::string kernelsManifest() {
  if (const char *env = std::getenv("TILE_RUNTIME_TEST_KERNELS"))
    return env;
  return TILE_RUNTIME_TEST_KERNELS;
}

#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    ::tile_runtime::Status s_ = (expr);                                        \
    ASSERT_TRUE(s_.isOk()) << #expr << ": " << s_.message();                   \
  } while (0)

#define EXPECT_OK(expr)                                                        \
  do {                                                                         \
    ::tile_runtime::Status s_ = (expr);                                        \
    EXPECT_TRUE(s_.isOk()) << #expr << ": " << s_.message();                   \
  } while (0)

using tile::testing::isPoison;
using tile::testing::poisoned32;
using tile::testing::randomFloats;

/// Expects `status` to be an error containing every one of `parts`.
inline void expectError(const Status &status,
                        std::initializer_list<const char *> parts) {
  ASSERT_FALSE(status.isOk()) << "expected an error";
  for (const char *p : parts)
    EXPECT_NE(status.message().find(p), std::string::npos)
        << "'" << p << "' not in: " << status.message();
}

/// A device, the test kernels loaded on it, and its default stream.
struct Loaded {
  std::unique_ptr<Device> device;
  Module module;
  Status open(const char *spec) {
    if (Status s = Device::open(spec, device); !s)
      return s;
    return device->loadModule(kernelsManifest(), module);
  }
  Kernel kernel(const char *name) {
    Kernel k;
    Status s = module.kernel(name, k);
    EXPECT_TRUE(s.isOk()) << s.message();
    return k;
  }
  Stream &stream() { return device->defaultStream(); }
  Buffer upload(const std::vector<float> &v) {
    Buffer b;
    Status s = device->allocate(DType::F32, static_cast<int64_t>(v.size()), b);
    EXPECT_TRUE(s.isOk()) << s.message();
    s = stream().copyToDevice(b, v.data(), v.size() * 4);
    EXPECT_TRUE(s.isOk()) << s.message();
    return b;
  }
  std::vector<float> download(const Buffer &b) {
    std::vector<float> v(static_cast<size_t>(b.count()));
    Status s = stream().copyToHost(v.data(), b, v.size() * 4);
    EXPECT_TRUE(s.isOk()) << s.message();
    s = stream().synchronize();
    EXPECT_TRUE(s.isOk()) << s.message();
    return v;
  }
};

} // namespace tile_runtime::test

#endif // TILE_RUNTIME_TEST_RUNTIMETESTUTILS_H
