//===- EngineImpl.h - the Qwen3 engine's state (private) --------*- C++ -*-===//
//
// Engine::Impl, shared by Engine.cpp (loading the checkpoint and the kernel
// set, the step API, the decode graphs) and EngineForward.cpp (the forward
// passes: which kernels each step launches, with what).
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_LIB_ENGINEIMPL_H
#define QWEN3_LIB_ENGINEIMPL_H

#include "qwen3/Engine.h"

#include "qwen3/Safetensors.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace qwen3 {

using namespace tile_runtime;

struct Engine::Impl {
  ModelConfig cfg;
  EngineOptions opts;
  std::unique_ptr<Device> device;
  Stream stream;
  Module module;
  DType dt = DType::BF16;
  int64_t maxSeq = 0;
  int64_t nqkv = 0;

  struct Layer {
    Buffer inNorm, postNorm, qNorm, kNorm, qkv, o, gateUp, down;
  };
  std::vector<Layer> layers;
  Buffer embed, finalNorm, lmHead, invFreq;
  /// Cache rows per layer: maxSeq rounded up to whole 64-row key blocks,
  /// which the prefill attention's contract requires (its K/V loads then
  /// run without bounds checks); the rows past maxSeq are never written.
  int64_t cacheRows = 0;
  Buffer kcache, vcache; // [layers, cacheRows, kvHeads, headDim]

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
    Buffer ids, res, h, qkv, q, attn, ao, gu, act, mo, logits, po, plse, vals, idxs;
    Buffer ropeCos, ropeSin; ///< the prompt's RoPE rows (ropeTable)
  };
  const Acts *last = nullptr; ///< whose logits are the latest
  Acts decodeActs, prefillActs;
  int64_t position = 0; ///< host mirror of pos
  int32_t deviceToken = -1; ///< what `token` holds (the last pick read back)

  // Kernels.
  Kernel kEmbed, kEmbedSumsq, kRms, kAddRms, kQRope, kKvRope, kRopeTable,
      kQRopeTable, kKvRopeTable, kPreAttn, kGemm, kGemmNarrow, kSwiglu,
      kSwigluRows, kGemmSwiglu, kFoldNorm, kArgmaxP, kArgmaxF, kSample,
      kAdvance;

  /// One decode GEMV of linear.tile in its instances: the general one, and
  /// those without bounds checks (WHOLE = 1) by U, the K steps of 512 per
  /// unrolled group, for K and N multiples of the tile (`rows` outputs per
  /// program, 512 columns: every Qwen3 size).
  struct GemvFamily {
    Kernel general;
    std::map<int64_t, Kernel> whole;
    int64_t rows = 2;

    /// U for a K of `steps` tiles: the whole loop as one group where an
    /// instance has that many steps, else groups of 4, else 2, else a
    /// dynamic loop. On an H200 the whole-loop group took 4B's K = 2560
    /// GEMVs 14% faster and 8B's K = 4096 ones 1-3%, while groups of 8 or
    /// 12 at K = 12288 (several trips) were slower than 4
    /// (bench/results/2026-11-22-decode-gemv-groups-h200.md).
    const Kernel &pick(int64_t k, int64_t n) const {
      if (k % 512 != 0 || n % rows != 0)
        return general;
      int64_t steps = k / 512;
      for (int64_t u : {steps, int64_t(4), int64_t(2), int64_t(1)})
        if (steps % u == 0 && whole.count(u))
          return whole.at(u);
      return general;
    }
  };
  /// The LM head; the QKV GEMV with the input norm; the output and down
  /// GEMVs with the residual add; the gate/up GEMV with SwiGLU. Their U
  /// instances are those the kernel set has (models/qwen3/CMakeLists.txt).
  GemvFamily gemv, gemvRms, gemvResidual, gemvSwiglu;
  /// gemv_residual with the token's K/V cache write: the output projection
  /// after decode_attention, which merges its shares itself.
  GemvFamily gemvResidualKv;
  /// decode_attention's ticket counters (one per query head, zero between
  /// launches: each launch leaves them so).
  Buffer tickets;
  /// The counters of the chained kernels (zero between launches).
  Buffer chainCounters;
  static constexpr int64_t kChainCounters = 8;
  /// gemv at four rows per program (`gemv__R_4`): the LM head at K <= 2048,
  /// whose two-row programs of 1024 columns are too short (Qwen3-0.6B's
  /// 75,968 programs took 95 us of an 817 us step; four rows took the step
  /// 1.5-1.8% faster, eight as much; at K = 2560 and 4096 four rows were
  /// 0.2% slower: bench/results/2026-11-22-decode-launch-costs-h200.md).
  GemvFamily gemvFour;
  const Kernel &pickGemv(int64_t k, int64_t n) const {
    if (k <= 2048 && k % 512 == 0 && n % 4 == 0 && !gemvFour.whole.empty())
      return gemvFour.pick(k, n);
    return gemv.pick(k, n);
  }
  /// A [1, H] row of ones: the prompt's input norms scale by it, their
  /// weights being folded into the QKV projections (foldNormWeights).
  Buffer unitNorm;
  Sampling sampling;

  /// The decode attention at one KV split count S (its kernels' S: program
  /// (head or KV head, share) over S shares of the context, then the merge
  /// that also writes the token's K/V), and the decode step's graph
  /// launching it.
  struct AttentionTier {
    int64_t splits = 0;
    /// grouped_decode_attention (a program per KV head and share), else
    /// decode_attention (per query head and share).
    bool grouped = false;
    /// The grouped tier's merge (attention_merge_kv_write); decode_attention
    /// merges its own shares (tile.join).
    Kernel attn, merge;
    /// decode_attention and the output projection after it as one chained
    /// kernel (`attn__then__projection`), where the set has it and
    /// EngineOptions::chainedLaunches asks for it.
    Kernel chained;
    bool hasChained = false;
    Graph graph;
    bool graphReady = false;
  };
  /// Every S the kernel set has for each of the two decode attentions
  /// (`decode_attention<..., S = n>`, `grouped_decode_attention<..., S =
  /// n>`), by family then ascending S. More shares pay at long contexts,
  /// where a few programs per SM each walk a long share, and cost at short
  /// ones (empty shares, a longer merge) and past one wave: on an H200, S =
  /// 32 took 0.6B (16 heads) at tg 8192 from 614 to 730 tok/s, S = 64 to
  /// 657; at 8B (32 heads) tg 2048 S = 32 and 64 lost 4 and 11% against 16
  /// (bench/results/2026-11-22-decode-attention-tiers-h200.md). The grouped
  /// kernel reads each K/V block once per GQA group on tensor cores, at a
  /// higher fixed cost per program: it runs from attentionGroupedFrom
  /// positions on (bench/results/2026-11-22-grouped-decode-attention-h200.md).
  /// Its S = 48 (384 programs at 8 KV heads: three per SM, where S = 32
  /// filled two) took Qwen3-4B at 4096 / 8192 positions from 329 / 300 to
  /// 344 / 319 tok/s (bench/results/2026-11-23-long-context-decode-h200.md).
  std::vector<AttentionTier> tiers;

  /// The most decode attention programs a step launches per family: one
  /// wave at the registers each is compiled to (EngineOptions::
  /// attentionPrograms for both, or 4 per SM for decode_attention and 3
  /// for grouped_decode_attention).
  int64_t attentionPrograms = 512, groupedAttentionPrograms = 384;
  /// The device's SMs (0 on the CPU): the prompt GEMMs' programs are
  /// persistent, one per SM, so a GEMM takes ceil(tiles / SMs) rounds.
  int64_t multiprocessors = 0;
  /// The prompt GEMM for T tokens by n outputs: 128 x 256 tiles, or
  /// 128 x 128 (half the work per tile) where that takes fewer than twice
  /// the rounds: a grid short of one wave (Qwen3-8B's down and o
  /// projections at 512 tokens are 64 wide tiles on 132 SMs).
  const Kernel &pickGemm(int64_t tokens, int64_t n) const;
  /// Whether the prompt's gate/up projection runs as gemm_swiglu (asked
  /// for, and the intermediate size a multiple of its 128-wide tile): then
  /// the [tokens, 2I] projection is neither written nor allocated.
  bool fusedSwiglu() const {
    return opts.fusedSwigluGemm && cfg.intermediate % 128 == 0;
  }

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
  /// a shorter merge; S = 8 instead of 16 took Qwen3-4B and 8B 3.5-4.9%
  /// faster at tg 128 on an H200, while shares of two blocks (S = 8 at 256
  /// to 511 positions) lost 3.4% at 0.6B
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

  Status kernel(const std::string &name, Kernel &k) {
    if (Status st = module.kernel(name, k); !st)
      return Status::error("the compiled Qwen3 kernel set has no '" + name +
                           "' for this model's shapes (" + st.message() + ")");
    return Status::ok();
  }

  /// `bytes`: the least global memory traffic the launch needs (weights,
  /// activations, the KV rows it must read), for the profile's bandwidth.
  Status launch(const Kernel &k, std::initializer_list<Arg> args,
                double bytes = 0) {
    return launch(k, args.begin(), args.size(), bytes);
  }
  Status launch(const Kernel &k, const Arg *args, size_t numArgs,
                double bytes = 0) {
    for (const std::string &prefix : opts.leaveOut)
      if (k.name().rfind(prefix, 0) == 0)
        return Status::ok();
    if (!profile)
      return stream.launch(k, args, numArgs);
    Event a, b;
    if (Status st = stream.record(a); !st)
      return st;
    if (Status st = stream.launch(k, args, numArgs); !st)
      return st;
    if (Status st = stream.record(b); !st)
      return st;
    if (Status st = b.wait(); !st)
      return st;
    float ms = 0;
    if (Status st = b.elapsedMs(a, ms); !st)
      return st;
    auto it = std::find_if(profile->begin(), profile->end(),
                           [&](const KernelTime &t) { return t.name == k.name(); });
    if (it == profile->end()) {
      profile->push_back({k.name(), 0, 0, 0});
      it = profile->end() - 1;
    }
    it->launches++;
    it->ms += ms;
    it->bytes += bytes;
    return Status::ok();
  }

  Status loadWeights(const Checkpoint &ck, const std::string &dir);
  Status foldNormWeights();
  Status freezeWeights();
  Status allocActs(Acts &a, int64_t tokens);
  Status linear(int64_t tokens, const Buffer &x, int64_t k,
                const Buffer &w, int64_t n, const Buffer &y, int64_t xOffset = 0);
  /// One forward pass over `tokens` tokens whose ids are in `ids`.
  Status forward(Acts &a, int64_t tokens, const Buffer &ids);
  Status decodeLayers(Acts &a, const Buffer &ids);
  Status prefillLayers(Acts &a, int64_t tokens);
};

} // namespace qwen3

#endif // QWEN3_LIB_ENGINEIMPL_H
