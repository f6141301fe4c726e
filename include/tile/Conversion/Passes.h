//===- Passes.h - tile conversion passes ------------------------*- C++ -*-===//

#ifndef TILE_CONVERSION_PASSES_H
#define TILE_CONVERSION_PASSES_H

#include "tile/Support/LLVM.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace arith { class ArithDialect; }
namespace func { class FuncDialect; }
namespace gpu { class GPUDialect; }
namespace linalg { class LinalgDialect; }
namespace math { class MathDialect; }
namespace nvgpu { class NVGPUDialect; }
namespace memref { class MemRefDialect; }
namespace scf { class SCFDialect; }
namespace tensor { class TensorDialect; }
namespace vector { class VectorDialect; }
} // namespace mlir

namespace tile {

#define GEN_PASS_DECL
#include "tile/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Conversion/Passes.h.inc"

} // namespace tile

#endif // TILE_CONVERSION_PASSES_H
