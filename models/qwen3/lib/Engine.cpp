//===- Engine.cpp - the Qwen3 engine: its shards, the step API ------------===//
//
// The engine checks the model and its checkpoint, opens a device per rank,
// and runs every call on all of its shards at once (docs/parallel.md): one
// shard on the caller's thread, or a thread per rank joined by NCCL (CPU
// devices: an in-process exchange) under --tensor-parallel N.
//
//===----------------------------------------------------------------------===//

#include "EngineImpl.h"

#include "qwen3/KernelTable.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>

namespace qwen3 {

using namespace tile_runtime;

Engine::Engine() : impl(std::make_unique<Impl>()) {}
Engine::~Engine() = default;
const ModelConfig &Engine::config() const { return impl->cfg; }
int64_t Engine::maxSeqLen() const { return impl->maxSeq; }
std::string Engine::deviceName() const {
  std::string name = impl->devices[0]->name();
  return impl->ranks() == 1 ? name : std::to_string(impl->ranks()) + " x " + name;
}
double Engine::weightsLoadMs() const { return impl->weightsMs; }

/// Whether the model splits over `ranks` (heads, KV heads, the
/// intermediate size in whole 128-wide tiles, the vocabulary); otherwise
/// a line naming the config field.
static Status checkTensorParallel(const ModelConfig &c, int ranks, const std::string &path) {
  const std::string n = std::to_string(ranks);
  if (c.kvHeads % ranks != 0)
    return Status::error(path + ": num_key_value_heads " + std::to_string(c.kvHeads) +
                         " does not split over --tensor-parallel " + n +
                         " (a KV head and its query heads stay on one device)");
  if (c.intermediate % (ranks * SupportedShapes::sizeMultiple) != 0)
    return Status::error(path + ": intermediate_size " + std::to_string(c.intermediate) +
                         " does not split over --tensor-parallel " + n + " into multiples of " +
                         std::to_string(SupportedShapes::sizeMultiple));
  // Each rank's logits start 16-byte aligned: whole multiples of 8.
  if (ranks > 1 && c.vocabSize % (ranks * 8) != 0)
    return Status::error(path + ": vocab_size " + std::to_string(c.vocabSize) +
                         " does not split over --tensor-parallel " + n +
                         " into multiples of 8");
  return Status::ok();
}

/// The device spec of rank r: "cuda" and "cuda:K" count up from 0 and K.
static std::string rankDevice(const std::string &spec, int r) {
  if (spec == "cuda")
    return "cuda:" + std::to_string(r);
  if (spec.rfind("cuda:", 0) == 0 && r > 0) {
    try {
      return "cuda:" + std::to_string(std::stoi(spec.substr(5)) + r);
    } catch (...) {
      return spec; // Device::open names the bad spec
    }
  }
  return spec;
}

Status Engine::create(const std::string &modelDir, const EngineOptions &opts,
                      std::unique_ptr<Engine> &out) {
  std::unique_ptr<Engine> e(new Engine());
  Impl &m = *e->impl;
  if (opts.attentionKeysPerShare < 1)
    return Status::error("--attention-keys-per-share must be >= 1, got " +
                         std::to_string(opts.attentionKeysPerShare));
  if (opts.attentionGroupedFrom < 0)
    return Status::error("--attention-grouped-from must be >= 0, got " +
                         std::to_string(opts.attentionGroupedFrom));
  if (opts.attentionPrograms < 0)
    return Status::error("--attention-programs must be >= 0, got " +
                         std::to_string(opts.attentionPrograms));
  if (opts.batchAttentionSplits != 0 &&
      std::find(std::begin(kernels::kBatchAttentionSplits), std::end(kernels::kBatchAttentionSplits),
                opts.batchAttentionSplits) == std::end(kernels::kBatchAttentionSplits))
    return Status::error("--attention-splits for the batched step must be 0, 2, 4 or 8, got " +
                         std::to_string(opts.batchAttentionSplits));
  if (opts.projectionSplits < 0 || opts.projectionSplits > kernels::kMaxProjectionSplits)
    return Status::error("--projection-splits must be in [0, " +
                         std::to_string(kernels::kMaxProjectionSplits) + "], got " +
                         std::to_string(opts.projectionSplits));
  if (opts.maxBatch < 1 || opts.maxBatch > 1024)
    return Status::error("--max-batch must be in [1, 1024], got " +
                         std::to_string(opts.maxBatch));
  if (opts.tensorParallel < 1 || opts.tensorParallel > 64)
    return Status::error("--tensor-parallel must be in [1, 64], got " +
                         std::to_string(opts.tensorParallel));
  if (Status st = ModelConfig::load(modelDir, m.cfg); !st)
    return st;
  const ModelConfig &c = m.cfg;
  const std::string configPath = modelDir + "/config.json";
  if (c.dtype == "float32")
    return Status::error(configPath + ": float32 models are not supported (the kernel "
                         "set is compiled for bfloat16 and float16)");
  m.dt = c.dtype == "float16" ? DType::F16 : DType::BF16;
  if (Status st = checkSupportedShapes(c, configPath); !st)
    return st;
  const int ranks = static_cast<int>(opts.tensorParallel);
  if (Status st = checkTensorParallel(c, ranks, configPath); !st)
    return st;
  if (opts.maxSeqLen > c.maxPositions)
    return Status::error("--max-seq-len " + std::to_string(opts.maxSeqLen) +
                         " exceeds the model's max_position_embeddings (" +
                         std::to_string(c.maxPositions) + ")");
  // The KV cache (docs/serving.md): the staging rows, one context, and
  // with --max-batch 2 or more the pages. By default every sequence may
  // fill its context: --max-batch contexts of pages, the context what
  // fits. --kv-cache-memory sizes the whole cache instead: without
  // --max-seq-len the context is still what gives each sequence its
  // whole context; with it, the pages are what the memory leaves after
  // the staging rows, at least one context and a page per sequence, and
  // the sequences share them (the server admits what their pages allow).
  const bool paged = opts.maxBatch > 1;
  const int64_t contexts = EngineShard::cacheContexts(opts.maxBatch);
  const int64_t bytesPerPosition = EngineShard::kvBytesPerPosition(c, c.kvHeads / ranks);
  const auto rowsOf = [](int64_t positions) { return (positions + 63) / 64 * 64; };
  int64_t budgetPositions = c.maxPositions;
  int64_t cachePositions = 0; // --kv-cache-memory's, whole pages
  if (opts.kvCacheBytes < 0)
    return Status::error("--kv-cache-memory must be >= 0, got " +
                         std::to_string(opts.kvCacheBytes));
  if (opts.kvCacheBytes > 0) {
    cachePositions = opts.kvCacheBytes / bytesPerPosition / 64 * 64;
    const std::string holds = "--kv-cache-memory " + std::to_string(opts.kvCacheBytes) +
                              " bytes hold " + std::to_string(cachePositions) + " positions";
    if (opts.maxSeqLen <= 0) {
      budgetPositions = opts.kvCacheBytes / (bytesPerPosition * contexts) / 64 * 64;
      if (budgetPositions < 64)
        return Status::error(holds + ", " + std::to_string(budgetPositions) +
                             " for each of " +
                             (paged ? "the staging rows and --max-batch " +
                                          std::to_string(opts.maxBatch) + " sequences"
                                    : std::string("--max-batch 1 sequence")) +
                             " (at least 64 needed: " +
                             std::to_string(64 * bytesPerPosition * contexts) + " bytes)");
    } else {
      // The staging rows, and pages for one whole context and at least a
      // page per sequence.
      const int64_t rows = rowsOf(opts.maxSeqLen);
      const int64_t need =
          rows + (paged ? std::max(rows, opts.maxBatch * int64_t(64)) : 0);
      if (cachePositions < need)
        return Status::error(holds + "; --max-seq-len " + std::to_string(opts.maxSeqLen) +
                             (paged ? " with --max-batch " + std::to_string(opts.maxBatch) +
                                          " needs " + std::to_string(need) +
                                          " (the staging rows, then pages for one context "
                                          "and a page per sequence): "
                                    : " needs ") +
                             std::to_string(need * bytesPerPosition) + " bytes");
    }
  }

  // Everything about the checkpoint is validated before a device opens.
  Checkpoint ck;
  if (Status st = Checkpoint::open(modelDir, ck); !st)
    return st;
  if (Status st = checkWeights(c, m.dt, ck, modelDir); !st)
    return st;

  for (int r = 0; r < ranks; ++r) {
    std::unique_ptr<Device> d;
    if (Status st = Device::open(rankDevice(opts.device, r), d); !st)
      return ranks == 1 ? st
                        : Status::error("--tensor-parallel " + std::to_string(ranks) +
                                        ": rank " + std::to_string(r) + ": " + st.message());
    m.devices.push_back(std::move(d));
  }
  if (ranks > 1) {
    std::vector<Device *> devs;
    for (auto &d : m.devices)
      devs.push_back(d.get());
    if (Status st = Communicator::create(devs, m.comms); !st)
      return st;
    if (opts.allReduce != EngineOptions::AllReduce::Nccl) {
      Status st = PeerExchange::create(m.comms, m.dt, c.hidden, m.exchange);
      // Auto: NCCL where the devices cannot reach each other's memory.
      if (!st && opts.allReduce == EngineOptions::AllReduce::Peer)
        return Status::error("--all-reduce peer: " + st.message());
      if (!st)
        m.exchange = PeerExchange();
    }
  }
  for (int r = 0; r < ranks; ++r)
    m.shards.push_back(std::make_unique<EngineShard>());
  Impl *self = &m;
  if (Status st = m.threads.start(
          ranks, [self](int r) { return self->devices[r]->makeCurrent(); },
          [self] {
            self->aborted = true;
            for (auto &comm : self->comms)
              comm->abort();
          });
      !st)
    return st;
  if (Status st = m.onShards([&](EngineShard &s, int r) {
        return s.open(*m.devices[r], c, m.dt, opts,
                      ShardPlace{r, ranks, ranks > 1 ? m.comms[r].get() : nullptr,
                                 m.exchange.flags.views.empty() ? nullptr : &m.exchange});
      });
      !st)
    return st;

  auto tWeights = std::chrono::steady_clock::now();
  std::mutex progressMutex;
  int64_t layersDone = 0;
  auto layerDone = [&] {
    if (!opts.onLoadProgress)
      return;
    std::lock_guard<std::mutex> lock(progressMutex);
    opts.onLoadProgress(++layersDone, c.layers * ranks);
  };
  if (Status st = m.onShards([&](EngineShard &s, int) { return s.loadWeights(ck, layerDone); });
      !st)
    return st;
  m.weightsMs = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - tWeights).count();

  // The KV cache: the requested length, else the model's, capped by what
  // fits in the memory left after the weights on every device.
  m.maxSeq = opts.maxSeqLen > 0 ? opts.maxSeqLen : std::min(c.maxPositions, budgetPositions);
  if (opts.maxSeqLen <= 0) {
    std::vector<int64_t> fits(ranks, 0);
    if (Status st = m.onShards([&](EngineShard &s, int r) { return s.cacheBudget(fits[r]); });
        !st)
      return st;
    m.maxSeq = std::min(m.maxSeq, *std::min_element(fits.begin(), fits.end()));
  }
  // The pages: every sequence's whole context, or what --kv-cache-memory
  // leaves after the staging rows.
  int64_t pages = 0;
  if (paged)
    pages = cachePositions > 0 ? (cachePositions - rowsOf(m.maxSeq)) / 64
                               : opts.maxBatch * (rowsOf(m.maxSeq) / 64);
  if (Status st = m.onShards([&](EngineShard &s, int) { return s.allocState(m.maxSeq, pages); });
      !st)
    return st;
  m.seqs.assign(opts.maxBatch, {});
  if (pages > 0)
    m.pool = std::make_unique<PagePool>(pages, kernels::kPageSize);
  m.staged = 0; // the single-sequence steps' slot, empty
  out = std::move(e);
  return Status::ok();
}

Status checkSampling(const Sampling &sampling) {
  if (sampling.enabled) {
    if (!(sampling.temperature > 0) || !std::isfinite(sampling.temperature))
      return Status::error("temperature must be > 0, got " +
                           std::to_string(sampling.temperature));
    if (!(sampling.topP > 0 && sampling.topP <= 1))
      return Status::error("top-p must be in (0, 1], got " + std::to_string(sampling.topP));
    if (sampling.topK < 0 || sampling.topK > (int64_t(1) << 24))
      return Status::error("top-k must be in [0, 2^24], got " + std::to_string(sampling.topK));
  }
  return Status::ok();
}

Status Engine::setSampling(const Sampling &sampling) {
  if (Status st = checkSampling(sampling); !st)
    return st;
  // Every rank draws from the same gathered logits with the same seed.
  for (auto &s : impl->shards)
    s->setSampling(sampling);
  return Status::ok();
}

/// The ranks' picks, which the gathered logits make equal; a difference is
/// a broken exchange, reported rather than hidden.
Status agreed(const std::vector<int32_t> &picks, int32_t &next) {
  for (size_t r = 1; r < picks.size(); ++r)
    if (picks[r] != picks[0])
      return Status::error("tensor-parallel ranks picked different tokens (rank 0: " +
                           std::to_string(picks[0]) + ", rank " + std::to_string(r) + ": " +
                           std::to_string(picks[r]) + ")");
  next = picks[0];
  return Status::ok();
}

/// A prompt of T tokens fits a sequence of maxSeq.
Status checkPrompt(int64_t T, int64_t maxSeq) {
  if (T == 0)
    return Status::error("the prompt is empty");
  if (T > maxSeq)
    return Status::error("the prompt has " + std::to_string(T) +
                         " tokens, more than --max-seq-len " + std::to_string(maxSeq));
  return Status::ok();
}

/// How many leading tokens of `ids` `held` holds, at most `most`.
size_t commonPrefix(const std::vector<int32_t> &held, const std::vector<int32_t> &ids,
                           size_t most) {
  const size_t n = std::min({most, held.size(), ids.size()});
  size_t i = 0;
  while (i < n && held[i] == ids[i])
    ++i;
  return i;
}

/// The most of `ids` a prefill may reuse: at least two tokens are computed.
/// A prompt of one runs the decode step's kernels, of two or more the
/// prompt's, whose rows come out as in a whole prefill (each row's products
/// in the same order), so a prompt whose reused rows were all prefilled
/// gives a whole prefill's logits.
size_t reusable(const std::vector<int32_t> &ids) {
  return ids.size() < 2 ? 0 : ids.size() - 2;
}

Status Engine::lastLogits(std::vector<float> &logits) {
  if (!impl->shards[0]->last)
    return Status::error("no step has run yet");
  // Every rank holds the gathered logits; rank 0's are read.
  return impl->onFirst([&](EngineShard &s) { return s.lastLogits(logits); });
}

Status Engine::profileDecode(std::vector<KernelTime> &times) {
  times.clear();
  // Rank 0's launches are timed; the others run alongside untimed (their
  // collectives meet rank 0's).
  return impl->onShards([&](EngineShard &s, int r) {
    return s.profileDecode(r == 0 ? &times : nullptr);
  });
}

Status Engine::profileSlots(const std::vector<SlotStep> &steps, std::vector<int32_t> &next,
                            std::vector<KernelTime> &times) {
  times.clear();
  impl->shards[0]->profile = &times;
  Status st = decodeSlots(steps, next);
  impl->shards[0]->profile = nullptr;
  return st;
}

Status Engine::profilePrefill(const std::vector<int32_t> &ids,
                              std::vector<KernelTime> &times) {
  times.clear();
  impl->shards[0]->profile = &times;
  int32_t next = 0;
  Status st = prefill(ids, next);
  impl->shards[0]->profile = nullptr;
  return st;
}

Status Engine::copyBandwidth(double &bytesPerSecond) {
  return impl->onFirst([&](EngineShard &s) { return s.copyBandwidth(bytesPerSecond); });
}

} // namespace qwen3
