//===- ReportUnchecked.cpp - count tile.unchecked regions per kernel -------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

namespace tile {
#define GEN_PASS_DEF_TILEREPORTUNCHECKED
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;

namespace {
struct ReportUncheckedPass
    : public tile::impl::TileReportUncheckedBase<ReportUncheckedPass> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t count = 0;
    bool failedForbid = false;
    kernel.walk([&](UncheckedOp region) {
      ++count;
      if (forbid) {
        region.emitError("unchecked region in kernel @")
            << kernel.getSymName() << " (\"" << region.getReason()
            << "\"); this build accepts only the safe subset";
        failedForbid = true;
      } else if (remarks) {
        region.emitRemark("unchecked region: ") << region.getReason();
      }
    });
    kernel->setAttr(kUncheckedRegionsAttrName,
                    Builder(kernel).getI64IntegerAttr(count));
    if (remarks)
      kernel.emitRemark("kernel @")
          << kernel.getSymName() << ": " << count << " unchecked region"
          << (count == 1 ? "" : "s");
    if (failedForbid)
      signalPassFailure();
  }
};
} // namespace
