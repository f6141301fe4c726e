//===- EngineImpl.h - the engine's state across its files -------*- C++ -*-===//
//
// Engine::Impl: the devices, the shards and their threads (Engine.cpp), and
// the sequences of continuous batching over the paged cache
// (EngineSequences.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_LIB_ENGINEIMPL_H
#define QWEN3_LIB_ENGINEIMPL_H

#include "EngineShard.h"
#include "RankThreads.h"

#include "qwen3/PagePool.h"

#include <atomic>
#include <functional>
#include <memory>

namespace qwen3 {

using namespace tile_runtime;

struct Engine::Impl {
  ModelConfig cfg; ///< the model's (each shard holds its slice)
  DType dt = DType::BF16;
  int64_t maxSeq = 0;
  double weightsMs = 0;
  // Destroyed in reverse: the threads are joined first, then the shards
  // (graphs, buffers) go, then the communicators their graphs used, then
  // the devices.
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<std::unique_ptr<Communicator>> comms;
  PeerExchange exchange;
  std::vector<std::unique_ptr<EngineShard>> shards;
  RankThreads threads;
  /// Where a sequence's last pick's logits are.
  enum class LogitsAt { None, Prefill, Batch, Single };
  /// A slot's sequence (docs/serving.md): the tokens whose K/V rows it
  /// holds, in order (the last prompt and the tokens fed after it). Its
  /// rows [0, inPages) are in its pages (the first `published` of them
  /// published, the last one's key `key`); the staging rows hold the rows
  /// of `stagingTokens`, the leading ones of the staged slot's sequence.
  /// Every row is in one or the other: tokens.size() is inPages, or
  /// stagingTokens.size() for the staged slot.
  struct Sequence {
    std::vector<int32_t> tokens;
    std::vector<int64_t> pages;
    int64_t inPages = 0, published = 0;
    uint64_t key = 0;
    LogitsAt logitsAt = LogitsAt::None;
    int64_t batchRow = 0; ///< its row in the last batched step
  };
  std::vector<Sequence> seqs;
  /// The paged cache's bookkeeping (null with --max-batch 1: one sequence,
  /// always staged).
  std::unique_ptr<PagePool> pool;
  /// The staged slot (-1: none; the staging rows may still hold a
  /// released sequence's rows, a prefix to reuse).
  int64_t staged = -1;
  std::vector<int32_t> stagingTokens;

  // The paged cache (EngineSequences.cpp).
  /// Writes the staged sequence's rows missing from its pages into them
  /// (taking pages as needed) and publishes its whole pages.
  Status flushStaged();
  /// The staging rows hold all of `slot`'s rows (gathered if not).
  Status stage(int64_t slot);
  /// Releases `slot`'s pages; the sequence is empty.
  void dropPages(Sequence &seq);
  /// Publishes seq's whole pages up to its rows in pages.
  void publishPages(Sequence &seq);
  /// What a prompt may reuse of `ids`, at most `most` tokens: the prefix
  /// the staging rows hold, and the published pages that start it.
  struct Reuse {
    size_t fromStaging = 0;
    std::vector<int64_t> matched;
    size_t fromPages() const { return matched.size() * kernels::kPageSize; }
  };
  Reuse findReuse(const std::vector<int32_t> &ids, size_t most) const;
  /// Makes `slot`'s sequence (replaced) the longest prefix of `ids` that
  /// the staging rows or the published pages hold, at most `most` tokens
  /// (`reused` of them), staged; the shards still have to gather `gather`
  /// (the pages matched) into the staging rows where it is not empty.
  Status startPrompt(int64_t slot, const std::vector<int32_t> &ids, size_t most, int64_t &reused,
                     std::vector<int32_t> &gather);
  // Mixed steps (decodeSlots with a PromptChunk).
  /// The refusals of `chunk` (`stepped`: its slot is also a decode row).
  Status checkChunk(const Engine::PromptChunk &chunk, bool stepped) const;
  /// Stages chunk's prompt so far and sets its tokens for a step whose
  /// decode rows run as `decodeRows`: `part` for the shards, which gather
  /// `gather` into the staging rows first where not empty.
  Status startChunk(Engine::PromptChunk &chunk, int64_t decodeRows, EngineShard::PromptChunk &part,
                    std::vector<int32_t> &gather);
  /// After the step: the chunk's rows are its sequence's (its pick's logits
  /// row `pickRow` where it was the last), or, where the step failed
  /// (`ran` false), the sequence is dropped.
  void endChunk(const Engine::PromptChunk &chunk, const EngineShard::PromptChunk &part, bool ran,
                int64_t pickRow);
  /// Runs `ids` into `slot`'s sequence (replacing it) in the staging rows,
  /// reusing (`reuse`) the longest prefix the staging rows or the
  /// published pages hold; `sampling` null: the single-sequence steps'.
  Status prefillInto(int64_t slot, const std::vector<int32_t> &ids, const Sampling *sampling,
                     bool reuse, int32_t &next, int64_t &reused);
  /// A rank failed mid-step and the collectives were aborted: the shards'
  /// states no longer agree, so every later call fails with this.
  std::atomic<bool> aborted{false};
  std::string abortedBecause;

  int ranks() const { return static_cast<int>(shards.size()); }
  /// fn on every shard at once, each on the thread bound to its device.
  Status onShards(const std::function<Status(EngineShard &, int)> &fn) {
    if (aborted)
      return Status::error("the engine stopped after an earlier error: " + abortedBecause);
    Status st = threads.run([&](int r) { return fn(*shards[r], r); });
    // With several ranks, any failure may have left them apart (one a step
    // ahead, a collective half done): the engine stops for good.
    if (!st && ranks() > 1 && abortedBecause.empty()) {
      abortedBecause = st.message();
      if (!aborted.exchange(true))
        for (auto &comm : comms)
          comm->abort();
    }
    return st;
  }
  /// A prompt's logits replaced the last one's: only `slot` has its pick's.
  void tookPrefillLogits(size_t slot) {
    for (Sequence &q : seqs)
      if (q.logitsAt == LogitsAt::Prefill)
        q.logitsAt = LogitsAt::None;
    seqs[slot].logitsAt = LogitsAt::Prefill;
  }
  /// fn on rank 0's shard only (on its thread).
  Status onFirst(const std::function<Status(EngineShard &)> &fn) {
    return onShards([&](EngineShard &s, int r) { return r == 0 ? fn(s) : Status::ok(); });
  }
};


/// Checks shared by the engine's files (Engine.cpp).
Status checkPrompt(int64_t tokens, int64_t maxSeq);
Status checkSampling(const Sampling &sampling);
/// The ranks' picks, which must agree.
Status agreed(const std::vector<int32_t> &picks, int32_t &next);
/// How many leading tokens of `ids` `held` holds, at most `most`.
size_t commonPrefix(const std::vector<int32_t> &held, const std::vector<int32_t> &ids,
                    size_t most);
/// The most of `ids` a prefill may reuse: at least two tokens are computed.
size_t reusable(const std::vector<int32_t> &ids);

} // namespace qwen3

#endif // QWEN3_LIB_ENGINEIMPL_H
