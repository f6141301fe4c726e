//===- Runtime.cpp - what both devices share ------------------------------===//
//
// Buffer bookkeeping and stream-ordered frees, modules and kernels, copies,
// events, and the references a capture collects for its graph. (Launches
// and their checks: StreamLaunch.cpp.)
//
//===----------------------------------------------------------------------===//

#include "DeviceImpl.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace tile_runtime;

//===----------------------------------------------------------------------===//
// Buffers and arguments
//===----------------------------------------------------------------------===//

BufferStorage::~BufferStorage() {
  if (!device || !address || peerRegion)
    return;
  if (pinnedHost)
    device->freeHost(address);
  else
    device->free(address, stream.get());
  std::lock_guard<std::mutex> lock(device->statsMutex);
  if (!pinnedHost) {
    device->stats.frees++;
    device->stats.bytesInUse -= static_cast<int64_t>(bytes);
  }
}

void *Buffer::hostData() const {
  if (!storage || (storage->device->isCuda() && !storage->pinnedHost))
    return nullptr;
  return reinterpret_cast<void *>(storage->address);
}

static Arg makeView(Arg::Kind kind, const Buffer &buffer,
                    std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides, int64_t offset) {
  Arg a;
  a.kind = kind;
  a.buffer = buffer.shared();
  a.offset = offset;
  // Ranks past kMaxViewRank (or shape/strides of different ranks) are
  // reported by the launch, which sees rank = -1.
  if (shape.size() > static_cast<size_t>(kMaxViewRank) ||
      (strides.size() && strides.size() != shape.size())) {
    a.rank = -1;
    return a;
  }
  a.rank = static_cast<int32_t>(shape.size());
  std::copy(shape.begin(), shape.end(), a.shape.begin());
  if (strides.size()) {
    std::copy(strides.begin(), strides.end(), a.strides.begin());
  } else {
    int64_t s = 1;
    for (int d = a.rank - 1; d >= 0; --d) {
      a.strides[d] = s;
      s *= std::max<int64_t>(a.shape[d], 1);
    }
  }
  return a;
}

Arg Arg::in(const Buffer &buffer, std::initializer_list<int64_t> shape,
            std::initializer_list<int64_t> strides, int64_t offset) {
  return makeView(Kind::Shared, buffer, shape, strides, offset);
}
Arg Arg::out(const Buffer &buffer, std::initializer_list<int64_t> shape,
             std::initializer_list<int64_t> strides, int64_t offset) {
  return makeView(Kind::Exclusive, buffer, shape, strides, offset);
}
Arg Arg::integer(int64_t v) {
  Arg a;
  a.kind = Kind::Int;
  a.intValue = v;
  return a;
}
Arg Arg::real(double v) {
  Arg a;
  a.kind = Kind::Float;
  a.floatValue = v;
  return a;
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

struct Module::Impl {
  Manifest manifest;
  std::vector<std::shared_ptr<KernelImpl>> kernels;
};

const std::string &Kernel::name() const { return impl->meta.name; }
const LaunchContract &Kernel::contract() const { return impl->meta.contract; }
int Kernel::numWarps() const { return impl->meta.numWarps; }
int Kernel::uncheckedRegions() const { return impl->meta.uncheckedRegions; }
bool Kernel::gridDependencyWait() const { return impl->meta.gridDependencyWait; }

Status Module::kernel(std::string_view name, Kernel &kernel) const {
  if (!impl)
    return Status::error("the module is not loaded");
  for (const auto &k : impl->kernels)
    if (k->meta.name == name) {
      kernel.impl = k;
      return Status::ok();
    }
  std::string names;
  for (const auto &k : impl->kernels)
    names += (names.empty() ? "" : ", ") + k->meta.name;
  return Status::error(impl->manifest.path + ": no kernel named '" +
                       std::string(name) + "' (it has " + names + ")");
}

std::vector<std::string> Module::kernelNames() const {
  std::vector<std::string> out;
  if (impl)
    for (const auto &k : impl->kernels)
      out.push_back(k->meta.name);
  return out;
}

const Manifest &Module::manifest() const { return impl->manifest; }

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

Device::~Device() {
  // The default stream goes before the device it belongs to.
  defaultStream_ = Stream();
}

Status Device::open(std::string_view spec, std::unique_ptr<Device> &device) {
  std::unique_ptr<DeviceImpl> impl;
  if (spec == "cpu") {
    impl = createCpuDevice();
  } else if (spec == "cuda" || spec.substr(0, 5) == "cuda:") {
    int ordinal = 0;
    if (spec.size() > 5) {
      std::string digits(spec.substr(5));
      if (digits.empty() || digits.size() > 4 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        return Status::error("device '" + std::string(spec) +
                             "': expected cuda:N");
      ordinal = std::stoi(digits);
    }
    if (Status s = createCudaDevice(ordinal, impl); !s)
      return s;
  } else {
    return Status::error("unknown device '" + std::string(spec) +
                         "' (expected cuda, cuda:N or cpu)");
  }
  std::unique_ptr<Device> d(new Device());
  d->impl = std::move(impl);
  if (Status s = d->createStream(d->defaultStream_); !s)
    return s;
  device = std::move(d);
  return Status::ok();
}

bool Device::isCuda() const { return impl->isCuda(); }
std::string Device::name() const { return impl->name(); }
std::string Device::target() const { return impl->target(); }
Stream &Device::defaultStream() { return defaultStream_; }

Status Device::createStream(Stream &stream) {
  if (Status s = impl->createStream(stream.impl); !s)
    return s;
  stream.impl->owner = impl;
  return Status::ok();
}

Status Device::loadModule(const std::string &manifestPath, Module &module) {
  auto m = std::make_shared<Module::Impl>();
  if (Status s = Manifest::load(manifestPath, m->manifest); !s)
    return s;
  const ManifestArtifact *artifact =
      m->manifest.artifact(impl->artifactKind());
  if (!artifact)
    return Status::error(manifestPath + ": no " + impl->artifactKind() +
                         " artifact for this device (" + impl->name() +
                         "); compile with tilec " +
                         (impl->isCuda() ? "--emit=cubin" : "--with-host"));
  std::string bytes;
  if (Status s = m->manifest.readArtifact(*artifact, bytes); !s)
    return s;
  std::string path = m->manifest.artifactPath(*artifact);
  std::shared_ptr<void> loaded;
  std::vector<void *> functions;
  if (Status s = impl->loadArtifact(m->manifest, *artifact, path, bytes,
                                    loaded, functions);
      !s)
    return s;
  for (size_t i = 0; i < m->manifest.kernels.size(); ++i) {
    auto k = std::make_shared<KernelImpl>();
    k->meta = m->manifest.kernels[i];
    k->function = functions[i];
    k->module = loaded;
    k->device = impl;
    m->kernels.push_back(std::move(k));
  }
  for (const auto &k : m->kernels)
    for (const std::string &part : k->meta.chain)
      for (const auto &other : m->kernels)
        if (other->meta.name == part)
          k->parts.push_back(other);
  module.impl = std::move(m);
  return Status::ok();
}

static Status allocateStorage(const std::shared_ptr<DeviceImpl> &owner,
                              DType dtype, int64_t count,
                              StreamImpl *stream, bool pinned,
                              std::shared_ptr<BufferStorage> &storage) {
  DeviceImpl &dev = *owner;
  if (count < 0 ||
      count > std::numeric_limits<int64_t>::max() / 8 / sizeInBytes(dtype))
    return Status::error("cannot allocate " + std::to_string(count) +
                         " elements");
  if (!pinned && dev.openCaptures.load() > 0)
    return Status::error("cannot allocate device memory while a stream of "
                         "this device is capturing a graph: allocate before "
                         "the capture (a graph replays fixed addresses)");
  size_t bytes = static_cast<size_t>(count * sizeInBytes(dtype));
  auto s = std::make_shared<BufferStorage>();
  Status st = pinned ? dev.allocateHost(std::max<size_t>(bytes, 1), s->address)
                     : dev.allocate(std::max<size_t>(bytes, 1), *stream,
                                    s->address);
  if (!st)
    return st;
  s->device = owner;
  s->bytes = bytes;
  s->dtype = dtype;
  s->count = count;
  s->pinnedHost = pinned;
  if (!pinned) {
    std::lock_guard<std::mutex> lock(dev.statsMutex);
    dev.stats.allocations++;
    dev.stats.bytesInUse += static_cast<int64_t>(bytes);
    dev.stats.peakBytesInUse =
        std::max(dev.stats.peakBytesInUse, dev.stats.bytesInUse);
  }
  storage = std::move(s);
  return Status::ok();
}

Status Device::allocate(DType dtype, int64_t count, Stream &stream,
                        Buffer &buffer) {
  if (!stream.impl || stream.impl->device != impl.get())
    return Status::error("allocate: the stream belongs to another device");
  std::shared_ptr<BufferStorage> s;
  if (Status st = allocateStorage(impl, dtype, count, stream.impl.get(),
                                  false, s);
      !st)
    return st;
  s->stream = stream.impl;
  buffer.storage = std::move(s);
  return Status::ok();
}

Status Device::allocateHost(DType dtype, int64_t count, Buffer &buffer) {
  std::shared_ptr<BufferStorage> s;
  if (Status st = allocateStorage(impl, dtype, count, nullptr, true, s);
      !st)
    return st;
  buffer.storage = std::move(s);
  return Status::ok();
}

Status Device::memoryInfo(int64_t &freeBytes, int64_t &totalBytes) const {
  return impl->memoryInfo(freeBytes, totalBytes);
}

int Device::multiprocessors() const { return impl->multiprocessors(); }
Status Device::makeCurrent() { return impl->makeCurrent(); }

void Device::setProgrammaticLaunch(bool enabled) {
  impl->programmaticLaunch = enabled;
}
bool Device::programmaticLaunch() const { return impl->programmaticLaunch; }

PoolStats Device::poolStats() const {
  std::lock_guard<std::mutex> lock(impl->statsMutex);
  PoolStats s = impl->stats;
  s.bytesReserved = impl->bytesReserved();
  return s;
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

/// Checks a buffer argument of a stream operation.
/// `bytes` at `offset` of `b`, on this stream's device; `writes`: also not
/// frozen.
static Status checkBuffer(const StreamImpl &s, const Buffer &b,
                          const char *what, size_t offset, size_t bytes,
                          bool writes = false) {
  if (!b.valid())
    return Status::error(std::string(what) + ": the buffer is empty");
  if (b.shared()->device.get() != s.device)
    return Status::error(std::string(what) +
                         ": the buffer belongs to another device");
  if (writes && b.frozen())
    return Status::error(std::string(what) +
                         ": the buffer is frozen (Stream::freeze)");
  if (writes && b.isTable())
    return Status::error(std::string(what) +
                         ": the buffer is a checked table (Stream::makeTable): "
                         "only Stream::writeTable changes it");
  if (offset > b.bytes() || bytes > b.bytes() - offset)
    return Status::error(std::string(what) + ": " + std::to_string(bytes) +
                         " bytes at offset " + std::to_string(offset) +
                         " do not fit the buffer of " +
                         std::to_string(b.bytes()) + " bytes");
  return Status::ok();
}

static void keep(StreamImpl &s, const std::shared_ptr<BufferStorage> &b) {
  if (s.isCapturing)
    s.capturedBuffers.push_back(b);
}

Status Stream::copyToDevice(const Buffer &dst, const void *src, size_t bytes,
                            size_t dstOffset) {
  if (!impl)
    return Status::error("copyToDevice: no stream");
  if (Status s = checkBuffer(*impl, dst, "copyToDevice", dstOffset, bytes,
                             /*writes=*/true);
      !s)
    return s;
  if (impl->isCapturing)
    return Status::error("copyToDevice: host copies cannot be captured (the "
                         "host memory would have to outlive the graph); "
                         "write per-replay inputs before replaying");
  uint64_t at = dst.address() + dstOffset;
  impl->chain.recordWrite({at, at + bytes});
  return impl->copyToDevice(at, src, bytes);
}

Status Stream::copyToHost(void *dst, const Buffer &src, size_t bytes,
                          size_t srcOffset) {
  if (!impl)
    return Status::error("copyToHost: no stream");
  if (Status s = checkBuffer(*impl, src, "copyToHost", srcOffset, bytes); !s)
    return s;
  if (impl->isCapturing)
    return Status::error("copyToHost: host copies cannot be captured; read "
                         "results after the replay");
  return impl->copyToHost(dst, src.address() + srcOffset, bytes);
}

Status Stream::copy(const Buffer &dst, const Buffer &src, size_t bytes, size_t dstOffset,
                    size_t srcOffset) {
  if (!impl)
    return Status::error("copy: no stream");
  if (Status s = checkBuffer(*impl, dst, "copy (destination)", dstOffset, bytes,
                             /*writes=*/true);
      !s)
    return s;
  if (Status s = checkBuffer(*impl, src, "copy (source)", srcOffset, bytes); !s)
    return s;
  uint64_t d = dst.address() + dstOffset, s0 = src.address() + srcOffset;
  if (bytes && d < s0 + bytes && s0 < d + bytes)
    return Status::error("copy: source and destination overlap");
  keep(*impl, dst.shared());
  keep(*impl, src.shared());
  impl->chain.recordWrite({d, d + bytes});
  return impl->copy(d, s0, bytes);
}

Status Stream::fill(const Buffer &dst, uint8_t byte) {
  if (!impl)
    return Status::error("fill: no stream");
  if (Status s = checkBuffer(*impl, dst, "fill", 0, dst.bytes(),
                             /*writes=*/true);
      !s)
    return s;
  keep(*impl, dst.shared());
  impl->chain.recordWrite({dst.address(), dst.address() + dst.bytes()});
  return impl->fill(dst.address(), byte, dst.bytes());
}

Status Stream::queueCollective(
    const Buffer &buffer, size_t offset, size_t bytes, const char *what,
    const std::function<Status(StreamImpl &, uint64_t)> &queue) {
  if (!impl)
    return Status::error(std::string(what) + ": no stream");
  if (Status s = checkBuffer(*impl, buffer, what, offset, bytes,
                             /*writes=*/true);
      !s)
    return s;
  keep(*impl, buffer.shared());
  uint64_t at = buffer.address() + offset;
  impl->chain.recordWrite({at, at + bytes});
  return queue(*impl, at);
}

Status Stream::freeze(const Buffer &buffer) {
  if (!impl)
    return Status::error("freeze: no stream");
  if (Status s = checkBuffer(*impl, buffer, "freeze", 0, 0); !s)
    return s;
  if (buffer.shared()->pinnedHost)
    return Status::error("freeze: the buffer is host memory");
  if (buffer.frozen())
    return Status::ok();
  if (impl->isCapturing)
    return Status::error("freeze: not while capturing (it waits for the "
                         "stream)");
  // Every write queued before lands before any kernel reads it frozen: no
  // later launch on this stream can overlap a writer (programmatic
  // dependents overlap only the grid before them, on their own stream).
  if (Status s = impl->synchronize(); !s)
    return s;
  // Small device buffers keep a host copy for launch checks that read
  // contents (index tables): frozen, they never change again.
  BufferStorage &b = *buffer.shared();
  if (!buffer.hostData() && b.bytes <= BufferStorage::kMaxHostMirror) {
    b.hostMirror.resize(b.bytes);
    if (Status s = impl->copyToHost(b.hostMirror.data(), b.address, b.bytes);
        !s)
      return s;
    if (Status s = impl->synchronize(); !s)
      return s;
  }
  b.frozen = true;
  return Status::ok();
}

Status Stream::makeTable(const Buffer &buffer) {
  if (!impl)
    return Status::error("makeTable: no stream");
  if (Status s = checkBuffer(*impl, buffer, "makeTable", 0, 0); !s)
    return s;
  BufferStorage &b = *buffer.shared();
  if (b.pinnedHost)
    return Status::error("makeTable: the buffer is host memory");
  if (b.frozen)
    return Status::error("makeTable: the buffer is frozen");
  if (b.table)
    return Status::ok();
  if (b.dtype != DType::I8 && b.dtype != DType::I16 && b.dtype != DType::I32 &&
      b.dtype != DType::I64)
    return Status::error("makeTable: a table holds integers, the buffer holds " +
                         std::string(toString(b.dtype)));
  if (b.bytes > BufferStorage::kMaxHostMirror)
    return Status::error("makeTable: a table is at most " +
                         std::to_string(BufferStorage::kMaxHostMirror) + " bytes, the buffer has " +
                         std::to_string(b.bytes));
  if (impl->isCapturing)
    return Status::error("makeTable: not while capturing (it waits for the stream)");
  if (Status s = impl->synchronize(); !s)
    return s;
  if (!buffer.hostData()) {
    b.hostMirror.resize(b.bytes);
    if (Status s = impl->copyToHost(b.hostMirror.data(), b.address, b.bytes); !s)
      return s;
    if (Status s = impl->synchronize(); !s)
      return s;
  }
  b.table = true;
  return Status::ok();
}

Status Stream::writeTable(const Buffer &buffer, const void *src, size_t bytes,
                          size_t dstOffset) {
  if (!impl)
    return Status::error("writeTable: no stream");
  if (Status s = checkBuffer(*impl, buffer, "writeTable", dstOffset, bytes); !s)
    return s;
  BufferStorage &b = *buffer.shared();
  if (!b.table)
    return Status::error("writeTable: the buffer is not a checked table (Stream::makeTable)");
  if (impl->isCapturing)
    return Status::error("writeTable: host copies cannot be captured; write the "
                         "table before replaying");
  // The contents after the write, checked before anything changes.
  const char *now = buffer.hostData() ? static_cast<const char *>(buffer.hostData())
                                      : b.hostMirror.data();
  std::vector<char> next(now, now + b.bytes);
  std::memcpy(next.data() + dstOffset, src, bytes);
  for (const BufferStorage::TableRule &r : b.tableRules) {
    LaunchArg view;
    view.isView = true;
    view.dtype = b.dtype;
    view.rank = 1;
    view.shape[0] = r.count;
    view.strides[0] = r.stride;
    view.host = next.data() + r.offset * sizeInBytes(b.dtype);
    std::string why = checkDistinctEntries(view, r.lo, r.hi);
    if (!why.empty())
      return Status::error("writeTable: the new entries break a rule a launch checked on "
                           "this table: " + r.rule + ": " + why);
  }
  uint64_t at = b.address + dstOffset;
  impl->chain.recordWrite({at, at + bytes});
  if (Status s = impl->copyToDevice(at, src, bytes); !s)
    return s;
  if (!b.hostMirror.empty())
    b.hostMirror = std::move(next);
  return Status::ok();
}

Status Stream::record(Event &event) {
  if (!impl)
    return Status::error("record: no stream");
  return impl->record(event.impl);
}

Status Stream::wait(const Event &event) {
  if (!impl || !event.impl)
    return Status::error("wait: no stream or event");
  return impl->wait(*event.impl);
}

Status Stream::synchronize() {
  if (!impl)
    return Status::error("synchronize: no stream");
  if (Status s = impl->synchronize(); !s)
    return s;
  impl->chain.restart(); // nothing queued before is still running
  return Status::ok();
}

Status Stream::beginCapture() {
  if (!impl)
    return Status::error("beginCapture: no stream");
  if (impl->isCapturing)
    return Status::error("beginCapture: the stream is already capturing");
  if (Status s = impl->beginCapture(); !s)
    return s;
  impl->isCapturing = true;
  // The graph's first launch waits for everything before its replay.
  impl->chain.restart();
  impl->capturedLaunches = 0;
  impl->capturedBuffers.clear();
  impl->device->openCaptures++;
  return Status::ok();
}

Status Stream::endCapture(Graph &graph) {
  if (!impl || !impl->isCapturing)
    return Status::error("endCapture: the stream is not capturing");
  impl->isCapturing = false;
  impl->device->openCaptures--;
  // The chain was the graph's; the stream's own is no longer listed.
  impl->chain.forget();
  std::shared_ptr<GraphImpl> g;
  Status s = impl->endCapture(g);
  std::vector<std::shared_ptr<BufferStorage>> buffers;
  buffers.swap(impl->capturedBuffers);
  if (!s)
    return s;
  // One reference per distinct buffer.
  std::sort(buffers.begin(), buffers.end());
  buffers.erase(std::unique(buffers.begin(), buffers.end()), buffers.end());
  g->buffers = std::move(buffers);
  g->launches = impl->capturedLaunches;
  g->owner = impl->owner;
  graph.impl = std::move(g);
  return Status::ok();
}

bool Stream::capturing() const { return impl && impl->isCapturing; }

//===----------------------------------------------------------------------===//
// Events and graphs
//===----------------------------------------------------------------------===//

Status Event::wait() const {
  if (!impl)
    return Status::error("wait: the event was never recorded");
  return impl->wait();
}

bool Event::ready() const { return impl && impl->ready(); }

Status Event::elapsedMs(const Event &start, float &ms) const {
  if (!impl || !start.impl)
    return Status::error("elapsedMs: an event was never recorded");
  return impl->elapsedMs(*start.impl, ms);
}

Status Graph::replay(Stream &stream) const {
  if (!impl)
    return Status::error("replay: the graph is empty");
  if (!stream.impl)
    return Status::error("replay: no stream");
  if (stream.impl->isCapturing)
    return Status::error("replay: the stream is capturing");
  // The graph's launches are not listed here: no kernel that reads a
  // `settled` view joins its chain.
  stream.impl->chain.forget();
  return impl->replay(*stream.impl);
}

size_t Graph::numLaunches() const { return impl ? impl->launches : 0; }
size_t Graph::numBuffers() const { return impl ? impl->buffers.size() : 0; }
