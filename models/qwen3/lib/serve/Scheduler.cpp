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

Scheduler::Scheduler(Engine &engine, const Tokenizer &tokenizer, const ModelConfig &config,
                     size_t maxQueue, Metrics &metrics)
    : engine_(engine), tokenizer_(tokenizer), config_(config), maxQueue_(maxQueue),
      metrics_(metrics) {
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
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return draining_ || !queue_.empty(); });
      if (queue_.empty())
        return; // draining, and nothing left
      job = queue_.front();
      queue_.pop_front();
      metrics_.setQueueDepth(static_cast<int64_t>(queue_.size()));
    }
    metrics_.setRunning(1);
    run(*job);
    metrics_.setRunning(0);
  }
}

void Scheduler::run(Job &job) {
  const GenerationRequest &r = job.request;
  Job::Event finish;
  finish.finished = true;
  finish.usage.promptTokens = static_cast<int64_t>(r.promptIds.size());
  if (job.cancelled()) {
    finish.error = "cancelled";
    job.push(std::move(finish));
    return;
  }
  auto fail = [&](const tile_runtime::Status &st) {
    finish.error = st.message();
    job.push(std::move(finish));
  };
  // A new sampling setting recaptures the decode graphs; requests with the
  // same one (all greedy ones, whatever their seeds) reuse them.
  Sampling s = r.sampling;
  if (!s.enabled)
    s = Sampling();
  if (!samplingSet_ || s.enabled != sampling_.enabled || s.temperature != sampling_.temperature ||
      s.topK != sampling_.topK || s.topP != sampling_.topP || s.seed != sampling_.seed) {
    if (tile_runtime::Status st = engine_.setSampling(s); !st)
      return fail(st);
    sampling_ = s;
    samplingSet_ = true;
  }
  OutputText text(r.stop, r.thinking);
  int32_t token = -1;
  // The prompt's prefix the engine still holds from the request before
  // (a shared system prompt, the turns before in a chat) is not computed
  // again.
  if (tile_runtime::Status st =
          engine_.prefillReusing(r.promptIds, token, finish.usage.cachedTokens);
      !st)
    return fail(st);
  metrics_.promptTokens(finish.usage.promptTokens, finish.usage.cachedTokens);
  auto last = Clock::now();
  metrics_.timeToFirstToken(std::chrono::duration<double>(last - job.arrived).count());
  int64_t generated = 0;
  auto isEos = [&](int32_t t) { return !r.ignoreEos && config_.isEndOfSequence(t); };
  std::vector<TokenLogprob> logprobs; // not yet sent
  std::vector<float> logits;
  for (;;) {
    ++generated;
    if (isEos(token)) {
      finish.finishReason = "stop";
      break;
    }
    if (r.topLogprobs >= 0) {
      // The logits that picked `token`.
      if (tile_runtime::Status st = engine_.lastLogits(logits); !st)
        return fail(st);
      logprobs.push_back(tokenLogprob(logits, token, r.topLogprobs));
    }
    Job::Event ev;
    ev.delta = text.feed(tokenizer_.tokenBytes(token));
    if (!ev.delta.empty()) {
      ev.logprobs = std::move(logprobs);
      logprobs.clear();
      job.push(std::move(ev));
    }
    if (text.stopped()) {
      finish.finishReason = "stop";
      break;
    }
    if (generated >= r.maxTokens) {
      finish.finishReason = "length";
      break;
    }
    if (job.cancelled())
      break;
    if (tile_runtime::Status st = engine_.decode(token, token); !st) {
      metrics_.generatedTokens(generated);
      return fail(st);
    }
    auto now = Clock::now();
    metrics_.interTokenLatency(std::chrono::duration<double>(now - last).count());
    last = now;
  }
  metrics_.generatedTokens(generated);
  finish.usage.completionTokens = generated;
  if (!text.stopped())
    finish.delta = text.finish();
  finish.logprobs = std::move(logprobs);
  if (job.cancelled() && finish.finishReason.empty())
    finish.error = "cancelled";
  job.push(std::move(finish));
}

} // namespace qwen3::serve
