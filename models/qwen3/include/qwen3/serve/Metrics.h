//===- Metrics.h - the server's Prometheus metrics --------------*- C++ -*-===//
//
// Counters, gauges and latency histograms of qwen3-serve, served as
// Prometheus text at GET /metrics. Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SERVE_METRICS_H
#define QWEN3_SERVE_METRICS_H

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace qwen3::serve {

class Metrics {
public:
  /// A finished HTTP request of `route` with `status`.
  void request(const std::string &route, int status);
  /// A request's prompt: `n` tokens, `cached` of them reused from the KV
  /// cache rather than prefilled.
  void promptTokens(int64_t n, int64_t cached);
  void generatedTokens(int64_t n);
  /// Seconds from a request's arrival to its first token.
  void timeToFirstToken(double seconds);
  /// Seconds between two tokens of one request.
  void interTokenLatency(double seconds);
  void setQueueDepth(int64_t n);
  void setRunning(int64_t n);
  /// A batched decode step of n sequences ran.
  void batchSize(int64_t n);
  /// What an engine call the scheduler made ran: the batched step, the
  /// batched step with a prompt's chunk in it, the single-sequence step, a
  /// prefill on its own (a prompt, or its chunk).
  enum class Step { Batch, Mixed, Single, Prefill };
  /// An engine call of `kind` took `seconds` (its launches, and the picks
  /// read back): beside the inter-token latency, what of a gap the GPU's
  /// step is and what the server's own work between steps.
  void step(Step kind, double seconds);
  /// A prefill of part of a prompt (a chunk: --prefill-chunk) or of all of it ran.
  void prefillRun();
  /// A lone sequence moved into slot 0 (the single-sequence step).
  void slotMove();
  /// The paged KV cache: pages sequences hold, pages only cached
  /// (published prefixes held by none), all pages.
  void setPages(int64_t inUse, int64_t cached, int64_t total);
  std::string prometheus() const;

private:
  struct Histogram {
    std::vector<double> bounds;
    std::vector<uint64_t> counts; ///< per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
    void observe(double v);
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  uint64_t promptTokens_ = 0, cachedPromptTokens_ = 0, generatedTokens_ = 0;
  int64_t queueDepth_ = 0, running_ = 0, lastBatch_ = 0;
  int64_t pagesInUse_ = 0, pagesCached_ = 0, pagesTotal_ = 0;
  uint64_t decodeSteps_ = 0, decodeRows_ = 0, prefillRuns_ = 0, slotMoves_ = 0;
  /// Step-sized bounds: a decode step of a few to about 20 ms, resolved
  /// finely enough that a percentile read from them tells a step from the
  /// work between two.
  static std::vector<double> stepBounds() {
    return {0.001, 0.0025, 0.005, 0.006, 0.007, 0.008, 0.009, 0.01, 0.011, 0.012, 0.013,
            0.014, 0.015, 0.0175, 0.02, 0.025, 0.05, 0.1, 0.25, 0.5, 1};
  }
  Histogram ttft_{{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}, {}},
      itl_{stepBounds(), {}};
  Histogram steps_[4] = {{stepBounds(), {}}, {stepBounds(), {}}, {stepBounds(), {}},
                         {stepBounds(), {}}};
};

} // namespace qwen3::serve

#endif // QWEN3_SERVE_METRICS_H
