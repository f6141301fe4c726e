//===- GridConstantParams.cpp - TMA descriptors as kernel parameters ------===//

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/HopperMatmul.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tile {
#define GEN_PASS_DEF_GRIDCONSTANTPARAMS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;

namespace {
/// A CUtensorMap: 128 bytes, 64-byte aligned.
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlign = 64;

struct GridConstantParamsPass
    : public tile::impl::GridConstantParamsBase<GridConstantParamsPass> {
  void runOnOperation() override {
    getOperation()->walk([&](LLVM::LLVMFuncOp func) {
      auto count = func->getAttrOfType<IntegerAttr>(
          tile::kTensorMapParamsAttrName);
      if (!count)
        return;
      unsigned n = func.getNumArguments();
      if (count.getInt() < 0 || count.getInt() > n) {
        func.emitError() << tile::kTensorMapParamsAttrName << " = "
                         << count.getInt() << " but the kernel has " << n
                         << " parameters";
        return signalPassFailure();
      }
      Builder b(func.getContext());
      auto bytes =
          LLVM::LLVMArrayType::get(b.getI8Type(), kTensorMapBytes);
      for (unsigned i = n - count.getInt(); i < n; ++i) {
        if (!isa<LLVM::LLVMPointerType>(func.getArgument(i).getType())) {
          func.emitError() << "tensor map parameter " << i
                           << " is not a pointer";
          return signalPassFailure();
        }
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(bytes));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(kTensorMapAlign));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
    });
  }
};
} // namespace
