//===- LLVM.h - MLIR and LLVM names used throughout tile --------*- C++ -*-===//
//
// The compiler lives in namespace `tile` (not `mlir::tile`, which would clash
// with the `mlir::tile` function of MLIR's SCF utilities). This header makes
// the MLIR and LLVM names the compiler uses everywhere visible in it, as
// CIRCT does for its namespace.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_LLVM_H
#define TILE_SUPPORT_LLVM_H

#include "mlir/Support/LLVM.h"

namespace mlir {}

namespace tile {
// The MLIR namespace itself (it already re-exports the common LLVM names).
using namespace mlir;
} // namespace tile

#endif // TILE_SUPPORT_LLVM_H
