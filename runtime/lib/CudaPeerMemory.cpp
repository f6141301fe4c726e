//===- CudaPeerMemory.cpp - memory every GPU of a group reads ------------===//
//
// Peer buffers (Communicator::createPeerBuffers) are virtual-memory
// mappings: one address range reserved once, each GPU's part made in that
// GPU's memory (cuMemCreate) and mapped at its place, every GPU of the
// group given access to the whole range (cuMemSetAccess), so a kernel on
// any GPU reads any part at the same address over NVLink or PCIe. Nothing
// here multicasts (no cuMulticastCreate): each load reads one GPU's memory.
//
// The barrier between the ranks' streams is stream memory operations
// (cuStreamBatchMemOp), captured into graphs as batch memory-operation
// nodes: a system-scope memory barrier and flag writes into the peers'
// parts after the work before them, and waits on this rank's flags before
// the work after them.
//
//===----------------------------------------------------------------------===//

#include "CollectiveImpl.h"
#include "CudaDriver.h"

#include <algorithm>
#include <string>

using namespace tile_runtime;

namespace {

struct CudaPeerMapping {
  const CudaDriver *cu = nullptr;
  CUdeviceptr base = 0;
  size_t bytes = 0;
  bool mapped = false;
  std::vector<CUmemGenericAllocationHandle> parts;
  ~CudaPeerMapping() {
    if (mapped)
      cu->cuMemUnmap(base, bytes);
    for (CUmemGenericAllocationHandle h : parts)
      cu->cuMemRelease(h);
    if (base)
      cu->cuMemAddressFree(base, bytes);
  }
};

CUmemAllocationProp deviceMemory(int ordinal) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ordinal;
  return prop;
}

CUstream nativeOf(StreamImpl &stream) { return static_cast<CUstream>(stream.nativeStream()); }

} // namespace

Status tile_runtime::createCudaPeerRegion(const std::vector<DeviceImpl *> &devices,
                                          size_t bytesPerDevice, PeerRegion &out) {
  const CudaDriver *cu = nullptr;
  if (Status s = CudaDriver::get(cu); !s)
    return s;
  const size_t n = devices.size();
  std::vector<CUdevice> handles(n);
  for (size_t i = 0; i < n; ++i)
    if (Status s = cu->check(cu->cuDeviceGet(&handles[i], devices[i]->ordinal()), "cuDeviceGet");
        !s)
      return s;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      int can = 1;
      if (i != j && (cu->cuDeviceCanAccessPeer(&can, handles[i], handles[j]) != CUDA_SUCCESS ||
                     !can))
        return Status::error("peer buffers: GPU " + std::to_string(devices[i]->ordinal()) +
                             " cannot access the memory of GPU " +
                             std::to_string(devices[j]->ordinal()) + " (no peer access)");
    }
  size_t granularity = 0;
  for (DeviceImpl *d : devices) {
    CUmemAllocationProp prop = deviceMemory(d->ordinal());
    size_t g = 0;
    if (Status s = cu->check(cu->cuMemGetAllocationGranularity(&g, &prop,
                                                               CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                             "cuMemGetAllocationGranularity");
        !s)
      return s;
    granularity = std::max(granularity, g);
  }
  if (Status s = devices[0]->makeCurrent(); !s)
    return s;
  auto mapping = std::make_shared<CudaPeerMapping>();
  mapping->cu = cu;
  const size_t part = (bytesPerDevice + granularity - 1) / granularity * granularity;
  mapping->bytes = part * n;
  if (Status s = cu->check(cu->cuMemAddressReserve(&mapping->base, mapping->bytes, granularity, 0, 0),
                           "cuMemAddressReserve");
      !s) {
    mapping->base = 0;
    return s;
  }
  for (size_t i = 0; i < n; ++i) {
    CUmemAllocationProp prop = deviceMemory(devices[i]->ordinal());
    CUmemGenericAllocationHandle h;
    if (Status s = cu->check(cu->cuMemCreate(&h, part, &prop, 0), "cuMemCreate"); !s)
      return Status::error(s.message() + " making " + std::to_string(part) +
                           " bytes of peer memory on GPU " +
                           std::to_string(devices[i]->ordinal()));
    mapping->parts.push_back(h);
  }
  for (size_t i = 0; i < n; ++i)
    if (Status s = cu->check(cu->cuMemMap(mapping->base + i * part, part, 0, mapping->parts[i], 0),
                             "cuMemMap");
        !s) {
      // Unmap what was mapped: the mapping's destructor unmaps the whole
      // range only when all of it is.
      for (size_t j = 0; j < i; ++j)
        cu->cuMemUnmap(mapping->base + j * part, part);
      return s;
    }
  mapping->mapped = true;
  std::vector<CUmemAccessDesc> access(n);
  for (size_t i = 0; i < n; ++i) {
    access[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access[i].location.id = devices[i]->ordinal();
    access[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  if (Status s = cu->check(cu->cuMemSetAccess(mapping->base, mapping->bytes, access.data(), n),
                           "cuMemSetAccess");
      !s)
    return s;
  if (Status s = cu->check(cu->cuMemsetD8(mapping->base, 0, mapping->bytes), "cuMemsetD8"); !s)
    return s;
  out.base = mapping->base;
  out.partBytes = part;
  out.region = std::move(mapping);
  return Status::ok();
}

Status tile_runtime::queueCudaFlagOps(StreamImpl &stream, const std::vector<uint64_t> &set,
                                      const std::vector<uint64_t> &wait) {
  const CudaDriver *cu = nullptr;
  if (Status s = CudaDriver::get(cu); !s)
    return s;
  // The operations of a batch run in their order. The v2 writes fence
  // nothing themselves: a system-scope barrier first, so the work before
  // (finished, in stream order) is visible to the peers that see a flag.
  std::vector<CUstreamBatchMemOpParams> ops;
  if (!set.empty()) {
    CUstreamBatchMemOpParams b{};
    b.memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
    b.memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_SYS;
    ops.push_back(b);
  }
  for (uint64_t f : set) {
    CUstreamBatchMemOpParams w{};
    w.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    w.writeValue.address = f;
    w.writeValue.value = 1;
    w.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
    ops.push_back(w);
  }
  for (uint64_t f : wait) {
    CUstreamBatchMemOpParams w{};
    w.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    w.waitValue.address = f;
    w.waitValue.value = 1;
    w.waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
    ops.push_back(w);
  }
  if (ops.empty())
    return Status::ok();
  return cu->check(cu->cuStreamBatchMemOp(nativeOf(stream), unsigned(ops.size()), ops.data(), 0),
                   "cuStreamBatchMemOp (peer flags)");
}

void tile_runtime::setCudaFlagsFromHost(DeviceImpl &device, const std::vector<uint64_t> &flags) {
  const CudaDriver *cu = nullptr;
  if (!CudaDriver::get(cu) || !device.makeCurrent())
    return;
  for (uint64_t f : flags)
    cu->cuMemsetD32(f, 1, 1);
}
