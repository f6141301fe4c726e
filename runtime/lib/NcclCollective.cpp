//===- NcclCollective.cpp - collectives among CUDA devices by NCCL --------===//
//
// libnccl.so.2 is opened at run time, as the CUDA driver is: nothing links
// against it, the CPU tests run without it, and a GPU machine uses the NCCL
// it has. One process holds every rank (ncclCommInitAll); each rank's
// collectives are queued on its stream by the thread that drives its
// device, and captured into that stream's graph like its launches. The
// environment is NCCL's to read (NCCL_* variables, e.g. NVLink multicast
// settings, are left as the machine sets them).
//
//===----------------------------------------------------------------------===//

#include "CollectiveImpl.h"

#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <thread>

using namespace tile_runtime;

namespace {

#define TILE_NCCL_FUNCTIONS(X)                                                 \
  X(ncclGetVersion)                                                            \
  X(ncclGetErrorString)                                                        \
  X(ncclCommInitAll)                                                           \
  X(ncclCommDestroy)                                                           \
  X(ncclCommAbort)                                                             \
  X(ncclAllReduce)                                                             \
  X(ncclAllGather)                                                             \
  X(ncclGroupStart)                                                            \
  X(ncclGroupEnd)

struct NcclLibrary {
#define TILE_DECLARE(name) decltype(&::name) name = nullptr;
  TILE_NCCL_FUNCTIONS(TILE_DECLARE)
#undef TILE_DECLARE
  int version = 0;

  Status check(ncclResult_t r, const char *call) const {
    if (r == ncclSuccess)
      return Status::ok();
    return Status::error(std::string(call) + ": " + ncclGetErrorString(r));
  }

  /// The process-wide library, loaded on first use.
  static Status get(const NcclLibrary *&lib) {
    static NcclLibrary library;
    static Status loaded = library.load();
    lib = &library;
    return loaded;
  }

private:
  Status load() {
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *why = dlerror();
      return Status::error(std::string("tensor parallelism on CUDA needs NCCL: "
                                       "libnccl.so.2 cannot be loaded (") +
                           (why ? why : "not found") + ")");
    }
#define TILE_RESOLVE(name)                                                     \
  name = reinterpret_cast<decltype(name)>(dlsym(h, #name));                   \
  if (!name)                                                                   \
    return Status::error("libnccl.so.2 lacks " #name);
    TILE_NCCL_FUNCTIONS(TILE_RESOLVE)
#undef TILE_RESOLVE
    if (Status s = check(ncclGetVersion(&version), "ncclGetVersion"); !s)
      return s;
    // Graph capture of collectives and bf16 arrived in NCCL 2.10.
    if (version < 21000)
      return Status::error("libnccl.so.2 is version " + std::to_string(version) +
                           "; tensor parallelism needs NCCL 2.10 or later");
    return Status::ok();
  }
};

ncclDataType_t ncclType(DType t) {
  switch (t) {
  case DType::BF16:
    return ncclBfloat16;
  case DType::F16:
    return ncclFloat16;
  default:
    return ncclFloat32;
  }
}

class NcclCommunicator : public CommunicatorImpl {
public:
  NcclCommunicator(const NcclLibrary &nccl, ncclComm_t comm)
      : nccl(nccl), comm(comm) {}
  ~NcclCommunicator() override {
    stopping = true;
    if (releaser.joinable())
      releaser.join();
    // An abort waits for the graphs that captured this communicator's
    // collectives to be destroyed (their owner destroys them first).
    if (aborter.joinable())
      aborter.join();
    else if (comm)
      nccl.ncclCommDestroy(comm);
  }

  Status allReduceSum(StreamImpl &stream, uint64_t address, int64_t count,
                      DType dtype) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (aborted)
      return Status::error("ncclAllReduce: the communicator was aborted (a rank failed)");
    void *p = reinterpret_cast<void *>(address);
    return nccl.check(nccl.ncclAllReduce(p, p, size_t(count), ncclType(dtype),
                                         ncclSum, comm,
                                         static_cast<cudaStream_t>(
                                             stream.nativeStream())),
                      "ncclAllReduce");
  }

  Status allGather(StreamImpl &stream, uint64_t address, int64_t count,
                   DType dtype) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (aborted)
      return Status::error("ncclAllGather: the communicator was aborted (a rank failed)");
    auto *base = reinterpret_cast<char *>(address);
    const size_t slice = size_t(count) * size_t(sizeInBytes(dtype));
    return nccl.check(nccl.ncclAllGather(base + size_t(rank) * slice, base,
                                         size_t(count), ncclType(dtype), comm,
                                         static_cast<cudaStream_t>(
                                             stream.nativeStream())),
                      "ncclAllGather");
  }

  // The peer barrier is not NCCL's: stream memory operations
  // (CudaPeerMemory.cpp).
  Status setFlags(StreamImpl &stream, const std::vector<uint64_t> &flags) override {
    return queueCudaFlagOps(stream, flags, {});
  }
  Status waitFlags(StreamImpl &stream, const std::vector<uint64_t> &flags,
                   const std::shared_ptr<void> &region) override {
    remember(flags, region);
    return queueCudaFlagOps(stream, {}, flags);
  }
  /// The flags a stream of this rank waits on, for abort().
  void remember(const std::vector<uint64_t> &flags, const std::shared_ptr<void> &region) {
    std::lock_guard<std::mutex> lock(mutex);
    for (uint64_t f : flags)
      if (std::find(waited.begin(), waited.end(), f) == waited.end())
        waited.push_back(f);
    if (std::find(regions.begin(), regions.end(), region) == regions.end())
      regions.push_back(region);
  }

  /// ncclCommAbort stops the collectives in flight at once, but returns
  /// only when no captured graph refers to the communicator any more: it
  /// runs on its own thread, joined by the destructor.
  ///
  /// A stream waiting on peer flags is stuck until a peer that failed sets
  /// them: a releaser sets every flag this rank waits on from the host
  /// until the communicator is destroyed (an aborted step clears and waits
  /// on its flags again at every all-reduce), so its graphs drain.
  void abort() override {
    std::lock_guard<std::mutex> lock(mutex);
    if (aborted || !comm)
      return;
    aborted = true;
    aborter = std::thread([this] { nccl.ncclCommAbort(comm); });
    if (!waited.empty())
      releaser = std::thread([this] {
        while (!stopping) {
          setCudaFlagsFromHost(*device, waited);
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      });
  }

  const NcclLibrary &nccl;
  ncclComm_t comm;
  bool aborted = false;
  std::mutex mutex;
  std::thread aborter;
  /// The peer flags this rank's streams wait on, their memory kept mapped.
  std::vector<uint64_t> waited;
  std::vector<std::shared_ptr<void>> regions;
  std::atomic<bool> stopping{false};
  std::thread releaser;
};


/// One small all-reduce on every rank, queued from this thread as an NCCL
/// group: NCCL connects its ranks lazily, at a communicator's first
/// collective, which must therefore not be inside a stream capture (the
/// connection's allocations would invalidate the capture).
Status warmUp(const NcclLibrary &nccl, const std::vector<DeviceImpl *> &devices,
              const std::vector<ncclComm_t> &comms) {
  constexpr size_t kBytes = 256;
  struct Rank {
    std::shared_ptr<StreamImpl> stream;
    uint64_t address = 0;
  };
  std::vector<Rank> ranks(devices.size());
  Status st = Status::ok();
  for (size_t r = 0; r < devices.size() && st; ++r) {
    if ((st = devices[r]->makeCurrent()) && (st = devices[r]->createStream(ranks[r].stream)))
      st = devices[r]->allocate(kBytes, *ranks[r].stream, ranks[r].address);
    if (st)
      st = ranks[r].stream->fill(ranks[r].address, 0, kBytes);
  }
  if (st) {
    st = nccl.check(nccl.ncclGroupStart(), "ncclGroupStart");
    for (size_t r = 0; r < devices.size() && st; ++r) {
      void *p = reinterpret_cast<void *>(ranks[r].address);
      st = nccl.check(nccl.ncclAllReduce(p, p, kBytes / 4, ncclFloat32, ncclSum, comms[r],
                                         static_cast<cudaStream_t>(
                                             ranks[r].stream->nativeStream())),
                      "ncclAllReduce");
    }
    Status end = nccl.check(nccl.ncclGroupEnd(), "ncclGroupEnd");
    if (st)
      st = end;
  }
  for (size_t r = 0; r < devices.size(); ++r) {
    if (!ranks[r].stream)
      continue;
    Status s = devices[r]->makeCurrent();
    if (s)
      s = ranks[r].stream->synchronize();
    if (st && !s)
      st = s;
    if (ranks[r].address)
      devices[r]->free(ranks[r].address, ranks[r].stream.get());
  }
  if (!st)
    return Status::error("NCCL's first all-reduce among the ranks failed: " + st.message());
  return Status::ok();
}

} // namespace

Status tile_runtime::createNcclCommunicators(
    const std::vector<DeviceImpl *> &devices,
    std::vector<std::unique_ptr<CommunicatorImpl>> &out) {
  out.clear();
  const NcclLibrary *nccl = nullptr;
  if (Status s = NcclLibrary::get(nccl); !s)
    return s;
  std::vector<int> ordinals;
  for (DeviceImpl *d : devices)
    ordinals.push_back(d->ordinal());
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  if (Status s = nccl->check(nccl->ncclCommInitAll(comms.data(),
                                                   static_cast<int>(comms.size()),
                                                   ordinals.data()),
                             "ncclCommInitAll");
      !s)
    return s;
  for (ncclComm_t c : comms)
    out.push_back(std::make_unique<NcclCommunicator>(*nccl, c));
  return warmUp(*nccl, devices, comms);
}
