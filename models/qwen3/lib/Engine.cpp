//===- Engine.cpp - the Qwen3 engine: its shards, the step API ------------===//
//
// The engine checks the model and its checkpoint, opens a device per rank,
// and runs every call on all of its shards at once (docs/parallel.md): one
// shard on the caller's thread, or a thread per rank joined by NCCL (CPU
// devices: an in-process exchange) under --tensor-parallel N.
//
//===----------------------------------------------------------------------===//

#include "EngineShard.h"
#include "RankThreads.h"

#include "qwen3/KernelTable.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>

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
  std::vector<std::unique_ptr<EngineShard>> shards;
  RankThreads threads;
  /// The tokens whose K/V rows the caches hold, in order: the last prompt
  /// and the tokens fed after it (prefillReusing's prefix).
  std::vector<int32_t> cached;
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
  /// fn on rank 0's shard only (on its thread).
  Status onFirst(const std::function<Status(EngineShard &)> &fn) {
    return onShards([&](EngineShard &s, int r) { return r == 0 ? fn(s) : Status::ok(); });
  }
};

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
                      ShardPlace{r, ranks, ranks > 1 ? m.comms[r].get() : nullptr});
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
  m.maxSeq = opts.maxSeqLen > 0 ? opts.maxSeqLen : c.maxPositions;
  if (opts.maxSeqLen <= 0) {
    std::vector<int64_t> fits(ranks, 0);
    if (Status st = m.onShards([&](EngineShard &s, int r) { return s.cacheBudget(fits[r]); });
        !st)
      return st;
    m.maxSeq = std::min(m.maxSeq, *std::min_element(fits.begin(), fits.end()));
  }
  if (Status st = m.onShards([&](EngineShard &s, int) { return s.allocState(m.maxSeq); }); !st)
    return st;
  out = std::move(e);
  return Status::ok();
}

Status Engine::setSampling(const Sampling &sampling) {
  if (sampling.enabled) {
    if (!(sampling.temperature > 0) || !std::isfinite(sampling.temperature))
      return Status::error("temperature must be > 0, got " +
                           std::to_string(sampling.temperature));
    if (!(sampling.topP > 0 && sampling.topP <= 1))
      return Status::error("top-p must be in (0, 1], got " + std::to_string(sampling.topP));
    if (sampling.topK < 0 || sampling.topK > (int64_t(1) << 24))
      return Status::error("top-k must be in [0, 2^24], got " + std::to_string(sampling.topK));
  }
  // Every rank draws from the same gathered logits with the same seed.
  for (auto &s : impl->shards)
    s->setSampling(sampling);
  return Status::ok();
}

/// The ranks' picks, which the gathered logits make equal; a difference is
/// a broken exchange, reported rather than hidden.
static Status agreed(const std::vector<int32_t> &picks, int32_t &next) {
  for (size_t r = 1; r < picks.size(); ++r)
    if (picks[r] != picks[0])
      return Status::error("tensor-parallel ranks picked different tokens (rank 0: " +
                           std::to_string(picks[0]) + ", rank " + std::to_string(r) + ": " +
                           std::to_string(picks[r]) + ")");
  next = picks[0];
  return Status::ok();
}

Status Engine::prefill(const std::vector<int32_t> &ids, int32_t &next) {
  return run(ids, 0, next);
}

Status Engine::prefillReusing(const std::vector<int32_t> &ids, int32_t &next,
                              int64_t &reused) {
  const std::vector<int32_t> &cached = impl->cached;
  // At least two tokens are computed: a prompt of one runs the decode
  // step's kernels, of two or more the prompt's, whose rows come out as in
  // a whole prefill (each row's products in the same order), so a prompt
  // whose reused rows were all prefilled gives a whole prefill's logits.
  const size_t most = std::min(cached.size(), ids.size() < 2 ? 0 : ids.size() - 2);
  size_t common = 0;
  while (common < most && cached[common] == ids[common])
    ++common;
  reused = static_cast<int64_t>(common);
  return run(ids, reused, next);
}

Status Engine::run(const std::vector<int32_t> &ids, int64_t from, int32_t &next) {
  Impl &m = *impl;
  const int64_t T = static_cast<int64_t>(ids.size());
  if (T == 0)
    return Status::error("the prompt is empty");
  if (T > m.maxSeq)
    return Status::error("the prompt has " + std::to_string(T) +
                         " tokens, more than --max-seq-len " + std::to_string(m.maxSeq));
  // Until the prefill completes the caches hold no known sequence.
  m.cached.clear();
  std::vector<int32_t> picks(m.ranks(), -1);
  if (Status st =
          m.onShards([&](EngineShard &s, int r) { return s.prefill(ids, from, picks[r]); });
      !st)
    return st;
  if (Status st = agreed(picks, next); !st)
    return st;
  m.cached = ids;
  return Status::ok();
}

Status Engine::decode(int32_t token, int32_t &next) {
  Impl &m = *impl;
  if (m.shards[0]->position >= m.maxSeq)
    return Status::error("the sequence reached --max-seq-len " + std::to_string(m.maxSeq));
  std::vector<int32_t> picks(m.ranks(), -1);
  // The step writes the token's K/V row after the cached ones (unknown if
  // it fails).
  const bool extends = m.cached.size() == static_cast<size_t>(m.shards[0]->position);
  if (!extends)
    m.cached.clear();
  if (Status st = m.onShards([&](EngineShard &s, int r) { return s.decode(token, picks[r]); });
      !st) {
    m.cached.clear();
    return st;
  }
  if (extends)
    m.cached.push_back(token);
  return agreed(picks, next);
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
