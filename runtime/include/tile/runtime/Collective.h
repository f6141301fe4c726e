//===- Collective.h - collectives among the devices of a process -*- C++ -*-===//
//
// A tensor-parallel run keeps one rank per device in one process, each
// driven by its own thread. Its collectives come from an existing library:
// NCCL between CUDA devices (libnccl.so.2, opened at run time like the CUDA
// driver, so nothing links against it), and an in-process exchange between
// CPU devices, which runs the same engine code in tests. A collective is
// queued on the rank's stream like a launch and captured into graphs like
// one; the buffers are the caller's, handed to the communicator outside any
// kernel, so no kernel aliases a buffer a collective is writing (the stream
// orders them).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_COLLECTIVE_H
#define TILE_RUNTIME_COLLECTIVE_H

#include "tile/runtime/Runtime.h"

#include <functional>
#include <memory>
#include <vector>

namespace tile_runtime {

class CommunicatorImpl;

/// One rank of a group of devices. Every rank calls the same collectives in
/// the same order, each from the thread that drives its device; a
/// collective completes on a rank's stream once every rank has queued it.
class Communicator {
public:
  /// One communicator per device, rank i for devices[i]: all CUDA (NCCL;
  /// an error line when libnccl.so.2 cannot be loaded) or all CPU. Called
  /// from one thread.
  static Status create(const std::vector<Device *> &devices,
                       std::vector<std::unique_ptr<Communicator>> &comms);
  ~Communicator();

  int rank() const;
  int size() const;

  /// Sums `count` elements (bf16, f16 or f32) of `buffer` from element
  /// `offset` over the ranks, in place: every rank ends with the same sum.
  Status allReduceSum(Stream &stream, const Buffer &buffer, int64_t offset,
                      int64_t count);
  /// Rank r's `count` elements at `offset + r * count` of `buffer`, to every
  /// rank's buffer at the same place (in place).
  Status allGather(Stream &stream, const Buffer &buffer, int64_t offset,
                   int64_t count);

  /// Makes collectives that are waiting, or queued later, give up (a rank
  /// failed before queuing its part): the group is unusable afterwards.
  void abort();

private:
  Communicator() = default;
  /// Checks `count` elements at `offset` of `buffer` (the collective writes
  /// `written` from there) and queues `op` at their address on `stream`.
  Status queue(Stream &stream, const Buffer &buffer, int64_t offset, int64_t count,
               int64_t written, const char *what,
               const std::function<Status(StreamImpl &, uint64_t, DType)> &op);
  std::unique_ptr<CommunicatorImpl> impl;
};

} // namespace tile_runtime

#endif // TILE_RUNTIME_COLLECTIVE_H
