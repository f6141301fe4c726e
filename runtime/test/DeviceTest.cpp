//===- DeviceTest.cpp - the runtime API on one device ---------------------===//
//
// Compiled twice: for the CPU device (TileRuntimeTests, in scripts/test.sh)
// and for the CUDA device (TileRuntimeGpuTests, label gpu,
// scripts/gpu-test.sh). Every launch-contract rule is tested satisfied and
// violated; a violation must leave the poisoned output untouched.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "tile/runtime/Half.h"

#include <cmath>

using namespace tile_runtime;
using namespace tile_runtime::test;

namespace {

class DeviceTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_OK(rt.open(TILE_TEST_DEVICE)); }
  Loaded rt;
};

TEST_F(DeviceTest, ScaleRowsMatchesTheReference) {
  const int rows = 37; // odd: the last program's block is partial
  auto x = randomFloats(rows * 256, -3, 3, 1);
  Buffer bx = rt.upload(x);
  Buffer by = rt.upload(poisoned32(rows * 256));
  ASSERT_OK(rt.stream().launch(rt.kernel("scale_rows"),
                               {Arg::in(bx, {rows, 256}),
                                Arg::out(by, {rows, 256}), Arg::real(0.75)}));
  std::vector<float> y = rt.download(by);
  for (int i = 0; i < rows * 256; ++i) {
    ASSERT_FALSE(isPoison(y[i])) << "element " << i << " was not written";
    double want = double(x[i]) * 0.75;
    ASSERT_LE(std::abs(y[i] - want), 1e-6 * std::abs(want)) << i;
  }
}

TEST_F(DeviceTest, AtomicAddsOfAllProgramsLand) {
  const int rows = 301; // programs on every SM, several per slot
  auto x = randomFloats(rows * 256, -2, 2, 7);
  // Start from non-zero sums: the adds accumulate onto what is there.
  std::vector<float> init = {1.5f, -2.0f, 0.25f};
  Buffer bx = rt.upload(x);
  Buffer bs = rt.upload(init);
  ASSERT_OK(rt.stream().launch(rt.kernel("row_sumsq"),
                               {Arg::in(bx, {rows, 256}), Arg::add(bs, {3})}));
  std::vector<float> got = rt.download(bs);
  double want[3] = {init[0], init[1], init[2]};
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < 256; ++i)
      want[r % 3] += double(x[r * 256 + i]) * x[r * 256 + i];
  for (int s = 0; s < 3; ++s)
    EXPECT_LE(std::abs(got[s] - want[s]), 1e-5 * std::abs(want[s])) << "slot " << s;
  // An add-only tensor is written: passing it shared is refused, and so is
  // one that aliases an input.
  expectError(rt.stream().launch(rt.kernel("row_sumsq"),
                                 {Arg::in(bx, {rows, 256}), Arg::in(bs, {3})}),
              {"argument ss (#1)", "is add", "pass it exclusively"});
  expectError(rt.stream().launch(rt.kernel("row_sumsq"),
                                 {Arg::in(bx, {rows, 256}), Arg::add(bx, {3}, {}, 4)}),
              {"argument ss (#1)", "overlaps", "argument x (#0)"});
}

TEST_F(DeviceTest, JoinMergesEachGroupOnceItsSharesAreStored) {
  const int rows = 301, S = 16; // thousands of programs racing for tickets
  Buffer bt;
  ASSERT_OK(rt.device->allocate(DType::I32, rows, bt));
  std::vector<int32_t> zeros(rows, 0);
  ASSERT_OK(rt.stream().copyToDevice(bt, zeros.data(), rows * 4));
  Buffer bp = rt.upload(poisoned32(rows * S));
  // Three launches on new data: each must find the counters back at 0.
  for (uint32_t round = 0; round < 3; ++round) {
    auto x = randomFloats(rows * S * 256, 0.5, 2, 40 + round);
    Buffer bx = rt.upload(x);
    Buffer by = rt.upload(poisoned32(rows));
    ASSERT_OK(rt.stream().launch(rt.kernel("share_sum"),
                                 {Arg::in(bx, {rows, S, 256}), Arg::inout(bp, {rows, S}),
                                  Arg::out(by, {rows}), Arg::ticket(bt, {rows})}));
    std::vector<float> y = rt.download(by);
    for (int g = 0; g < rows; ++g) {
      ASSERT_FALSE(isPoison(y[g])) << "row " << g << " was not merged (round " << round << ")";
      double want = 0;
      for (int i = 0; i < S * 256; ++i)
        want += x[static_cast<size_t>(g) * S * 256 + i];
      ASSERT_LE(std::abs(y[g] - want), 1e-5 * want) << "row " << g << ", round " << round;
    }
    std::vector<int32_t> t(rows, -1);
    ASSERT_OK(rt.stream().copyToHost(t.data(), bt, rows * 4));
    ASSERT_OK(rt.stream().synchronize());
    for (int g = 0; g < rows; ++g)
      ASSERT_EQ(t[g], 0) << "counter " << g << " after round " << round;
  }
  // Fewer counters than rows is refused before anything runs, and the
  // counters are written: passing them shared is refused too.
  Buffer bx = rt.upload(randomFloats(rows * S * 256, 0.5, 2, 9));
  Buffer by = rt.upload(poisoned32(rows));
  expectError(rt.stream().launch(rt.kernel("share_sum"),
                                 {Arg::in(bx, {rows, S, 256}), Arg::inout(bp, {rows, S}),
                                  Arg::out(by, {rows}), Arg::ticket(bt, {rows - 1})}),
              {"a counter per row"});
  expectError(rt.stream().launch(rt.kernel("share_sum"),
                                 {Arg::in(bx, {rows, S, 256}), Arg::inout(bp, {rows, S}),
                                  Arg::out(by, {rows}), Arg::in(bt, {rows})}),
              {"argument tickets (#3)", "is ticket", "pass it exclusively"});
  std::vector<float> y = rt.download(by);
  for (int g = 0; g < rows; ++g)
    ASSERT_TRUE(isPoison(y[g])) << "a refused launch wrote row " << g;
}

// Grid barriers: every row of y comes from rows two other programs stored
// in earlier phases; three launches (the counter back at 0 after each),
// the last one replayed from a graph.
TEST_F(DeviceTest, GridBarriersOrderThePhasesOfOneLaunch) {
  const int rows = 97;
  Buffer bt;
  ASSERT_OK(rt.device->allocate(DType::I32, 1, bt));
  const int32_t zero = 0;
  ASSERT_OK(rt.stream().copyToDevice(bt, &zero, 4));
  Buffer ba = rt.upload(poisoned32(rows * 64)), bb = rt.upload(poisoned32(rows * 64));
  for (uint32_t round = 0; round < 3; ++round) {
    auto x = randomFloats(rows * 64, -2, 2, 60 + round);
    Buffer bx = rt.upload(x);
    Buffer by = rt.upload(poisoned32(rows * 64));
    std::vector<Arg> args = {Arg::in(bx, {rows, 64}), Arg::inout(ba, {rows, 64}),
                             Arg::inout(bb, {rows, 64}), Arg::out(by, {rows, 64}),
                             Arg::ticket(bt, {1})};
    if (round < 2) {
      ASSERT_OK(rt.stream().launch(rt.kernel("grid_sync_rotate"), args.data(), args.size()));
    } else {
      Graph g;
      ASSERT_OK(rt.stream().beginCapture());
      ASSERT_OK(rt.stream().launch(rt.kernel("grid_sync_rotate"), args.data(), args.size()));
      ASSERT_OK(rt.stream().endCapture(g));
      ASSERT_OK(g.replay(rt.stream()));
    }
    std::vector<float> y = rt.download(by);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < 64; ++c) {
        const float got = y[r * 64 + c];
        ASSERT_FALSE(isPoison(got)) << "y[" << r << ", " << c << "], round " << round;
        const double want = (2.0 * x[((r + 2) % rows) * 64 + c] + 1.0) * 3.0;
        ASSERT_LE(std::abs(got - want), 1e-5 * (std::abs(want) + 1))
            << "y[" << r << ", " << c << "], round " << round;
      }
    int32_t t = -1;
    ASSERT_OK(rt.stream().copyToHost(&t, bt, 4));
    ASSERT_OK(rt.stream().synchronize());
    ASSERT_EQ(t, 0) << "the counter after round " << round;
  }
}

// A grid larger than the device holds at once would spin forever at its
// first barrier: CUDA refuses the cooperative launch, naming the kernel and
// its program count, and nothing runs. The CPU runs the phases in turn, so
// any grid fits there.
TEST_F(DeviceTest, GridBarriersNeedEveryProgramResident) {
  const int rows = 5000; // more than an H100's or H200's 132 SMs hold
  Buffer bt;
  ASSERT_OK(rt.device->allocate(DType::I32, 1, bt));
  const int32_t zero = 0;
  ASSERT_OK(rt.stream().copyToDevice(bt, &zero, 4));
  Buffer bx = rt.upload(randomFloats(rows * 64, -2, 2, 70));
  Buffer ba = rt.upload(poisoned32(rows * 64)), bb = rt.upload(poisoned32(rows * 64));
  Buffer by = rt.upload(poisoned32(rows * 64));
  std::vector<Arg> args = {Arg::in(bx, {rows, 64}), Arg::inout(ba, {rows, 64}),
                           Arg::inout(bb, {rows, 64}), Arg::out(by, {rows, 64}),
                           Arg::ticket(bt, {1})};
  Status st = rt.stream().launch(rt.kernel("grid_sync_rotate"), args.data(), args.size());
  std::vector<float> y = rt.download(by);
  if (std::string(TILE_TEST_DEVICE) == "cpu") {
    ASSERT_OK(st);
    for (int i = 0; i < rows * 64; ++i)
      ASSERT_FALSE(isPoison(y[i])) << "element " << i;
    return;
  }
  expectError(st, {"grid_sync_rotate", "all 5000 programs resident at once"});
  for (int i = 0; i < rows * 64; ++i)
    ASSERT_TRUE(isPoison(y[i])) << "a refused launch wrote element " << i;
}

TEST_F(DeviceTest, FrozenInputsNeedAFrozenBuffer) {
  const int rows = 45;
  auto x = randomFloats(rows * 256, -2, 2, 11);
  auto w = randomFloats(256, 0.5, 1.5, 12);
  Buffer bx = rt.upload(x), bw = rt.upload(w);
  Buffer by = rt.upload(poisoned32(rows * 256));
  Kernel k = rt.kernel("scale_frozen");
  // Not frozen yet: refused, nothing written.
  expectError(rt.stream().launch(k, {Arg::in(bx, {rows, 256}), Arg::in(bw, {256}),
                                     Arg::out(by, {rows, 256})}),
              {"argument w (#1)", "is frozen", "Stream::freeze"});
  for (float v : rt.download(by))
    ASSERT_TRUE(isPoison(v));
  EXPECT_FALSE(bw.frozen());
  ASSERT_OK(rt.stream().freeze(bw));
  EXPECT_TRUE(bw.frozen());
  // Twice in a row (graph + programmatic launch on a GPU): each reads w.
  for (int rep = 0; rep < 2; ++rep)
    ASSERT_OK(rt.stream().launch(k, {Arg::in(bx, {rows, 256}), Arg::in(bw, {256}),
                                     Arg::out(by, {rows, 256})}));
  std::vector<float> y = rt.download(by);
  for (int i = 0; i < rows * 256; ++i) {
    ASSERT_FALSE(isPoison(y[i])) << "element " << i << " was not written";
    double want = double(x[i]) * w[i % 256];
    ASSERT_LE(std::abs(y[i] - want), 1e-6 * std::abs(want)) << i;
  }
  // A frozen buffer is never written again: by a kernel, a copy or a fill.
  expectError(rt.stream().launch(rt.kernel("add_one"), {Arg::inout(bw, {256})}),
              {"argument x (#0)", "the kernel writes it, but the buffer is frozen"});
  float host[4] = {};
  expectError(rt.stream().copyToDevice(bw, host, sizeof host), {"copyToDevice", "frozen"});
  expectError(rt.stream().copy(bw, bx, 256 * 4), {"copy", "frozen"});
  expectError(rt.stream().fill(bw, 0), {"fill", "frozen"});
  // Reading it as a plain input is fine, and so is reading from it.
  ASSERT_OK(rt.stream().launch(rt.kernel("scale_rows"),
                               {Arg::in(bw, {1, 256}), Arg::out(by, {1, 256}),
                                Arg::real(2.0)}));
  std::vector<float> back(256);
  ASSERT_OK(rt.stream().copyToHost(back.data(), bw, 256 * 4));
  ASSERT_OK(rt.stream().synchronize());
  EXPECT_EQ(back, w);
  // Freezing waits for the stream, which a capture cannot.
  Buffer other = rt.upload(w);
  ASSERT_OK(rt.stream().beginCapture());
  expectError(rt.stream().freeze(other), {"freeze", "capturing"});
  Graph g;
  ASSERT_OK(rt.stream().endCapture(g));
}

// A settled view is read before the kernel's grid wait, so a kernel that
// reads one must not overlap a launch that writes it: queued right behind
// the writer, the stream launches it with a full dependency. (On a GPU,
// launched as a programmatic dependent, it would copy the poison: the
// writer's single program spends its time in a loop before its store.)
TEST_F(DeviceTest, SettledInputWaitsForAWriterInItsChain) {
  const int64_t n = 4 * 256;
  Buffer x = rt.upload(poisoned32(n));
  Buffer y = rt.upload(poisoned32(n));
  ASSERT_OK(rt.stream().synchronize());
  for (int64_t t = 0; t < n / 256; ++t)
    ASSERT_OK(rt.stream().launch(rt.kernel("slow_write"),
                                 {Arg::out(x, {256}, {1}, t * 256),
                                  Arg::integer(200000), Arg::real(1.5f + t)}));
  ASSERT_OK(rt.stream().launch(rt.kernel("settled_copy"),
                               {Arg::in(x, {n}), Arg::out(y, {n})}));
  std::vector<float> got = rt.download(y);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_FALSE(isPoison(got[i]))
        << "element " << i << " read before it was written";
    ASSERT_EQ(got[i], 2.0f * (1.5f + i / 256)) << i;
  }
  // Read again with no writer in the chain, as a programmatic dependent of
  // a kernel that writes other memory.
  Buffer z = rt.upload(poisoned32(n));
  ASSERT_OK(rt.stream().synchronize());
  ASSERT_OK(rt.stream().launch(rt.kernel("add_one"), {Arg::inout(z, {n})}));
  ASSERT_OK(rt.stream().launch(rt.kernel("settled_copy"),
                               {Arg::in(x, {n}), Arg::out(y, {n})}));
  EXPECT_EQ(rt.download(y), got);
}

// A chained kernel runs chain_fill, chain_reverse and add_one in order in
// one grid: each program of the second part reads a tile another program of
// the first wrote after busy work, so a part that did not wait for the one
// before reads poison. On the GPU the first part has more programs than
// fit at once (the dispatch by ticket is what keeps the waits from
// deadlocking); the CPU device runs the parts one after another. Three
// launches: each must find the counters back at zero.
TEST_F(DeviceTest, ChainedKernelRunsItsPartsInOrder) {
  const bool gpu = std::string(TILE_TEST_DEVICE) == "cuda";
  const int64_t tiles = gpu ? 4096 : 16, n = tiles * 256;
  const int32_t steps = gpu ? 2000 : 40;
  Buffer counters;
  ASSERT_OK(rt.device->allocate(DType::I32, 8, counters));
  std::vector<int32_t> zeros(8, 0);
  ASSERT_OK(rt.stream().copyToDevice(counters, zeros.data(), 8 * 4));
  const Kernel &chain =
      rt.kernel("chain_fill__then__chain_reverse__then__add_one");
  for (int round = 0; round < 3; ++round) {
    const float c = 1.25f + round;
    Buffer x = rt.upload(poisoned32(n));
    Buffer y = rt.upload(poisoned32(n));
    ASSERT_OK(rt.stream().synchronize());
    ASSERT_OK(rt.stream().launch(chain, {Arg::out(x, {n}), Arg::integer(steps),
                                         Arg::real(c), Arg::in(x, {n}),
                                         Arg::out(y, {n}), Arg::inout(y, {n}),
                                         Arg::ticket(counters, {4})}));
    float v = 0;
    for (int32_t i = 0; i < steps; ++i)
      v = v * 0.5f + c;
    std::vector<float> got = rt.download(y);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_FALSE(isPoison(got[i]))
          << "element " << i << " read before it was written";
      float want = (v + static_cast<float>(tiles - 1 - i / 256)) * 2.0f + 1.0f;
      ASSERT_EQ(got[i], want) << "round " << round << ", element " << i;
    }
    std::vector<int32_t> left(8);
    ASSERT_OK(rt.stream().copyToHost(left.data(), counters, 8 * 4));
    ASSERT_OK(rt.stream().synchronize());
    EXPECT_EQ(left, zeros) << "round " << round;
  }
}

TEST_F(DeviceTest, ChainedKernelRejectsWhatItsPartsWouldRace) {
  const int64_t n = 4 * 256;
  Buffer x = rt.upload(poisoned32(n));
  Buffer y = rt.upload(poisoned32(n));
  Buffer counters;
  ASSERT_OK(rt.device->allocate(DType::I32, 8, counters));
  std::vector<int32_t> zeros(8, 0);
  ASSERT_OK(rt.stream().copyToDevice(counters, zeros.data(), 8 * 4));
  // settled_copy reads x before it waits for the part before, which writes x.
  expectError(
      rt.stream().launch(rt.kernel("chain_fill__then__settled_copy"),
                         {Arg::out(x, {n}), Arg::integer(4), Arg::real(1),
                          Arg::in(x, {n}), Arg::out(y, {n}),
                          Arg::ticket(counters, {3})}),
      {"kernel chain_fill__then__settled_copy", "part settled_copy",
       "settled view", "part chain_fill writes"});
  const Kernel &chain =
      rt.kernel("chain_fill__then__chain_reverse__then__add_one");
  // Each part's own contract holds (chain_reverse: x and y of one length).
  expectError(rt.stream().launch(chain, {Arg::out(x, {n}), Arg::integer(4),
                                         Arg::real(1), Arg::in(x, {n - 256}),
                                         Arg::out(y, {n}), Arg::inout(y, {n}),
                                         Arg::ticket(counters, {4})}),
              {"kernel chain_reverse", "x and y have the same length"});
  // Counters: one more than the parts, written, not overlapping the parts.
  expectError(rt.stream().launch(chain, {Arg::out(x, {n}), Arg::integer(4),
                                         Arg::real(1), Arg::in(x, {n}),
                                         Arg::out(y, {n}), Arg::inout(y, {n}),
                                         Arg::ticket(counters, {3})}),
              {"the chain's counters", "at least 4"});
  expectError(rt.stream().launch(chain, {Arg::out(x, {n}), Arg::integer(4),
                                         Arg::real(1), Arg::in(x, {n}),
                                         Arg::out(y, {n}), Arg::inout(y, {n}),
                                         Arg::in(counters, {4})}),
              {"the chain's counters", "Arg::ticket"});
  expectError(rt.stream().launch(chain, {Arg::out(x, {n}), Arg::integer(4),
                                         Arg::real(1), Arg::in(x, {n}),
                                         Arg::out(y, {n}), Arg::inout(y, {n})}),
              {"kernel chain_fill__then__chain_reverse__then__add_one",
               "expects 7 arguments"});
  // An empty part: the chain's waits would count programs that never run.
  expectError(rt.stream().launch(chain, {Arg::out(x, {0}), Arg::integer(4),
                                         Arg::real(1), Arg::in(x, {0}),
                                         Arg::out(y, {0}), Arg::inout(y, {0}),
                                         Arg::ticket(counters, {4})}),
              {"part chain_fill has an empty grid"});
  for (float v : rt.download(y))
    ASSERT_TRUE(isPoison(v)) << "a rejected launch wrote its output";
}

TEST_F(DeviceTest, NoOverlapRuleRejectsAliasedOutput) {
  auto x = randomFloats(8 * 256, 1, 2, 2);
  Buffer b = rt.upload(x);
  Status s = rt.stream().launch(
      rt.kernel("scale_rows"),
      {Arg::in(b, {4, 256}), Arg::out(b, {4, 256}, {}, 4 * 256 - 256),
       Arg::real(2)});
  expectError(s, {"kernel scale_rows", "argument y (#1)", "overlaps",
                  "argument x (#0)"});
  // Disjoint halves of one buffer are fine.
  ASSERT_OK(rt.stream().launch(
      rt.kernel("scale_rows"),
      {Arg::in(b, {4, 256}), Arg::out(b, {4, 256}, {}, 4 * 256),
       Arg::real(2)}));
  std::vector<float> after = rt.download(b);
  for (int i = 0; i < 4 * 256; ++i) {
    EXPECT_EQ(after[i], x[i]);
    EXPECT_EQ(after[4 * 256 + i], x[i] * 2);
  }
}

TEST_F(DeviceTest, AssumeRuleRejectsMismatchedRows) {
  Buffer bx = rt.upload(randomFloats(4 * 256, 1, 2, 3));
  Buffer by = rt.upload(poisoned32(6 * 256));
  expectError(rt.stream().launch(rt.kernel("scale_rows"),
                                 {Arg::in(bx, {4, 256}), Arg::out(by, {6, 256}),
                                  Arg::real(1)}),
              {"kernel scale_rows", "launch contract violated",
               "x and y have the same rows"});
  for (float v : rt.download(by))
    ASSERT_TRUE(isPoison(v)) << "a rejected launch wrote its output";
}

TEST_F(DeviceTest, NonSelfOverlappingRuleOnDynamicStrides) {
  const int n = 32;
  auto x = randomFloats(n * n, 1, 2, 4);
  Buffer bx = rt.upload(x);
  Buffer by = rt.upload(poisoned32(n * n));
  // Strides (1, 1) map distinct indices to one element.
  expectError(rt.stream().launch(rt.kernel("copy_strided"),
                                 {Arg::in(bx, {n, n}),
                                  Arg::out(by, {n, n}, {1, 1})}),
              {"argument y (#1)", "overlaps itself"});
  for (float v : rt.download(by))
    ASSERT_TRUE(isPoison(v));
  // Column-major is a valid layout: y holds x transposed in memory.
  ASSERT_OK(rt.stream().launch(rt.kernel("copy_strided"),
                               {Arg::in(bx, {n, n}),
                                Arg::out(by, {n, n}, {1, n})}));
  std::vector<float> y = rt.download(by);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(y[j * n + i], x[i * n + j]);
}

TEST_F(DeviceTest, ScalarBoundRuleOnKVWrite) {
  const int cap = 5;
  std::vector<uint16_t> k(8 * 128), cache(cap * 8 * 128, 0x7e00);
  auto kf = randomFloats(k.size(), -1, 1, 5);
  for (size_t i = 0; i < k.size(); ++i)
    k[i] = toHalf(kf[i]);
  Buffer bk, bc;
  ASSERT_OK(rt.device->allocate(DType::F16, k.size(), bk));
  ASSERT_OK(rt.device->allocate(DType::F16, cache.size(), bc));
  ASSERT_OK(rt.stream().copyToDevice(bk, k.data(), k.size() * 2));
  ASSERT_OK(rt.stream().copyToDevice(bc, cache.data(), cache.size() * 2));
  Kernel kv = rt.kernel("kv_write");
  for (int bad : {-1, cap, 1 << 30})
    expectError(rt.stream().launch(kv, {Arg::in(bk, {8, 128}),
                                        Arg::inout(bc, {cap, 8, 128}),
                                        Arg::integer(bad)}),
                {"kernel kv_write", "0 <= pos < cache length"});
  expectError(rt.stream().launch(kv, {Arg::in(bk, {8, 128}),
                                      Arg::inout(bc, {cap, 8, 128}),
                                      Arg::integer(int64_t(1) << 40)}),
              {"argument pos (#2)", "does not fit i32"});
  ASSERT_OK(rt.stream().launch(
      kv, {Arg::in(bk, {8, 128}), Arg::inout(bc, {cap, 8, 128}),
           Arg::integer(3)}));
  std::vector<uint16_t> after(cache.size());
  ASSERT_OK(rt.stream().copyToHost(after.data(), bc, after.size() * 2));
  ASSERT_OK(rt.stream().synchronize());
  for (int r = 0; r < cap; ++r)
    for (int i = 0; i < 8 * 128; ++i)
      ASSERT_EQ(after[r * 1024 + i], r == 3 ? k[i] : uint16_t(0x7e00))
          << "row " << r;
}

TEST_F(DeviceTest, ArgumentChecksNameTheArgument) {
  Buffer bx = rt.upload(randomFloats(4 * 256, 1, 2, 6));
  Buffer by = rt.upload(poisoned32(4 * 256));
  Buffer half;
  ASSERT_OK(rt.device->allocate(DType::F16, 4 * 256, half));
  Kernel k = rt.kernel("scale_rows");
  Stream &s = rt.stream();
  expectError(s.launch(k, {Arg::in(bx, {4, 256}), Arg::in(by, {4, 256}),
                           Arg::real(1)}),
              {"argument y (#1)", "pass it exclusively"});
  expectError(s.launch(k, {Arg::out(bx, {4, 256}), Arg::out(by, {4, 256}),
                           Arg::real(1)}),
              {"argument x (#0)", "pass it shared"});
  expectError(s.launch(k, {Arg::in(half, {4, 256}), Arg::out(by, {4, 256}),
                           Arg::real(1)}),
              {"argument x (#0)", "dtype f16, expected f32"});
  expectError(s.launch(k, {Arg::in(bx, {8, 128}), Arg::out(by, {4, 256}),
                           Arg::real(1)}),
              {"argument x (#0)", "compiled for 256"});
  expectError(s.launch(k, {Arg::in(bx, {5, 256}), Arg::out(by, {4, 256}),
                           Arg::real(1)}),
              {"argument x (#0)", "reaches element 1279", "1024 elements"});
  expectError(s.launch(k, {Arg::in(bx, {3, 256}, {}, 1),
                           Arg::out(by, {3, 256}), Arg::real(1)}),
              {"argument x (#0)", "16-byte aligned"});
  expectError(s.launch(k, {Arg::in(bx, {4, 256}), Arg::out(by, {4, 256})}),
              {"expects 3 arguments, got 2"});
  expectError(s.launch(k, {Arg::in(bx, {4, 256}), Arg::out(by, {4, 256}),
                           Arg::in(bx, {4})}),
              {"argument s (#2)", "is a scalar"});
  expectError(s.launch(k, {Arg::integer(1), Arg::out(by, {4, 256}),
                           Arg::real(1)}),
              {"argument x (#0)", "is a tensor"});
  for (float v : rt.download(by))
    ASSERT_TRUE(isPoison(v));
}

TEST_F(DeviceTest, EmptyProblemLaunchesNothing) {
  Buffer bx = rt.upload({1.0f});
  Buffer by = rt.upload(poisoned32(1));
  ASSERT_OK(rt.stream().launch(rt.kernel("scale_rows"),
                               {Arg::in(bx, {0, 256}), Arg::out(by, {0, 256}),
                                Arg::real(1)}));
  EXPECT_TRUE(isPoison(rt.download(by)[0]));
}

TEST_F(DeviceTest, GraphReplaysWithoutRecapture) {
  const int n = 1000;
  Buffer bx = rt.upload(std::vector<float>(n, 0.5f));
  Kernel k = rt.kernel("add_one");
  Stream &s = rt.stream();
  ASSERT_OK(s.beginCapture());
  EXPECT_TRUE(s.capturing());
  for (int i = 0; i < 10; ++i)
    ASSERT_OK(s.launch(k, {Arg::inout(bx, {n})}));
  Graph g;
  ASSERT_OK(s.endCapture(g));
  EXPECT_EQ(g.numLaunches(), 10u);
  EXPECT_EQ(g.numBuffers(), 1u);
  // Captured launches did not run.
  EXPECT_EQ(rt.download(bx)[0], 0.5f);
  for (int r = 0; r < 3; ++r)
    ASSERT_OK(g.replay(s));
  for (float v : rt.download(bx))
    ASSERT_EQ(v, 30.5f);
}

TEST_F(DeviceTest, GraphHoldsItsBuffers) {
  Kernel k = rt.kernel("add_one");
  Stream &s = rt.stream();
  Graph g;
  int64_t before = rt.device->poolStats().bytesInUse;
  {
    Buffer bx = rt.upload(std::vector<float>(256, 1.0f));
    ASSERT_OK(s.beginCapture());
    ASSERT_OK(s.launch(k, {Arg::inout(bx, {256})}));
    ASSERT_OK(s.endCapture(g));
  }
  // The Buffer is gone; the graph still holds its memory.
  EXPECT_EQ(rt.device->poolStats().bytesInUse, before + 256 * 4);
  ASSERT_OK(g.replay(s));
  ASSERT_OK(s.synchronize());
  g = Graph();
  ASSERT_OK(s.synchronize());
  EXPECT_EQ(rt.device->poolStats().bytesInUse, before);
}

TEST_F(DeviceTest, CaptureRejectsAllocationAndHostCopies) {
  Buffer bx = rt.upload(std::vector<float>(128, 1.0f));
  Stream &s = rt.stream();
  ASSERT_OK(s.beginCapture());
  Buffer more;
  expectError(rt.device->allocate(DType::F32, 16, more),
              {"while a stream of this device is capturing"});
  float host[128];
  expectError(s.copyToDevice(bx, host, sizeof(host)),
              {"host copies cannot be captured"});
  expectError(s.copyToHost(host, bx, sizeof(host)),
              {"host copies cannot be captured"});
  expectError(s.beginCapture(), {"already capturing"});
  Graph g;
  ASSERT_OK(s.endCapture(g));
  EXPECT_EQ(g.numLaunches(), 0u);
  ASSERT_OK(rt.device->allocate(DType::F32, 16, more));
}

TEST_F(DeviceTest, ReplayReadsPerReplayInputsFromDeviceMemory) {
  auto v = randomFloats(64, 1, 2, 7);
  Buffer bv = rt.upload(v);
  Buffer bout = rt.upload(poisoned32(16 * 64));
  Buffer bpos;
  ASSERT_OK(rt.device->allocate(DType::I32, 1, bpos));
  Stream &s = rt.stream();
  ASSERT_OK(s.beginCapture());
  ASSERT_OK(s.launch(rt.kernel("write_at_device_pos"),
                     {Arg::in(bpos, {1}), Arg::in(bv, {64}),
                      Arg::inout(bout, {16, 64})}));
  Graph g;
  ASSERT_OK(s.endCapture(g));
  // Positions outside [0, 16) are clamped by the kernel: never foreign rows.
  std::vector<int> written;
  for (int32_t pos : {3, 11, 40, -2}) {
    ASSERT_OK(s.copyToDevice(bpos, &pos, 4));
    ASSERT_OK(g.replay(s));
    written.push_back(std::min(std::max(pos, 0), 15));
  }
  std::vector<float> out = rt.download(bout);
  for (int r = 0; r < 16; ++r) {
    bool want = std::find(written.begin(), written.end(), r) != written.end();
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(isPoison(out[r * 64 + i]), !want) << "row " << r;
    if (want)
      for (int i = 0; i < 64; ++i)
        ASSERT_EQ(out[r * 64 + i], v[i]);
  }
}

// A checked table changes between replays; each write must keep the rules
// the captured launch checked, or nothing is written.
TEST_F(DeviceTest, CheckedTableChangesBetweenReplaysWithinItsRules) {
  auto v = randomFloats(4 * 64, 1, 2, 11);
  Buffer bv = rt.upload(v);
  Buffer bout = rt.upload(poisoned32(16 * 64));
  Buffer table;
  ASSERT_OK(rt.device->allocate(DType::I32, 6, table));
  Stream &s = rt.stream();
  const int32_t first[6] = {0, 1, 2, 3, 9, 9};
  ASSERT_OK(s.copyToDevice(table, first, sizeof(first)));
  // Not a table yet, nor frozen: a frozen parameter refuses it.
  expectError(s.launch(rt.kernel("write_rows_at_table"),
                       {Arg::in(table, {4}), Arg::in(bv, {4, 64}), Arg::inout(bout, {16, 64})}),
              {"freeze its buffer first"});
  ASSERT_OK(s.makeTable(table));
  EXPECT_TRUE(table.isTable());
  ASSERT_OK(s.beginCapture());
  ASSERT_OK(s.launch(rt.kernel("write_rows_at_table"),
                     {Arg::in(table, {4}), Arg::in(bv, {4, 64}), Arg::inout(bout, {16, 64})}));
  Graph g;
  ASSERT_OK(s.endCapture(g));
  ASSERT_OK(g.replay(s));
  const int32_t second[4] = {12, 5, 15, 7};
  ASSERT_OK(s.writeTable(table, second, sizeof(second)));
  ASSERT_OK(g.replay(s));
  // The captured view is entries 0..3: entries 4 and 5 are not under its rule.
  const int32_t tail[2] = {40, 40};
  ASSERT_OK(s.writeTable(table, tail, sizeof(tail), 16));
  // A repeated entry, an entry out of range: refused, nothing written.
  const int32_t repeated[4] = {1, 2, 2, 3};
  expectError(s.writeTable(table, repeated, sizeof(repeated)),
              {"rows of out", "repeats an earlier entry"});
  const int32_t outside[2] = {16, 4};
  expectError(s.writeTable(table, outside, sizeof(outside), 4),
              {"rows of out", "outside [0, 16)"});
  ASSERT_OK(g.replay(s));
  // Only writeTable changes it.
  expectError(s.copyToDevice(table, second, sizeof(second)), {"checked table"});
  expectError(s.fill(table, 0), {"checked table"});
  int32_t now[6];
  ASSERT_OK(s.copyToHost(now, table, sizeof(now)));
  ASSERT_OK(s.synchronize());
  EXPECT_EQ(std::vector<int32_t>(now, now + 6), (std::vector<int32_t>{12, 5, 15, 7, 40, 40}));
  std::vector<float> out = rt.download(bout);
  const int rows[8] = {0, 1, 2, 3, 12, 5, 15, 7};
  for (int r = 0; r < 16; ++r) {
    const int *at = std::find(rows, rows + 8, r);
    const bool want = at != rows + 8;
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(isPoison(out[r * 64 + i]), !want) << "row " << r;
    if (want)
      for (int i = 0; i < 64; ++i)
        ASSERT_EQ(out[r * 64 + i], v[((at - rows) % 4) * 64 + i]) << "row " << r;
  }
  // Integers only, and not frozen buffers.
  Buffer floats;
  ASSERT_OK(rt.device->allocate(DType::F32, 4, floats));
  expectError(s.makeTable(floats), {"holds integers"});
  expectError(s.writeTable(bv, v.data(), 16), {"not a checked table"});
}

TEST_F(DeviceTest, EventsOrderStreams) {
  const int n = 4096;
  Stream s2;
  ASSERT_OK(rt.device->createStream(s2));
  Buffer bx = rt.upload(std::vector<float>(n, 1.0f));
  ASSERT_OK(rt.stream().synchronize());
  Kernel k = rt.kernel("add_one");
  Event start, done, later;
  ASSERT_OK(rt.stream().record(start));
  for (int i = 0; i < 5; ++i)
    ASSERT_OK(rt.stream().launch(k, {Arg::inout(bx, {n})}));
  ASSERT_OK(rt.stream().record(done));
  ASSERT_OK(s2.wait(done));
  ASSERT_OK(s2.launch(k, {Arg::inout(bx, {n})}));
  ASSERT_OK(s2.record(later));
  ASSERT_OK(later.wait());
  EXPECT_TRUE(later.ready());
  float ms = -1;
  ASSERT_OK(done.elapsedMs(start, ms));
  EXPECT_GE(ms, 0.0f);
  std::vector<float> out(n);
  ASSERT_OK(s2.copyToHost(out.data(), bx, n * 4));
  ASSERT_OK(s2.synchronize());
  for (float v : out)
    ASSERT_EQ(v, 7.0f);
}

TEST_F(DeviceTest, PoolStatistics) {
  PoolStats before = rt.device->poolStats();
  {
    Buffer a, b;
    ASSERT_OK(rt.device->allocate(DType::F16, 1000, a));
    ASSERT_OK(rt.device->allocate(DType::F32, 500, b));
    PoolStats during = rt.device->poolStats();
    EXPECT_EQ(during.allocations, before.allocations + 2);
    EXPECT_EQ(during.bytesInUse, before.bytesInUse + 4000);
    EXPECT_GE(during.peakBytesInUse, during.bytesInUse);
    EXPECT_GE(during.bytesReserved, 4000);
  }
  ASSERT_OK(rt.stream().synchronize());
  PoolStats after = rt.device->poolStats();
  EXPECT_EQ(after.frees, before.frees + 2);
  EXPECT_EQ(after.bytesInUse, before.bytesInUse);
  Buffer bad;
  expectError(rt.device->allocate(DType::F32, -1, bad), {"cannot allocate"});
}

TEST_F(DeviceTest, MemoryInfoSeesAnAllocation) {
  int64_t free0 = 0, total = 0;
  ASSERT_OK(rt.device->memoryInfo(free0, total));
  EXPECT_GT(total, 0);
  EXPECT_GT(free0, 0);
  EXPECT_LE(free0, total);
  // The host's available memory moves with every other process (tests run
  // in parallel): the drop is checked on the GPU only, where this process
  // is alone. 256 MiB, touched, must leave less free.
  if (!rt.device->isCuda())
    return;
  const int64_t n = int64_t(64) << 20;
  Buffer big;
  ASSERT_OK(rt.device->allocate(DType::F32, n, big));
  ASSERT_OK(rt.stream().fill(big, 0));
  ASSERT_OK(rt.stream().synchronize());
  int64_t free1 = 0;
  ASSERT_OK(rt.device->memoryInfo(free1, total));
  EXPECT_LT(free1, free0 - n * 4 / 2);
}

TEST_F(DeviceTest, MultiprocessorsAreTheGPUs) {
  if (!rt.device->isCuda()) {
    EXPECT_EQ(rt.device->multiprocessors(), 0);
    return;
  }
  // Every CUDA GPU has at least one; an H100 SXM or H200 has 132.
  EXPECT_GT(rt.device->multiprocessors(), 0);
  EXPECT_LE(rt.device->multiprocessors(), 1024);
}

TEST_F(DeviceTest, CopiesAreBoundsChecked) {
  Buffer a = rt.upload(std::vector<float>(16, 1.0f));
  Buffer b = rt.upload(std::vector<float>(8, 2.0f));
  float host[32] = {};
  expectError(rt.stream().copyToDevice(a, host, 17 * 4), {"do not fit"});
  expectError(rt.stream().copyToHost(host, a, 4, 15 * 4 + 1), {"do not fit"});
  expectError(rt.stream().copy(b, a, 16 * 4), {"do not fit"});
  ASSERT_OK(rt.stream().copy(a, b, 8 * 4));
  std::vector<float> out = rt.download(a);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(out[i], i < 8 ? 2.0f : 1.0f);
  ASSERT_OK(rt.stream().fill(b, 0));
  for (float v : rt.download(b))
    EXPECT_EQ(v, 0.0f);
}

TEST_F(DeviceTest, UnknownKernelListsTheKernels) {
  Kernel k;
  expectError(rt.module.kernel("nope", k),
              {"no kernel named 'nope'", "scale_rows", "add_one"});
}

} // namespace
