//===- DeviceImpl.h - what a device kind implements -------------*- C++ -*-===//
//
// Private to the runtime. Runtime.cpp does everything both devices share
// (argument and contract checks, buffer bookkeeping, graph references); a
// device kind (CpuDevice.cpp, CudaDevice.cpp) implements memory, streams,
// events, module loading, packing and launching.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_DEVICEIMPL_H
#define TILE_RUNTIME_LIB_DEVICEIMPL_H

#include "ProgrammaticChain.h"
#include "tile/runtime/Runtime.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace tile_runtime {

/// A launch after its checks: the kernel, the grid and block, and the
/// arguments in the kernel's ABI order (views resolved to addresses).
struct CheckedLaunch {
  const KernelImpl *kernel = nullptr;
  std::array<int64_t, 3> grid{};
  const LaunchArg *args = nullptr;
  size_t numArgs = 0;
  /// Launched as a programmatic dependent of the kernel before it (the
  /// kernel waits for that grid itself; ProgrammaticChain admitted it).
  bool programmatic = false;
};

struct KernelImpl {
  ManifestKernel meta;
  void *function = nullptr; ///< CUfunction, or the host _tile_packed_ entry
  std::shared_ptr<void> module; ///< keeps the loaded artifact alive
  std::shared_ptr<DeviceImpl> device; ///< the device outlives its kernels
  /// A chain's parts (ManifestKernel::chain), in order.
  std::vector<std::shared_ptr<KernelImpl>> parts;
};

class EventImpl {
public:
  virtual ~EventImpl() = default;
  virtual Status wait() = 0;
  virtual bool ready() = 0;
  virtual Status elapsedMs(EventImpl &start, float &ms) = 0;
};

class GraphImpl {
public:
  virtual ~GraphImpl() = default;
  virtual Status replay(StreamImpl &stream) = 0;
  size_t launches = 0;
  std::shared_ptr<DeviceImpl> owner;
  /// Every buffer a captured operation uses: none is freed while the graph
  /// lives.
  std::vector<std::shared_ptr<BufferStorage>> buffers;
};

class StreamImpl {
public:
  explicit StreamImpl(DeviceImpl *device) : device(device) {}
  virtual ~StreamImpl() = default;
  virtual Status launch(const CheckedLaunch &launch) = 0;
  virtual Status copyToDevice(uint64_t dst, const void *src, size_t n) = 0;
  virtual Status copyToHost(void *dst, uint64_t src, size_t n) = 0;
  virtual Status copy(uint64_t dst, uint64_t src, size_t n) = 0;
  virtual Status fill(uint64_t dst, uint8_t byte, size_t n) = 0;
  virtual Status record(std::shared_ptr<EventImpl> &event) = 0;
  virtual Status wait(EventImpl &event) = 0;
  virtual Status synchronize() = 0;
  virtual Status beginCapture() = 0;
  virtual Status endCapture(std::shared_ptr<GraphImpl> &graph) = 0;
  /// The CUDA stream (CUstream) that libraries queue their work on (NCCL);
  /// null on the CPU device.
  virtual void *nativeStream() { return nullptr; }
  /// Queues a host function in stream order, captured like a launch (the
  /// CPU device's collectives); CUDA streams refuse it.
  virtual Status hostFunction(std::function<void()> fn) {
    (void)fn;
    return Status::error("host functions run only on the CPU device's streams");
  }

  DeviceImpl *device;
  /// The device outlives its streams (and through them, buffers).
  std::shared_ptr<DeviceImpl> owner;
  /// While capturing: what the graph will hold on to.
  bool isCapturing = false;
  size_t capturedLaunches = 0;
  std::vector<std::shared_ptr<BufferStorage>> capturedBuffers;
  /// What a programmatic dependent launched next could overlap.
  ProgrammaticChain chain;
};

class DeviceImpl {
public:
  virtual ~DeviceImpl() = default;
  virtual bool isCuda() const = 0;
  virtual std::string name() const = 0;
  virtual std::string target() const = 0;
  /// The artifact kind this device runs ("cubin", "host-so").
  virtual const char *artifactKind() const = 0;
  /// Loads `bytes` (`artifact`, read from `path` and checked against the
  /// manifest) and resolves every kernel of `manifest` into `functions`.
  virtual Status loadArtifact(const Manifest &manifest,
                              const ManifestArtifact &artifact,
                              const std::string &path,
                              const std::string &bytes,
                              std::shared_ptr<void> &module,
                              std::vector<void *> &functions) = 0;
  virtual Status createStream(std::shared_ptr<StreamImpl> &stream) = 0;
  virtual Status allocate(size_t bytes, StreamImpl &stream,
                          uint64_t &address) = 0;
  virtual void free(uint64_t address, StreamImpl *stream) = 0;
  virtual Status allocateHost(size_t bytes, uint64_t &address) = 0;
  virtual void freeHost(uint64_t address) = 0;
  virtual int64_t bytesReserved() const = 0;
  virtual Status memoryInfo(int64_t &freeBytes, int64_t &totalBytes) = 0;
  /// Streaming multiprocessors; 0 where there are none (the CPU device).
  virtual int multiprocessors() const { return 0; }
  /// The CUDA device ordinal; -1 on the CPU device.
  virtual int ordinal() const { return -1; }
  /// Binds the device to the calling thread (CUDA: its context current).
  virtual Status makeCurrent() { return Status::ok(); }

  std::mutex statsMutex;
  PoolStats stats;
  /// Streams of this device capturing now: allocation is refused.
  std::atomic<int> openCaptures{0};
  std::atomic<bool> programmaticLaunch{true};
};

std::unique_ptr<DeviceImpl> createCpuDevice();
Status createCudaDevice(int ordinal, std::unique_ptr<DeviceImpl> &device);

} // namespace tile_runtime

#endif // TILE_RUNTIME_LIB_DEVICEIMPL_H
