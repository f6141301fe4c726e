//===- CudaDevice.cpp - the runtime on a CUDA GPU -------------------------===//
//
// The primary context of one GPU; streams, events and graphs of the driver
// API; a stream-ordered pool (the device's default memory pool, which keeps
// freed memory for reuse); CUBIN modules; launches in the kernel ABI of the
// GPU lowering: each view as its expanded memref descriptor (allocated
// pointer, aligned pointer, offset, sizes, strides), each scalar as itself,
// num_warps * 32 threads per program.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "DeviceImpl.h"

#include <algorithm>
#include <cstdint>
#include <limits>

using namespace tile_runtime;

namespace {

class CudaDevice;

class CudaEvent : public EventImpl {
public:
  CudaEvent(const CudaDriver &cu, CUevent event) : cu(cu), event(event) {}
  ~CudaEvent() override { cu.cuEventDestroy(event); }
  Status wait() override {
    return cu.check(cu.cuEventSynchronize(event), "cuEventSynchronize");
  }
  bool ready() override { return cu.cuEventQuery(event) == CUDA_SUCCESS; }
  Status elapsedMs(EventImpl &start, float &ms) override {
    auto *s = dynamic_cast<CudaEvent *>(&start);
    if (!s)
      return Status::error("elapsedMs: the events belong to different "
                           "devices");
    return cu.check(cu.cuEventElapsedTime(&ms, s->event, event),
                    "cuEventElapsedTime");
  }
  const CudaDriver &cu;
  CUevent event;
};

class CudaGraph : public GraphImpl {
public:
  CudaGraph(const CudaDriver &cu, DeviceImpl *device, CUgraph graph,
            CUgraphExec exec)
      : cu(cu), device(device), graph(graph), exec(exec) {}
  ~CudaGraph() override {
    cu.cuGraphExecDestroy(exec);
    cu.cuGraphDestroy(graph);
  }
  Status replay(StreamImpl &stream) override;
  const CudaDriver &cu;
  DeviceImpl *device;
  CUgraph graph;
  CUgraphExec exec;
};

/// TMA descriptors one launch passes at most (after its ABI words).
constexpr size_t kMaxTensorMaps = 4;

class CudaStream : public StreamImpl {
public:
  CudaStream(DeviceImpl *device, const CudaDriver &cu, CUstream stream)
      : StreamImpl(device), cu(cu), stream(stream) {}
  ~CudaStream() override {
    cu.cuStreamSynchronize(stream);
    cu.cuStreamDestroy(stream);
  }

  Status launch(const CheckedLaunch &l) override {
    // One 8-byte slot per ABI parameter; the params array points into it.
    constexpr size_t kMaxParams = 64 * (3 + 2 * kMaxViewRank);
    int64_t words[kMaxParams];
    void *params[kMaxParams + kMaxTensorMaps];
    size_t n = 0;
    for (size_t i = 0; i < l.numArgs; ++i) {
      const LaunchArg &a = l.args[i];
      auto push = [&](int64_t v) {
        words[n] = v;
        params[n] = &words[n];
        ++n;
      };
      if (!a.isView) {
        push(a.scalar);
        continue;
      }
      push(static_cast<int64_t>(a.address));
      push(static_cast<int64_t>(a.address));
      push(0);
      for (int d = 0; d < a.rank; ++d)
        push(a.shape[d]);
      for (int d = 0; d < a.rank; ++d)
        push(a.strides[d]);
    }
    // TMA descriptors go by value after the ABI words (the kernel reads
    // them as __grid_constant__ parameters).
    const ManifestKernel &meta = l.kernel->meta;
    CUtensorMap maps[kMaxTensorMaps]; // aligned as cuda.h declares
    if (meta.tensorMaps.size() > kMaxTensorMaps)
      return Status::error("kernel " + meta.name + ": more than " +
                           std::to_string(kMaxTensorMaps) + " tensor maps");
    for (size_t t = 0; t < meta.tensorMaps.size(); ++t) {
      if (Status s = encodeTensorMap(meta, meta.tensorMaps[t],
                                     l.args[meta.tensorMaps[t].argument],
                                     maps[t]);
          !s)
        return s;
      params[n++] = &maps[t];
    }
    const std::array<int64_t, 3> &g = l.grid;
    if (g[0] > std::numeric_limits<int32_t>::max() || g[1] > 65535 ||
        g[2] > 65535)
      return Status::error("kernel " + l.kernel->meta.name + ": grid (" +
                           std::to_string(g[0]) + ", " + std::to_string(g[1]) +
                           ", " + std::to_string(g[2]) +
                           ") exceeds the CUDA grid limits");
    CUlaunchConfig config{};
    config.gridDimX = static_cast<unsigned>(g[0]);
    config.gridDimY = static_cast<unsigned>(g[1]);
    config.gridDimZ = static_cast<unsigned>(g[2]);
    config.blockDimX = static_cast<unsigned>(l.kernel->meta.numWarps) * 32;
    config.blockDimY = 1;
    config.blockDimZ = 1;
    config.sharedMemBytes = static_cast<unsigned>(meta.dynamicSharedBytes);
    config.hStream = stream;
    CUlaunchAttribute attr{};
    if (l.programmatic) {
      // The kernel waits for the prior grid before touching memory that
      // grid may write (ProgrammaticChain vouched for its settled views),
      // so it may be scheduled while that grid finishes (captured graphs
      // keep this as a programmatic edge).
      attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attr.value.programmaticStreamSerializationAllowed = 1;
      config.attrs = &attr;
      config.numAttrs = 1;
    } else if (meta.gridSync) {
      // Grid barriers: all programs resident at once, or no launch.
      attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attr.value.cooperative = 1;
      config.attrs = &attr;
      config.numAttrs = 1;
    }
    Status st = cu.check(cu.cuLaunchKernelEx(&config,
                                             static_cast<CUfunction>(l.kernel->function),
                                             params, nullptr),
                         "cuLaunchKernelEx");
    if (!st && meta.gridSync)
      return Status::error("kernel " + meta.name + ": its grid barriers need all " +
                           std::to_string(g[0] * g[1] * g[2]) +
                           " programs resident at once (a cooperative launch): " + st.message());
    return st;
  }
  /// The TMA descriptor of a 2-D view for loads of `map.box` with the
  /// 128-byte swizzle; reads outside the view give zeros.
  Status encodeTensorMap(const ManifestKernel &meta,
                         const ManifestTensorMap &map, const LaunchArg &view,
                         CUtensorMap &out) {
    const ContractParam &param = meta.contract.params[map.argument];
    auto fail = [&](const std::string &why) {
      return Status::error("kernel " + meta.name + ": argument '" +
                           param.name + "': " + why);
    };
    CUtensorMapDataType type;
    switch (view.dtype) {
    case DType::F16: type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; break;
    case DType::BF16: type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; break;
    case DType::F32: type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; break;
    default: return fail("no TMA element type for " +
                         std::string(toString(view.dtype)));
    }
    int64_t size = sizeInBytes(view.dtype);
    if (view.rank != 2 || view.strides[1] != 1)
      return fail("TMA needs a 2-D view with unit inner stride");
    if (view.address % 16 != 0 || view.strides[0] * size % 16 != 0)
      return fail("TMA needs a 16-byte aligned start and row stride (start " +
                  std::to_string(view.address) + ", row stride " +
                  std::to_string(view.strides[0] * size) + " bytes)");
    cuuint64_t dims[2] = {static_cast<cuuint64_t>(view.shape[1]),
                          static_cast<cuuint64_t>(view.shape[0])};
    cuuint64_t strides[1] = {static_cast<cuuint64_t>(view.strides[0] * size)};
    cuuint32_t box[2] = {static_cast<cuuint32_t>(map.box[0]),
                         static_cast<cuuint32_t>(map.box[1])};
    cuuint32_t elementStrides[2] = {1, 1};
    return cu.check(
        cu.cuTensorMapEncodeTiled(
            &out, type, 2, reinterpret_cast<void *>(view.address), dims,
            strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled");
  }

  Status copyToDevice(uint64_t dst, const void *src, size_t n) override {
    return cu.check(cu.cuMemcpyHtoDAsync(dst, src, n, stream),
                    "cuMemcpyHtoDAsync");
  }
  Status copyToHost(void *dst, uint64_t src, size_t n) override {
    return cu.check(cu.cuMemcpyDtoHAsync(dst, src, n, stream),
                    "cuMemcpyDtoHAsync");
  }
  Status copy(uint64_t dst, uint64_t src, size_t n) override {
    return cu.check(cu.cuMemcpyDtoDAsync(dst, src, n, stream),
                    "cuMemcpyDtoDAsync");
  }
  Status fill(uint64_t dst, uint8_t byte, size_t n) override {
    return cu.check(cu.cuMemsetD8Async(dst, byte, n, stream),
                    "cuMemsetD8Async");
  }
  Status record(std::shared_ptr<EventImpl> &event) override {
    CUevent e;
    if (Status s = cu.check(cu.cuEventCreate(&e, CU_EVENT_DEFAULT),
                            "cuEventCreate");
        !s)
      return s;
    auto impl = std::make_shared<CudaEvent>(cu, e);
    if (Status s = cu.check(cu.cuEventRecord(e, stream), "cuEventRecord"); !s)
      return s;
    event = std::move(impl);
    return Status::ok();
  }
  Status wait(EventImpl &event) override {
    auto *e = dynamic_cast<CudaEvent *>(&event);
    if (!e)
      return Status::error("wait: the event belongs to another device");
    return cu.check(cu.cuStreamWaitEvent(stream, e->event, 0),
                    "cuStreamWaitEvent");
  }
  Status synchronize() override {
    return cu.check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
  Status beginCapture() override {
    return cu.check(
        cu.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "cuStreamBeginCapture");
  }
  Status endCapture(std::shared_ptr<GraphImpl> &graph) override {
    CUgraph g = nullptr;
    if (Status s = cu.check(cu.cuStreamEndCapture(stream, &g),
                            "cuStreamEndCapture");
        !s)
      return s;
    CUgraphExec exec = nullptr;
    if (Status s = cu.check(cu.cuGraphInstantiate(&exec, g, 0),
                            "cuGraphInstantiate");
        !s) {
      cu.cuGraphDestroy(g);
      return s;
    }
    graph = std::make_shared<CudaGraph>(cu, device, g, exec);
    return Status::ok();
  }

  void *nativeStream() override { return stream; }

  const CudaDriver &cu;
  CUstream stream;
};

Status CudaGraph::replay(StreamImpl &s) {
  auto *stream = dynamic_cast<CudaStream *>(&s);
  if (!stream || s.device != device)
    return Status::error("replay: the graph belongs to another device");
  return cu.check(cu.cuGraphLaunch(exec, stream->stream), "cuGraphLaunch");
}

struct CudaModule {
  const CudaDriver *cu = nullptr;
  CUmodule module = nullptr;
  ~CudaModule() {
    if (module)
      cu->cuModuleUnload(module);
  }
};

class CudaDevice : public DeviceImpl {
public:
  ~CudaDevice() override {
    if (context)
      cu->cuDevicePrimaryCtxRelease(device);
  }

  Status init(int ordinal) {
    if (Status s = CudaDriver::get(cu); !s)
      return s;
    int count = 0;
    if (Status s = cu->check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount");
        !s)
      return s;
    if (ordinal >= count)
      return Status::error("no CUDA device " + std::to_string(ordinal) +
                           " (there are " + std::to_string(count) + ")");
    if (Status s = cu->check(cu->cuDeviceGet(&device, ordinal), "cuDeviceGet");
        !s)
      return s;
    deviceOrdinal = ordinal;
    char buf[256] = {};
    cu->cuDeviceGetName(buf, sizeof(buf) - 1, device);
    deviceName = buf;
    cu->cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    cu->cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    if (cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                 device) != CUDA_SUCCESS)
      sms = 0;
    if (Status s = cu->check(cu->cuDevicePrimaryCtxRetain(&context, device),
                             "cuDevicePrimaryCtxRetain");
        !s)
      return s;
    if (Status s = current(); !s)
      return s;
    if (Status s = cu->check(cu->cuDeviceGetDefaultMemPool(&pool, device),
                             "cuDeviceGetDefaultMemPool");
        !s)
      return s;
    // Keep freed memory in the pool: steady-state decoding never returns to
    // the driver.
    cuuint64_t keepAll = std::numeric_limits<cuuint64_t>::max();
    return cu->check(cu->cuMemPoolSetAttribute(
                         pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keepAll),
                     "cuMemPoolSetAttribute");
  }

  /// Makes the device's context current on the calling thread.
  Status current() const {
    return cu->check(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  bool isCuda() const override { return true; }
  std::string name() const override {
    return deviceName + " (sm_" + std::to_string(major) +
           std::to_string(minor) + ")";
  }
  std::string target() const override {
    // Hopper's wgmma/TMA and Blackwell's features need the arch-specific
    // target; others take the plain one.
    std::string t = "sm_" + std::to_string(major) + std::to_string(minor);
    return major >= 9 ? t + "a" : t;
  }
  const char *artifactKind() const override { return "cubin"; }

  Status loadArtifact(const Manifest &manifest, const ManifestArtifact &a,
                      const std::string &path, const std::string &bytes,
                      std::shared_ptr<void> &module,
                      std::vector<void *> &functions) override {
    if (!compatible(a.target))
      return Status::error(path + ": compiled for " + a.target +
                           ", this device (" + name() + ") runs " + target() +
                           "; recompile with tilec --target=" + target());
    if (Status s = current(); !s)
      return s;
    auto m = std::make_shared<CudaModule>();
    m->cu = cu;
    if (Status s = cu->check(cu->cuModuleLoadData(&m->module, bytes.data()),
                             "cuModuleLoadData");
        !s)
      return Status::error(path + ": " + s.message());
    for (const ManifestKernel &k : manifest.kernels) {
      CUfunction f;
      if (cu->cuModuleGetFunction(&f, m->module, k.name.c_str()) !=
          CUDA_SUCCESS)
        return Status::error(path + ": kernel " + k.name +
                             " of the manifest is not in the CUBIN");
      // Beyond 48 KB, dynamic shared memory must be asked for.
      if (k.dynamicSharedBytes > 48 * 1024)
        if (Status s = cu->check(
                cu->cuFuncSetAttribute(
                    f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    k.dynamicSharedBytes),
                "cuFuncSetAttribute");
            !s)
          return Status::error(path + ": kernel " + k.name + ": " +
                               s.message());
      functions.push_back(f);
    }
    module = m;
    return Status::ok();
  }

  /// A CUBIN for sm_XY runs on sm_XZ with Z >= Y; an arch-specific one
  /// (sm_90a) only on exactly that chip.
  bool compatible(const std::string &t) const {
    if (t.size() < 5 || t.compare(0, 3, "sm_") != 0)
      return false;
    bool specific = t.back() == 'a';
    std::string digits = t.substr(3, t.size() - 3 - (specific ? 1 : 0));
    if (digits.size() < 2 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return false;
    int tMajor = std::stoi(digits.substr(0, digits.size() - 1));
    int tMinor = digits.back() - '0';
    if (specific)
      return tMajor == major && tMinor == minor;
    return tMajor == major && tMinor <= minor;
  }

  Status createStream(std::shared_ptr<StreamImpl> &stream) override {
    if (Status s = current(); !s)
      return s;
    CUstream st;
    if (Status s = cu->check(cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING),
                             "cuStreamCreate");
        !s)
      return s;
    stream = std::make_shared<CudaStream>(this, *cu, st);
    return Status::ok();
  }
  Status allocate(size_t bytes, StreamImpl &stream,
                  uint64_t &address) override {
    CUdeviceptr p;
    if (Status s = cu->check(cu->cuMemAllocAsync(
                                 &p, bytes,
                                 static_cast<CudaStream &>(stream).stream),
                             "cuMemAllocAsync");
        !s)
      return Status::error(s.message() + " allocating " +
                           std::to_string(bytes) + " bytes");
    address = p;
    return Status::ok();
  }
  void free(uint64_t address, StreamImpl *stream) override {
    cu->cuMemFreeAsync(address,
                       stream ? static_cast<CudaStream *>(stream)->stream
                              : nullptr);
  }
  Status allocateHost(size_t bytes, uint64_t &address) override {
    if (Status s = current(); !s)
      return s;
    void *p;
    if (Status s = cu->check(cu->cuMemAllocHost(&p, bytes), "cuMemAllocHost");
        !s)
      return s;
    address = reinterpret_cast<uint64_t>(p);
    return Status::ok();
  }
  void freeHost(uint64_t address) override {
    cu->cuMemFreeHost(reinterpret_cast<void *>(address));
  }
  int multiprocessors() const override { return sms; }
  int ordinal() const override { return deviceOrdinal; }
  Status makeCurrent() override { return current(); }

  Status memoryInfo(int64_t &freeBytes, int64_t &totalBytes) override {
    if (Status s = current(); !s)
      return s;
    size_t f = 0, t = 0;
    if (Status s = cu->check(cu->cuMemGetInfo(&f, &t), "cuMemGetInfo"); !s)
      return s;
    // Memory the pool holds but no buffer uses is free to this process too.
    cuuint64_t used = 0;
    cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used);
    int64_t idle = bytesReserved() - static_cast<int64_t>(used);
    freeBytes = static_cast<int64_t>(f) + std::max<int64_t>(idle, 0);
    totalBytes = static_cast<int64_t>(t);
    return Status::ok();
  }

  int64_t bytesReserved() const override {
    cuuint64_t v = 0;
    cu->cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v);
    return static_cast<int64_t>(v);
  }

  const CudaDriver *cu = nullptr;
  CUdevice device = 0;
  int deviceOrdinal = 0;
  CUcontext context = nullptr;
  CUmemoryPool pool = nullptr;
  std::string deviceName;
  int major = 0, minor = 0;
  int sms = 0;
};

} // namespace

Status tile_runtime::createCudaDevice(int ordinal,
                                      std::unique_ptr<DeviceImpl> &device) {
  auto d = std::make_unique<CudaDevice>();
  if (Status s = d->init(ordinal); !s)
    return s;
  device = std::move(d);
  return Status::ok();
}
