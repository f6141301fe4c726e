//===- CollectiveImpl.h - what a communicator kind implements ---*- C++ -*-===//
//
// Private to the runtime. Collective.cpp checks the arguments and records
// the collective on the stream (Stream::queueCollective); a kind queues the
// work at the checked address: NCCL (NcclCollective.cpp) or the CPU
// devices' in-process exchange (HostCollective.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_COLLECTIVEIMPL_H
#define TILE_RUNTIME_LIB_COLLECTIVEIMPL_H

#include "DeviceImpl.h"
#include "tile/runtime/Collective.h"

namespace tile_runtime {

class CommunicatorImpl {
public:
  virtual ~CommunicatorImpl() = default;
  virtual Status allReduceSum(StreamImpl &stream, uint64_t address,
                              int64_t count, DType dtype) = 0;
  /// In place: rank r's slice is `count` elements at address + r * count.
  virtual Status allGather(StreamImpl &stream, uint64_t address,
                           int64_t count, DType dtype) = 0;
  virtual void abort() = 0;

  int rank = 0, size = 1;
  DeviceImpl *device = nullptr;
};

Status createNcclCommunicators(const std::vector<DeviceImpl *> &devices,
                               std::vector<std::unique_ptr<CommunicatorImpl>> &out);
Status createHostCommunicators(const std::vector<DeviceImpl *> &devices,
                               std::vector<std::unique_ptr<CommunicatorImpl>> &out);

} // namespace tile_runtime

#endif // TILE_RUNTIME_LIB_COLLECTIVEIMPL_H
