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
class Communicator;

/// Memory every rank's kernels read directly: one part per rank, each in
/// its rank's memory (a GPU's, mapped into every other GPU of the group
/// over NVLink or PCIe peer access; host memory among CPU devices), the
/// parts at one address range that is the same on every rank. `views[r]`
/// is the whole range as a buffer of rank r's device (launch arguments and
/// stream operations on rank r take it); rank q's part begins at element
/// `q * stride`. Zeros when made; freed with the last view.
struct PeerBuffers {
  std::vector<Buffer> views;
  int64_t stride = 0; ///< elements from one rank's part to the next
};

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
  /// The elements from one flag slot to the next: size() rounded up to a
  /// multiple of 4, so each slot is 16-byte aligned as a kernel's view of
  /// it must be.
  int64_t flagSlotWidth() const { return (size() + 3) / 4 * 4; }

  /// Sums `count` elements (bf16, f16 or f32) of `buffer` from element
  /// `offset` over the ranks, in place: every rank ends with the same sum.
  Status allReduceSum(Stream &stream, const Buffer &buffer, int64_t offset,
                      int64_t count);
  /// Rank r's `count` elements at `offset + r * count` of `buffer`, to every
  /// rank's buffer at the same place (in place).
  Status allGather(Stream &stream, const Buffer &buffer, int64_t offset,
                   int64_t count);

  /// One region of `countPerRank` elements of `dtype` per rank of `comms`
  /// (a whole group, in rank order), from one thread. CUDA: the parts are
  /// virtual-memory mappings of each GPU's memory, which needs peer access
  /// between every pair of GPUs (an error line names the pair without it).
  static Status createPeerBuffers(const std::vector<Communicator *> &comms, DType dtype,
                                  int64_t countPerRank, PeerBuffers &out);

  /// A barrier between the ranks' streams made of flags in peer memory,
  /// without a kernel: `flags` is an i32 PeerBuffers view (this rank's) of
  /// at least `slots * flagSlotWidth()` elements per part; slot s of rank
  /// q's part is the size() elements from s * flagSlotWidth(), element j
  /// of it set when rank j signalled slot s to q.
  ///
  /// signalPeers: once this stream's work queued before has finished (and
  /// its writes are visible to the other devices), sets this rank's flag
  /// of `slot` in every other rank's part.
  Status signalPeers(Stream &stream, const Buffer &flags, int64_t stride, int64_t slot);
  /// waitPeers: work queued later on this stream waits until every other
  /// rank's flag of `slot` in this rank's part is set. The flags are not
  /// cleared: whoever waited clears them (a kernel's owned output) before
  /// it signals the next use of the slot, which a peer can reach only
  /// after that signal.
  Status waitPeers(Stream &stream, const Buffer &flags, int64_t stride, int64_t slot);

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
  /// Checks that `flags` is an i32 peer view of this rank with `slot` in
  /// range and gives the address of slot `slot` in rank 0's part.
  Status flagSlot(const Stream &stream, const Buffer &flags, int64_t stride, int64_t slot,
                  const char *what, uint64_t &slotAddress) const;
  std::unique_ptr<CommunicatorImpl> impl;
};

} // namespace tile_runtime

#endif // TILE_RUNTIME_COLLECTIVE_H
