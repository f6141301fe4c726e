//===- Scheduler.cpp - requests in, generated text out --------------------===//

#include "qwen3/serve/Scheduler.h"

#include <algorithm>

namespace qwen3::serve {

using Clock = std::chrono::steady_clock;

Job::Job(GenerationRequest r) : request(std::move(r)), arrived(Clock::now()) {}

bool Job::next(Event &event, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!cv_.wait_for(lock, timeout, [&] { return !events_.empty(); }))
    return false;
  event = std::move(events_.front());
  events_.pop_front();
  return true;
}

void Job::push(Event event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
  }
  cv_.notify_all();
}

Scheduler::Sequence::Sequence(std::shared_ptr<Job> j, int64_t s)
    : job(std::move(j)), slot(s), text(job->request.stop, job->request.thinking) {
  finish.finished = true;
  finish.usage.promptTokens = static_cast<int64_t>(job->request.promptIds.size());
}

Scheduler::Scheduler(Engine &engine, const Tokenizer &tokenizer, const ModelConfig &config,
                     size_t maxQueue, Metrics &metrics, int64_t prefillChunk)
    : engine_(engine), tokenizer_(tokenizer), config_(config), maxQueue_(maxQueue),
      metrics_(metrics), prefillChunk_(prefillChunk), slotFree_(engine.slots(), true) {
  worker_ = std::thread([this] { loop(); });
}

Scheduler::~Scheduler() { drain(); }

Scheduler::Admission Scheduler::submit(const std::shared_ptr<Job> &job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (draining_)
      return Admission::Draining;
    if (queue_.size() >= maxQueue_)
      return Admission::QueueFull;
    queue_.push_back(job);
    metrics_.setQueueDepth(static_cast<int64_t>(queue_.size()));
  }
  cv_.notify_all();
  return Admission::Accepted;
}

void Scheduler::drain() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    draining_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable())
    worker_.join();
}

void Scheduler::loop() {
  std::deque<Sequence> prefilling;
  std::vector<Sequence> running;
  for (;;) {
    // Admit what waits, while slots are free.
    std::vector<std::pair<std::shared_ptr<Job>, int64_t>> admitted; // and its pages
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const bool idle = running.empty() && prefilling.empty();
      if (idle)
        cv_.wait(lock, [&] { return draining_ || !queue_.empty(); });
      if (idle && queue_.empty())
        return; // draining, and nothing left
      size_t free = static_cast<size_t>(std::count(slotFree_.begin(), slotFree_.end(), true));
      // In arrival order, while a slot and the pages it may need are free.
      const int64_t pages = engine_.pageCounts().pages;
      int64_t reserved = pagesReserved_;
      while (!queue_.empty() && admitted.size() < free) {
        const int64_t need = pagesNeeded(*queue_.front());
        if (pages > 0 && reserved + need > pages)
          break;
        reserved += need;
        admitted.push_back({queue_.front(), need});
        queue_.pop_front();
      }
      metrics_.setQueueDepth(static_cast<int64_t>(queue_.size()));
    }
    for (auto &[job, need] : admitted)
      prefilling.push_back(admit(std::move(job), need));
    // While sequences decode, the next prompt's chunk runs inside their
    // step (mixed steps, where the engine runs them); else prompts are
    // prefilled on their own.
    const bool mixed = !running.empty() && mixedChunk() > 0;
    if (!mixed)
      prefill(prefilling, running);
    metrics_.setRunning(static_cast<int64_t>(running.size() + prefilling.size()));
    updatePageMetrics();
    if (running.empty())
      continue;
    // The chunk of the first waiting prompt (a cancelled one is retired).
    Engine::PromptChunk chunk;
    Engine::PromptChunk *withChunk = nullptr;
    while (mixed && !prefilling.empty() && !withChunk) {
      Sequence &seq = prefilling.front();
      if (seq.job->cancelled()) {
        finishWith(seq, "cancelled");
        release(seq);
        prefilling.pop_front();
        continue;
      }
      chunk.slot = seq.slot;
      chunk.prompt = &seq.job->request.promptIds;
      chunk.stepTokens = mixedChunk();
      chunk.sampling = seq.sampling;
      withChunk = &chunk;
    }
    // One batched step of every running sequence.
    std::vector<Engine::SlotStep> batch;
    for (const Sequence &seq : running)
      batch.push_back({seq.slot, seq.token, seq.sampling});
    std::vector<int32_t> next;
    // A sequence alone in slot 0 runs the single-sequence step (GEMVs, the
    // batch-1 graph): a lone request decodes as fast as qwen3-run. One left
    // alone elsewhere (the others finished) moves there when slot 0 is free.
    tile_runtime::Status st = tile_runtime::Status::ok();
    if (running.size() == 1 && running[0].slot != 0 && slotFree_[0] && prefilling.empty()) {
      if (engine_.moveSlot(running[0].slot, 0)) {
        slotFree_[running[0].slot] = true;
        slotFree_[0] = false;
        running[0].slot = 0;
        metrics_.slotMove();
      }
    }
    // Not while a prompt is prefilled in chunks: both run in the staging
    // rows, which would move between them every step.
    if (running.size() == 1 && running[0].slot == 0 && prefilling.empty()) {
      next.assign(1, -1);
      // A new sampling setting recaptures the single step's graphs;
      // requests with the same one (all greedy ones) reuse them.
      const Sampling &s = running[0].sampling;
      if (!samplingSet_ || s.enabled != sampling_.enabled ||
          s.temperature != sampling_.temperature || s.topK != sampling_.topK ||
          s.topP != sampling_.topP || s.seed != sampling_.seed) {
        st = engine_.setSampling(s);
        sampling_ = s;
        samplingSet_ = st.isOk();
      }
      if (st) {
        const auto t0 = Clock::now();
        st = engine_.decode(running[0].token, next[0]);
        metrics_.step(Metrics::Step::Single,
                      std::chrono::duration<double>(Clock::now() - t0).count());
      }
    } else {
      const auto t0 = Clock::now();
      st = engine_.decodeSlots(batch, next, withChunk);
      metrics_.step(withChunk ? Metrics::Step::Mixed : Metrics::Step::Batch,
                    std::chrono::duration<double>(Clock::now() - t0).count());
    }
    metrics_.batchSize(static_cast<int64_t>(batch.size()));
    const auto now = Clock::now();
    // The chunk's prompt: failed (finished), still going, or whole (its
    // first token emitted; running from the next step).
    std::vector<Sequence> joined;
    if (withChunk) {
      Sequence seq = std::move(prefilling.front());
      prefilling.pop_front();
      if (!st) {
        finishWith(seq, st.message());
        release(seq);
      } else {
        metrics_.prefillRun();
        if (!seq.started)
          seq.finish.usage.cachedTokens = chunk.reused;
        seq.started = true;
        seq.prefilled = chunk.end;
        if (chunk.end < static_cast<int64_t>(chunk.prompt->size())) {
          prefilling.push_front(std::move(seq));
        } else {
          seq.token = chunk.next;
          metrics_.promptTokens(seq.finish.usage.promptTokens, seq.finish.usage.cachedTokens);
          seq.last = now;
          metrics_.timeToFirstToken(std::chrono::duration<double>(now - seq.job->arrived).count());
          if (emit(seq))
            release(seq);
          else
            joined.push_back(std::move(seq));
        }
      }
    }
    std::vector<Sequence> still;
    for (size_t i = 0; i < running.size(); ++i) {
      Sequence &seq = running[i];
      bool done;
      if (!st) {
        finishWith(seq, st.message());
        done = true;
      } else {
        seq.token = next[i];
        metrics_.interTokenLatency(std::chrono::duration<double>(now - seq.last).count());
        seq.last = now;
        done = emit(seq);
      }
      if (done)
        release(seq);
      else
        still.push_back(std::move(seq));
    }
    for (Sequence &seq : joined)
      still.push_back(std::move(seq));
    running = std::move(still);
    metrics_.setRunning(static_cast<int64_t>(running.size() + prefilling.size()));
    updatePageMetrics();
  }
}

void Scheduler::release(const Sequence &seq) {
  // A failure leaves the slot's pages to its next prompt, which replaces
  // the sequence.
  (void)engine_.releaseSlot(seq.slot);
  slotFree_[seq.slot] = true;
  pagesReserved_ -= seq.pages;
  updatePageMetrics();
}

void Scheduler::updatePageMetrics() {
  const Engine::PageCounts pages = engine_.pageCounts();
  metrics_.setPages(pages.inUse, pages.cached, pages.pages);
}

int64_t Scheduler::pagesNeeded(const Job &job) const {
  const Engine::PageCounts c = engine_.pageCounts();
  if (c.pages == 0)
    return 0;
  const int64_t tokens =
      std::min<int64_t>(static_cast<int64_t>(job.request.promptIds.size()) + job.request.maxTokens,
                        engine_.maxSeqLen());
  return (tokens + c.pageSize - 1) / c.pageSize;
}

int64_t Scheduler::pickSlot() const {
  for (int64_t s = 0; s < static_cast<int64_t>(slotFree_.size()); ++s)
    if (slotFree_[s])
      return s;
  return -1;
}

Scheduler::Sequence Scheduler::admit(std::shared_ptr<Job> job, int64_t pages) {
  const GenerationRequest &r = job->request;
  Sequence seq(job, pickSlot());
  seq.sampling = r.sampling.enabled ? r.sampling : Sampling();
  seq.pages = pages;
  pagesReserved_ += seq.pages;
  slotFree_[seq.slot] = false;
  return seq;
}

void Scheduler::prefill(std::deque<Sequence> &waiting, std::vector<Sequence> &running) {
  int64_t budget = prefillChunk_ > 0 ? prefillChunk_ : -1;
  while (!waiting.empty() && budget != 0) {
    Sequence &seq = waiting.front();
    const std::vector<int32_t> &ids = seq.job->request.promptIds;
    const int64_t size = static_cast<int64_t>(ids.size());
    // What the first chunk finds held by some slot is not computed.
    const int64_t from =
        seq.started ? seq.prefilled : std::max(seq.prefilled, engine_.reusablePrefix(ids));
    // A chunk computes at least 2 tokens (the engine recomputes the last
    // two of what it reuses) and leaves at least 2 for the last one.
    int64_t end = size;
    if (budget > 0 && size - from > budget)
      end = std::max(from + std::max<int64_t>(budget, 2), seq.prefilled + 2);
    if (end > size - 2 && end < size)
      end = size;
    const bool whole = end == size;
    if (!prefillTo(seq, end)) {
      release(seq);
      waiting.pop_front();
      continue;
    }
    if (budget > 0)
      budget = std::max<int64_t>(0, budget - (end - from));
    if (!whole)
      break; // the budget is spent; the rest in a later step
    Sequence done = std::move(seq);
    waiting.pop_front();
    if (emit(done))
      release(done);
    else
      running.push_back(std::move(done));
  }
}

bool Scheduler::prefillTo(Sequence &seq, int64_t end) {
  const GenerationRequest &r = seq.job->request;
  if (seq.job->cancelled()) {
    finishWith(seq, "cancelled");
    return false;
  }
  const bool whole = end == static_cast<int64_t>(r.promptIds.size());
  // The prompt's prefix a slot still holds (a shared system prompt, the
  // turns before in a chat) is not computed again; nor are the chunks
  // this slot already holds. A chunk's pick is dropped.
  std::vector<int32_t> part;
  if (!whole)
    part.assign(r.promptIds.begin(), r.promptIds.begin() + end);
  int32_t pick = 0;
  int64_t reused = 0;
  const auto t0 = Clock::now();
  tile_runtime::Status st = engine_.prefillSlot(seq.slot, whole ? r.promptIds : part,
                                                whole ? seq.sampling : Sampling(), pick, reused);
  metrics_.step(Metrics::Step::Prefill, std::chrono::duration<double>(Clock::now() - t0).count());
  if (!st) {
    finishWith(seq, st.message());
    return false;
  }
  metrics_.prefillRun();
  if (!seq.started)
    seq.finish.usage.cachedTokens = reused;
  seq.started = true;
  seq.prefilled = end;
  if (!whole)
    return true;
  seq.token = pick;
  metrics_.promptTokens(seq.finish.usage.promptTokens, seq.finish.usage.cachedTokens);
  seq.last = Clock::now();
  metrics_.timeToFirstToken(std::chrono::duration<double>(seq.last - seq.job->arrived).count());
  return true;
}

bool Scheduler::emit(Sequence &seq) {
  const GenerationRequest &r = seq.job->request;
  ++seq.generated;
  auto done = [&](const char *reason) {
    seq.finish.finishReason = reason;
    finishWith(seq, "");
    return true;
  };
  if (!r.ignoreEos && config_.isEndOfSequence(seq.token))
    return done("stop");
  if (r.topLogprobs >= 0) {
    // The logits that picked the token.
    std::vector<float> logits;
    if (tile_runtime::Status st = engine_.slotLogits(seq.slot, logits); !st) {
      finishWith(seq, st.message());
      return true;
    }
    seq.logprobs.push_back(tokenLogprob(logits, seq.token, r.topLogprobs));
  }
  Job::Event ev;
  ev.delta = seq.text.feed(tokenizer_.tokenBytes(seq.token));
  if (!ev.delta.empty()) {
    ev.logprobs = std::move(seq.logprobs);
    seq.logprobs.clear();
    seq.job->push(std::move(ev));
  }
  if (seq.text.stopped())
    return done("stop");
  if (seq.generated >= r.maxTokens)
    return done("length");
  if (seq.job->cancelled()) {
    finishWith(seq, "cancelled");
    return true;
  }
  if (engine_.slotLength(seq.slot) >= engine_.maxSeqLen())
    return done("length"); // the context is full
  return false;
}

void Scheduler::finishWith(Sequence &seq, const std::string &error) {
  metrics_.generatedTokens(seq.generated);
  seq.finish.usage.completionTokens = seq.generated;
  if (error.empty() && !seq.text.stopped())
    seq.finish.delta = seq.text.finish();
  seq.finish.logprobs = std::move(seq.logprobs);
  seq.finish.error = error;
  seq.job->push(std::move(seq.finish));
}

} // namespace qwen3::serve
