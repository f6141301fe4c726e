//===- KernelTableTest.cpp - every supported shape has its kernels --------===//
//
// The kernel table against the compiled kernel set: every real Qwen3 config
// (test/fixtures/configs: the six dense sizes, the 2507 releases, and
// Qwen3-architecture variants with GQA groups 1, 3, 6 and 16 and head dim
// 64) resolves every kernel the engine launches in the build's set, through
// the engine's own lookup; a shape outside the family is refused naming its
// field.
//
//===----------------------------------------------------------------------===//

#include "EngineKernels.h"
#include "Qwen3TestUtils.h"
#include "qwen3/KernelTable.h"

#include <gtest/gtest.h>

#include <set>

using namespace qwen3;

namespace {

const char *const kConfigs[] = {
    "qwen3-0.6b",  "qwen3-1.7b",          "qwen3-4b",
    "qwen3-8b",    "qwen3-14b",           "qwen3-32b",
    "qwen3-4b-instruct-2507", "qwen3-4b-thinking-2507", "group1-1.7b",
    "group3",      "group6",              "group16",
    "head-dim-64"};

ModelConfig config(const std::string &name) {
  std::string text, path = test::fixturesDir() + "/configs/" + name + ".json";
  ModelConfig c;
  Status st = qwen3::readFile(path, text);
  EXPECT_TRUE(st.isOk()) << st.message();
  st = ModelConfig::parse(text, path, c);
  EXPECT_TRUE(st.isOk()) << st.message();
  return c;
}

struct LoadedSet {
  std::unique_ptr<tile_runtime::Device> device;
  tile_runtime::Module module;
  std::string manifest;
};

/// The build's kernel set of `dt` on the CPU device.
void openSet(KernelDType dt, LoadedSet &set) {
  ASSERT_TRUE(tile_runtime::Device::open("cpu", set.device).isOk());
  set.manifest = test::kernelsDir() + "/qwen3_" + kernelDTypeName(dt) + ".json";
  Status st = set.device->loadModule(set.manifest, set.module);
  ASSERT_TRUE(st.isOk()) << st.message();
}

class KernelTableDtype : public ::testing::TestWithParam<KernelDType> {};

} // namespace

namespace qwen3 {
// What ctest lists as the parameter (found by argument-dependent lookup).
void PrintTo(KernelDType dt, std::ostream *os) { *os << kernelDTypeName(dt); }
} // namespace qwen3

namespace {

} // namespace

TEST(KernelTable, InstanceNamesAreTilecs) {
  KernelInstance k{"gemv_residual_kv", {{"HD", 128}, {"WHOLE", 1}, {"U", 4}, {"MP", 8}}};
  EXPECT_EQ(k.name(), "gemv_residual_kv__HD_128__WHOLE_1__U_4__MP_8");
  EXPECT_EQ(k.spec(), "gemv_residual_kv<HD=128,WHOLE=1,U=4,MP=8>");
  const KernelInstance plain{"gemm", {}};
  EXPECT_EQ(plain.name(), "gemm");
}

TEST(KernelTable, EveryGroupAndHeadDimHasEveryAttentionTier) {
  for (int64_t hd : SupportedShapes::headDims)
    for (int64_t g = SupportedShapes::minGroup; g <= SupportedShapes::maxGroup; ++g) {
      std::set<std::pair<bool, int64_t>> tiers;
      for (const kernels::AttentionTier &t : kernels::decodeAttentionTiers(g, hd))
        tiers.insert({t.grouped, t.splits});
      EXPECT_EQ(tiers, (std::set<std::pair<bool, int64_t>>{
                           {false, 8}, {false, 16}, {false, 32}, {true, 16}, {true, 32},
                           {true, 48}}))
          << "group " << g << ", head dim " << hd;
    }
}

TEST_P(KernelTableDtype, TheBuildCompiledExactlyTheTable) {
  LoadedSet set;
  ASSERT_NO_FATAL_FAILURE(openSet(GetParam(), set));
  const std::vector<std::string> built = set.module.kernelNames();
  const std::set<std::string> have(built.begin(), built.end());
  const KernelSet table = kernelSet(GetParam());
  std::set<std::string> names;
  for (const KernelInstance &k : table.instances) {
    EXPECT_TRUE(names.insert(k.name()).second) << "listed twice: " << k.name();
    EXPECT_TRUE(have.count(k.name())) << "not built: " << k.name();
  }
}

TEST_P(KernelTableDtype, EveryRealConfigFindsEveryKernelItLaunches) {
  LoadedSet set;
  ASSERT_NO_FATAL_FAILURE(openSet(GetParam(), set));
  for (const char *name : kConfigs) {
    SCOPED_TRACE(name);
    const ModelConfig c = config(name);
    Status st = checkSupportedShapes(c, name);
    EXPECT_TRUE(st.isOk()) << st.message();
    EngineKernels k;
    st = k.load(set.module, set.manifest, c, GetParam(), /*fp8=*/true);
    EXPECT_TRUE(st.isOk()) << st.message();
    EXPECT_EQ(k.tiers.size(), 6u);
    // The FP8 GEMVs the decode step launches, at the config's K and N (the
    // kernel table's U and form for each).
    const int64_t nq = c.heads * c.headDim, nqkv = nq + 2 * c.kvHeads * c.headDim;
    EXPECT_NO_THROW(k.gemvRmsFp8.pick(c.hidden, nqkv));
    EXPECT_NO_THROW(k.gemvSwigluFp8.pick(c.hidden, c.intermediate));
    EXPECT_NO_THROW(k.gemvResidualKvFp8.pick(nq, c.hidden));
    EXPECT_NO_THROW(k.gemvResidualFp8.pick(c.intermediate, c.hidden));
    EXPECT_EQ(k.kPreAttn.name(), kernels::prefillAttention(c.heads / c.kvHeads, c.headDim).name());
  }
}

INSTANTIATE_TEST_SUITE_P(Set, KernelTableDtype,
                         ::testing::Values(KernelDType::BF16, KernelDType::F16),
                         [](const auto &info) { return std::string(kernelDTypeName(info.param)); });

TEST(KernelTable, ShapesOutsideTheFamilyNameTheirField) {
  const ModelConfig base = config("qwen3-8b");
  struct Case {
    void (*change)(ModelConfig &);
    const char *message;
  } cases[] = {
      {[](ModelConfig &c) { c.headDim = 96; },
       "config.json: head_dim 96 is not supported (64 or 128)"},
      {[](ModelConfig &c) { c.heads = 34 * 4, c.kvHeads = 4; },
       "config.json: num_attention_heads 136 over num_key_value_heads 4 is not supported (a "
       "whole group of 1 to 16 query heads per KV head)"},
      {[](ModelConfig &c) { c.hidden = 4000; },
       "config.json: hidden_size 4000 is not supported (a multiple of 128 up to 8192)"},
      {[](ModelConfig &c) { c.hidden = 8320; },
       "config.json: hidden_size 8320 is not supported (a multiple of 128 up to 8192)"},
      {[](ModelConfig &c) { c.intermediate = 12300; },
       "config.json: intermediate_size 12300 is not supported (a multiple of 128)"},
      {[](ModelConfig &c) { c.layers = 128; },
       "config.json: num_hidden_layers 128 is not supported (up to 127)"},
      {[](ModelConfig &c) { c.vocabSize = 262145; },
       "config.json: vocab_size 262145 is not supported (up to 262144)"},
  };
  for (const Case &k : cases) {
    ModelConfig c = base;
    k.change(c);
    Status st = checkSupportedShapes(c, "config.json");
    EXPECT_FALSE(st.isOk());
    EXPECT_EQ(st.message(), k.message);
  }
}
