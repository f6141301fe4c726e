//===- KernelTable.h - the Qwen3 kernel instances -----------------*- C++ -*-===//
//
// The one table of the kernel instances the engine runs: the build compiles
// exactly these (qwen3-kernel-table writes them as tilec arguments), and the
// engine finds each kernel it launches through the same functions, so a
// shape the engine accepts has its instances by construction. The shapes
// accepted are the supported family below, checked against config.json
// before any weight is read.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_KERNELTABLE_H
#define QWEN3_KERNELTABLE_H

#include "qwen3/Config.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace qwen3 {

/// One instance of a kernel of models/qwen3/kernels/: the kernel and its
/// specialized const parameters, in the order tilec names them.
struct KernelInstance {
  std::string kernel;
  std::vector<std::pair<std::string, int64_t>> params;

  /// tilec's name of the instance: `kernel__P_v__Q_w`, or `kernel` alone at
  /// its defaults.
  std::string name() const;
  /// The `--specialize` argument that makes it: `kernel<P=v,Q=w>`.
  std::string spec() const;
  bool operator==(const KernelInstance &o) const {
    return kernel == o.kernel && params == o.params;
  }
};

/// The model shapes the kernel set covers: every dense Qwen3 size and any
/// config of the same architecture within these bounds.
struct SupportedShapes {
  static constexpr int64_t headDims[] = {64, 128};
  static constexpr int64_t minGroup = 1, maxGroup = 16; ///< query heads per KV head
  /// hidden_size and intermediate_size: multiples of this, up to maxHidden
  /// (the norms' row tile) and any intermediate size.
  static constexpr int64_t sizeMultiple = 128;
  static constexpr int64_t maxHidden = 8192;
  /// advance_position zeroes the decode step's norm sums (4 floats for each
  /// of 2 L + 1 norms) as one tile of 1024.
  static constexpr int64_t maxLayers = 127;
  /// The two-level argmax: 64 partial chunks of 4096.
  static constexpr int64_t maxVocab = 64 * 4096;
};

/// Whether `config` is inside SupportedShapes; otherwise an error line
/// naming `configPath`, the field, its value and what is supported.
Status checkSupportedShapes(const ModelConfig &config, const std::string &configPath);

/// The model dtypes the kernel set is compiled for.
enum class KernelDType { BF16, F16 };
const char *kernelDTypeName(KernelDType dt); ///< "bf16" / "f16"

/// The instances by role; each takes the shape it serves.
namespace kernels {
/// rmsnorm / add_rmsnorm over a row tile of the next power of two >= hidden
/// (at least 128).
KernelInstance rmsnorm(int64_t hidden);
KernelInstance addRmsnorm(int64_t hidden);
/// add_rmsnorm over the f32 partial sums of a split-K projection.
KernelInstance addRmsnormPartials(int64_t hidden);
/// row_sumsq over the same row tile: a tensor-parallel decode step's norm
/// sums, from the residual row an all-reduce completed.
KernelInstance rowSumsq(int64_t hidden);
/// residual_all_reduce over the same row tile: the tensor-parallel decode
/// step's one-shot all-reduce of the residual row through peer buffers
/// (up to 8 ranks, its RB).
KernelInstance residualAllReduce(int64_t hidden);
/// Per head dim: the prompt's angle table and the query's and the
/// key/value's norm and RoPE from its rows (rope_table,
/// q_norm_rope_from_table, kv_norm_rope_write_rows).
KernelInstance ropeTable(int64_t headDim);
KernelInstance qNormRopeFromTable(int64_t headDim);
KernelInstance kvNormRopeWriteRows(int64_t headDim);
KernelInstance prefillAttention(int64_t group, int64_t headDim);
/// A batched decode step (continuous batching): the angle table from a
/// position per row, each row's K/V written into its page, the attention
/// of each row over its pages (paged_cache.tile, pages of kPageSize
/// positions).
KernelInstance ropeTablePositions(int64_t headDim);
KernelInstance qkvNormRopeWritePages(int64_t headDim);
inline constexpr int64_t kPageSize = 64;
/// A sequence's pages gathered into the staging rows, and scattered back.
KernelInstance kvPagesToRows(int64_t headDim);
KernelInstance kvRowsToPages(int64_t headDim);
/// S: the context's shares per row and KV head, one of kBatchAttentionSplits.
KernelInstance batchDecodeAttention(int64_t group, int64_t headDim, int64_t splits);
inline constexpr int64_t kBatchAttentionSplits[] = {2, 4, 8};

/// A decode attention tier: the kernel at S KV shares; the grouped
/// family's with the merge of the same S (decode_attention merges its own).
struct AttentionTier {
  int64_t splits = 0;
  bool grouped = false;
  KernelInstance attn, merge;
};
/// Every tier the kernel set has for (group, head dim), decode_attention's
/// then grouped_decode_attention's, each by ascending S.
std::vector<AttentionTier> decodeAttentionTiers(int64_t group, int64_t headDim);

/// One decode GEMV family (linear.tile): the general instance and those
/// without bounds checks (WHOLE = 1) by U, the K steps of 512 per unrolled
/// group, for K and N multiples of its tile.
enum class Gemv { Plain, FourRows, Rms, Swiglu, Residual, ResidualKv };
struct GemvInstances {
  KernelInstance general;
  std::vector<std::pair<int64_t, KernelInstance>> whole; ///< by ascending U
  int64_t rows = 2; ///< output rows per program
};
GemvInstances gemv(Gemv family, int64_t headDim, KernelDType dt);

/// The FP8 decode GEMVs (linear_fp8.tile): e4m3 weights with one scale per
/// 128 x 128 block, K in steps of one block, in groups of U: 8 where K is a
/// multiple of 1024 (the gate/up GEMV: 4), else 4 where it is a multiple of
/// 512 (every dense Qwen3 size is), else 1. ResidualKv (the output
/// projection writing the token's K/V) is per head dim.
enum class Fp8Gemv { Plain, Rms, Swiglu, Residual, ResidualKv };
/// The U each family has instances of (1, 4, 8; the gate/up GEMV 1, 4).
std::vector<int64_t> fp8GemvUnrolls(Fp8Gemv family);
/// An FP8 GEMV instance's rows a program (R), warps (W) and programs-per-SM
/// cap (MP); 0: the kernel's default.
struct Fp8GemvForm {
  int64_t rows = 0, warps = 0, programsPerSm = 0;
  bool operator==(const Fp8GemvForm &o) const {
    return rows == o.rows && warps == o.warps && programsPerSm == o.programsPerSm;
  }
};
/// Every form the kernel set has of a family (the default first).
std::vector<Fp8GemvForm> fp8GemvForms(Fp8Gemv family);
/// The form a family's GEMV of n output rows runs at (per shape, measured).
Fp8GemvForm fp8GemvForm(Fp8Gemv family, int64_t n);
KernelInstance gemvFp8(Fp8Gemv family, int64_t unroll, int64_t headDim = 128,
                       Fp8GemvForm form = {});
/// The U gemvFp8 runs at for K (a multiple of 128).
int64_t fp8GemvUnroll(Fp8Gemv family, int64_t k);
/// The prompt path's dequantization of one FP8 projection into 16 bits.
KernelInstance dequantizeFp8();

/// The prompt GEMMs (128 x 256 and 128 x 128 tiles), the gate/up GEMM with
/// SwiGLU in its epilogue, and the kernels with no shape parameter.
KernelInstance gemm();
KernelInstance gemmNarrow();
/// The token tiles gemm_few and gemm_few_split are built for: a batched
/// step of up to 256 rows (decode rows, and a prompt's chunk beside them)
/// runs each projection as one tile of tokens, the fewest of these that
/// holds its rows, with W's rows as the dot's A operand; the prompt GEMMs'
/// 128-row tiles of tokens leave most SMs idle at a few hundred rows.
inline constexpr int64_t kFewTokens[] = {64, 128, 192, 256};
inline constexpr int64_t kMostFewTokens = kFewTokens[std::size(kFewTokens) - 1];
/// The token tile a step of `rows` runs gemm_few at; 0 past the largest.
inline constexpr int64_t fewTokens(int64_t rows) {
  for (int64_t t : kFewTokens)
    if (rows <= t)
      return t;
  return 0;
}
/// gemm_few: y = x W^T over one tile of `tokens` rows, W's rows as the
/// dot's A operand (the batched decode step).
KernelInstance gemmFew(int64_t tokens);
/// gemm_few_split: gemm_few over a share of K per program, each split's f32
/// partial sums written for add_rmsnorm_partials to add up (the batched
/// step's o and down projections, whose few weight tiles leave SMs idle).
KernelInstance gemmFewSplit(int64_t tokens);
/// swiglu_rows: SwiGLU over gemm_few's gate/up projection of a few rows.
KernelInstance swigluRows();
/// The most K splits the batched step's partial sums are allocated for.
inline constexpr int64_t kMaxProjectionSplits = 8;
KernelInstance gemmSwiglu();
KernelInstance embed();
KernelInstance embedSumsq();
KernelInstance foldNormWeight();
KernelInstance argmaxPartial();
KernelInstance argmaxFinal();
/// The two-level argmax of every row of a batched step's logits.
KernelInstance argmaxRowsPartial();
KernelInstance argmaxRowsFinal();
KernelInstance sample();
KernelInstance advancePosition();
} // namespace kernels

/// Everything the build compiles for `dt`: the instances, each once.
struct KernelSet {
  std::vector<KernelInstance> instances;
};
KernelSet kernelSet(KernelDType dt);

} // namespace qwen3

#endif // QWEN3_KERNELTABLE_H
