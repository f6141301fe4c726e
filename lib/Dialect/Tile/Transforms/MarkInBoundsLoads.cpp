//===- MarkInBoundsLoads.cpp - tile.in_bounds on whole-tile loads ---------===//

#include "tile/Analysis/LoadBounds.h"
#include "tile/Dialect/Tile/Transforms/LaunchContractEmission.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/runtime/LaunchContract.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Remarks.h"

namespace tile {
#define GEN_PASS_DEF_TILEMARKINBOUNDSLOADS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

/// The widest vector access of the GPU lowering (16 bytes).
static constexpr int64_t kAlignedRowBytes = 16;

namespace {
struct MarkInBoundsLoadsPass
    : public tile::impl::TileMarkInBoundsLoadsBase<MarkInBoundsLoadsPass> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // The proof leans on tile.assume, which only a verified kernel's launch
    // contract enforces.
    if (!kernel->hasAttr(kOwnershipVerifiedAttrName))
      return;
    bool remarks = getContext().getRemarkEngine() != nullptr;
    SmallVector<std::pair<LoadOp, std::string>> missed;
    FailureOr<SmallVector<LoadOp>> loads =
        findInBoundsLoads(kernel, remarks ? &missed : nullptr);
    if (failed(loads)) {
      kernel.emitError("integer range analysis failed");
      return signalPassFailure();
    }
    if (remarks) {
      unsigned total = 0;
      kernel.walk([&](LoadOp) { ++total; });
      remark::passed(kernel.getLoc(), remark::RemarkOpts::name("in-bounds-load")
                                          .category(getArgument())
                                          .function(kernel.getSymName()))
          << remark::add("{0} of {1} loads proven in bounds (no bounds "
                         "checks)",
                         loads->size(), total);
    }
    // The fast path a guarded load misses: no per-element bounds checks,
    // and (through the aligned_rows contract) vector loads of dynamic rows.
    for (auto &[load, why] : missed)
      remark::missed(load.getLoc(), remark::RemarkOpts::name("in-bounds-load")
                                        .category(getArgument())
                                        .function(kernel.getSymName()))
          << remark::reason("bounds-checked load: {0}", why);
    if (loads->empty())
      return;
    // Unguarded vector loads also need aligned rows: a launch contract rule
    // for each such view whose outer strides are only known at launch. A
    // tile one element wide (a block scale) is read an element at a time,
    // so it needs none.
    auto json = kernel->getAttrOfType<StringAttr>(kLaunchContractAttrName);
    ::tile_runtime::LaunchContract contract;
    if (!json || !::tile_runtime::LaunchContract::fromJson(json.getValue().str(),
                                                          contract)) {
      kernel.emitError("no readable launch contract on a verified kernel");
      return signalPassFailure();
    }
    Builder builder(kernel);
    for (LoadOp load : *loads) {
      load->setAttr(kInBoundsAttrName, builder.getUnitAttr());
      auto partition = load.getSource().getDefiningOp<PartitionOp>();
      if (partition.getType().getTileShape().back() == 1)
        continue;
      auto view = cast<BlockArgument>(partition.getView());
      int arg = static_cast<int>(view.getArgNumber());
      ArrayRef<int64_t> strides = contract.params[arg].strides;
      bool dynamic = llvm::is_contained(strides.drop_back(), int64_t(-1));
      bool present = llvm::any_of(contract.rules, [&](const auto &r) {
        return r.kind == ::tile_runtime::ContractRule::Kind::AlignedRows &&
               r.a == arg;
      });
      if (dynamic && !present) {
        ::tile_runtime::ContractRule rule;
        rule.kind = ::tile_runtime::ContractRule::Kind::AlignedRows;
        rule.a = arg;
        rule.bytes = kAlignedRowBytes;
        contract.rules.push_back(rule);
      }
    }
    kernel->setAttr(kLaunchContractAttrName,
                    builder.getStringAttr(contract.toJson()));
  }
};
} // namespace
