//===- CollectiveTest.cpp - collectives among the devices of a process ----===//
//
// On the CPU device: two and four CPU devices exchanging in-process. On a
// GPU machine (TileRuntimeGpuTests): NCCL among the GPUs there, skipped
// with a message where there are fewer than two. Every rank runs on its own
// thread, as a tensor-parallel engine drives them.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "tile/runtime/Collective.h"
#include "tile/runtime/Half.h"

#include <functional>
#include <random>
#include <thread>

using namespace tile_runtime;
using namespace tile_runtime::test;

namespace {

struct Group {
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<std::unique_ptr<Communicator>> comms;

  /// Opens `n` devices of this test's kind; false (with `why`) when the
  /// machine has fewer.
  bool open(int n, std::string &why) {
    const bool cuda = std::string(TILE_TEST_DEVICE) == "cuda";
    for (int r = 0; r < n; ++r) {
      std::unique_ptr<Device> d;
      std::string spec = cuda ? "cuda:" + std::to_string(r) : "cpu";
      if (Status s = Device::open(spec, d); !s) {
        why = spec + ": " + s.message();
        return false;
      }
      devices.push_back(std::move(d));
    }
    std::vector<Device *> raw;
    for (auto &d : devices)
      raw.push_back(d.get());
    Status s = Communicator::create(raw, comms);
    if (!s)
      why = s.message();
    return s.isOk();
  }

  /// Runs fn(rank) on a thread per rank, the device bound to it.
  void run(const std::function<void(int)> &fn) {
    std::vector<std::thread> threads;
    for (int r = 0; r < int(devices.size()); ++r)
      threads.emplace_back([&, r] {
        ASSERT_OK(devices[r]->makeCurrent());
        fn(r);
      });
    for (auto &t : threads)
      t.join();
  }
};

#define OPEN_GROUP(g, n)                                                       \
  Group g;                                                                     \
  {                                                                            \
    std::string why;                                                           \
    if (!g.open(n, why)) {                                                     \
      if (std::string(TILE_TEST_DEVICE) == "cuda")                             \
        GTEST_SKIP() << "needs " << n << " GPUs and NCCL: " << why;            \
      FAIL() << why;                                                           \
    }                                                                          \
  }

std::vector<float> rankData(int rank, int64_t n) {
  // Values exact in bf16 too (8 significant bits), so the bf16 inputs
  // are the f32 ones.
  std::vector<float> v = randomFloats(size_t(n), -2.0f, 2.0f, 1000 + rank);
  for (float &x : v)
    x = fromBF16(toBF16(x));
  return v;
}

class CollectiveTest : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveTest, AllReduceSumF32AndBf16) {
  const int n = GetParam();
  const int64_t count = 3000, offset = 40;
  OPEN_GROUP(g, n);
  // f32 then bf16: the sum of every rank's data in rank order.
  std::vector<std::vector<float>> data(n);
  for (int r = 0; r < n; ++r)
    data[r] = rankData(r, count);
  std::vector<float> want(count, 0.0f);
  for (int r = 0; r < n; ++r)
    for (int64_t i = 0; i < count; ++i)
      want[i] += data[r][i];
  std::vector<std::vector<float>> got32(n), got16(n);
  std::vector<std::vector<uint16_t>> in16(n);
  for (int r = 0; r < n; ++r)
    for (float f : data[r])
      in16[r].push_back(toBF16(f));
  g.run([&](int r) {
    Device &d = *g.devices[r];
    Stream &s = d.defaultStream();
    Buffer b32, b16;
    ASSERT_OK(d.allocate(DType::F32, offset + count, b32));
    ASSERT_OK(d.allocate(DType::BF16, offset + count, b16));
    // The elements before `offset` are poison and must stay so.
    std::vector<float> poison = poisoned32(offset + count);
    ASSERT_OK(s.copyToDevice(b32, poison.data(), poison.size() * 4));
    ASSERT_OK(s.copyToDevice(b32, data[r].data(), count * 4, offset * 4));
    ASSERT_OK(s.copyToDevice(b16, in16[r].data(), count * 2, offset * 2));
    ASSERT_OK(g.comms[r]->allReduceSum(s, b32, offset, count));
    ASSERT_OK(g.comms[r]->allReduceSum(s, b16, offset, count));
    std::vector<float> all(offset + count);
    std::vector<uint16_t> h(count);
    ASSERT_OK(s.copyToHost(all.data(), b32, all.size() * 4));
    ASSERT_OK(s.copyToHost(h.data(), b16, count * 2, offset * 2));
    ASSERT_OK(s.synchronize());
    for (int64_t i = 0; i < offset; ++i)
      ASSERT_TRUE(isPoison(all[i])) << "rank " << r << " element " << i;
    got32[r].assign(all.begin() + offset, all.end());
    for (uint16_t x : h)
      got16[r].push_back(fromBF16(x));
  });
  for (int r = 0; r < n; ++r) {
    // Every rank holds the same bits.
    EXPECT_EQ(0, std::memcmp(got32[r].data(), got32[0].data(), count * 4)) << r;
    EXPECT_EQ(0, std::memcmp(got16[r].data(), got16[0].data(), count * 4)) << r;
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_NEAR(got32[r][i], want[i], 1e-5f * (1 + std::abs(want[i]))) << r << " " << i;
      // bf16 inputs, summed and rounded (NCCL may round per hop).
      ASSERT_NEAR(got16[r][i], want[i], 0.02f * (1 + std::abs(want[i]))) << r << " " << i;
    }
  }
}

TEST_P(CollectiveTest, AllGatherInPlace) {
  const int n = GetParam();
  const int64_t count = 777;
  OPEN_GROUP(g, n);
  std::vector<std::vector<float>> slices(n);
  for (int r = 0; r < n; ++r)
    slices[r] = rankData(r, count);
  std::vector<std::vector<float>> got(n);
  g.run([&](int r) {
    Device &d = *g.devices[r];
    Stream &s = d.defaultStream();
    Buffer b;
    ASSERT_OK(d.allocate(DType::F32, n * count, b));
    std::vector<float> poison = poisoned32(n * count);
    ASSERT_OK(s.copyToDevice(b, poison.data(), poison.size() * 4));
    ASSERT_OK(s.copyToDevice(b, slices[r].data(), count * 4, r * count * 4));
    ASSERT_OK(g.comms[r]->allGather(s, b, 0, count));
    got[r].resize(n * count);
    ASSERT_OK(s.copyToHost(got[r].data(), b, got[r].size() * 4));
    ASSERT_OK(s.synchronize());
  });
  for (int r = 0; r < n; ++r)
    for (int q = 0; q < n; ++q)
      ASSERT_EQ(0, std::memcmp(got[r].data() + q * count, slices[q].data(), count * 4))
          << "rank " << r << " slice " << q;
}

// A captured collective replays on new contents each time.
TEST_P(CollectiveTest, CapturedAndReplayed) {
  const int n = GetParam();
  const int64_t count = 512;
  OPEN_GROUP(g, n);
  std::vector<std::vector<float>> results(n);
  g.run([&](int r) {
    Device &d = *g.devices[r];
    Stream &s = d.defaultStream();
    Buffer b;
    ASSERT_OK(d.allocate(DType::F32, count, b));
    ASSERT_OK(s.synchronize());
    Graph graph;
    ASSERT_OK(s.beginCapture());
    Status q = g.comms[r]->allReduceSum(s, b, 0, count);
    ASSERT_OK(s.endCapture(graph));
    ASSERT_OK(q);
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<float> v(count, float(r + 1) * float(rep + 1));
      ASSERT_OK(s.copyToDevice(b, v.data(), count * 4));
      ASSERT_OK(graph.replay(s));
      ASSERT_OK(s.copyToHost(v.data(), b, count * 4));
      ASSERT_OK(s.synchronize());
      // (1 + ... + n) * (rep + 1)
      const float want = float(n * (n + 1) / 2) * float(rep + 1);
      for (float x : v)
        ASSERT_EQ(x, want) << "rank " << r << " replay " << rep;
    }
  });
}

TEST_P(CollectiveTest, BadArgumentsAreRefused) {
  const int n = GetParam();
  OPEN_GROUP(g, n);
  Device &d = *g.devices[0];
  Buffer i32, f32, other;
  ASSERT_OK(d.allocate(DType::I32, 16, i32));
  ASSERT_OK(d.allocate(DType::F32, 16, f32));
  ASSERT_OK(g.devices[1]->allocate(DType::F32, 16, other));
  ASSERT_OK(d.makeCurrent()); // this thread drives rank 0 from here on
  Stream &s = d.defaultStream();
  expectError(g.comms[0]->allReduceSum(s, i32, 0, 16), {"allReduceSum", "i32"});
  expectError(g.comms[0]->allReduceSum(s, f32, 8, 16), {"allReduceSum", "do not fit"});
  expectError(g.comms[0]->allGather(s, f32, 0, 16), {"allGather", "do not fit"});
  expectError(g.comms[0]->allReduceSum(s, other, 0, 16), {"another device"});
  expectError(g.comms[0]->allReduceSum(g.devices[1]->defaultStream(), other, 0, 16),
              {"another device"});
  ASSERT_OK(s.freeze(f32));
  expectError(g.comms[0]->allReduceSum(s, f32, 0, 16), {"frozen"});
}

// Peer buffers and the flag barrier, as a one-shot exchange uses them:
// each round a rank writes its part of one of two data buffers, signals,
// waits for every peer, reads every part through its own view, and clears
// its flags of the round's slot before the round that reuses them.
TEST_P(CollectiveTest, PeerBuffersAndFlags) {
  const int n = GetParam();
  const int64_t count = 1000, slots = 2;
  OPEN_GROUP(g, n);
  std::vector<Communicator *> comms;
  for (auto &c : g.comms)
    comms.push_back(c.get());
  PeerBuffers data[2], flags;
  for (PeerBuffers &d : data) {
    ASSERT_OK(Communicator::createPeerBuffers(comms, DType::F32, count, d));
    ASSERT_EQ(int(d.views.size()), n);
    ASSERT_GE(d.stride, count);
  }
  ASSERT_OK(Communicator::createPeerBuffers(comms, DType::I32,
                                            slots * g.comms[0]->flagSlotWidth(), flags));
  // The same address on every rank, each view its rank's device's.
  for (int r = 1; r < n; ++r)
    EXPECT_EQ(data[0].views[r].address(), data[0].views[0].address());
  const int rounds = 5;
  std::vector<std::string> failures(n);
  g.run([&](int r) {
    Device &d = *g.devices[r];
    Stream &s = d.defaultStream();
    for (int round = 0; round < rounds; ++round) {
      const int p = round % 2;
      const Buffer &mine = data[p].views[r];
      std::vector<float> v = rankData(r + 16 * round, count);
      ASSERT_OK(s.copyToDevice(mine, v.data(), count * 4, size_t(r * data[p].stride) * 4));
      ASSERT_OK(g.comms[r]->signalPeers(s, flags.views[r], flags.stride, p));
      ASSERT_OK(g.comms[r]->waitPeers(s, flags.views[r], flags.stride, p));
      std::vector<float> all(size_t(n * data[p].stride));
      ASSERT_OK(s.copyToHost(all.data(), mine, all.size() * 4));
      std::vector<int32_t> zeros(n, 0);
      ASSERT_OK(s.copyToDevice(flags.views[r], zeros.data(), n * 4,
                               size_t(r * flags.stride + p * g.comms[r]->flagSlotWidth()) * 4));
      ASSERT_OK(s.synchronize());
      for (int q = 0; q < n; ++q) {
        std::vector<float> want = rankData(q + 16 * round, count);
        if (std::memcmp(all.data() + q * data[p].stride, want.data(), count * 4) != 0)
          failures[r] += " round " + std::to_string(round) + " part " + std::to_string(q);
      }
    }
  });
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(failures[r], "") << "rank " << r << " read stale or wrong parts";
}

TEST_P(CollectiveTest, PeerFlagsBadArgumentsAreRefused) {
  const int n = GetParam();
  OPEN_GROUP(g, n);
  std::vector<Communicator *> comms;
  for (auto &c : g.comms)
    comms.push_back(c.get());
  PeerBuffers flags, rows;
  ASSERT_OK(Communicator::createPeerBuffers(comms, DType::I32, 2 * n, flags));
  ASSERT_OK(Communicator::createPeerBuffers(comms, DType::F32, 64, rows));
  Device &d = *g.devices[0];
  Buffer plain;
  ASSERT_OK(d.allocate(DType::I32, 64, plain));
  ASSERT_OK(d.makeCurrent());
  Stream &s = d.defaultStream();
  Communicator &c = *g.comms[0];
  expectError(c.signalPeers(s, plain, 32, 0), {"signalPeers", "peer buffers"});
  expectError(c.waitPeers(s, flags.views[1], flags.stride, 0), {"waitPeers", "peer buffers"});
  expectError(c.signalPeers(s, rows.views[0], rows.stride, 0), {"signalPeers", "i32"});
  expectError(c.waitPeers(s, flags.views[0], flags.stride + 1, 0), {"stride"});
  expectError(c.signalPeers(s, flags.views[0], flags.stride, flags.stride / c.flagSlotWidth()),
              {"slot", "outside"});
  expectError(c.waitPeers(s, flags.views[0], flags.stride, -1), {"slot"});
  expectError(c.signalPeers(g.devices[1]->defaultStream(), flags.views[0], flags.stride, 0),
              {"stream"});
  expectError(Communicator::createPeerBuffers({comms[1], comms[0]}, DType::F32, 8, rows),
              {"rank order"});
  expectError(Communicator::createPeerBuffers(comms, DType::F32, 0, rows), {"at least one"});
}

INSTANTIATE_TEST_SUITE_P(Ranks, CollectiveTest, ::testing::Values(2, 4),
                         [](const ::testing::TestParamInfo<int> &i) {
                           return std::to_string(i.param) + "ranks";
                         });

// A rank that waits in a collective its peers never queue is released by
// abort() (a failed peer), not left hanging. CPU only: NCCL's abort of an
// in-flight kernel is NCCL's to test.
TEST(HostCollectiveTest, AbortReleasesAWaitingRank) {
  if (std::string(TILE_TEST_DEVICE) == "cuda")
    GTEST_SKIP() << "the in-process exchange is the CPU device's";
  OPEN_GROUP(g, 2);
  Device &d = *g.devices[0];
  Buffer b;
  ASSERT_OK(d.allocate(DType::F32, 8, b));
  std::thread waiter([&] {
    EXPECT_OK(g.comms[0]->allReduceSum(d.defaultStream(), b, 0, 8));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  g.comms[1]->abort();
  waiter.join();
  // The group is unusable afterwards, and says nothing hangs.
  EXPECT_OK(g.comms[0]->allReduceSum(d.defaultStream(), b, 0, 8));
}

// A rank waiting on peer flags that no peer will set (a failed peer) is
// released by abort() too.
TEST(HostCollectiveTest, AbortReleasesAPeerWait) {
  if (std::string(TILE_TEST_DEVICE) == "cuda")
    GTEST_SKIP() << "the host flag wait is the CPU device's";
  OPEN_GROUP(g, 2);
  PeerBuffers flags;
  ASSERT_OK(Communicator::createPeerBuffers({g.comms[0].get(), g.comms[1].get()}, DType::I32,
                                            2 * g.comms[0]->flagSlotWidth(), flags));
  Device &d = *g.devices[0];
  std::thread waiter([&] {
    EXPECT_OK(g.comms[0]->waitPeers(d.defaultStream(), flags.views[0], flags.stride, 1));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  g.comms[1]->abort();
  waiter.join();
}

} // namespace
