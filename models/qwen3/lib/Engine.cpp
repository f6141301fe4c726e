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
  PeerExchange exchange;
  std::vector<std::unique_ptr<EngineShard>> shards;
  RankThreads threads;
  /// Per cache slot, the tokens whose K/V rows it holds, in order: the last
  /// prompt and the tokens fed after it (the prefixes prefill reuses). Slot
  /// 0 is also the single-sequence steps'.
  std::vector<std::vector<int32_t>> held;
  std::vector<int32_t> &cached() { return held[0]; }
  /// Where each slot's last pick's logits are.
  enum class LogitsAt { None, Prefill, Batch, Single };
  std::vector<LogitsAt> logitsAt;
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
    for (LogitsAt &at : logitsAt)
      if (at == LogitsAt::Prefill)
        at = LogitsAt::None;
    logitsAt[slot] = LogitsAt::Prefill;
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
  if (opts.batchAttentionSplits != 0 &&
      std::find(std::begin(kernels::kBatchAttentionSplits), std::end(kernels::kBatchAttentionSplits),
                opts.batchAttentionSplits) == std::end(kernels::kBatchAttentionSplits))
    return Status::error("--attention-splits for the batched step must be 0, 2, 4 or 8, got " +
                         std::to_string(opts.batchAttentionSplits));
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
  // The KV cache a device holds per position of every slot, and the
  // positions --kv-cache-memory leaves each slot.
  const int64_t cacheBytesPerPosition =
      EngineShard::kvBytesPerPosition(c, c.kvHeads / ranks) * opts.maxBatch;
  int64_t budgetPositions = c.maxPositions;
  if (opts.kvCacheBytes < 0)
    return Status::error("--kv-cache-memory must be >= 0, got " +
                         std::to_string(opts.kvCacheBytes));
  if (opts.kvCacheBytes > 0) {
    budgetPositions = opts.kvCacheBytes / cacheBytesPerPosition / 64 * 64;
    const std::string holds = "--kv-cache-memory " + std::to_string(opts.kvCacheBytes) +
                              " bytes hold " + std::to_string(budgetPositions) +
                              " positions for each of --max-batch " +
                              std::to_string(opts.maxBatch) + " slots";
    if (budgetPositions < 64)
      return Status::error(holds + " (at least 64 needed: " +
                           std::to_string(64 * cacheBytesPerPosition) + " bytes)");
    if (opts.maxSeqLen > budgetPositions)
      return Status::error(holds + "; --max-seq-len " + std::to_string(opts.maxSeqLen) +
                           " needs " +
                           std::to_string((opts.maxSeqLen + 63) / 64 * 64 *
                                          cacheBytesPerPosition) +
                           " bytes");
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
  if (Status st = m.onShards([&](EngineShard &s, int) { return s.allocState(m.maxSeq); }); !st)
    return st;
  m.held.assign(opts.maxBatch, {});
  m.logitsAt.assign(opts.maxBatch, Impl::LogitsAt::None);
  out = std::move(e);
  return Status::ok();
}

static Status checkSampling(const Sampling &sampling) {
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
static Status agreed(const std::vector<int32_t> &picks, int32_t &next) {
  for (size_t r = 1; r < picks.size(); ++r)
    if (picks[r] != picks[0])
      return Status::error("tensor-parallel ranks picked different tokens (rank 0: " +
                           std::to_string(picks[0]) + ", rank " + std::to_string(r) + ": " +
                           std::to_string(picks[r]) + ")");
  next = picks[0];
  return Status::ok();
}

/// A prompt of T tokens fits a sequence of maxSeq.
static Status checkPrompt(int64_t T, int64_t maxSeq) {
  if (T == 0)
    return Status::error("the prompt is empty");
  if (T > maxSeq)
    return Status::error("the prompt has " + std::to_string(T) +
                         " tokens, more than --max-seq-len " + std::to_string(maxSeq));
  return Status::ok();
}

static Status checkSlot(int64_t slot, int64_t slots) {
  if (slot < 0 || slot >= slots)
    return Status::error("slot " + std::to_string(slot) + " is not in [0, " +
                         std::to_string(slots) + ")");
  return Status::ok();
}

/// How many leading tokens of `ids` `held` holds, at most `most`.
static size_t commonPrefix(const std::vector<int32_t> &held, const std::vector<int32_t> &ids,
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
static size_t reusable(const std::vector<int32_t> &ids) {
  return ids.size() < 2 ? 0 : ids.size() - 2;
}

Status Engine::prefill(const std::vector<int32_t> &ids, int32_t &next) {
  return run(ids, 0, next);
}

Status Engine::prefillReusing(const std::vector<int32_t> &ids, int32_t &next,
                              int64_t &reused) {
  reused = static_cast<int64_t>(commonPrefix(impl->cached(), ids, reusable(ids)));
  return run(ids, reused, next);
}

Status Engine::run(const std::vector<int32_t> &ids, int64_t from, int32_t &next) {
  Impl &m = *impl;
  if (Status st = checkPrompt(static_cast<int64_t>(ids.size()), m.maxSeq); !st)
    return st;
  // Until the prefill completes the caches hold no known sequence.
  m.cached().clear();
  m.logitsAt[0] = Impl::LogitsAt::None;
  std::vector<int32_t> picks(m.ranks(), -1);
  if (Status st =
          m.onShards([&](EngineShard &s, int r) { return s.prefill(ids, from, 0, picks[r]); });
      !st)
    return st;
  if (Status st = agreed(picks, next); !st)
    return st;
  m.cached() = ids;
  m.tookPrefillLogits(0);
  return Status::ok();
}

Status Engine::decode(int32_t token, int32_t &next) {
  Impl &m = *impl;
  if (m.shards[0]->position >= m.maxSeq)
    return Status::error("the sequence reached --max-seq-len " + std::to_string(m.maxSeq));
  std::vector<int32_t> picks(m.ranks(), -1);
  // The step writes the token's K/V row after the cached ones (unknown if
  // it fails).
  const bool extends = m.cached().size() == static_cast<size_t>(m.shards[0]->position);
  if (!extends)
    m.cached().clear();
  m.logitsAt[0] = Impl::LogitsAt::None;
  if (Status st = m.onShards([&](EngineShard &s, int r) { return s.decode(token, picks[r]); });
      !st) {
    m.cached().clear();
    return st;
  }
  if (extends)
    m.cached().push_back(token);
  m.logitsAt[0] = Impl::LogitsAt::Single;
  return agreed(picks, next);
}

Status Engine::lastLogits(std::vector<float> &logits) {
  if (!impl->shards[0]->last)
    return Status::error("no step has run yet");
  // Every rank holds the gathered logits; rank 0's are read.
  return impl->onFirst([&](EngineShard &s) { return s.lastLogits(logits); });
}

int64_t Engine::slots() const { return static_cast<int64_t>(impl->held.size()); }

int64_t Engine::slotLength(int64_t slot) const {
  return slot >= 0 && slot < slots() ? static_cast<int64_t>(impl->held[slot].size()) : 0;
}

int64_t Engine::sharedPrefix(int64_t slot, const std::vector<int32_t> &ids) const {
  if (!checkSlot(slot, slots()))
    return 0;
  return static_cast<int64_t>(commonPrefix(impl->held[slot], ids, ids.size()));
}

/// The slot holding the longest reusable prefix of `ids` (`own` first, on
/// a tie) and that prefix's length.
static std::pair<int64_t, size_t> bestDonor(const std::vector<std::vector<int32_t>> &held,
                                            const std::vector<int32_t> &ids, int64_t own) {
  std::pair<int64_t, size_t> best{own, 0};
  if (own >= 0)
    best.second = commonPrefix(held[own], ids, reusable(ids));
  for (int64_t s = 0; s < static_cast<int64_t>(held.size()); ++s)
    if (size_t n = commonPrefix(held[s], ids, reusable(ids)); n > best.second)
      best = {s, n};
  return best;
}

int64_t Engine::reusablePrefix(const std::vector<int32_t> &ids) const {
  return static_cast<int64_t>(bestDonor(impl->held, ids, -1).second);
}

Status Engine::prefillSlot(int64_t slot, const std::vector<int32_t> &ids,
                           const Sampling &sampling, int32_t &next, int64_t &reused) {
  Impl &m = *impl;
  if (Status st = checkSlot(slot, slots()); !st)
    return st;
  if (Status st = checkPrompt(static_cast<int64_t>(ids.size()), m.maxSeq); !st)
    return st;
  if (Status st = checkSampling(sampling); !st)
    return st;
  // The longest prefix some slot holds, its own first.
  const std::pair<int64_t, size_t> found = bestDonor(m.held, ids, slot);
  const int64_t donor = found.first;
  const size_t best = found.second;
  m.held[slot].clear();
  m.logitsAt[slot] = Impl::LogitsAt::None;
  reused = static_cast<int64_t>(best);
  std::vector<int32_t> picks(m.ranks(), -1);
  if (Status st = m.onShards([&](EngineShard &s, int r) {
        if (donor != slot)
          if (Status cs = s.copySlotRows(donor, slot, reused); !cs)
            return cs;
        // The prompt's pick with this request's sampling; the single-
        // sequence steps' (and their graphs') is put back.
        const Sampling kept = s.sampling;
        s.sampling = sampling.enabled ? sampling : Sampling();
        Status ps = s.prefill(ids, reused, slot, picks[r]);
        s.sampling = kept;
        return ps;
      });
      !st)
    return st;
  if (Status st = agreed(picks, next); !st)
    return st;
  m.held[slot] = ids;
  m.tookPrefillLogits(slot);
  return Status::ok();
}

Status Engine::decodeSlots(const std::vector<SlotStep> &steps, std::vector<int32_t> &next) {
  Impl &m = *impl;
  next.assign(steps.size(), -1);
  if (steps.empty())
    return Status::ok();
  int64_t rows = 0;
  std::vector<bool> seen(slots(), false);
  for (const SlotStep &step : steps) {
    const std::string name = "slot " + std::to_string(step.slot);
    if (Status st = checkSlot(step.slot, slots()); !st)
      return st;
    if (seen[step.slot])
      return Status::error(name + " is stepped twice in one batch");
    seen[step.slot] = true;
    if (m.held[step.slot].empty())
      return Status::error(name + " holds no sequence (prefill it first)");
    if (static_cast<int64_t>(m.held[step.slot].size()) >= m.maxSeq)
      return Status::error(name + ": the sequence reached --max-seq-len " +
                           std::to_string(m.maxSeq));
    if (Status st = checkSampling(step.sampling); !st)
      return st;
    rows = std::max(rows, step.slot + 1);
  }
  std::vector<int32_t> ids(rows, 0), positions(rows, -1);
  std::vector<const Sampling *> sampling(rows, nullptr);
  for (const SlotStep &step : steps) {
    ids[step.slot] = step.token;
    positions[step.slot] = static_cast<int32_t>(m.held[step.slot].size());
    sampling[step.slot] = &step.sampling;
    m.logitsAt[step.slot] = Impl::LogitsAt::None;
  }
  std::vector<std::vector<int32_t>> picks(m.ranks());
  Status st = m.onShards([&](EngineShard &s, int r) {
    Status bs = s.decodeBatch(ids, positions, sampling, picks[r]);
    if (seen[0]) {
      // Slot 0's sequence moved on: the single-sequence step follows it.
      s.position = static_cast<int64_t>(m.held[0].size()) + 1;
      s.singleStale = true;
    }
    return bs;
  });
  for (size_t i = 0; i < steps.size() && st; ++i) {
    std::vector<int32_t> rowPicks;
    for (const auto &p : picks)
      rowPicks.push_back(p[steps[i].slot]);
    st = agreed(rowPicks, next[i]);
  }
  for (const SlotStep &step : steps) {
    if (!st) {
      m.held[step.slot].clear(); // its row is unknown
      continue;
    }
    m.held[step.slot].push_back(step.token);
    m.logitsAt[step.slot] = Impl::LogitsAt::Batch;
  }
  return st;
}

Status Engine::moveSlot(int64_t from, int64_t to) {
  Impl &m = *impl;
  if (Status st = checkSlot(from, slots()); !st)
    return st;
  if (Status st = checkSlot(to, slots()); !st)
    return st;
  if (m.held[from].empty())
    return Status::error("slot " + std::to_string(from) + " holds no sequence to move");
  if (from == to)
    return Status::ok();
  const int64_t rows = static_cast<int64_t>(m.held[from].size());
  m.held[to].clear();
  m.logitsAt[to] = Impl::LogitsAt::None;
  if (Status st = m.onShards([&](EngineShard &s, int) {
        if (to == 0) {
          // The single-sequence step goes on from the moved rows.
          s.position = rows;
          s.singleStale = true;
        }
        return s.copySlotRows(from, to, rows);
      });
      !st)
    return st;
  m.held[to] = m.held[from];
  return Status::ok();
}

Status Engine::slotLogits(int64_t slot, std::vector<float> &logits) {
  Impl &m = *impl;
  if (Status st = checkSlot(slot, slots()); !st)
    return st;
  switch (m.logitsAt[slot]) {
  case Impl::LogitsAt::Prefill:
    return m.onFirst([&](EngineShard &s) { return s.readLogits(s.prefillActs.logits, 0, logits); });
  case Impl::LogitsAt::Batch:
    return m.onFirst([&](EngineShard &s) { return s.batchLogits(slot, logits); });
  case Impl::LogitsAt::Single:
    return m.onFirst([&](EngineShard &s) { return s.readLogits(s.decodeActs.logits, 0, logits); });
  case Impl::LogitsAt::None:
    break;
  }
  return Status::error("slot " + std::to_string(slot) + " has no logits of its last pick");
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
