//===- EngineKernels.cpp - the kernels one model's engine launches --------===//

#include "EngineKernels.h"

#include <algorithm>

namespace qwen3 {

Status EngineKernels::find(const Module &module, const std::string &manifest,
                           const std::string &name, Kernel &k) {
  if (Status st = module.kernel(name, k); !st)
    return Status::error(manifest + ": no kernel '" + name +
                         "': the kernel set was built from another kernel table "
                         "(rebuild it with this engine)");
  if (k.uncheckedRegions() != 0)
    return Status::error(manifest + ": kernel '" + k.name() +
                         "' has unchecked regions; the engine runs the safe subset only");
  return Status::ok();
}

bool EngineKernels::hasSplits(int64_t splits) const {
  return std::any_of(tiers.begin(), tiers.end(),
                     [&](const AttentionTier &t) { return t.splits == splits; });
}

Status EngineKernels::load(const Module &module, const std::string &manifest,
                           const ModelConfig &c, KernelDType dt, bool fp8) {
  namespace K = kernels;
  const int64_t group = c.heads / c.kvHeads, hd = c.headDim;
  const std::pair<KernelInstance, Kernel *> fixed[] = {
      {K::embed(), &kEmbed},
      {K::embedSumsq(), &kEmbedSumsq},
      {K::rmsnorm(c.hidden), &kRms},
      {K::addRmsnorm(c.hidden), &kAddRms},
      {K::addRmsnormPartials(c.hidden), &kAddRmsPartials},
      {K::rowSumsq(c.hidden), &kRowSumsq},
      {K::residualAllReduce(c.hidden), &kResidualAllReduce},
      {K::ropeTable(hd), &kRopeTable},
      {K::qNormRopeFromTable(hd), &kQRopeTable},
      {K::kvNormRopeWriteRows(hd), &kKvRopeTable},
      {K::prefillAttention(group, hd), &kPreAttn},
      {K::foldNormWeight(), &kFoldNorm},
      {K::gemm(), &kGemm},
      {K::gemmNarrow(), &kGemmNarrow},
      {K::gemmSwiglu(), &kGemmSwiglu},
      {K::argmaxPartial(), &kArgmaxP},
      {K::argmaxFinal(), &kArgmaxF},
      {K::sample(), &kSample},
      {K::advancePosition(), &kAdvance},
      {K::ropeTablePositions(hd), &kRopeTablePositions},
      {K::qkvNormRopeWritePages(hd), &kQkvWritePages},
      {K::kvPagesToRows(hd), &kPagesToRows},
      {K::kvRowsToPages(hd), &kRowsToPages},
      {K::argmaxRowsPartial(), &kArgmaxRowsP},
      {K::argmaxRowsFinal(), &kArgmaxRowsF},
      {K::swigluRows(), &kSwigluRows}};
  for (const auto &[inst, kernel] : fixed)
    if (Status st = find(module, manifest, inst.name(), *kernel); !st)
      return st;
  kGemmFew.clear();
  kGemmFewSplit.clear();
  for (int64_t t : K::kFewTokens)
    if (Status st = find(module, manifest, K::gemmFew(t).name(), kGemmFew[t]);
        !st || !(st = find(module, manifest, K::gemmFewSplit(t).name(), kGemmFewSplit[t])))
      return st;
  kBatchAttn.clear();
  for (int64_t s : K::kBatchAttentionSplits)
    if (Status st = find(module, manifest, K::batchDecodeAttention(group, hd, s).name(),
                         kBatchAttn[s]);
        !st)
      return st;
  // The decode attention's tiers, each family by ascending S. A tier's S is
  // its partial output's static dim; the merge's launch contract refuses
  // any other.
  tiers.clear();
  for (const K::AttentionTier &entry : K::decodeAttentionTiers(group, hd)) {
    AttentionTier t;
    t.grouped = entry.grouped;
    t.splits = entry.splits;
    if (Status st = find(module, manifest, entry.attn.name(), t.attn); !st)
      return st;
    if (t.grouped)
      if (Status st = find(module, manifest, entry.merge.name(), t.merge); !st)
        return st;
    tiers.push_back(std::move(t));
  }
  // Each decode GEMV family: the general instance and those without bounds
  // checks by U (`pick` falls back to smaller groups, then to the general
  // instance).
  for (auto [family, which] : {std::pair{&gemv, K::Gemv::Plain},
                               std::pair{&gemvFour, K::Gemv::FourRows},
                               std::pair{&gemvRms, K::Gemv::Rms},
                               std::pair{&gemvSwiglu, K::Gemv::Swiglu},
                               std::pair{&gemvResidual, K::Gemv::Residual},
                               std::pair{&gemvResidualKv, K::Gemv::ResidualKv}}) {
    const K::GemvInstances g = K::gemv(which, hd, dt);
    family->rows = g.rows;
    family->whole.clear();
    if (Status st = find(module, manifest, g.general.name(), family->general); !st)
      return st;
    for (const auto &[u, inst] : g.whole)
      if (Status st = find(module, manifest, inst.name(), family->whole[u]); !st)
        return st;
  }
  if (!fp8)
    return Status::ok();
  for (Fp8GemvFamily *family :
       {&gemvRmsFp8, &gemvSwigluFp8, &gemvResidualFp8, &gemvResidualKvFp8}) {
    family->byUnrollAndForm.clear();
    const std::vector<K::Fp8GemvForm> forms = K::fp8GemvForms(family->family);
    for (int64_t u : K::fp8GemvUnrolls(family->family))
      for (size_t f = 0; f < forms.size(); ++f)
        if (Status st = find(module, manifest, K::gemvFp8(family->family, u, hd, forms[f]).name(),
                             family->byUnrollAndForm[{u, f}]);
            !st)
          return st;
  }
  return find(module, manifest, K::dequantizeFp8().name(), kDequantFp8);
}

} // namespace qwen3
