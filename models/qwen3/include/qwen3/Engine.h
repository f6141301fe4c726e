//===- Engine.h - Qwen3 forward passes on tile kernels ----------*- C++ -*-===//
//
// Loads a checkpoint onto a tile_runtime device (weights in their dtype;
// q/k/v and gate/up merged), runs the prompt as one prefill, and each later
// token as a decode step captured once as a graph and replayed: the token
// and the position live in device memory that the kernels read, the next
// token is picked on the device, and the host reads back 4 bytes per token.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_ENGINE_H
#define QWEN3_ENGINE_H

#include "qwen3/Config.h"
#include "tile/runtime/Runtime.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace qwen3 {

struct EngineOptions {
  std::string device = "cuda"; ///< "cuda", "cuda:N" or "cpu"
  /// Devices the model is split over (docs/parallel.md): rank r runs on
  /// `device`'s GPU + r ("cuda" counts from 0; "cpu": a CPU device each).
  int64_t tensorParallel = 1;
  /// How a tensor-parallel decode step all-reduces its residual row
  /// (docs/parallel.md): Auto, one-shot through peer buffers where every
  /// pair of devices reaches the other's memory, else NCCL; Nccl; Peer
  /// (an error where the devices cannot). Prompts and batched steps
  /// all-reduce through NCCL.
  enum class AllReduce { Auto, Nccl, Peer };
  AllReduce allReduce = AllReduce::Auto;
  std::string kernelsDir;      ///< holds qwen3_<dtype>.json and artifacts
  /// How the linear projections' weights are held (embeddings, norms and
  /// the LM head stay in the model dtype): Stored, as the checkpoint stores
  /// them (FP8 ones in FP8); Dequantized, all in the model dtype (FP8 ones
  /// dequantized at load); Fp8, all in FP8 (16-bit ones quantized at load
  /// into the FP8 checkpoints' format, one scale per 128 x 128 block). A
  /// projection (or a tensor-parallel slice of it) that is not whole
  /// 128 x 128 blocks stays in the model dtype (docs/qwen3.md, FP8).
  enum class Weights { Stored, Dequantized, Fp8 };
  Weights weights = Weights::Stored;
  /// Where the GEMMs of prompts and batched steps take an FP8 projection's
  /// 16-bit weights from: PerGemm, dequantized into one shared scratch
  /// before each GEMM; Resident, a dequantized copy of every FP8 projection
  /// made at load (its norm's weight folded in, as the scratch has it):
  /// 2 more bytes per FP8 weight of device memory, no dequantization per
  /// GEMM; Auto, Resident where the copies take at most a quarter of the
  /// device memory free once the weights are loaded, else PerGemm. The
  /// logits are the same bit for bit either way, and the decode GEMVs
  /// stream the FP8 bytes.
  enum class Fp8GemmWeights { Auto, PerGemm, Resident };
  Fp8GemmWeights fp8GemmWeights = Fp8GemmWeights::Auto;
  int64_t maxSeqLen = 0;       ///< 0: the model's, capped by free memory
  /// The KV cache's bytes on each device, the staging rows and the paged
  /// cache together (0: what fits, with pages for maxBatch whole
  /// contexts). With maxSeqLen 0 the context is the longest that fits once
  /// for the staging rows and once per sequence (whole blocks of 64
  /// positions); with a maxSeqLen the pages are what the bytes leave after
  /// the staging rows, at least one context and a page per sequence, shared
  /// by the sequences (the server admits requests while their pages fit).
  int64_t kvCacheBytes = 0;
  /// Sequences held at once (continuous batching, docs/serving.md): a
  /// batched decode step (decodeSlots) runs one token of each, on every
  /// rank with tensor parallelism. From 2, the KV cache adds a paged cache
  /// (kvCacheBytes) to the staging rows every prompt runs in.
  int64_t maxBatch = 1;
  /// The most prompt tokens a batched step also runs (decodeSlots with a
  /// PromptChunk: a chunk of one prompt in the same GEMMs as the decode
  /// rows, docs/serving.md); 0: none. Only with maxBatch of at least 2.
  int64_t stepPromptTokens = 0;
  /// The batched step's attention shares per row and KV head (2, 4 or 8);
  /// 0: per bucket of rows, the fewest whose programs (rows x KV heads x
  /// S) fill 6 per SM of the device, else 8.
  int64_t batchAttentionSplits = 0;
  /// The K splits of a batched step's o and down projections up to 256
  /// rows (gemm_few_split, the partial sums added up by the norm after them):
  /// 0: per projection, the most that divide its K tiles and keep its
  /// programs (64-row weight tiles x splits) within one per SM of the
  /// device, up to kernels::kMaxProjectionSplits (none on a device that
  /// reports no SM count); 1: none (gemm_few); N: the most up to N that
  /// divide its K tiles. Never with tensor parallelism.
  int64_t projectionSplits = 0;
  bool useGraph = true;        ///< replay the decode step as a graph
  /// Launch kernels as programmatic dependents (CUDA; see
  /// Device::setProgrammaticLaunch).
  bool programmaticLaunch = true;
  /// The decode attention's KV split count (an S the kernel set has); 0:
  /// chosen per step among the S whose grid, heads x S (KV heads x S for
  /// the grouped kernel), is within one wave of attentionPrograms: for
  /// decode_attention the smallest whose shares get at most
  /// attentionKeysPerShare keys of the context (else the largest), for the
  /// grouped kernel the largest whose shares get at least that many (else
  /// the smallest). attentionPrograms 0: 4 programs per SM of the device for
  /// decode_attention, 3 for grouped_decode_attention (each is compiled to
  /// fit that many); 512 / 384 where the device has no SMs to count (the
  /// CPU); one 32-key block per share.
  int64_t attentionSplits = 0;
  int64_t attentionKeysPerShare = 32;
  int64_t attentionPrograms = 0;
  /// The position from which decode steps run grouped_decode_attention
  /// (one program per KV head and share, tensor cores) instead of
  /// decode_attention (one per query head and share): it reads each K/V
  /// block once per GQA group but costs more per program, so it pays once
  /// the shares are long. 0: every step. (2048 since decode_attention
  /// merges its own shares: at tg 2048 on an H200 it beat the grouped
  /// kernel and its merge launch from 512 on at every model size, most at
  /// Qwen3-0.6B, and grouping only from 4096 lost at tg 8192:
  /// bench/results/2026-11-22-decode-join-h200.md.)
  int64_t attentionGroupedFrom = 2048;
  /// Measurement only: launches of kernels whose names start with one of
  /// these are left out of every step, so the step time without them shows
  /// what they cost inside the replayed graph (launch gaps and overlap
  /// included, which a per-kernel profile misses). The output is wrong.
  std::vector<std::string> leaveOut;
  /// Called as the weights load: `done` of `total` layers uploaded (over
  /// every device of a tensor-parallel run), from any of the engine's
  /// threads, one call at a time.
  std::function<void(int64_t done, int64_t total)> onLoadProgress;
};

/// How the next token is picked, on the device: greedy (argmax, ties to the
/// lower id) or a draw after temperature, top-k and top-p (Hugging Face's
/// order), reproducible from `seed`.
struct Sampling {
  bool enabled = false;
  double temperature = 1.0; ///< > 0
  int64_t topK = 0;         ///< 0: no top-k
  double topP = 1.0;        ///< in (0, 1]; 1: no top-p
  uint64_t seed = 0;
};

/// Per-kernel time of one decode step or one prefill (--profile).
struct KernelTime {
  std::string name;
  int launches = 0;
  double ms = 0;
  /// The least global memory traffic of those launches (bytes).
  double bytes = 0;
};

class Engine {
public:
  static Status create(const std::string &modelDir, const EngineOptions &opts,
                       std::unique_ptr<Engine> &engine);
  ~Engine();

  const ModelConfig &config() const;
  int64_t maxSeqLen() const;
  std::string deviceName() const;
  /// Milliseconds create() spent reading the checkpoint and uploading it.
  double weightsLoadMs() const;

  /// Sets how later steps pick their token (greedy until called).
  Status setSampling(const Sampling &sampling);
  /// Runs `ids` from position 0 (resets the cache) and leaves the next
  /// token (greedy or sampled) in `next`. Logits of the last position are kept.
  Status prefill(const std::vector<int32_t> &ids, int32_t &next);
  /// prefill(ids), reusing the KV cache of the sequence the engine holds
  /// (the last prompt and the tokens decoded after it) for the longest
  /// prefix `ids` shares with it: only the rest is computed (at least the
  /// last two tokens). `reused` is the prefix length. A multi-turn chat or
  /// a repeated system prompt is then prefilled once. Where the reused
  /// rows were prefilled (not decoded), the logits are a whole prefill's.
  Status prefillReusing(const std::vector<int32_t> &ids, int32_t &next, int64_t &reused);
  /// Feeds `token` at the next position and leaves the pick in `next`.
  Status decode(int32_t token, int32_t &next);
  /// The logits of the last step (as f32; rounded like the model dtype).
  Status lastLogits(std::vector<float> &logits);

  /// Continuous batching (docs/serving.md): EngineOptions::maxBatch
  /// sequences, one per slot, their K/V rows in pages of the paged cache.
  /// prefill/decode above run slot 0 (and go on from whatever slot 0
  /// holds: a sequence may alternate between decode and decodeSlots).
  int64_t slots() const;
  /// Runs `ids` into `slot` (its sequence replaced), computing only what
  /// follows the longest prefix of `ids` that is published in whole pages
  /// (a shared system prompt; the turns before in a chat) or that the
  /// staging rows hold. `reused` is the prefix length; the pick (with
  /// `sampling`) is in `next`.
  Status prefillSlot(int64_t slot, const std::vector<int32_t> &ids, const Sampling &sampling,
                     int32_t &next, int64_t &reused);
  /// One token of a slot's sequence in a batched step.
  struct SlotStep {
    int64_t slot = 0;
    int32_t token = 0; ///< fed at the slot's next position
    Sampling sampling;
  };
  /// Runs every step's token at once (a slot at most once) and leaves
  /// each one's pick in next[i]. Each row's result is the same whichever
  /// slots run beside it.
  Status decodeSlots(const std::vector<SlotStep> &steps, std::vector<int32_t> &next);
  /// A chunk of a prompt that a batched step runs beside its decode rows,
  /// in the same GEMMs (EngineOptions::stepPromptTokens; docs/serving.md,
  /// mixed steps). Where `slot`'s sequence is a shorter prefix of `prompt`
  /// (the chunks before), the chunk goes on from its end; otherwise the
  /// slot's sequence is replaced and the chunk starts after the longest
  /// prefix prefillSlot would reuse (`reused`). The step runs
  /// `stepTokens` rows at most: the decode rows, rounded up to the power
  /// of two their graph runs, and the chunk's, which gets the rest (at
  /// least one token, at most stepPromptTokens). A budget that is a
  /// multiple of 128 fills the prompt GEMMs' tiles of rows. `end` is the
  /// prompt's tokens run after it, and where that is the whole prompt,
  /// `next` is its pick (with `sampling`), as prefillSlot's.
  struct PromptChunk {
    int64_t slot = 0;
    const std::vector<int32_t> *prompt = nullptr;
    int64_t stepTokens = 0;
    Sampling sampling;
    int64_t reused = 0; ///< out: the prefix the first chunk reused (else 0)
    int64_t end = 0;    ///< out
    int32_t next = -1;  ///< out
  };
  /// EngineOptions::stepPromptTokens (0 with maxBatch 1).
  int64_t stepPromptTokens() const;
  /// decodeSlots, with `chunk` (not null) run in the same step. `steps`
  /// may be empty.
  Status decodeSlots(const std::vector<SlotStep> &steps, std::vector<int32_t> &next,
                     PromptChunk *chunk);
  /// Moves the sequence `from` holds into slot `to` (its pages; `to`'s
  /// sequence released, `from` left empty). Moved into slot 0, it goes on
  /// with decode(): the single-sequence step, qwen3-run's, whose rows are
  /// the staging rows (its pages gathered there first).
  Status moveSlot(int64_t from, int64_t to);
  /// Ends `slot`'s sequence: its pages are released, its whole pages
  /// staying published (evicted least recently used first) for later
  /// prompts to reuse. With maxBatch 1 the sequence stays, a prefix the
  /// next prompt may reuse.
  Status releaseSlot(int64_t slot);
  /// The paged cache: its pages, those sequences hold, those only cached
  /// (published, held by none), and the positions per page. Zeros
  /// without one (maxBatch 1).
  struct PageCounts {
    int64_t pages = 0, inUse = 0, cached = 0, pageSize = 0;
  };
  PageCounts pageCounts() const;
  /// The logits that made the last pick of `slot`.
  Status slotLogits(int64_t slot, std::vector<float> &logits);
  /// The tokens whose K/V rows `slot` holds.
  int64_t slotLength(int64_t slot) const;
  /// How many leading tokens of `ids` prefillSlot would reuse: the longest
  /// prefix some slot holds, all but the last two tokens at most.
  int64_t reusablePrefix(const std::vector<int32_t> &ids) const;
  /// Times each kernel of one decode step at the current position (the
  /// step's result is discarded: the position is restored).
  Status profileDecode(std::vector<KernelTime> &times);
  /// decodeSlots(steps, next) with each kernel of the batched step timed
  /// alone (no graph; rank 0's launches).
  Status profileSlots(const std::vector<SlotStep> &steps, std::vector<int32_t> &next,
                      std::vector<KernelTime> &times);
  /// Per-kernel time of a prefill of `ids` (each launch timed alone); the
  /// engine is left as after prefill(ids).
  Status profilePrefill(const std::vector<int32_t> &ids,
                        std::vector<KernelTime> &times);
  /// Device-to-device copy bandwidth (bytes/s: read + write counted), the
  /// median of 9 copies of 256 MiB: the profile's and roofline's reference.
  /// 0 when the buffers do not fit.
  Status copyBandwidth(double &bytesPerSecond);

private:
  Engine();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace qwen3

#endif // QWEN3_ENGINE_H
