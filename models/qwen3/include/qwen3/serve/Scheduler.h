//===- Scheduler.h - requests in, generated text out ------------*- C++ -*-===//
//
// The server's requests wait in a bounded queue; one worker thread owns the
// engine and batches them continuously (docs/serving.md): every step it
// admits waiting requests into free cache slots, prefills up to a budget of
// prompt tokens (a prompt in chunks over several steps where it does not
// fit, each reusing the longest prefix a slot holds), then runs one batched
// decode step of every running sequence, and retires the finished ones. Each
// request is a Job whose events (text deltas, then one finish) the HTTP
// side reads as they come; a job whose client has gone is cancelled and
// gives up its slot at the next step.
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
  /// `prefillChunk`: the prompt tokens prefilled per step at most, so the
  /// running sequences wait for at most that much prefill between two
  /// tokens (0: whole prompts, every admitted one before the next step).
  /// Where the engine runs prompt chunks inside batched steps
  /// (Engine::stepPromptTokens), a step with running sequences carries the
  /// next waiting prompt's chunk in its GEMMs instead (mixed steps), the
  /// step's rows `prefillChunk` at most (the decode rows and the chunk's);
  /// with none running, prompts are prefilled on their own.
  Scheduler(Engine &engine, const Tokenizer &tokenizer, const ModelConfig &config,
            size_t maxQueue, Metrics &metrics, int64_t prefillChunk = 0);
  ~Scheduler();

  enum class Admission { Accepted, QueueFull, Draining };
  Admission submit(const std::shared_ptr<Job> &job);
  /// Takes no new jobs, finishes the queued and the running ones, stops
  /// the worker.
  void drain();

private:
  /// A request in its slot: its prompt being prefilled (`prefilled` of its
  /// tokens held by the slot), then running (the token it feeds next).
  struct Sequence {
    std::shared_ptr<Job> job;
    int64_t slot = 0;
    int64_t prefilled = 0;
    bool started = false; ///< a first chunk ran (its reuse counted)
    int32_t token = 0;
    int64_t generated = 0;
    Sampling sampling;
    OutputText text;
    std::vector<TokenLogprob> logprobs; ///< not yet sent
    Job::Event finish;
    std::chrono::steady_clock::time_point last;
    int64_t pages = 0; ///< reserved at admission (pagesNeeded)
    Sequence(std::shared_ptr<Job> j, int64_t s);
  };
  void loop();
  /// Takes a free slot for the job (its prompt not yet prefilled) and
  /// reserves `pages` (pagesNeeded) for it.
  Sequence admit(std::shared_ptr<Job> job, int64_t pages);
  /// Prefills waiting prompts in order, `budget` computed tokens at most
  /// (whole prompts where 0); a finished prompt's sequence moves to
  /// `running` (or is retired, where its first token ends it).
  void prefill(std::deque<Sequence> &waiting, std::vector<Sequence> &running);
  /// Runs seq's prompt up to token `end` (the whole prompt: its first
  /// token picked); false where it failed or was cancelled (finished).
  bool prefillTo(Sequence &seq, int64_t end);
  /// A finished sequence's slot: its pages released (the whole ones kept
  /// published), the slot free, its reserved pages returned.
  void release(const Sequence &seq);
  /// The paged cache's counts into the metrics.
  void updatePageMetrics();
  /// The pages a job may come to hold: its prompt and max_tokens, at most
  /// a whole context (0 without a paged cache).
  int64_t pagesNeeded(const Job &job) const;
  /// The first free slot (a lone request in slot 0 runs the
  /// single-sequence step). Prefixes come from the published pages and the
  /// staging rows, whatever the slot.
  int64_t pickSlot() const;
  /// Emits seq's current token; true when the sequence is finished (its
  /// finish event sent).
  bool emit(Sequence &seq);
  void finishWith(Sequence &seq, const std::string &error);
  /// The rows of a mixed step, the chunk's and the decode rows' (0: no
  /// mixed steps).
  int64_t mixedChunk() const {
    return prefillChunk_ > 0 ? std::min(prefillChunk_, engine_.stepPromptTokens()) : 0;
  }

  Engine &engine_;
  const Tokenizer &tokenizer_;
  const ModelConfig &config_;
  const size_t maxQueue_;
  Metrics &metrics_;
  const int64_t prefillChunk_;
  std::mutex mutex_;
  std::condition_variable cv_;
  /// Pages the admitted sequences reserved: a request is admitted only
  /// while they fit the paged cache, so no step runs out of pages.
  int64_t pagesReserved_ = 0;
  std::deque<std::shared_ptr<Job>> queue_;
  bool draining_ = false;
  std::vector<bool> slotFree_;
  Sampling sampling_; ///< what the engine's single-sequence step is set to
  bool samplingSet_ = false;
  std::thread worker_;
};

} // namespace qwen3::serve

#endif // QWEN3_SERVE_SCHEDULER_H
