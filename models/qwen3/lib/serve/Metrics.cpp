//===- Metrics.cpp - the server's Prometheus metrics ----------------------===//

#include "qwen3/serve/Metrics.h"

#include <sstream>

namespace qwen3::serve {

void Metrics::Histogram::observe(double v) {
  if (counts.empty())
    counts.assign(bounds.size() + 1, 0);
  size_t i = 0;
  while (i < bounds.size() && v > bounds[i])
    ++i;
  ++counts[i];
  sum += v;
  ++count;
}

void Metrics::request(const std::string &route, int status) {
  std::lock_guard<std::mutex> l(mutex_);
  ++requests_[{route, status}];
}
void Metrics::promptTokens(int64_t n, int64_t cached) {
  std::lock_guard<std::mutex> l(mutex_);
  promptTokens_ += n;
  cachedPromptTokens_ += cached;
}
void Metrics::generatedTokens(int64_t n) {
  std::lock_guard<std::mutex> l(mutex_);
  generatedTokens_ += n;
}
void Metrics::timeToFirstToken(double s) {
  std::lock_guard<std::mutex> l(mutex_);
  ttft_.observe(s);
}
void Metrics::interTokenLatency(double s) {
  std::lock_guard<std::mutex> l(mutex_);
  itl_.observe(s);
}
void Metrics::setQueueDepth(int64_t n) {
  std::lock_guard<std::mutex> l(mutex_);
  queueDepth_ = n;
}
void Metrics::setRunning(int64_t n) {
  std::lock_guard<std::mutex> l(mutex_);
  running_ = n;
}
void Metrics::batchSize(int64_t n) {
  std::lock_guard<std::mutex> l(mutex_);
  lastBatch_ = n;
  ++decodeSteps_;
  decodeRows_ += static_cast<uint64_t>(n);
}

void Metrics::step(Step kind, double s) {
  std::lock_guard<std::mutex> l(mutex_);
  steps_[static_cast<int>(kind)].observe(s);
}

void Metrics::prefillRun() {
  std::lock_guard<std::mutex> l(mutex_);
  ++prefillRuns_;
}

void Metrics::slotMove() {
  std::lock_guard<std::mutex> l(mutex_);
  ++slotMoves_;
}

void Metrics::setPages(int64_t inUse, int64_t cached, int64_t total) {
  std::lock_guard<std::mutex> l(mutex_);
  pagesInUse_ = inUse;
  pagesCached_ = cached;
  pagesTotal_ = total;
}

std::string Metrics::prometheus() const {
  std::lock_guard<std::mutex> l(mutex_);
  std::ostringstream o;
  o << "# HELP qwen3_requests_total HTTP requests by route and status.\n"
       "# TYPE qwen3_requests_total counter\n";
  for (const auto &[key, n] : requests_)
    o << "qwen3_requests_total{route=\"" << key.first << "\",status=\"" << key.second
      << "\"} " << n << "\n";
  // One sample metric: its help, type and value.
  auto metric = [&](const char *name, const char *type, const char *help, auto value) {
    o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
      << name << " " << value << "\n";
  };
  metric("qwen3_prompt_tokens_total", "counter", "Prompt tokens of the requests.", promptTokens_);
  metric("qwen3_prompt_tokens_cached_total", "counter",
         "Prompt tokens whose KV cache was reused.", cachedPromptTokens_);
  metric("qwen3_generation_tokens_total", "counter", "Tokens generated.", generatedTokens_);
  metric("qwen3_queue_depth", "gauge", "Requests waiting to run.", queueDepth_);
  metric("qwen3_running_requests", "gauge", "Requests generating now (the batch size).", running_);
  metric("qwen3_kv_slots_used", "gauge", "KV cache slots holding a running sequence.", running_);
  metric("qwen3_kv_pages_used", "gauge", "Pages of the paged KV cache sequences hold.",
         pagesInUse_);
  metric("qwen3_kv_pages_cached", "gauge",
         "Pages of the paged KV cache held by no sequence but kept for their published prefix.",
         pagesCached_);
  metric("qwen3_kv_pages", "gauge", "Pages of the paged KV cache.", pagesTotal_);
  metric("qwen3_batch_size", "gauge", "Sequences in the last batched decode step.", lastBatch_);
  metric("qwen3_decode_steps_total", "counter", "Batched decode steps.", decodeSteps_);
  metric("qwen3_decode_rows_total", "counter",
         "Sequences over all batched decode steps (their mean batch: rows / steps).", decodeRows_);
  metric("qwen3_prefill_runs_total", "counter",
         "Prefills run: whole prompts, or their chunks (--prefill-chunk).", prefillRuns_);
  metric("qwen3_slot_moves_total", "counter",
         "Lone sequences moved into slot 0 to take the single-sequence step.", slotMoves_);
  // A histogram's samples; `label` (`kind="..."`) distinguishes the series
  // of one metric, whose help and type come before its first.
  auto series = [&](const char *name, const std::string &label, const Histogram &h) {
    const std::string sep = label.empty() ? "" : ",";
    const std::string tail = label.empty() ? "" : "{" + label + "}";
    uint64_t cum = 0;
    for (size_t i = 0; i <= h.bounds.size(); ++i) {
      cum += h.counts.empty() ? 0 : h.counts[i];
      o << name << "_bucket{" << label << sep << "le=\"";
      if (i < h.bounds.size())
        o << h.bounds[i];
      else
        o << "+Inf";
      o << "\"} " << cum << "\n";
    }
    o << name << "_sum" << tail << " " << h.sum << "\n"
      << name << "_count" << tail << " " << h.count << "\n";
  };
  auto hist = [&](const char *name, const char *help, const Histogram &h) {
    o << "# HELP " << name << " " << help << "\n# TYPE " << name << " histogram\n";
    series(name, "", h);
  };
  hist("qwen3_time_to_first_token_seconds",
       "From a request's arrival to its first token.", ttft_);
  hist("qwen3_inter_token_latency_seconds", "Between two tokens of one request.", itl_);
  o << "# HELP qwen3_step_seconds An engine call of the scheduler: the batched step, with a "
       "prompt's chunk (mixed), the single-sequence step, a prefill on its own.\n"
       "# TYPE qwen3_step_seconds histogram\n";
  const char *kinds[] = {"batch", "mixed", "single", "prefill"};
  for (int k = 0; k < 4; ++k)
    series("qwen3_step_seconds", std::string("kind=\"") + kinds[k] + "\"", steps_[k]);
  return o.str();
}

} // namespace qwen3::serve
