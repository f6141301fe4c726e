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
namespace LLVM { class LLVMDialect; }
namespace math { class MathDialect; }
namespace nvgpu { class NVGPUDialect; }
namespace NVVM { class NVVMDialect; }
namespace memref { class MemRefDialect; }
namespace scf { class SCFDialect; }
namespace tensor { class TensorDialect; }
namespace vector { class VectorDialect; }
} // namespace mlir

namespace tile {

/// The unit attribute convert-tile-to-gpu sets on kernels whose ownership
/// was verified: their read-only arguments are not written during a launch.
inline constexpr llvm::StringLiteral kInvariantInputsAttrName =
    "tile.invariant_inputs";
/// The argument attribute on the memrefs of `in` views (LLVM's readonly;
/// convert-gpu-to-nvvm keeps it on the descriptor's pointers).
inline constexpr llvm::StringLiteral kReadonlyArgAttrName = "llvm.readonly";
/// The argument attribute that marks the memrefs of `frozen` views (no
/// kernel writes them, not even a grid this kernel overlaps under PDL).
/// convert-gpu-to-nvvm carries only LLVM's pointer attributes to the
/// descriptor's pointers, so the marker is one of them: `nofree`, true of
/// every kernel argument and set on no other.
inline constexpr llvm::StringLiteral kFrozenArgAttrName = "llvm.nofree";
/// The unit attribute on kernels that begin with griddepcontrol.wait
/// (grid-dependency-control): safe to launch as programmatic dependents.
inline constexpr llvm::StringLiteral kWaitsForPriorGridAttrName =
    "tile.waits_for_prior_grid";

#define GEN_PASS_DECL
#include "tile/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Conversion/Passes.h.inc"

} // namespace tile

#endif // TILE_CONVERSION_PASSES_H
