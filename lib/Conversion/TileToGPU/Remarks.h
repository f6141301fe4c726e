//===- Remarks.h - optimisation remarks of convert-tile-to-gpu --*- C++ -*-===//
//
// Where a kernel was eligible to try a fast path (the Hopper TMA + wgmma
// GEMM, wgmma dots, async-copied dot operands, vector loads) and did not
// get it, the lowering says which condition failed, as a missed
// optimisation remark of MLIR's remark engine; where it took one, a passed
// remark gives the plan (`tilec --explain`). The engine is off unless a
// tool enables it (`tile-opt --remarks-filter=convert-tile-to-gpu
// --remark-format=emitRemark`, `tilec --remarks`), and then costs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_REMARKS_H
#define TILE_LIB_CONVERSION_TILETOGPU_REMARKS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Remarks.h"

namespace tile::gpu_lowering {

/// The remarks' category, the pass's name.
inline constexpr llvm::StringLiteral kRemarkCategory = "convert-tile-to-gpu";

/// A missed remark at `loc` in kernel `kernel`: fast path `path` not
/// taken. Stream the reason into it (`<< mlir::remark::reason(...)`).
inline mlir::remark::detail::InFlightRemark
missedFastPath(mlir::Location loc, llvm::StringRef kernel,
               llvm::StringRef path) {
  return mlir::remark::missed(loc, mlir::remark::RemarkOpts::name(path)
                                  .category(kRemarkCategory)
                                  .function(kernel));
}

/// A passed remark: fast path `path` taken, with the plan it got.
inline mlir::remark::detail::InFlightRemark
passedFastPath(mlir::Location loc, llvm::StringRef kernel,
               llvm::StringRef path) {
  return mlir::remark::passed(loc, mlir::remark::RemarkOpts::name(path)
                                       .category(kRemarkCategory)
                                       .function(kernel));
}

/// Whether remarks of this pass are being collected: the reasons are only
/// worked out then.
inline bool remarksEnabled(mlir::MLIRContext *context) {
  return context->getRemarkEngine() != nullptr;
}

} // namespace tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_REMARKS_H
