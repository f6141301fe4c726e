//===- MemRefCopyToLoops.cpp - memref.copy as loads and stores -------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tile {
#define GEN_PASS_DEF_CONVERTMEMREFCOPYTOLOOPS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {
struct ConvertMemRefCopyToLoopsPass
    : public tile::impl::ConvertMemRefCopyToLoopsBase<
          ConvertMemRefCopyToLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp op) { copies.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp op : copies) {
      auto type = dyn_cast<MemRefType>(op.getSource().getType());
      if (!type) {
        op.emitError("convert-memref-copy-to-loops: unranked copies are not "
                     "supported");
        return signalPassFailure();
      }
      Location loc = op.getLoc();
      rewriter.setInsertionPoint(op);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      SmallVector<Value> ivs;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        Value ub = memref::DimOp::create(rewriter, loc, op.getSource(), d);
        auto loop = scf::ForOp::create(rewriter, loc, zero, ub, one);
        ivs.push_back(loop.getInductionVar());
        rewriter.setInsertionPointToStart(loop.getBody());
      }
      Value v = memref::LoadOp::create(rewriter, loc, op.getSource(), ivs);
      memref::StoreOp::create(rewriter, loc, v, op.getTarget(), ivs);
      rewriter.eraseOp(op);
    }
  }
};
} // namespace
