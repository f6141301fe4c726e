//===- EngineShard.h - one device's part of the engine (private) -*- C++ -*-===//
//
// EngineShard is what one device holds and runs: its slice of the weights,
// its KV cache, activations, kernels and decode graphs. A single-device
// engine is one shard holding everything; a tensor-parallel one has a
// shard per device (docs/parallel.md), each with its heads, its slice of
// the MLP and of the vocabulary, joined by collectives in the forward pass.
// EngineLoad.cpp loads a shard, EngineForward.cpp runs its forward passes,
// EngineStep.cpp its steps; Engine.cpp drives the shards.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_LIB_ENGINESHARD_H
#define QWEN3_LIB_ENGINESHARD_H

#include "qwen3/Engine.h"

#include "EngineKernels.h"
#include "qwen3/Safetensors.h"
#include "tile/runtime/Collective.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

namespace qwen3 {

using namespace tile_runtime;

/// The device (the engine's, which outlives its shards), its stream and
/// the loaded kernel set. A base of EngineShard ahead of EngineKernels:
/// bases are destroyed after members and in reverse order.
struct EngineDevice {
  Device *device = nullptr;
  Stream stream;
  Module module;
};

/// The tensor-parallel decode step's one-shot all-reduce
/// (residual_all_reduce, docs/parallel.md): two exchange buffers of one
/// residual row per rank, used by the step's all-reduces in turn, and the
/// barrier's flags, a slot per exchange buffer.
struct PeerExchange {
  PeerBuffers rows[2];
  PeerBuffers flags;
  /// Made for the group of `comms` and rows of `hidden` elements.
  static Status create(const std::vector<std::unique_ptr<Communicator>> &comms, DType dtype,
                       int64_t hidden, PeerExchange &out);
};

/// Where a shard sits in a tensor-parallel run.
struct ShardPlace {
  int rank = 0, ranks = 1;
  Communicator *comm = nullptr; ///< null with one rank
  /// The decode step's all-reduce through peer buffers; null: NCCL.
  const PeerExchange *exchange = nullptr;
};

struct EngineShard : EngineDevice, EngineKernels {
  /// This shard's slice of the model: the config with its query heads, KV
  /// heads and intermediate size (the model's divided by the ranks); the
  /// vocabulary stays the model's (the embedding is whole on every rank,
  /// the logits are gathered whole).
  ModelConfig cfg;
  ShardPlace place;
  /// The LM head rows this shard holds: vocab / ranks, from rank * vocabRows.
  int64_t vocabRows = 0;
  EngineOptions opts;
  DType dt = DType::BF16;
  int64_t maxSeq = 0;
  int64_t nqkv = 0;

  /// A projection's weight: in the model dtype (the norm before it folded
  /// in), or FP8 (`fp8`): e4m3 bytes and one f32 scale per 128 x 128 block
  /// in `scale`, which the decode GEMVs stream as they are and the prompt
  /// dequantizes into weight16 before its GEMM.
  struct Projection {
    Buffer w, scale;
    bool fp8 = false;
    /// An FP8 projection's resident 16-bit copy for the GEMMs
    /// (EngineOptions::Fp8GemmWeights::Resident), else invalid.
    Buffer w16;
  };
  struct Layer {
    Buffer inNorm, postNorm, qNorm, kNorm;
    Projection qkv, o, gateUp, down;
  };
  std::vector<Layer> layers;
  Buffer embed, finalNorm, lmHead, invFreq;
  /// Cache rows per layer: maxSeq rounded up to whole 64-row key blocks,
  /// which the prefill attention's contract requires (its K/V loads then
  /// run without bounds checks); the rows past maxSeq are never written.
  int64_t cacheRows = 0;
  /// Each layer's cache: the staging rows (cacheRows of them), where
  /// prompts and the single-sequence steps run, then the paged cache of the
  /// batched step (docs/serving.md), poolPages pages of kernels::kPageSize
  /// rows. Layer l's staging rows start at cacheOffset(l), its pages
  /// cacheRows rows later. With EngineOptions::maxBatch 1 there are none.
  int64_t poolPages = 0;
  int64_t layerRows() const { return cacheRows + poolPages * kernels::kPageSize; }
  int64_t cacheOffset(int64_t layer) const {
    return layer * layerRows() * cfg.kvHeads * cfg.headDim;
  }
  Buffer kcache, vcache; // [layers, layerRows(), kvHeads, headDim]
  /// The sizing of a cache that gives every sequence its whole context:
  /// the staging rows and maxBatch contexts of pages (none with maxBatch 1).
  static int64_t cacheContexts(int64_t maxBatch) { return maxBatch > 1 ? maxBatch + 1 : 1; }
  int64_t pages() const { return poolPages; }
  int64_t pagesPerSequence() const { return cacheRows / kernels::kPageSize; }
  /// Layer l's pages, [pages, page size, KV heads, HD].
  Arg pageView(const Buffer &cache, int64_t layer, bool writes) const;
  /// Rows of the batched step (EngineOptions::maxBatch).
  int64_t maxRows = 1;
  /// The most prompt tokens a batched step also runs
  /// (EngineOptions::stepPromptTokens).
  int64_t maxChunk = 0;
  /// The staging rows were replaced under the single-sequence step (a
  /// gather), so `pos` and `token` no longer hold its state: decode
  /// uploads them again.
  bool singleStale = false;

  // Device-side step state: the position of the first input token and the
  // token a decode step reads (the one the previous step picked).
  Buffer pos, token;
  /// The decode step's norm sums (f32): the sum of squares of the residual
  /// stream before each norm, added by the launches that write the stream
  /// (embed_sumsq, gemv_residual) and read by the GEMV after the norm
  /// (gemv_rms, gemv_swiglu); zeroed by advance_position, the last launch
  /// of every step. One 16-byte slot each (views start 16-byte aligned):
  /// layer l's input norm at normSlot(2l), its post-attention norm at
  /// normSlot(2l + 1), the final norm's at normSlot(2L), which nothing reads.
  Buffer normSums;
  static constexpr int64_t kNormSlotFloats = 4;
  int64_t normSlot(int64_t i) const { return i * kNormSlotFloats; }
  int64_t normSumsCount() const { return normSlot(2 * cfg.layers + 1); }
  // Activations for `cap` tokens.
  struct Acts {
    int64_t cap = 0;
    Buffer ids, res, h, qkv, q, attn, ao, act, mo, logits, po, plse, vals, idxs;
    Buffer ropeCos, ropeSin; ///< the prompt's RoPE rows (rope_table)
  };
  const Acts *last = nullptr; ///< whose logits are the latest
  Acts decodeActs, prefillActs;
  /// The prompt's 16-bit copy of one FP8 projection at a time (the largest
  /// one's size, allocated once with the state), which its GEMM reads.
  Buffer weight16;
  int64_t position = 0; ///< host mirror of pos
  int32_t deviceToken = -1; ///< what `token` holds (the last pick read back)

  /// A batched decode step (EngineBatch.cpp): rows 0 .. B - 1 of these
  /// buffers for a step of B rows. A row with no token this step has
  /// position -1 (its K/V write is skipped).
  struct Batch {
    /// i32: the fed tokens and their positions, [maxRows + maxChunk] (a
    /// prompt chunk's rows after the decode rows); the picks, [maxRows + 1]
    /// (the chunk's after the bucket's rows).
    Buffer ids, pos, next;
    /// [maxRows, pagesPerSequence()] i32: each row's pages, in order.
    Buffer pageTable;
    /// [maxRows] i32, a checked table (Stream::makeTable): the page each
    /// row writes, distinct (qkv_norm_rope_write_pages' contract).
    Buffer writePages;
    /// For maxRows + maxChunk rows; logits [gemmRows(maxRows + 1), vocab].
    Acts acts;
    Buffer tickets;        ///< batch_decode_attention's, one per row and KV head
    /// f32 [splits x tokens, hidden], for the most projectionSplits and
    /// gemm_few's largest tile of tokens a step runs: a split-K
    /// projection's partial sums (gemm_few_split), which
    /// add_rmsnorm_partials adds up.
    Buffer partials;
    /// [tokens, 2 x intermediate], gemm_few's largest tile of tokens a step
    /// runs: its gate/up projection, which swiglu_rows reads.
    Buffer gateUp;
    /// Tensor parallelism: every rank's vocabulary slice of every row's
    /// logits, [ranks, gemmRows(maxRows + 1), vocabRows], gathered.
    Buffer gathered;
    /// A sampled row's position and draw, one 16-byte slot per row (kernel
    /// views start 16-byte aligned).
    Buffer samplePos, sampleNext;
    std::map<int64_t, Graph> graphs; ///< by rows (a bucket of rowBuckets)
    /// The keys and values the step's attention reads (16-bit, every row
    /// up to its position, one layer): the profile's bytes for it.
    double attentionBytes = 0;
  } batch;
  /// batch_decode_attention's most S (its partials are allocated for it).
  static constexpr int64_t kBatchSplits = 8;
  /// The S a step of B rows (a bucket) runs batch_decode_attention at:
  /// shares enough for 6 programs per SM, no more (fewer, longer shares
  /// measured faster at 32 and 64 rows: bench/results/2026-11-28-batched-step.md).
  int64_t batchSplits(int64_t B) const {
    if (opts.batchAttentionSplits > 0)
      return opts.batchAttentionSplits;
    for (int64_t s : kernels::kBatchAttentionSplits)
      if (B * cfg.kvHeads * s >= 6 * std::max<int64_t>(multiprocessors, 1))
        return s;
    return kBatchSplits;
  }
  /// The K splits of a batched step's projection of n outputs over k inputs
  /// in gemm_few's tiles (gemm_few_split; 1: gemm_few): the most that divide its
  /// K tiles and keep its programs, n / 64 x splits, within one per SM, so
  /// a projection of few weight tiles streams on more SMs; pinned
  /// (EngineOptions::projectionSplits), the most up to the pin that divide
  /// its K tiles. None with tensor parallelism (its partial projections
  /// are all-reduced in 16 bits), nor unpinned where the device reports no
  /// SM count.
  int64_t projectionSplits(int64_t n, int64_t k) const {
    const bool pinned = opts.projectionSplits > 0;
    if (place.ranks > 1 || opts.projectionSplits == 1 || (!pinned && multiprocessors <= 0))
      return 1;
    const int64_t most = pinned ? opts.projectionSplits : kernels::kMaxProjectionSplits;
    const int64_t tiles = (n + 63) / 64, kTiles = (k + 63) / 64;
    int64_t best = 1;
    for (int64_t s = 2; s <= most; ++s)
      if (kTiles % s == 0 && (pinned || tiles * s <= multiprocessors))
        best = s;
    return best;
  }
  /// K and V bytes of one cache position of one slot, for `kvHeads` KV
  /// heads (16-bit elements).
  static int64_t kvBytesPerPosition(const ModelConfig &c, int64_t kvHeads) {
    return 2 * c.layers * kvHeads * c.headDim * 2;
  }
  /// The rows a step of `rows` runs its GEMMs over: whole tiles of rows
  /// (64 up to 64 rows, else 128: gemm_few's tiles of tokens up to 256),
  /// the rows past the step's computed and unread. A tile reaching past
  /// x's rows makes TMA fill them with zeros, which measured far slower
  /// than reading real rows
  /// (bench/results/2026-11-28-batched-step.md).
  static int64_t gemmRows(int64_t rows) { return rows <= 64 ? 64 : (rows + 127) / 128 * 128; }
  /// The rows a step of `rows` runs as: the next power of two (at most
  /// maxRows), so a few graphs serve every batch.
  int64_t rowBucket(int64_t rows) const {
    int64_t b = 1;
    while (b < rows)
      b *= 2;
    return std::min(b, maxRows);
  }
  /// The pages a scatter writes (a checked table of pagesPerSequence()
  /// entries) and a gather reads.
  Buffer scatterPages, gatherPages;

  /// decode_attention's ticket counters (one per query head, zero between
  /// launches: each launch leaves them so).
  Buffer tickets;
  /// A row of ones: the prompt's input norms scale by its first H, their
  /// weights being folded into the QKV projections (foldNormWeights); an
  /// FP8 projection with no norm before it dequantizes times its first K.
  Buffer unitNorm;
  Sampling sampling;

  /// The most decode attention programs a step launches per family: one
  /// wave at the registers each is compiled to (EngineOptions::
  /// attentionPrograms for both, or 4 per SM for decode_attention and 3
  /// for grouped_decode_attention).
  int64_t attentionPrograms = 512, groupedAttentionPrograms = 384;
  /// The device's SMs (0 on the CPU): the prompt GEMMs run one program per
  /// output tile, one at a time per SM, so a GEMM takes ceil(tiles / SMs)
  /// rounds.
  int64_t multiprocessors = 0;
  /// The prompt GEMM for T tokens by n outputs: 128 x 256 tiles, or
  /// 128 x 128 (half the work per tile) where that takes fewer than twice
  /// the rounds: a grid short of one wave (Qwen3-8B's down and o
  /// projections at 512 tokens are 64 wide tiles on 132 SMs).
  const Kernel &pickGemm(int64_t tokens, int64_t n) const;

  /// The family of `position` (grouped from opts.attentionGroupedFrom on, where
  /// the kernel set has it), then S in it, among those whose grid (heads x
  /// S, or KV heads x S grouped) stays within the family's program budget:
  /// for decode_attention the smallest S whose shares get at most
  /// attentionKeysPerShare keys of a context of `position` rows (else the
  /// largest); for grouped_decode_attention the largest S whose shares get
  /// at least that many (else the smallest); the S of attentionSplits where
  /// one is forced (the family's smallest if it lacks that S).
  /// decode_attention's rule: at short contexts every share holds one
  /// block or none whatever S is, and fewer shares are fewer programs and
  /// a shorter merge; S = 8 instead of 16 measured faster for Qwen3-4B and
  /// 8B at tg 128 on an H200, while shares of two blocks (S = 8 at 256 to
  /// 511 positions) lost at 0.6B
  /// (bench/results/2026-11-22-decode-launch-costs-h200.md).
  size_t pickTier(int64_t position) const {
    bool grouped = position >= opts.attentionGroupedFrom &&
                   std::any_of(tiers.begin(), tiers.end(),
                               [](const AttentionTier &t) { return t.grouped; });
    const int64_t keys = opts.attentionKeysPerShare;
    size_t pick = tiers.size();
    for (size_t i = 0; i < tiers.size(); ++i) { // ascending S in each family
      const AttentionTier &t = tiers[i];
      if (t.grouped != grouped)
        continue;
      const int64_t programs = (grouped ? cfg.kvHeads : cfg.heads) * t.splits;
      const bool fits = programs <= (grouped ? groupedAttentionPrograms : attentionPrograms);
      bool take;
      if (pick == tiers.size())
        take = true; // the smallest
      else if (opts.attentionSplits > 0)
        take = t.splits == opts.attentionSplits;
      else if (grouped)
        take = fits && position >= t.splits * keys;
      else
        take = fits && tiers[pick].splits * keys < position;
      if (take)
        pick = i;
    }
    return pick;
  }

  // Profiling: when set, each launch is timed.
  std::vector<KernelTime> *profile = nullptr;

  double weightsMs = 0;
  int64_t argmaxChunk = 4096;

  /// `bytes`: the least global memory traffic the launch needs (weights,
  /// activations, the KV rows it must read), for the profile's bandwidth.
  Status launch(const Kernel &k, std::initializer_list<Arg> args,
                double bytes = 0) {
    return launch(k, args.begin(), args.size(), bytes);
  }
  /// `what`: the profile entry's suffix where one kernel serves several
  /// roles (the projections of one GEMM instance).
  Status launch(const Kernel &k, const Arg *args, size_t numArgs,
                double bytes = 0, const char *what = nullptr) {
    for (const std::string &prefix : opts.leaveOut)
      if (k.name().rfind(prefix, 0) == 0)
        return Status::ok();
    return timed(what ? k.name() + " (" + what + ")" : k.name(), bytes,
                 [&] { return stream.launch(k, args, numArgs); });
  }
  /// Queues `op`; while profiling, waits for it and adds its time to the
  /// entry `name`.
  template <typename Op>
  Status timed(const std::string &name, double bytes, const Op &op) {
    // --leave-out names the stream operations between launches too (the
    // all-reduces, the peer barrier).
    for (const std::string &prefix : opts.leaveOut)
      if (name.rfind(prefix, 0) == 0)
        return Status::ok();
    if (!profile)
      return op();
    Event a, b;
    if (Status st = stream.record(a); !st)
      return st;
    if (Status st = op(); !st)
      return st;
    if (Status st = stream.record(b); !st)
      return st;
    if (Status st = b.wait(); !st)
      return st;
    float ms = 0;
    if (Status st = b.elapsedMs(a, ms); !st)
      return st;
    auto it = std::find_if(profile->begin(), profile->end(),
                           [&](const KernelTime &t) { return t.name == name; });
    if (it == profile->end()) {
      profile->push_back({name, 0, 0, 0});
      it = profile->end() - 1;
    }
    it->launches++;
    it->ms += ms;
    it->bytes += bytes;
    return Status::ok();
  }

  // Loading (EngineLoad.cpp).
  /// Binds `device` and loads the kernel set `full`'s slice needs.
  Status open(Device &device, const ModelConfig &full, DType dtype,
              const EngineOptions &options, ShardPlace place);
  /// Uploads this shard's slices of the checked tensors, each projection
  /// in FP8 or 16 bits as opts.weights and the slices' blocks allow, and
  /// folds the norms into the 16-bit ones; `layerDone` after each layer.
  Status loadWeights(const Checkpoint &ck, const std::function<void()> &layerDone);
  /// A layer's projection, its [n, k] shape, and the norm weight before it
  /// that the prompt's GEMM takes with it (folded into a 16-bit projection,
  /// multiplied in by an FP8 one's dequantization; null: none, unitNorm).
  struct ProjectionShape {
    Projection Layer::*projection;
    int64_t n, k;
    Buffer Layer::*norm;
  };
  std::array<ProjectionShape, 4> projectionShapes() const {
    const int64_t H = cfg.hidden, nq = cfg.heads * cfg.headDim, I = cfg.intermediate;
    return {{{&Layer::qkv, nqkv, H, &Layer::inNorm},
             {&Layer::o, H, nq, nullptr},
             {&Layer::gateUp, 2 * I, H, &Layer::postNorm},
             {&Layer::down, H, I, nullptr}}};
  }
  /// The most elements of an FP8 projection (0: none is FP8).
  int64_t largestFp8Projection() const;
  Status foldNormWeights();
  /// Every FP8 projection's resident 16-bit copy (Projection::w16), where
  /// EngineOptions::fp8GemmWeights asks for them or (Auto) they fit.
  Status dequantizeResident();
  bool fp8Resident = false; ///< the FP8 projections have their copies
  /// The elements of the one scratch the GEMMs dequantize FP8 projections
  /// into (weight16): the largest FP8 projection, none where the copies
  /// are resident.
  int64_t fp8GemmScratch() const {
    return fp8Resident ? 0 : largestFp8Projection();
  }
  Status freezeWeights();
  /// The most positions whose KV rows fit the memory left on the device.
  Status cacheBudget(int64_t &positions);
  /// The KV cache: staging rows for `maxSeq` positions and `pages` pages;
  /// the step state.
  Status allocState(int64_t maxSeq, int64_t pages);
  Status allocActs(Acts &a, int64_t tokens);

  // Batched decode (EngineBatch.cpp).
  Status allocBatch();
  /// One step of rows 0 .. rows - 1 (row b fed ids[b] at positions[b],
  /// its pages pageTable[b * pagesPerSequence() ..], writing page
  /// writePages[b]; `writePages` has maxRows distinct entries, the rows
  /// past the step's too), picks greedy, or drawn with sampling[b] where
  /// set; the picks in next.
  /// With `chunk`, the step also runs a prompt's chunk in the staging
  /// rows (docs/serving.md, mixed steps): its tokens at positions
  /// chunk->from .. of the staging rows, whose rows before `from` hold the
  /// prompt's prefix; where it is the prompt's last chunk, its pick is
  /// next[rows].
  struct PromptChunk {
    std::vector<int32_t> ids;      ///< the chunk's tokens
    int64_t from = 0;              ///< the position of its first
    bool last = false;             ///< the prompt's last chunk: pick a token
    const Sampling *sampling = nullptr; ///< the pick's (null: greedy)
  };
  Status decodeBatch(const std::vector<int32_t> &ids, const std::vector<int32_t> &positions,
                     const std::vector<int32_t> &pageTable,
                     const std::vector<int32_t> &writePages,
                     const std::vector<const Sampling *> &sampling, std::vector<int32_t> &next,
                     const PromptChunk *chunk = nullptr);
  /// The launches of a step of B decode rows (a bucket) and `chunk`'s
  /// rows after them (none: null).
  Status batchLayers(int64_t B, const PromptChunk *chunk);
  /// Row `row` of the last batched step's logits.
  Status batchLogits(int64_t row, std::vector<float> &logits);
  /// Copies the rows of `pages` (in order) into staging rows [0, n pages).
  Status gatherRows(const std::vector<int32_t> &pages);
  /// Copies staging rows of pages first .. first + n - 1 (the sequence's
  /// page indices) into `pages` (n distinct entries, padded to
  /// pagesPerSequence() distinct entries).
  Status scatterRows(int64_t first, int64_t n, const std::vector<int32_t> &pages);

  // Steps (EngineStep.cpp): what the Engine API runs on every shard.
  /// Runs ids[from..] at positions from.. of the staging rows (the rows
  /// before `from` kept); the single-sequence step goes on from it.
  Status prefill(const std::vector<int32_t> &ids, int64_t from, int32_t &next);
  /// The staging rows hold a sequence of `length` positions (gathered):
  /// the single-sequence step goes on from it.
  void restage(int64_t length) {
    position = length;
    singleStale = true;
  }
  /// Feeds `fed` (uploaded only if the last pick was another token).
  Status decode(int32_t fed, int32_t &next);
  void setSampling(const Sampling &sampling);
  Status profileDecode(std::vector<KernelTime> *times);
  Status lastLogits(std::vector<float> &logits);
  /// The vocabulary's logits from element `offset` of `b`, as f32.
  Status readLogits(const Buffer &b, int64_t offset, std::vector<float> &logits);
  Status copyBandwidth(double &bytesPerSecond);

  // Forward passes (EngineForward.cpp).
  Status linear(int64_t tokens, const Buffer &x, int64_t k, const Buffer &w,
                int64_t n, const Buffer &y, int64_t xOffset = 0,
                int64_t yOffset = 0);
  /// The 16-bit [n, k] weight of `p` a prompt GEMM reads: its own, or an
  /// FP8 one dequantized into weight16 times the norm weight `norm` before
  /// it (null: none).
  Status promptWeight(const Projection &p, int64_t n, int64_t k, const Buffer *norm,
                      const Buffer *&w);
  /// dequantize_fp8's arguments: FP8 projection `p` ([n, k]) times the norm
  /// weight `norm`, into `out` (16 bits).
  std::array<Arg, 4> dequantizeArgs(const Projection &p, int64_t n, int64_t k,
                                    const Buffer &norm, const Buffer &out) const {
    return {Arg::in(p.w, {n, k}), Arg::in(p.scale, {n / 128, k / 128}), Arg::in(norm, {1, k}),
            Arg::out(out, {n, k})};
  }
  /// One forward pass over `tokens` tokens whose ids are in `ids`.
  Status forward(Acts &a, int64_t tokens, const Buffer &ids);
  Status decodeLayers(Acts &a, const Buffer &ids);
  Status prefillLayers(Acts &a, int64_t tokens);

  // Tensor parallelism (EngineExchange.cpp).
  /// Sums the ranks' partial rows of `b` (`count` elements) in place
  /// (NCCL); gathers the ranks' logits slices.
  Status allReduce(const Buffer &b, int64_t count);
  Status gatherLogits(Acts &a);
  /// Where the decode step's row-parallel projection before its
  /// all-reduce number `exchange` adds its partial row: the residual
  /// stream (NCCL; the ranks but the first cleared it, clearPartialRow),
  /// or this rank's part of the exchange buffer `exchange % 2` (peer).
  Arg partialResidualRow(Acts &a, int64_t exchange);
  /// The norm sum the projection adding into partialResidualRow adds its
  /// squares to, before norm i: i's, or (peer) the final norm's, which
  /// nothing reads, since residual_all_reduce writes i's.
  int64_t partialNormSlot(int64_t i) const;
  Status clearPartialRow(Acts &a);
  /// All-reduce number `exchange` of the decode step: the residual stream
  /// completed from every rank's partial and norm i's sum of squares
  /// written.
  Status completeResidualRow(Acts &a, int64_t i, int64_t exchange);
};

/// Finds and checks every tensor of the model `cfg` (names, shapes, dtypes,
/// FP8 scales) in the checkpoint of `dir`, before any device opens.
Status checkWeights(const ModelConfig &cfg, DType dt, const Checkpoint &ck,
                    const std::string &dir);

} // namespace qwen3

#endif // QWEN3_LIB_ENGINESHARD_H
