//===- EngineKernels.h - the kernels one model's engine launches -*- C++ -*-===//
//
// The kernels of the loaded set that one model config's forward passes
// launch, each found through the kernel table (qwen3/KernelTable.h): what
// Engine::Impl launches, resolved and checked before any weight is read.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_LIB_ENGINEKERNELS_H
#define QWEN3_LIB_ENGINEKERNELS_H

#include "qwen3/Config.h"
#include "qwen3/KernelTable.h"
#include "tile/runtime/Runtime.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace qwen3 {

using namespace tile_runtime;

struct EngineKernels {
  Kernel kEmbed, kEmbedSumsq, kRms, kAddRms, kRowSumsq, kResidualAllReduce, kRopeTable, kQRopeTable,
      kKvRopeTable, kPreAttn, kGemm, kGemmNarrow, kGemmSwiglu, kFoldNorm, kArgmaxP,
      kArgmaxF, kSample, kAdvance;
  /// A batched decode step's own kernels (continuous batching): the angle
  /// table from a position per row, the K/V written into each row's page,
  /// the attention of each row over its pages, the argmax per row.
  Kernel kRopeTablePositions, kQkvWritePages, kArgmaxRowsP, kArgmaxRowsF;
  /// The paged cache's gather into the staging rows and scatter back.
  Kernel kPagesToRows, kRowsToPages;
  /// batch_decode_attention by S (KernelTable's kBatchAttentionSplits).
  std::map<int64_t, Kernel> kBatchAttn;
  /// The batched step's GEMMs up to 256 rows (W's rows as the dot's A; o
  /// and down split over K, their partial sums added up by the norm after
  /// them; gate/up followed by SwiGLU on its own).
  Kernel kAddRmsPartials, kSwigluRows;
  /// gemm_few and gemm_few_split by their tile of tokens (kFewTokens).
  std::map<int64_t, Kernel> kGemmFew, kGemmFewSplit;

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
    /// dynamic loop. On an H200 the whole-loop group measured faster for
    /// 4B's K = 2560 GEMVs (most) and 8B's K = 4096 ones, while groups of 8
    /// or 12 at K = 12288 (several trips) were slower than 4
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
  /// instances are the kernel table's (KernelTable.h).
  GemvFamily gemv, gemvRms, gemvResidual, gemvSwiglu;
  /// gemv_residual with the token's K/V cache write: the output projection
  /// after decode_attention, which merges its shares itself.
  GemvFamily gemvResidualKv;
  /// gemv at four rows per program (`gemv__R_4`): the LM head at K <= 2048,
  /// whose two-row programs of 1024 columns are too short (Qwen3-0.6B's
  /// 75,968 programs took a good part of the step; four rows measured a
  /// faster step, eight no faster than four; at K = 2560 and 4096 four
  /// rows were slightly slower:
  /// bench/results/2026-11-22-decode-launch-costs-h200.md).
  GemvFamily gemvFour;
  const Kernel &pickGemv(int64_t k, int64_t n) const {
    if (k <= 2048 && k % 512 == 0 && n % 4 == 0 && !gemvFour.whole.empty())
      return gemvFour.pick(k, n);
    return gemv.pick(k, n);
  }
  /// An FP8 decode GEMV family (linear_fp8.tile) by U and form, picked
  /// for K and the output rows N as the kernel table says
  /// (kernels::fp8GemvUnroll, kernels::fp8GemvForm).
  struct Fp8GemvFamily {
    kernels::Fp8Gemv family;
    std::map<std::pair<int64_t, size_t>, Kernel> byUnrollAndForm;
    const Kernel &pick(int64_t k, int64_t n) const {
      const std::vector<kernels::Fp8GemvForm> forms = kernels::fp8GemvForms(family);
      const size_t f = static_cast<size_t>(
          std::find(forms.begin(), forms.end(), kernels::fp8GemvForm(family, n)) - forms.begin());
      return byUnrollAndForm.at({kernels::fp8GemvUnroll(family, k), f});
    }
  };
  /// Loaded where the model holds FP8 projections: the QKV GEMV with the
  /// input norm, the gate/up GEMV with the norm and SwiGLU, the output and
  /// down GEMVs adding to the residual stream, the output GEMV writing the
  /// token's K/V; and the prompt's dequantization of one projection.
  Fp8GemvFamily gemvRmsFp8{kernels::Fp8Gemv::Rms, {}},
      gemvSwigluFp8{kernels::Fp8Gemv::Swiglu, {}},
      gemvResidualFp8{kernels::Fp8Gemv::Residual, {}},
      gemvResidualKvFp8{kernels::Fp8Gemv::ResidualKv, {}};
  Kernel kDequantFp8;
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
    Graph graph;
    bool graphReady = false;
  };
  /// Every S the kernel set has for each of the two decode attentions
  /// (`decode_attention<..., S = n>`, `grouped_decode_attention<..., S =
  /// n>`), by family then ascending S. More shares pay at long contexts,
  /// where a few programs per SM each walk a long share, and cost at short
  /// ones (empty shares, a longer merge) and past one wave: on an H200, S =
  /// 32 measured much faster for 0.6B (16 heads) at tg 8192, S = 64 less
  /// so; at 8B (32 heads) tg 2048 S = 32 and 64 lost against 16, 64 most
  /// (bench/results/2026-11-22-decode-attention-tiers-h200.md). The grouped
  /// kernel reads each K/V block once per GQA group on tensor cores, at a
  /// higher fixed cost per program: it runs from attentionGroupedFrom
  /// positions on (bench/results/2026-11-22-grouped-decode-attention-h200.md).
  /// Its S = 48 (384 programs at 8 KV heads: three per SM, where S = 32
  /// filled two) measured faster for Qwen3-4B at 4096 and 8192 positions
  /// (bench/results/2026-11-23-long-context-decode-h200.md).
  std::vector<AttentionTier> tiers;

  /// Finds every kernel `config`'s forward passes launch in `module` (the
  /// set `manifest` describes, compiled for `dt`), through the kernel table,
  /// the FP8 ones too where `fp8`. Fails naming the first instance the set
  /// lacks, or a kernel with unchecked regions.
  Status load(const Module &module, const std::string &manifest, const ModelConfig &config,
              KernelDType dt, bool fp8);
  /// The decode attention tier with `splits` shares is in the set.
  bool hasSplits(int64_t splits) const;

private:
  Status find(const Module &module, const std::string &manifest, const std::string &name,
              Kernel &k);
};

} // namespace qwen3

#endif // QWEN3_LIB_ENGINEKERNELS_H
