//===- HostCollective.cpp - collectives among CPU devices -----------------===//
//
// The CPU devices of one process exchange through host memory: each rank
// publishes its buffer's address, and two barriers bound the exchange (all
// published before anyone reads; all done reading before anyone writes its
// result). Sums run in f32 over the ranks in rank order, so every rank gets
// the same bits. Queued as host functions on the rank's stream, so a
// captured graph replays them. Peer buffers among CPU devices are plain
// host memory, which every device's kernels read; their flags are host
// atomics.
//
//===----------------------------------------------------------------------===//

#include "CollectiveImpl.h"
#include "tile/runtime/Half.h"

#include <condition_variable>
#include <cstring>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace tile_runtime;

namespace {

struct HostGroup {
  explicit HostGroup(int size) : size(size), published(size, nullptr) {}

  /// Waits for every rank; false once the group was aborted.
  bool barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    if (aborted)
      return false;
    const uint64_t gen = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return true;
    }
    cv.wait(lock, [&] { return generation != gen || aborted; });
    return !aborted;
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex);
    aborted = true;
    cv.notify_all();
  }
  bool isAborted() {
    std::lock_guard<std::mutex> lock(mutex);
    return aborted;
  }

  const int size;
  std::mutex mutex;
  std::condition_variable cv;
  int arrived = 0;
  uint64_t generation = 0;
  bool aborted = false;
  /// Each rank's buffer address for the collective in progress (a rank
  /// writes its own slot before the first barrier of a collective).
  std::vector<const uint8_t *> published;
};

float load(const uint8_t *p, DType t) {
  if (t == DType::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return t == DType::BF16 ? fromBF16(h) : fromHalf(h);
}

void store(uint8_t *p, DType t, float f) {
  if (t == DType::F32) {
    std::memcpy(p, &f, 4);
    return;
  }
  uint16_t h = t == DType::BF16 ? toBF16(f) : toHalf(f);
  std::memcpy(p, &h, 2);
}

class HostCommunicator : public CommunicatorImpl {
public:
  explicit HostCommunicator(std::shared_ptr<HostGroup> group)
      : group(std::move(group)) {}

  Status allReduceSum(StreamImpl &stream, uint64_t address, int64_t count,
                      DType dtype) override {
    std::shared_ptr<HostGroup> g = group;
    const int r = rank;
    return stream.hostFunction([g, r, address, count, dtype] {
      auto *mine = reinterpret_cast<uint8_t *>(address);
      const size_t elt = size_t(sizeInBytes(dtype));
      g->published[r] = mine;
      if (!g->barrier())
        return;
      std::vector<float> sum(size_t(count), 0.0f);
      for (int q = 0; q < g->size; ++q)
        for (int64_t i = 0; i < count; ++i)
          sum[i] += load(g->published[q] + i * elt, dtype);
      if (!g->barrier())
        return;
      for (int64_t i = 0; i < count; ++i)
        store(mine + i * elt, dtype, sum[i]);
    });
  }

  Status allGather(StreamImpl &stream, uint64_t address, int64_t count,
                   DType dtype) override {
    std::shared_ptr<HostGroup> g = group;
    const int r = rank;
    return stream.hostFunction([g, r, address, count, dtype] {
      auto *mine = reinterpret_cast<uint8_t *>(address);
      const size_t slice = size_t(count) * size_t(sizeInBytes(dtype));
      g->published[r] = mine;
      if (!g->barrier())
        return;
      // Each rank reads only the others' own slices and writes only the
      // others' slices of its own buffer: disjoint.
      for (int q = 0; q < g->size; ++q)
        if (q != r)
          std::memcpy(mine + q * slice, g->published[q] + q * slice, slice);
      g->barrier();
    });
  }

  // The peer barrier: host atomics on the flags (a flag is set with
  // release order after this rank's work before it, which on the CPU
  // device has finished; a wait acquires it), spinning until set or the
  // group is aborted.
  Status setFlags(StreamImpl &stream, const std::vector<uint64_t> &flags) override {
    return stream.hostFunction([flags] {
      for (uint64_t f : flags)
        __atomic_store_n(reinterpret_cast<int32_t *>(f), 1, __ATOMIC_RELEASE);
    });
  }
  Status waitFlags(StreamImpl &stream, const std::vector<uint64_t> &flags,
                   const std::shared_ptr<void> &) override {
    std::shared_ptr<HostGroup> g = group;
    return stream.hostFunction([g, flags] {
      for (uint64_t f : flags)
        while (__atomic_load_n(reinterpret_cast<int32_t *>(f), __ATOMIC_ACQUIRE) != 1) {
          if (g->isAborted())
            return;
          std::this_thread::yield();
        }
    });
  }

  void abort() override { group->abort(); }

  std::shared_ptr<HostGroup> group;
};

} // namespace

Status tile_runtime::createHostCommunicators(
    const std::vector<DeviceImpl *> &devices,
    std::vector<std::unique_ptr<CommunicatorImpl>> &out) {
  auto group = std::make_shared<HostGroup>(static_cast<int>(devices.size()));
  out.clear();
  for (size_t i = 0; i < devices.size(); ++i)
    out.push_back(std::make_unique<HostCommunicator>(group));
  return Status::ok();
}

Status tile_runtime::createHostPeerRegion(size_t devices, size_t bytesPerDevice,
                                          PeerRegion &out) {
  // Parts on 256-byte boundaries, as device allocations are.
  const size_t part = (bytesPerDevice + 255) / 256 * 256;
  void *p = std::aligned_alloc(256, part * devices);
  if (!p)
    return Status::error("peer buffers: out of host memory for " +
                         std::to_string(part * devices) + " bytes");
  std::memset(p, 0, part * devices);
  out.base = reinterpret_cast<uint64_t>(p);
  out.partBytes = part;
  out.region = std::shared_ptr<void>(p, [](void *q) { std::free(q); });
  return Status::ok();
}
