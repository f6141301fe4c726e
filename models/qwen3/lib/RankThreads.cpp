//===- RankThreads.cpp - a thread per tensor-parallel rank ----------------===//

#include "RankThreads.h"

#include <exception>
#include <string>

namespace qwen3 {

Status RankThreads::start(int ranks, std::function<Status(int)> bind,
                          std::function<void()> onFailure) {
  count = ranks;
  bindFn = std::move(bind);
  failureFn = std::move(onFailure);
  results.assign(ranks, Status::ok());
  if (ranks == 1)
    return bindFn(0);
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([this, r] { loop(r); });
  // Each thread binds its device as its first task.
  return run([](int) { return Status::ok(); });
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  work.notify_all();
  for (std::thread &t : threads)
    t.join();
}

void RankThreads::loop(int rank) {
  Status bound = bindFn(rank);
  uint64_t seen = 0;
  for (;;) {
    const std::function<Status(int)> *fn;
    {
      std::unique_lock<std::mutex> lock(mutex);
      work.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      fn = task;
    }
    Status st = bound;
    if (st) {
      // An exception (an allocation that failed) is this rank's error,
      // not the end of the process.
      try {
        st = (*fn)(rank);
      } catch (const std::exception &e) {
        st = Status::error(std::string("rank ") + std::to_string(rank) + ": " + e.what());
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      results[rank] = st;
      if (!st)
        failedNow = true;
      --pending;
    }
    done.notify_all();
  }
}

Status RankThreads::run(const std::function<Status(int)> &fn) {
  if (count == 1) {
    // One rank runs on the caller's thread, whichever that is (a server's
    // worker, say): bind the device to it first.
    if (Status st = bindFn(0); !st)
      return st;
    return fn(0);
  }
  std::unique_lock<std::mutex> lock(mutex);
  task = &fn;
  pending = count;
  failedNow = false;
  ++generation;
  work.notify_all();
  bool aborted = false;
  for (;;) {
    done.wait(lock, [&] { return pending == 0 || (failedNow && !aborted); });
    if (pending == 0)
      break;
    // A rank failed while others may wait for it in a collective: release
    // them, then wait for every rank to return.
    aborted = true;
    lock.unlock();
    failureFn();
    lock.lock();
  }
  task = nullptr;
  for (const Status &s : results)
    if (!s)
      return s;
  return Status::ok();
}

} // namespace qwen3
