//===- RankThreads.h - a thread per tensor-parallel rank --------*- C++ -*-===//
//
// A tensor-parallel engine drives each device from its own thread, so every
// rank queues its launches and collectives at once (a collective completes
// only when every rank has queued it). The threads live as long as the
// engine, each with its device bound once; run() hands them one function
// and waits for all. One rank runs on the caller's thread, bound on each
// call.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_LIB_RANKTHREADS_H
#define QWEN3_LIB_RANKTHREADS_H

#include "tile/runtime/Status.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qwen3 {

using tile_runtime::Status;

class RankThreads {
public:
  /// `bind(rank)` runs first on each rank's thread (binding its device);
  /// `onFailure` runs once on the caller's thread when a rank fails, before
  /// run() waits for the others (aborting the collectives they may be
  /// waiting in).
  Status start(int ranks, std::function<Status(int)> bind,
               std::function<void()> onFailure);
  ~RankThreads();

  int ranks() const { return count; }
  /// Runs fn(rank) on every rank at once; the lowest rank's error, if any.
  Status run(const std::function<Status(int)> &fn);

private:
  void loop(int rank);

  int count = 1;
  std::function<Status(int)> bindFn;
  std::function<void()> failureFn;
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable work, done;
  const std::function<Status(int)> *task = nullptr;
  uint64_t generation = 0;
  int pending = 0;
  bool failedNow = false;
  bool stopping = false;
  std::vector<Status> results;
};

} // namespace qwen3

#endif // QWEN3_LIB_RANKTHREADS_H
