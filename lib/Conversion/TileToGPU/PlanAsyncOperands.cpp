//===- PlanAsyncOperands.cpp - which dot operands are copied ahead --------===//
//
// The decision LowerAsyncOperands.cpp lowers, as IR: the B load of a wgmma
// dot (tile-plan-fragments' tile.fragment_dot = "wgmma") in an innermost
// loop that can be copied one iteration ahead with cp.async gets
// tile.copy_ahead; the lowering copies exactly the loads marked so.
//
//===----------------------------------------------------------------------===//

#include "Layouts.h"
#include "Remarks.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace tile {
#define GEN_PASS_DEF_PLANASYNCOPERANDS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

namespace {
struct PlanAsyncOperandsPass
    : public tile::impl::PlanAsyncOperandsBase<PlanAsyncOperandsPass> {
  using PlanAsyncOperandsBase::PlanAsyncOperandsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel->hasAttr(kOwnershipVerifiedAttrName) || !hasFragmentPlan(kernel))
      return;
    const int64_t threads = programThreads(kernel, numWarps);
    FailureOr<FragmentPlan> fragments = readFragmentPlan(kernel, threads);
    if (failed(fragments))
      return signalPassFailure();
    auto opts = [&]() {
      return remark::RemarkOpts::name("async-dot-operands")
          .category(getArgument())
          .function(kernel.getSymName());
    };
    const bool remarks = remarksEnabled(&getContext());
    // The B loads of the wgmma dots that can be copied ahead.
    llvm::DenseSet<Operation *> copyable;
    kernel.walk([&](scf::ForOp loop) {
      for (Operation &op : *loop.getBody()) {
        auto dot = dyn_cast<DotOp>(op);
        if (!dot || !fragments->wgmmaDots.count(dot))
          continue;
        SmallVector<Operation *> chain;
        if (std::optional<std::string> why =
                whyNotAsyncOperand(dot, loop, threads, *fragments, chain)) {
          if (remarks)
            remark::missed(dot.getLoc(), opts())
                << remark::reason("B not copied ahead with cp.async: {0}", *why);
          continue;
        }
        copyable.insert(chain.back());
        if (remarks)
          remark::passed(dot.getLoc(), opts())
              << remark::add("B copied one iteration ahead with cp.async into "
                             "its swizzled buffer");
      }
    });
    // Marks pinned by hand must be on such loads.
    WalkResult pinned = kernel.walk([&](LoadOp load) {
      if (!load->hasAttr(kCopyAheadAttrName) || copyable.count(load))
        return WalkResult::advance();
      load.emitError("tile.copy_ahead: not the B load of a wgmma dot in its "
                     "innermost loop that can be copied ahead");
      return WalkResult::interrupt();
    });
    if (pinned.wasInterrupted())
      return signalPassFailure();
    for (Operation *load : copyable)
      load->setAttr(kCopyAheadAttrName, UnitAttr::get(&getContext()));
  }
};
} // namespace
