//===- CpuDevice.cpp - the runtime on the host ----------------------------===//
//
// Runs the host code tilec compiled ahead of time (--with-host: a shared
// object exporting `_tile_packed_<kernel>(void **args)`), so every runtime
// test runs without a GPU and without LLVM. Streams complete each operation
// before returning (a valid stream order); a capture records the launches
// and device-side copies as a list that a replay runs again.
//
//===----------------------------------------------------------------------===//

#include "DeviceImpl.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <unistd.h>

using namespace tile_runtime;

namespace {

using PackedEntry = void (*)(void **);

/// A launch in the host ABI, self-contained so a graph can replay it: each
/// view is a memref descriptor {allocated, aligned, offset, sizes, strides}
/// passed by pointer, each scalar its value, then the three grid extents.
struct HostLaunch {
  PackedEntry entry = nullptr;
  std::vector<int64_t> words;
  /// Per parameter: where its descriptor or value starts in `words`.
  std::vector<std::pair<size_t, bool>> slots; ///< (offset, is a view)

  void run() {
    std::vector<int64_t *> descriptors(slots.size());
    std::vector<void *> params(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) {
      int64_t *at = words.data() + slots[i].first;
      if (slots[i].second) {
        descriptors[i] = at;
        params[i] = &descriptors[i];
      } else {
        params[i] = at;
      }
    }
    entry(params.data());
  }
};

class CpuEvent : public EventImpl {
public:
  std::chrono::steady_clock::time_point when = std::chrono::steady_clock::now();
  Status wait() override { return Status::ok(); }
  bool ready() override { return true; }
  Status elapsedMs(EventImpl &start, float &ms) override {
    auto *s = dynamic_cast<CpuEvent *>(&start);
    if (!s)
      return Status::error("elapsedMs: the events belong to different "
                           "devices");
    ms = std::chrono::duration<float, std::milli>(when - s->when).count();
    return Status::ok();
  }
};

class CpuGraph : public GraphImpl {
public:
  DeviceImpl *device = nullptr;
  std::vector<std::function<void()>> ops;
  Status replay(StreamImpl &stream) override {
    if (stream.device != device)
      return Status::error("replay: the graph belongs to another device");
    for (auto &op : ops)
      op();
    return Status::ok();
  }
};

class CpuStream : public StreamImpl {
public:
  using StreamImpl::StreamImpl;
  std::shared_ptr<CpuGraph> recording;

  void run(std::function<void()> op) {
    if (recording)
      recording->ops.push_back(std::move(op));
    else
      op();
  }

  Status launch(const CheckedLaunch &l) override {
    HostLaunch h;
    h.entry = reinterpret_cast<PackedEntry>(l.kernel->function);
    for (size_t i = 0; i < l.numArgs; ++i) {
      const LaunchArg &a = l.args[i];
      h.slots.push_back({h.words.size(), a.isView});
      if (!a.isView) {
        h.words.push_back(a.scalar);
        continue;
      }
      h.words.push_back(static_cast<int64_t>(a.address));
      h.words.push_back(static_cast<int64_t>(a.address));
      h.words.push_back(0);
      for (int d = 0; d < a.rank; ++d)
        h.words.push_back(a.shape[d]);
      for (int d = 0; d < a.rank; ++d)
        h.words.push_back(a.strides[d]);
    }
    for (int64_t g : l.grid) {
      h.slots.push_back({h.words.size(), false});
      h.words.push_back(g);
    }
    run([h]() mutable { h.run(); });
    return Status::ok();
  }
  Status copyToDevice(uint64_t dst, const void *src, size_t n) override {
    std::memcpy(reinterpret_cast<void *>(dst), src, n);
    return Status::ok();
  }
  Status copyToHost(void *dst, uint64_t src, size_t n) override {
    std::memcpy(dst, reinterpret_cast<const void *>(src), n);
    return Status::ok();
  }
  Status copy(uint64_t dst, uint64_t src, size_t n) override {
    run([=] {
      std::memcpy(reinterpret_cast<void *>(dst),
                  reinterpret_cast<const void *>(src), n);
    });
    return Status::ok();
  }
  Status fill(uint64_t dst, uint8_t byte, size_t n) override {
    run([=] { std::memset(reinterpret_cast<void *>(dst), byte, n); });
    return Status::ok();
  }
  Status record(std::shared_ptr<EventImpl> &event) override {
    if (recording)
      return Status::error("record: events are not captured on the CPU "
                           "device");
    event = std::make_shared<CpuEvent>();
    return Status::ok();
  }
  Status wait(EventImpl &event) override {
    if (!dynamic_cast<CpuEvent *>(&event))
      return Status::error("wait: the event belongs to another device");
    return Status::ok();
  }
  Status synchronize() override { return Status::ok(); }
  Status hostFunction(std::function<void()> fn) override {
    run(std::move(fn));
    return Status::ok();
  }
  Status beginCapture() override {
    recording = std::make_shared<CpuGraph>();
    recording->device = device;
    return Status::ok();
  }
  Status endCapture(std::shared_ptr<GraphImpl> &graph) override {
    graph = std::move(recording);
    recording = nullptr;
    return Status::ok();
  }
};

/// A loaded host shared object, closed (and its temporary copy removed)
/// when the last kernel using it goes.
struct LoadedLibrary {
  void *handle = nullptr;
  ~LoadedLibrary() {
    if (handle)
      dlclose(handle);
  }
};

class CpuDevice : public DeviceImpl {
public:
  bool isCuda() const override { return false; }
  std::string name() const override { return "cpu"; }
  std::string target() const override { return "host"; }
  const char *artifactKind() const override { return "host-so"; }

  Status loadArtifact(const Manifest &manifest, const ManifestArtifact &,
                      const std::string &path, const std::string &bytes,
                      std::shared_ptr<void> &module,
                      std::vector<void *> &functions) override {
    // dlopen the very bytes whose SHA-256 was checked, not the path again
    // (the file could change in between): write them to a private file.
    char tmpl[] = "/tmp/tile-host-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
      return Status::error(path + ": cannot create a temporary file");
    bool written = ::write(fd, bytes.data(), bytes.size()) ==
                   static_cast<ssize_t>(bytes.size());
    ::close(fd);
    auto lib = std::make_shared<LoadedLibrary>();
    if (written)
      lib->handle = dlopen(tmpl, RTLD_NOW | RTLD_LOCAL);
    std::string error = written ? (lib->handle ? "" : dlerror()) : "write";
    ::unlink(tmpl);
    if (!lib->handle)
      return Status::error(path + ": cannot load the host shared object: " +
                           error);
    for (const ManifestKernel &k : manifest.kernels) {
      // A chain runs its parts one after another here (Stream::launch).
      if (!k.chain.empty()) {
        functions.push_back(nullptr);
        continue;
      }
      void *f = dlsym(lib->handle, ("_tile_packed_" + k.name).c_str());
      if (!f)
        return Status::error(path + ": kernel " + k.name +
                             " of the manifest is not in the shared object");
      functions.push_back(f);
    }
    module = lib;
    return Status::ok();
  }

  Status createStream(std::shared_ptr<StreamImpl> &stream) override {
    stream = std::make_shared<CpuStream>(this);
    return Status::ok();
  }
  Status allocate(size_t bytes, StreamImpl &, uint64_t &address) override {
    return allocateAligned(bytes, address);
  }
  static Status allocateAligned(size_t bytes, uint64_t &address) {
    // 256-byte aligned like cuMemAlloc, so the same views are valid on both.
    void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p)
      return Status::error("out of host memory allocating " +
                           std::to_string(bytes) + " bytes");
    address = reinterpret_cast<uint64_t>(p);
    return Status::ok();
  }
  void free(uint64_t address, StreamImpl *) override {
    std::free(reinterpret_cast<void *>(address));
  }
  Status allocateHost(size_t bytes, uint64_t &address) override {
    return allocateAligned(bytes, address);
  }
  void freeHost(uint64_t address) override { free(address, nullptr); }
  int64_t bytesReserved() const override { return stats.bytesInUse; }
  Status memoryInfo(int64_t &freeBytes, int64_t &totalBytes) override {
    long page = ::sysconf(_SC_PAGESIZE), avail = ::sysconf(_SC_AVPHYS_PAGES),
         phys = ::sysconf(_SC_PHYS_PAGES);
    if (page <= 0 || avail < 0 || phys <= 0)
      return Status::error("cannot read the host's memory size");
    freeBytes = static_cast<int64_t>(avail) * page;
    totalBytes = static_cast<int64_t>(phys) * page;
    return Status::ok();
  }
};

} // namespace

std::unique_ptr<DeviceImpl> tile_runtime::createCpuDevice() {
  return std::make_unique<CpuDevice>();
}
