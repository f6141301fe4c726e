//===- KernelTable.cpp - the Qwen3 kernel instances -----------------------===//
//
// Why each instance exists, with the measurements behind the choices, is in
// docs/qwen3.md (the kernel set); the figures live in bench/results/.
//
//===----------------------------------------------------------------------===//

#include "qwen3/KernelTable.h"

#include <algorithm>

namespace qwen3 {

std::string KernelInstance::name() const {
  std::string n = kernel;
  for (const auto &[param, value] : params)
    n += "__" + param + "_" + std::to_string(value);
  return n;
}

std::string KernelInstance::spec() const {
  std::string s = kernel + "<";
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? "," : "") + params[i].first + "=" + std::to_string(params[i].second);
  return s + ">";
}

const char *kernelDTypeName(KernelDType dt) { return dt == KernelDType::F16 ? "f16" : "bf16"; }

namespace {

int64_t nextPow2(int64_t v) {
  int64_t p = 1;
  while (p < v)
    p *= 2;
  return p;
}

KernelInstance inst(std::string kernel,
                    std::vector<std::pair<std::string, int64_t>> params = {}) {
  return {std::move(kernel), std::move(params)};
}

int64_t rowTile(int64_t hidden) { return std::max<int64_t>(128, nextPow2(hidden)); }

/// S of each decode attention family's tiers. decode_attention: 8, 16 (its
/// default, which the instance leaves unnamed) and 32 shares;
/// grouped_decode_attention: 16, 32 and 48 (docs/qwen3.md, the decode
/// attention).
constexpr int64_t kDefaultSplits = 16;
constexpr int64_t kDecodeSplits[] = {8, 16, 32};
constexpr int64_t kGroupedSplits[] = {16, 32, 48};

/// U of each GEMV family's WHOLE = 1 instances, with the occupancy cap
/// (MP, programs per SM; 0: none) an instance's registers are held to.
struct Unroll {
  int64_t u, mp;
};
std::vector<Unroll> unrolls(kernels::Gemv family) {
  using kernels::Gemv;
  switch (family) {
  case Gemv::Plain:
    return {{1, 0}, {2, 0}, {4, 0}, {5, 0}, {8, 0}, {10, 0}};
  case Gemv::FourRows:
    return {{2, 0}, {4, 0}};
  case Gemv::Rms:
  case Gemv::Swiglu:
    return {{1, 0}, {2, 12}, {4, 0}, {5, 7}, {8, 5}, {10, 0}};
  case Gemv::Residual:
    return {{1, 0}, {2, 0}, {4, 0}, {6, 0}, {8, 0}, {10, 0}, {19, 10}};
  case Gemv::ResidualKv:
    return {{1, 0}, {2, 0}, {4, 8}, {8, 0}, {10, 0}};
  }
  return {};
}

/// Whether an instance's group of U K steps is unrolled in the IR (IRU):
/// LLVM unrolls the 16-bit groups itself except the bf16 groups of 2,
/// which it leaves a loop of one load pair an iteration; unrolled in the
/// IR (with the U = 2 caps above) Qwen3-0.6B's bf16 decode caught up with
/// f16 (bench/results/2026-11-29-bf16-groups-of-two.md). f16 is left as
/// LLVM unrolls it.
bool unrollInIR(int64_t u, KernelDType dt) { return u == 2 && dt == KernelDType::BF16; }

const char *gemvKernel(kernels::Gemv family) {
  using kernels::Gemv;
  switch (family) {
  case Gemv::Plain:
  case Gemv::FourRows:
    return "gemv";
  case Gemv::Rms:
    return "gemv_rms";
  case Gemv::Swiglu:
    return "gemv_swiglu";
  case Gemv::Residual:
    return "gemv_residual";
  case Gemv::ResidualKv:
    return "gemv_residual_kv";
  }
  return "";
}

} // namespace

Status checkSupportedShapes(const ModelConfig &c, const std::string &path) {
  using S = SupportedShapes;
  auto bad = [&](const std::string &field, int64_t value, const std::string &supported) {
    return Status::error(path + ": " + field + " " + std::to_string(value) +
                         " is not supported (" + supported + ")");
  };
  if (std::find(std::begin(S::headDims), std::end(S::headDims), c.headDim) ==
      std::end(S::headDims))
    return bad("head_dim", c.headDim, "64 or 128");
  const int64_t group = c.heads / c.kvHeads;
  if (c.heads % c.kvHeads != 0 || group < S::minGroup || group > S::maxGroup)
    return Status::error(path + ": num_attention_heads " + std::to_string(c.heads) +
                         " over num_key_value_heads " + std::to_string(c.kvHeads) +
                         " is not supported (a whole group of 1 to 16 query heads per KV head)");
  if (c.hidden % S::sizeMultiple != 0 || c.hidden > S::maxHidden)
    return bad("hidden_size", c.hidden, "a multiple of 128 up to 8192");
  if (c.intermediate % S::sizeMultiple != 0)
    return bad("intermediate_size", c.intermediate, "a multiple of 128");
  if (c.layers > S::maxLayers)
    return bad("num_hidden_layers", c.layers, "up to 127");
  if (c.vocabSize > S::maxVocab)
    return bad("vocab_size", c.vocabSize, "up to 262144");
  return Status::ok();
}

namespace kernels {

KernelInstance rmsnorm(int64_t hidden) { return inst("rmsnorm", {{"HB", rowTile(hidden)}}); }
KernelInstance rowSumsq(int64_t hidden) { return inst("row_sumsq", {{"HB", rowTile(hidden)}}); }
KernelInstance residualAllReduce(int64_t hidden) {
  return inst("residual_all_reduce", {{"HB", rowTile(hidden)}});
}
KernelInstance addRmsnorm(int64_t hidden) {
  return inst("add_rmsnorm", {{"HB", rowTile(hidden)}});
}
KernelInstance addRmsnormPartials(int64_t hidden) {
  return inst("add_rmsnorm_partials", {{"HB", rowTile(hidden)}});
}
KernelInstance ropeTable(int64_t hd) { return inst("rope_table", {{"HD", hd}}); }
KernelInstance qNormRopeFromTable(int64_t hd) {
  return inst("q_norm_rope_from_table", {{"HD", hd}});
}
KernelInstance kvNormRopeWriteRows(int64_t hd) {
  return inst("kv_norm_rope_write_rows", {{"HD", hd}});
}
KernelInstance prefillAttention(int64_t group, int64_t hd) {
  return inst("prefill_attention", {{"G", group}, {"HD", hd}});
}

KernelInstance ropeTablePositions(int64_t hd) {
  return inst("rope_table_positions", {{"HD", hd}});
}
KernelInstance qkvNormRopeWritePages(int64_t hd) {
  return inst("qkv_norm_rope_write_pages", {{"HD", hd}});
}
KernelInstance kvPagesToRows(int64_t hd) { return inst("kv_pages_to_rows", {{"HD", hd}}); }
KernelInstance kvRowsToPages(int64_t hd) { return inst("kv_rows_to_pages", {{"HD", hd}}); }
KernelInstance batchDecodeAttention(int64_t group, int64_t hd, int64_t splits) {
  // The query tile's rows (QP, a multiple of 16) hold the group's heads
  // and at least one more; a warp per 16 rows. From 8 heads, 2 warps: the
  // merge of [G, S, HD] partials spilled from one warp's registers.
  if (group >= 8)
    return inst("batch_decode_attention",
                {{"G", group}, {"HD", hd}, {"S", splits}, {"QP", 32}, {"W", 2}});
  return inst("batch_decode_attention", {{"G", group}, {"HD", hd}, {"S", splits}});
}

std::vector<AttentionTier> decodeAttentionTiers(int64_t group, int64_t hd) {
  std::vector<AttentionTier> tiers;
  for (bool grouped : {false, true}) {
    const char *name = grouped ? "grouped_decode_attention" : "decode_attention";
    for (int64_t s : grouped ? std::vector<int64_t>(std::begin(kGroupedSplits),
                                                    std::end(kGroupedSplits))
                             : std::vector<int64_t>(std::begin(kDecodeSplits),
                                                    std::end(kDecodeSplits))) {
      AttentionTier t;
      t.splits = s;
      t.grouped = grouped;
      std::vector<std::pair<std::string, int64_t>> p = {{"G", group}, {"HD", hd}};
      std::vector<std::pair<std::string, int64_t>> mp = {{"HD", hd}};
      if (s != kDefaultSplits) {
        p.push_back({"S", s});
        mp.push_back({"S", s});
      }
      t.attn = inst(name, p);
      if (grouped)
        t.merge = inst("attention_merge_kv_write", mp);
      tiers.push_back(std::move(t));
    }
  }
  return tiers;
}

GemvInstances gemv(Gemv family, int64_t hd, KernelDType dt) {
  GemvInstances g;
  std::vector<std::pair<std::string, int64_t>> base;
  if (family == Gemv::FourRows)
    base.push_back({"R", 4});
  if (family == Gemv::ResidualKv)
    base.push_back({"HD", hd});
  g.rows = family == Gemv::FourRows ? 4 : family == Gemv::Swiglu ? 1 : 2;
  g.general = inst(gemvKernel(family), base);
  // At head dim 64 (no Qwen3 has it) gemv_residual_kv has the general
  // instance only.
  if (family == Gemv::ResidualKv && hd != 128)
    return g;
  for (const Unroll &u : unrolls(family)) {
    std::vector<std::pair<std::string, int64_t>> p = base;
    p.push_back({"WHOLE", 1});
    if (u.u != 1)
      p.push_back({"U", u.u});
    if (u.mp)
      p.push_back({"MP", u.mp});
    if (unrollInIR(u.u, dt))
      p.push_back({"IRU", 1});
    g.whole.push_back({u.u, inst(gemvKernel(family), p)});
  }
  return g;
}

std::vector<Fp8GemvForm> fp8GemvForms(Fp8Gemv family) {
  switch (family) {
  case Fp8Gemv::Swiglu:
    return {{}, {16, 4, 1}, {8, 1, 1}};
  case Fp8Gemv::Rms:
    return {{}, {8, 1, 0}};
  default:
    return {{}};
  }
}

// The fastest form of each family by output rows, from a sweep of R,
// warps and caps at the Qwen3-8B / 14B / 32B shapes on an H200
// (bench/results/2026-11-29-fp8-gemv-rows-per-thread.md, and
// bench/results/2026-11-29-fp8-forms-by-shape.md for the wider ones): the
// default keeps every program of 8B's gate/up (12288 rows, 16 a program)
// resident at once at 6 an SM; past that 16 rows a program on 4 warps
// (14B), and from 32B's 25600 rows 8 on one warp; 32B's QKV (10240 rows)
// also 8 rows on one warp.
Fp8GemvForm fp8GemvForm(Fp8Gemv family, int64_t n) {
  if (family == Fp8Gemv::Swiglu)
    return n <= 12288 ? Fp8GemvForm{} : n <= 20480 ? Fp8GemvForm{16, 4, 1} : Fp8GemvForm{8, 1, 1};
  if (family == Fp8Gemv::Rms && n >= 10240)
    return {8, 1, 0};
  return {};
}

KernelInstance gemvFp8(Fp8Gemv family, int64_t unroll, int64_t hd, Fp8GemvForm form) {
  const char *name = family == Fp8Gemv::Plain      ? "gemv_fp8"
                     : family == Fp8Gemv::Rms      ? "gemv_rms_fp8"
                     : family == Fp8Gemv::Swiglu   ? "gemv_swiglu_fp8"
                     : family == Fp8Gemv::Residual ? "gemv_residual_fp8"
                                                   : "gemv_residual_kv_fp8";
  std::vector<std::pair<std::string, int64_t>> p;
  if (unroll != 1)
    p.push_back({"U", unroll});
  if (family == Fp8Gemv::ResidualKv && hd != 128)
    p.push_back({"HD", hd});
  if (form.rows)
    p.push_back({"R", form.rows});
  if (form.warps)
    p.push_back({"W", form.warps});
  if (form.programsPerSm)
    p.push_back({"MP", form.programsPerSm});
  return inst(name, p);
}

std::vector<int64_t> fp8GemvUnrolls(Fp8Gemv family) {
  if (family == Fp8Gemv::Swiglu)
    return {1, 4};
  return {1, 4, 8};
}

int64_t fp8GemvUnroll(Fp8Gemv family, int64_t k) {
  if (k % 1024 == 0 && family != Fp8Gemv::Swiglu)
    return 8;
  return k % 512 == 0 ? 4 : 1;
}

KernelInstance dequantizeFp8() { return inst("dequantize_fp8"); }

KernelInstance gemm() { return inst("gemm"); }
KernelInstance gemmNarrow() { return inst("gemm", {{"BN", 128}}); }
KernelInstance gemmSwiglu() { return inst("gemm_swiglu"); }
KernelInstance gemmFew(int64_t tokens) {
  return tokens == 64 ? inst("gemm_few") : inst("gemm_few", {{"BT", tokens}});
}
KernelInstance gemmFewSplit(int64_t tokens) {
  return tokens == 64 ? inst("gemm_few_split") : inst("gemm_few_split", {{"BT", tokens}});
}
KernelInstance swigluRows() { return inst("swiglu_rows"); }
KernelInstance embed() { return inst("embed"); }
KernelInstance embedSumsq() { return inst("embed_sumsq"); }
KernelInstance foldNormWeight() { return inst("fold_norm_weight"); }
KernelInstance argmaxPartial() { return inst("argmax_partial"); }
KernelInstance argmaxFinal() { return inst("argmax_final"); }
KernelInstance argmaxRowsPartial() { return inst("argmax_rows_partial"); }
KernelInstance argmaxRowsFinal() { return inst("argmax_rows_final"); }
KernelInstance sample() { return inst("sample"); }
KernelInstance advancePosition() { return inst("advance_position"); }

} // namespace kernels

KernelSet kernelSet(KernelDType dt) {
  using namespace kernels;
  KernelSet set;
  auto add = [&](const KernelInstance &k) {
    if (std::find(set.instances.begin(), set.instances.end(), k) == set.instances.end())
      set.instances.push_back(k);
  };
  for (int64_t hidden = 128; hidden <= SupportedShapes::maxHidden; hidden *= 2) {
    add(rmsnorm(hidden));
    add(addRmsnorm(hidden));
    add(addRmsnormPartials(hidden));
    add(rowSumsq(hidden));
    add(residualAllReduce(hidden));
  }
  for (int64_t hd : SupportedShapes::headDims) {
    add(ropeTable(hd));
    add(qNormRopeFromTable(hd));
    add(kvNormRopeWriteRows(hd));
    add(ropeTablePositions(hd));
    add(qkvNormRopeWritePages(hd));
    add(kvPagesToRows(hd));
    add(kvRowsToPages(hd));
    for (int64_t g = SupportedShapes::minGroup; g <= SupportedShapes::maxGroup; ++g) {
      add(prefillAttention(g, hd));
      for (int64_t s : kBatchAttentionSplits)
        add(batchDecodeAttention(g, hd, s));
      for (const AttentionTier &t : decodeAttentionTiers(g, hd)) {
        add(t.attn);
        if (t.grouped)
          add(t.merge);
      }
    }
  }
  for (Gemv f : {Gemv::Plain, Gemv::FourRows, Gemv::Rms, Gemv::Swiglu, Gemv::Residual,
                 Gemv::ResidualKv})
    for (int64_t hd : SupportedShapes::headDims) {
      GemvInstances g = gemv(f, hd, dt);
      add(g.general);
      for (const auto &[u, k] : g.whole)
        add(k);
    }
  for (Fp8Gemv f : {Fp8Gemv::Plain, Fp8Gemv::Rms, Fp8Gemv::Swiglu, Fp8Gemv::Residual,
                    Fp8Gemv::ResidualKv})
    for (int64_t u : fp8GemvUnrolls(f))
      for (int64_t hd : SupportedShapes::headDims)
        for (const Fp8GemvForm &form : fp8GemvForms(f))
          add(gemvFp8(f, u, hd, form));
  add(dequantizeFp8());
  for (int64_t t : kFewTokens) {
    add(gemmFew(t));
    add(gemmFewSplit(t));
  }
  for (const KernelInstance &k :
       {gemm(), gemmNarrow(), gemmSwiglu(), swigluRows(), embed(), embedSumsq(), foldNormWeight(),
        argmaxPartial(), argmaxFinal(), argmaxRowsPartial(), argmaxRowsFinal(), sample(),
        advancePosition()})
    add(k);
  return set;
}

} // namespace qwen3
