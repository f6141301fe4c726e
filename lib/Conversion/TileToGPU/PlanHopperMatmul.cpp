//===- PlanHopperMatmul.cpp - the Hopper GEMM decision as an attribute -----===//
//
// The decision planHopperMatmul makes, written on the kernel so that it can
// be printed, tested and pinned by hand; the lowering reads it back
// (pinnedHopperMatmulPlan) instead of deciding.
//
//===----------------------------------------------------------------------===//

#include "Remarks.h"

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/HopperMatmul.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace tile {
#define GEN_PASS_DEF_PLANHOPPERMATMUL
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

DictionaryAttr tile::hopperMatmulPlanAttr(MLIRContext *context,
                                          const HopperMatmulPlan &plan) {
  Builder b(context);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("bm", b.getI64IntegerAttr(plan.bm)),
      b.getNamedAttr("bn", b.getI64IntegerAttr(plan.bn)),
      b.getNamedAttr("bk", b.getI64IntegerAttr(plan.bk)),
      b.getNamedAttr("stages", b.getI64IntegerAttr(plan.stages)),
      b.getNamedAttr("consumers", b.getI64IntegerAttr(plan.consumers)),
  };
  // Decided by the body (its store of the result's transpose), printed so
  // the plan shows it.
  if (plan.transpose)
    fields.push_back(b.getNamedAttr("transposed_store", b.getUnitAttr()));
  return b.getDictionaryAttr(fields);
}

FailureOr<std::optional<HopperMatmulPlan>>
tile::pinnedHopperMatmulPlan(KernelOp kernel) {
  auto attr = kernel->getAttrOfType<DictionaryAttr>(kHopperMatmulAttrName);
  if (!attr)
    return std::optional<HopperMatmulPlan>();
  std::string whyNot;
  std::optional<HopperMatmulPlan> plan = planHopperMatmul(kernel, &whyNot);
  if (!plan)
    return kernel.emitError("tile.hopper_matmul: the body is not a Hopper "
                            "TMA + wgmma GEMM: ")
           << whyNot;
  auto field = [&](StringRef name) -> std::optional<int64_t> {
    if (auto v = attr.getAs<IntegerAttr>(name))
      return v.getInt();
    return std::nullopt;
  };
  for (auto [name, value] : {std::pair<StringRef, int64_t>{"bm", plan->bm},
                             {"bn", plan->bn},
                             {"bk", plan->bk},
                             {"consumers", plan->consumers}})
    if (std::optional<int64_t> v = field(name); !v || *v != value)
      return kernel.emitError("tile.hopper_matmul: '")
             << name << "' must be " << value << " (the body's)";
  std::optional<int64_t> stages = field("stages");
  int64_t most = plan->maxStages();
  if (!stages || *stages < 2 || *stages > most)
    return kernel.emitError("tile.hopper_matmul: 'stages' must be 2 to ")
           << most << " (what fits the shared memory)";
  plan->stages = *stages;
  return plan;
}

namespace {
struct PlanHopperMatmulPass
    : public tile::impl::PlanHopperMatmulBase<PlanHopperMatmulPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel->hasAttr(kOwnershipVerifiedAttrName))
      return;
    // A plan pinned by hand is checked and kept.
    if (kernel->hasAttr(kHopperMatmulAttrName)) {
      if (failed(pinnedHopperMatmulPlan(kernel)))
        return signalPassFailure();
      return;
    }
    std::string whyNot;
    std::optional<HopperMatmulPlan> plan = planHopperMatmul(kernel, &whyNot);
    if (!plan) {
      if (remarksEnabled(&getContext()) && isMatmulCandidate(kernel))
        remark::missed(kernel.getLoc(),
                       remark::RemarkOpts::name("hopper-matmul")
                           .category(getArgument())
                           .function(kernel.getSymName()))
            << remark::reason("not a Hopper TMA + wgmma GEMM: {0}", whyNot);
      return;
    }
    kernel->setAttr(kHopperMatmulAttrName,
                    hopperMatmulPlanAttr(&getContext(), *plan));
    if (remarksEnabled(&getContext()))
      remark::passed(kernel.getLoc(), remark::RemarkOpts::name("hopper-matmul")
                                          .category(getArgument())
                                          .function(kernel.getSymName()))
          << remark::add("Hopper TMA + wgmma GEMM: tile {0}x{1}x{2}, {3} "
                         "stages, consumer warpgroups: {4} (and a producer), "
                         "{5} bytes of dynamic shared memory{6}",
                         plan->bm, plan->bn, plan->bk, plan->stages,
                         plan->consumers, plan->sharedBytes(),
                         plan->transpose ? ", the result stored transposed" : "");
  }
};
} // namespace
