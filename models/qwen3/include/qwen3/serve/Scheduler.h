//===- Scheduler.h - requests in, generated text out ------------*- C++ -*-===//
//
// The server's requests wait in a bounded queue; one worker thread owns the
// engine and runs them. Each request is a Job whose events (text deltas,
// then one finish) the HTTP side reads as they come; a job whose client has
// gone is cancelled and gives up its sequence at the next step. Requests
// run one at a time (a batch of one); continuous batching over a paged KV
// cache is the next step of docs/serving.md.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SERVE_SCHEDULER_H
#define QWEN3_SERVE_SCHEDULER_H

#include "qwen3/Engine.h"
#include "qwen3/Tokenizer.h"
#include "qwen3/serve/Metrics.h"
#include "qwen3/serve/Logprobs.h"
#include "qwen3/serve/OutputText.h"
#include "qwen3/serve/Protocol.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace qwen3::serve {

/// One request's generation, shared by the HTTP handler and the worker.
class Job {
public:
  explicit Job(GenerationRequest request);

  struct Event {
    OutputText::Delta delta;
    bool finished = false;
    std::string finishReason; ///< "stop" or "length" when finished
    Usage usage;
    std::string error; ///< the engine failed (finished with no reason)
    /// With logprobs: the tokens generated since the last event (their
    /// text may still be held: it comes with a later delta).
    std::vector<TokenLogprob> logprobs;
  };
  /// The next event, waiting up to `timeout`; false on timeout.
  bool next(Event &event, std::chrono::milliseconds timeout);
  /// The client is gone (or the server gave up on it): stop at the next step.
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

  const GenerationRequest request;
  const std::chrono::steady_clock::time_point arrived;

private:
  friend class Scheduler;
  void push(Event event);
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Event> events_;
  std::atomic<bool> cancelled_{false};
};

class Scheduler {
public:
  Scheduler(Engine &engine, const Tokenizer &tokenizer, const ModelConfig &config,
            size_t maxQueue, Metrics &metrics);
  ~Scheduler();

  enum class Admission { Accepted, QueueFull, Draining };
  Admission submit(const std::shared_ptr<Job> &job);
  /// Takes no new jobs, finishes the queued and the running ones, stops
  /// the worker.
  void drain();

private:
  void loop();
  void run(Job &job);

  Engine &engine_;
  const Tokenizer &tokenizer_;
  const ModelConfig &config_;
  const size_t maxQueue_;
  Metrics &metrics_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool draining_ = false;
  Sampling sampling_; ///< what the engine is set to
  bool samplingSet_ = false;
  std::thread worker_;
};

} // namespace qwen3::serve

#endif // QWEN3_SERVE_SCHEDULER_H
