//===- VerifyOwnership.cpp - the safety proof and launch contract ----------===//

#include "tile/Analysis/OwnershipAnalysis.h"
#include "tile/Dialect/Tile/Transforms/LaunchContractEmission.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace tile {
#define GEN_PASS_DEF_TILEVERIFYOWNERSHIP
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

namespace {
struct VerifyOwnershipPass
    : public tile::impl::TileVerifyOwnershipBase<VerifyOwnershipPass> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    OwnershipStats stats;
    if (failed(verifyOwnership(kernel, stats)))
      return signalPassFailure();
    FailureOr<::tile_runtime::LaunchContract> contract = buildLaunchContract(kernel);
    if (failed(contract))
      return signalPassFailure();
    stats.launchChecks = contract->rules.size();

    Builder builder(kernel);
    kernel->setAttr(kLaunchContractAttrName,
                    builder.getStringAttr(contract->toJson()));
    kernel->setAttr(kUncheckedRegionsAttrName,
                    builder.getI64IntegerAttr(stats.uncheckedRegions));
    kernel->setAttr(kOwnershipVerifiedAttrName, builder.getUnitAttr());

    if (printContract) {
      std::string grid;
      for (const ::tile_runtime::ContractExpr &e : contract->grid)
        grid += (grid.empty() ? "" : ", ") + contract->toString(e);
      kernel.emitRemark("launch contract: grid = (")
          << (grid.empty() ? "chosen by the launcher" : grid) << ")";
      for (const ::tile_runtime::ContractRule &rule : contract->rules)
        kernel.emitRemark("launch contract: ") << contract->toString(rule);
    }
    if (report)
      kernel.emitRemark("kernel @")
          << kernel.getSymName() << ": " << stats.claims << " claims, "
          << stats.disjointPairs << " claim pairs proven disjoint, "
          << stats.claimsInBounds << " claims in bounds, "
          << stats.subTilesInBounds << " sub-tile accesses in bounds, "
          << stats.launchChecks << " launch-contract rules, "
          << stats.uncheckedRegions << " unchecked regions"
          << (stats.joinTickets ? ", a join with " +
                                      std::to_string(stats.joinReads) +
                                      " group reads proven"
                                : std::string())
          << (stats.gridSyncs ? ", " + std::to_string(stats.gridSyncs) +
                                    " grid barriers with " +
                                    std::to_string(stats.phaseReads) +
                                    " reads after them proven"
                              : std::string())
          << (stats.facts.empty()
                  ? std::string()
                  : "; using " + llvm::join(stats.facts, ", "));
  }
};
} // namespace
