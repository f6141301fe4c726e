//===- MarkInvariantLoads.cpp - ld.global.nc for the inputs of kernels ----===//
//
// Loads through the `in` and `frozen` views of a verified kernel read memory
// that nothing writes during the launch; `!invariant.load` lets NVPTX use
// the read-only (non-coherent) data path for them. In a kernel that waits
// for the grid before it (griddepcontrol.wait), only `frozen` views: launched
// as a programmatic dependent, its launch overlaps that grid, which may still
// be writing its `in` inputs, and the read-only path may then serve a line
// cached before the write (seen on an H200: the decode step's norm sums read
// stale within a replayed graph). Frozen memory is written by no kernel.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tile {
#define GEN_PASS_DEF_MARKINVARIANTLOADS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

/// The function argument `address` is derived from, if any: through
/// getelementptr, casts, and extractvalue of a field some insertvalue set.
static BlockArgument addressRoot(Value address) {
  for (int steps = 0; steps < 64; ++steps) {
    if (auto arg = dyn_cast<BlockArgument>(address))
      return arg.getOwner()->isEntryBlock() ? arg : BlockArgument();
    Operation *def = address.getDefiningOp();
    if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
      address = gep.getBase();
    } else if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(def)) {
      address = cast.getArg();
    } else if (auto extract = dyn_cast<LLVM::ExtractValueOp>(def)) {
      // Find the insertvalue that set this field of the aggregate.
      Value aggregate = extract.getContainer();
      ArrayRef<int64_t> position = extract.getPosition();
      Value found;
      while (auto insert = aggregate.getDefiningOp<LLVM::InsertValueOp>()) {
        if (insert.getPosition() == position) {
          found = insert.getValue();
          break;
        }
        aggregate = insert.getContainer();
      }
      if (!found)
        return {};
      address = found;
    } else {
      return {};
    }
  }
  return {};
}

namespace {
struct MarkInvariantLoadsPass
    : tile::impl::MarkInvariantLoadsBase<MarkInvariantLoadsPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::LLVMFuncOp func) {
      if (!func->hasAttr(kInvariantInputsAttrName) || func.isExternal())
        return;
      StringRef marker = func->hasAttr(kWaitsForPriorGridAttrName)
                             ? kFrozenArgAttrName
                             : kReadonlyArgAttrName;
      func.walk([&](LLVM::LoadOp load) {
        BlockArgument root = addressRoot(load.getAddr());
        if (root && root.getOwner()->getParentOp() == func &&
            func.getArgAttr(root.getArgNumber(), marker))
          load.setInvariant(true);
      });
    });
  }
};
} // namespace
