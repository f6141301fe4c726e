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

#include <vector>

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
  /// The barrier of Communicator::signalPeers / waitPeers: sets each flag
  /// at `flags` (i32, 1) once the stream's work before has finished and its
  /// writes are visible to every device; work after waits until every flag
  /// at `flags` is set.
  virtual Status setFlags(StreamImpl &stream, const std::vector<uint64_t> &flags) = 0;
  /// `region` is the flags' peer memory, which a kind that must release
  /// waiters at abort() keeps mapped until it is destroyed.
  virtual Status waitFlags(StreamImpl &stream, const std::vector<uint64_t> &flags,
                           const std::shared_ptr<void> &region) = 0;

  int rank = 0, size = 1;
  DeviceImpl *device = nullptr;
  /// The same device, kept alive by the peer buffers made for the group.
  std::shared_ptr<DeviceImpl> deviceOwner;
};

/// Memory in every device of a group at one address range: `partBytes`
/// per device, device r's part at base + r * partBytes, zeros; `region`
/// releases it when the last reference goes.
struct PeerRegion {
  uint64_t base = 0;
  size_t partBytes = 0;
  std::shared_ptr<void> region;
};
Status createCudaPeerRegion(const std::vector<DeviceImpl *> &devices, size_t bytesPerDevice,
                            PeerRegion &out);
Status createHostPeerRegion(size_t devices, size_t bytesPerDevice, PeerRegion &out);
/// The CUDA barrier's stream memory operations (one batch, captured into a
/// graph as one node): the flags at `set` set after the work before, then
/// the work after waits until every flag at `wait` is set.
Status queueCudaFlagOps(StreamImpl &stream, const std::vector<uint64_t> &set,
                        const std::vector<uint64_t> &wait);
/// Sets the flags at `flags` from the host (an aborted group's waiters go
/// on; their results no longer matter).
void setCudaFlagsFromHost(DeviceImpl &device, const std::vector<uint64_t> &flags);

Status createNcclCommunicators(const std::vector<DeviceImpl *> &devices,
                               std::vector<std::unique_ptr<CommunicatorImpl>> &out);
Status createHostCommunicators(const std::vector<DeviceImpl *> &devices,
                               std::vector<std::unique_ptr<CommunicatorImpl>> &out);

} // namespace tile_runtime

#endif // TILE_RUNTIME_LIB_COLLECTIVEIMPL_H
