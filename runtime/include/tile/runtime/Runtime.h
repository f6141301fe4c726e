//===- Runtime.h - devices, buffers, streams, launches, graphs --*- C++ -*-===//
//
// The host side of the safety story. A Device (a CUDA GPU through the driver
// API loaded at run time, or the CPU running the host code tilec compiled)
// loads a tilec manifest and its artifact, allocates typed buffers from a
// stream-ordered pool, and launches kernels only when their launch
// contracts hold. Every stream operation is asynchronous and ordered on its
// stream; events order streams and let the host wait; a capture records a
// sequence of launches as a Graph that replays without re-checking (the
// checks ran once, at capture). docs/runtime.md has the model and examples.
//
// Plain C++17, no LLVM/MLIR: it builds and runs on GPU machines with only the
// CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIME_H
#define TILE_RUNTIME_RUNTIME_H

#include "tile/runtime/LaunchContract.h"
#include "tile/runtime/Manifest.h"
#include "tile/runtime/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tile_runtime {

class Device;
class DeviceImpl;
class StreamImpl;
class EventImpl;
class GraphImpl;
struct KernelImpl;

/// Device memory (or host memory for the CPU device). Shared ownership: the
/// storage is freed, stream-ordered on the stream that allocated it, when the
/// last Buffer and the last Graph using it are gone.
struct BufferStorage {
  std::shared_ptr<DeviceImpl> device; ///< the device outlives its buffers
  std::shared_ptr<StreamImpl> stream; ///< the allocating stream
  uint64_t address = 0;
  size_t bytes = 0;
  DType dtype = DType::F32;
  int64_t count = 0; ///< elements
  bool pinnedHost = false;
  /// Stream::freeze was called: never written again.
  bool frozen = false;
  /// Stream::makeTable was called: a checked table, written only by
  /// Stream::writeTable, with contents that keep every rule in `tableRules`.
  bool table = false;
  /// Device buffers of at most kMaxHostMirror bytes: a host copy of the
  /// contents, taken by Stream::freeze (and kept by Stream::writeTable for
  /// a table), which launch contracts read (distinct_in_range). Empty
  /// otherwise.
  std::vector<char> hostMirror;
  /// A table's distinct_in_range rules that launches have checked on it
  /// (the view and the range), which every later write must keep.
  struct TableRule {
    int64_t offset = 0, count = 0, stride = 1; ///< elements
    int64_t lo = 0, hi = 0;
    std::string rule;
  };
  std::vector<TableRule> tableRules;
  static constexpr size_t kMaxHostMirror = size_t(1) << 20;
  /// A view of peer memory (Communicator::createPeerBuffers): the mapping
  /// of every rank's part, released with its last view (never freed on a
  /// stream), and the number of parts.
  std::shared_ptr<void> peerRegion;
  int peerParts = 0;
  ~BufferStorage();
};

/// A typed buffer: `count` elements of `dtype`.
class Buffer {
public:
  Buffer() = default;
  bool valid() const { return storage != nullptr; }
  bool frozen() const { return storage && storage->frozen; }
  bool isTable() const { return storage && storage->table; }
  uint64_t address() const { return storage ? storage->address : 0; }
  size_t bytes() const { return storage ? storage->bytes : 0; }
  DType dtype() const { return storage ? storage->dtype : DType::F32; }
  int64_t count() const { return storage ? storage->count : 0; }
  /// Host-visible memory (pinned host buffers, every CPU-device buffer).
  void *hostData() const;
  const std::shared_ptr<BufferStorage> &shared() const { return storage; }

private:
  friend class Device;
  friend class Communicator;
  std::shared_ptr<BufferStorage> storage;
};

/// One launch argument. Views name their access explicitly: `in` (and
/// `frozen`, whose buffer must be frozen) is shared read-only, `out`/`inout`
/// exclusive; it must be what the kernel declares.
struct Arg {
  enum class Kind : uint8_t { Shared, Exclusive, Int, Float };
  Kind kind = Kind::Int;
  std::shared_ptr<BufferStorage> buffer;
  int64_t offset = 0; ///< elements from the buffer start
  int32_t rank = 0;
  std::array<int64_t, kMaxViewRank> shape{}, strides{};
  int64_t intValue = 0;
  double floatValue = 0;

  /// A shared, read-only view of `buffer`: `shape`, row-major strides unless
  /// given, starting `offset` elements in. Also for `frozen` and `settled`
  /// parameters.
  static Arg in(const Buffer &buffer, std::initializer_list<int64_t> shape,
                std::initializer_list<int64_t> strides = {},
                int64_t offset = 0);
  /// An exclusive view (the kernel's `out` or `inout` parameter).
  static Arg out(const Buffer &buffer, std::initializer_list<int64_t> shape,
                 std::initializer_list<int64_t> strides = {},
                 int64_t offset = 0);
  static Arg inout(const Buffer &buffer, std::initializer_list<int64_t> shape,
                   std::initializer_list<int64_t> strides = {},
                   int64_t offset = 0) {
    return out(buffer, shape, strides, offset);
  }
  /// The kernel's `add` parameter: written (atomically added into), so
  /// passed exclusively like `out`.
  static Arg add(const Buffer &buffer, std::initializer_list<int64_t> shape,
                 std::initializer_list<int64_t> strides = {},
                 int64_t offset = 0) {
    return out(buffer, shape, strides, offset);
  }
  /// The kernel's `ticket` parameter (tile.join's counters): written
  /// atomically, so passed exclusively like `out`. The buffer must hold
  /// zeros when first used; every launch leaves them so.
  static Arg ticket(const Buffer &buffer, std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides = {},
                    int64_t offset = 0) {
    return out(buffer, shape, strides, offset);
  }
  /// Integer scalars (any integer dtype or index) and float scalars (f16,
  /// bf16, f32, f64: converted to the parameter's type).
  static Arg integer(int64_t v);
  static Arg real(double v);
};

/// A kernel of a loaded module.
class Kernel {
public:
  const std::string &name() const;
  const LaunchContract &contract() const;
  int numWarps() const;
  int uncheckedRegions() const;
  /// Compiled to wait for the previous grid at entry (manifest
  /// grid_dependency_wait): CUDA streams launch it as a programmatic
  /// dependent unless the device turned that off.
  bool gridDependencyWait() const;

private:
  friend class Module;
  friend class Stream;
  std::shared_ptr<KernelImpl> impl;
};

/// Kernels loaded from a manifest and its artifact.
class Module {
public:
  /// The kernel called `name`; the error lists the kernels there are.
  Status kernel(std::string_view name, Kernel &kernel) const;
  std::vector<std::string> kernelNames() const;
  const Manifest &manifest() const;

private:
  friend class Device;
  struct Impl;
  std::shared_ptr<Impl> impl;
};

/// A point in a stream's work: recorded on a stream, waited for by the host
/// or by another stream.
class Event {
public:
  bool valid() const { return impl != nullptr; }
  /// Blocks until the work before the record has finished.
  Status wait() const;
  /// True when that work has finished (never blocks).
  bool ready() const;
  /// Milliseconds between `start` and this event (both recorded, both done).
  Status elapsedMs(const Event &start, float &ms) const;

private:
  friend class Stream;
  std::shared_ptr<EventImpl> impl;
};

/// A captured sequence of launches (and device-side copies and fills),
/// replayable any number of times. It holds a reference to every buffer it
/// uses, so none is freed while the graph lives.
class Graph {
public:
  bool valid() const { return impl != nullptr; }
  Status replay(class Stream &stream) const;
  size_t numLaunches() const;
  size_t numBuffers() const;

private:
  friend class Stream;
  std::shared_ptr<GraphImpl> impl;
};

/// An ordered queue of work on one device. All operations are asynchronous
/// (on the CPU device they complete before returning, which is one valid
/// ordering); errors that checks find are returned before anything is queued.
class Stream {
public:
  bool valid() const { return impl != nullptr; }

  /// Checks the arguments against the kernel's manifest and launch contract,
  /// derives the grid, and queues the kernel. On a violation nothing is
  /// launched and the message names the kernel, the argument and the rule.
  Status launch(const Kernel &kernel, std::initializer_list<Arg> args);
  ///
  /// A chained kernel (tilec --chain) runs its parts in order in one grid:
  /// it takes each part's arguments in order (each part's contract checks
  /// its own), then its counters, an Arg::ticket of at least one more i32
  /// than it has parts, zeros at the first launch (every launch leaves them
  /// so). No part may have an empty grid, and a part's `settled` views must
  /// not overlap what an earlier part writes.
  Status launch(const Kernel &kernel, const Arg *args, size_t numArgs);

  /// Host <-> device copies (offsets and sizes in bytes, inside the buffer).
  Status copyToDevice(const Buffer &dst, const void *src, size_t bytes,
                      size_t dstOffset = 0);
  Status copyToHost(void *dst, const Buffer &src, size_t bytes,
                    size_t srcOffset = 0);
  /// Device-to-device, inside one device (the ranges must not overlap).
  Status copy(const Buffer &dst, const Buffer &src, size_t bytes, size_t dstOffset = 0,
              size_t srcOffset = 0);
  Status fill(const Buffer &dst, uint8_t byte);

  /// Freezes `buffer` for the rest of its life: no launch may write it and
  /// no copy or fill may change it, and kernels may read it as `frozen`
  /// (through the read-only cache, even while the grid before them is still
  /// running). Waits for this stream's queued work first, so every write
  /// queued before has landed; writes on other streams must be ordered
  /// before it by the caller, as for any cross-stream use. Freezing a
  /// frozen buffer does nothing.
  Status freeze(const Buffer &buffer);

  /// Makes `buffer` (at most 1 MiB of integers) a checked table: an index
  /// table that changes between launches or graph replays (a paged KV
  /// cache's block table) yet backs a kernel's `frozen` parameter and its
  /// assume_distinct rule. No launch may write it and no copy or fill
  /// change it; only writeTable does. Every distinct_in_range rule a launch
  /// checks on it (its view and range) is kept for the buffer's life, and
  /// writeTable refuses contents that break one, so a replayed graph reads
  /// only entries its capture's rules allow. Waits for the stream's queued
  /// work first, as freeze does.
  Status makeTable(const Buffer &buffer);
  /// Writes `bytes` from `src` at `dstOffset` of checked table `buffer`,
  /// queued on this stream (later launches read the new entries), after
  /// checking the new contents against every rule kept for it: on a
  /// violation nothing is written and the message names the rule. Not while
  /// capturing. Kernels on other streams must be ordered by the caller.
  Status writeTable(const Buffer &buffer, const void *src, size_t bytes,
                    size_t dstOffset = 0);

  /// Records `event` at this point of the stream.
  Status record(Event &event);
  /// Later work on this stream waits for `event` (recorded on any stream of
  /// the same device).
  Status wait(const Event &event);
  Status synchronize();

  /// Starts recording this stream's work into a graph instead of running
  /// it: launches are checked now, once. Allocation on the device while a
  /// capture is open is an error (a graph replays fixed addresses), and so
  /// are host copies (the host memory would have to outlive the graph).
  Status beginCapture();
  Status endCapture(Graph &graph);
  bool capturing() const;

private:
  friend class Device;
  friend class Graph;
  friend class Communicator;
  friend struct BufferStorage;
  Status launchChain(const KernelImpl &kernel, const Arg *args, size_t numArgs);
  /// A collective's step on this stream (Communicator): checks that `bytes`
  /// at `offset` of `buffer` are this device's and writable, keeps the
  /// buffer while capturing, records the write, then `queue`s the work at
  /// the range's address.
  Status queueCollective(const Buffer &buffer, size_t offset, size_t bytes,
                         const char *what,
                         const std::function<Status(StreamImpl &, uint64_t)> &queue);
  /// While capturing: the launch's buffers, which the graph keeps alive.
  void keepCaptured(const Arg *args, size_t numArgs);
  std::shared_ptr<StreamImpl> impl;
};

/// Allocation statistics of a device's pool.
struct PoolStats {
  int64_t allocations = 0, frees = 0;
  int64_t bytesInUse = 0, peakBytesInUse = 0;
  /// Memory the pool holds from the driver (CUDA: reserved; CPU: in use).
  int64_t bytesReserved = 0;
};

class Device {
public:
  /// "cuda", "cuda:N" or "cpu". The CUDA device loads libcuda.so.1 at run
  /// time; without a driver or GPU the error says so.
  static Status open(std::string_view spec, std::unique_ptr<Device> &device);
  ~Device();

  bool isCuda() const;
  /// "NVIDIA H100 80GB HBM3 (sm_90)" or "cpu".
  std::string name() const;
  /// The tilec target whose artifacts run here ("sm_90a", "host").
  std::string target() const;

  /// Loads the manifest at `manifestPath` and the artifact of this device's
  /// kind beside it (CUBIN or host shared object), checking the manifest's
  /// version, the artifact's SHA-256 and target, and that every kernel is in
  /// it.
  Status loadModule(const std::string &manifestPath, Module &module);

  Stream &defaultStream();
  Status createStream(Stream &stream);

  /// `count` elements of `dtype`, stream-ordered on `stream`.
  Status allocate(DType dtype, int64_t count, Stream &stream, Buffer &buffer);
  Status allocate(DType dtype, int64_t count, Buffer &buffer) {
    return allocate(dtype, count, defaultStream(), buffer);
  }
  /// Page-locked host memory (plain host memory on the CPU device).
  Status allocateHost(DType dtype, int64_t count, Buffer &buffer);

  PoolStats poolStats() const;
  /// Programmatic dependent launch (CUDA, on by default): kernels compiled
  /// to wait for the prior grid start while it finishes, in streams and
  /// captured graphs. Off: every launch waits for the previous to end
  /// (A/B measurements). Applies to launches made after the call.
  void setProgrammaticLaunch(bool enabled);
  bool programmaticLaunch() const;
  /// Memory free for new buffers and the device's total, in bytes (the
  /// host's available memory on the CPU device).
  Status memoryInfo(int64_t &freeBytes, int64_t &totalBytes) const;
  /// The GPU's streaming multiprocessors (to size grids in waves); 0 on the
  /// CPU device.
  int multiprocessors() const;
  /// Binds the device to the calling thread (CUDA: makes its context
  /// current). A thread other than the one that opened the device calls it
  /// before using the device (a thread per device of a tensor-parallel run).
  Status makeCurrent();

private:
  friend class Communicator;
  Device() = default;
  std::shared_ptr<DeviceImpl> impl;
  Stream defaultStream_;
};

} // namespace tile_runtime

#endif // TILE_RUNTIME_RUNTIME_H
