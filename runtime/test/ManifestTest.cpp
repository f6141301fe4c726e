//===- ManifestTest.cpp - loading what tilec wrote, and refusing the rest --===//

#include "RuntimeTestUtils.h"

#include "tile/runtime/Sha256.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace tile_runtime;
using namespace tile_runtime::test;
namespace fs = std::filesystem;

namespace {

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first padding block.
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/// A private copy of the test kernels' manifest and artifacts, to corrupt.
class ManifestCopy : public ::testing::Test {
protected:
  void SetUp() override {
    fs::path src = kernelsManifest();
    dir = fs::temp_directory_path() /
          ("tile-manifest-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char *ext : {".json", ".so", ".cubin"})
      if (fs::exists(src.parent_path() / (src.stem().string() + ext)))
        fs::copy_file(src.parent_path() / (src.stem().string() + ext),
                      dir / (src.stem().string() + ext));
    manifest = (dir / src.filename()).string();
    std::ifstream in(manifest);
    doc = nlohmann::json::parse(in);
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const nlohmann::json &j) { std::ofstream(manifest) << j.dump(1); }
  Status load() {
    std::unique_ptr<Device> cpu;
    Status s = Device::open("cpu", cpu);
    if (!s)
      return s;
    Module m;
    return cpu->loadModule(manifest, m);
  }
  fs::path dir;
  std::string manifest;
  nlohmann::json doc;
};

TEST_F(ManifestCopy, TheUntouchedCopyLoads) { ASSERT_OK(load()); }

TEST_F(ManifestCopy, ReadsGridDependencyWait) {
  // Absent (tilec leaves it out for chips before sm_90): false; present:
  // as written.
  std::string name = doc["kernels"][0]["name"];
  doc["kernels"][0].erase("grid_dependency_wait");
  write(doc);
  Manifest m;
  ASSERT_OK(Manifest::load(manifest, m));
  EXPECT_FALSE(m.kernels[0].gridDependencyWait);
  doc["kernels"][0]["grid_dependency_wait"] = true;
  write(doc);
  ASSERT_OK(Manifest::load(manifest, m));
  EXPECT_EQ(m.kernels[0].name, name);
  EXPECT_TRUE(m.kernels[0].gridDependencyWait);
}

TEST_F(ManifestCopy, ReadsGridSync) {
  // tilec marks the kernels with grid barriers, and only those.
  Manifest m;
  ASSERT_OK(load());
  ASSERT_OK(Manifest::load(manifest, m));
  for (const ManifestKernel &k : m.kernels)
    EXPECT_EQ(k.gridSync, k.name == "grid_sync_rotate" || k.name == "barrier_phases_1" ||
                              k.name == "barrier_phases_9")
        << k.name;
}

/// The index of kernel `name` in the manifest's JSON.
static size_t kernelIndex(const nlohmann::json &doc, const char *name) {
  for (size_t i = 0; i < doc["kernels"].size(); ++i)
    if (doc["kernels"][i]["name"] == name)
      return i;
  ADD_FAILURE() << "no kernel " << name;
  return 0;
}

TEST_F(ManifestCopy, ReadsTensorMapsAndSharedMemory) {
  // tilec describes the sm_90a matmul's TMA descriptors and shared memory.
  Manifest m;
  ASSERT_OK(Manifest::load(manifest, m));
  const ManifestKernel &k = m.kernels[kernelIndex(doc, "matmul_f16")];
  ASSERT_EQ(k.tensorMaps.size(), 2u);
  EXPECT_EQ(k.tensorMaps[0].argument, 0);
  EXPECT_EQ(k.tensorMaps[0].box, (std::array<int, 2>{64, 128}));
  EXPECT_EQ(k.tensorMaps[1].argument, 1);
  EXPECT_EQ(k.tensorMaps[1].box, (std::array<int, 2>{64, 256}));
  EXPECT_EQ(k.dynamicSharedBytes, 4 * (128 + 256) * 64 * 2 + 4 * 16);
  EXPECT_EQ(k.numWarps, 12);
  const ManifestKernel &plain = m.kernels[kernelIndex(doc, "scale_rows")];
  EXPECT_TRUE(plain.tensorMaps.empty());
  EXPECT_EQ(plain.dynamicSharedBytes, 0);
}

TEST_F(ManifestCopy, RejectsBadTensorMaps) {
  size_t i = kernelIndex(doc, "matmul_f16");
  auto expectField = [&](auto edit, const char *part) {
    nlohmann::json j = doc;
    edit(j["kernels"][i]);
    write(j);
    expectError(load(), {manifest.c_str(), "matmul_f16", part});
  };
  expectField([](auto &k) { k["tensor_maps"] = 3; },
              "'tensor_maps' must be an array");
  expectField([](auto &k) { k["tensor_maps"][0]["argument"] = 7; },
              "'argument' = 7 is outside [0, 2]");
  expectField([](auto &k) { k["tensor_maps"][0]["argument"] = 2; },
              "parameter 'y' is not a 2-D read-only view");
  expectField([](auto &k) { k["tensor_maps"][1]["box"] = {64}; },
              "'box' must be [columns, rows]");
  expectField([](auto &k) { k["tensor_maps"][1]["box"] = {64, 0}; },
              "extents must be integers in [1, 256]");
  expectField([](auto &k) { k["tensor_maps"][1]["box"] = {4, 64}; },
              "a box row of 4 elements is not a multiple of 16 bytes");
  expectField([](auto &k) { k["dynamic_shared_bytes"] = 1 << 20; },
              "'dynamic_shared_bytes' = 1048576 is outside");
}

TEST_F(ManifestCopy, RejectsAnotherVersion) {
  doc["tile_manifest_version"] = 2;
  write(doc);
  expectError(load(), {"manifest version 2 is not supported"});
}

TEST_F(ManifestCopy, RejectsAnArtifactThatChanged) {
  fs::path so = dir / (fs::path(manifest).stem().string() + ".so");
  {
    std::fstream f(so, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x55');
  }
  expectError(load(), {"SHA-256", "does not match the manifest"});
}

TEST_F(ManifestCopy, RejectsAManifestWithoutThisDevicesArtifact) {
  nlohmann::json kept = nlohmann::json::array();
  for (auto &a : doc["artifacts"])
    if (a["kind"] != "host-so")
      kept.push_back(a);
  doc["artifacts"] = kept;
  write(doc);
  expectError(load(), {"no host-so artifact for this device"});
}

TEST_F(ManifestCopy, RejectsAKernelMissingFromTheArtifact) {
  doc["kernels"][0]["name"] = "ghost";
  doc["kernels"][0]["launch_contract"]["kernel"] = "ghost";
  write(doc);
  expectError(load(), {"kernel ghost of the manifest is not in"});
}

TEST_F(ManifestCopy, RejectsBadFields) {
  auto expectField = [&](nlohmann::json j, const char *part) {
    write(j);
    expectError(load(), {manifest.c_str(), part});
  };
  {
    auto j = doc;
    j["kernels"][0]["cache_key"] = "xyz";
    expectField(j, "'cache_key' must be 64 hex digits");
  }
  {
    auto j = doc;
    j["kernels"][0]["num_warps"] = 0;
    expectField(j, "'num_warps' = 0 is outside [1, 32]");
  }
  {
    auto j = doc;
    j["kernels"][0]["grid_dependency_wait"] = "yes";
    expectField(j, "'grid_dependency_wait' must be true or false");
  }
  {
    auto j = doc;
    j["kernels"][0]["grid_sync"] = 1;
    expectField(j, "'grid_sync' must be true or false");
  }
  {
    auto j = doc;
    j["kernels"][1]["launch_contract"]["kernel"] = "other";
    expectField(j, "the launch contract is for kernel 'other'");
  }
  {
    auto j = doc;
    j["artifacts"][0]["file"] = "../etc/passwd";
    expectField(j, "'file' must name a file beside the manifest");
  }
  {
    auto j = doc;
    j["kernels"].push_back(j["kernels"][0]);
    expectField(j, "is listed twice");
  }
}

TEST_F(ManifestCopy, EveryTruncationFailsCleanly) {
  std::string text = doc.dump();
  for (size_t n = 0; n < text.size(); n += 7) {
    std::ofstream(manifest) << text.substr(0, n);
    Status s = load();
    ASSERT_FALSE(s.isOk()) << "a manifest cut at " << n << " bytes loaded";
  }
}

TEST(DeviceOpen, BadSpecs) {
  std::unique_ptr<Device> d;
  expectError(Device::open("gpu", d), {"unknown device 'gpu'"});
  expectError(Device::open("cuda:x", d), {"expected cuda:N"});
}

TEST(DeviceOpen, WithoutADriverTheErrorSaysSo) {
  std::unique_ptr<Device> d;
  Status s = Device::open("cuda", d);
  if (s.isOk())
    GTEST_SKIP() << "a CUDA device is present: " << d->name();
  // No libcuda, or a driver without a GPU: either is named.
  EXPECT_TRUE(s.message().find("no CUDA driver") != std::string::npos ||
              s.message().find("cuInit") != std::string::npos)
      << s.message();
}

} // namespace
