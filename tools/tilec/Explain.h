//===- Explain.h - tilec --remarks and --explain ----------------*- C++ -*-===//
//
// What the compiler decided for a kernel, and why: the optimisation remarks
// of tile's passes (where a kernel missed a fast path it was eligible to
// try, which condition failed; where it took one, the plan it got), and
// ptxas's account of the registers, spills and shared memory the result
// uses.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILEC_EXPLAIN_H
#define TILE_TOOLS_TILEC_EXPLAIN_H

#include "tile/Driver/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace tile {

/// The passes whose remarks tilec shows: the in-bounds proof (which tilec
/// runs before the per-kernel compiles) and the GPU lowering.
inline constexpr const char *kInBoundsRemarks = "tile-mark-in-bounds-loads";
inline constexpr const char *kLoweringRemarks =
    "convert-tile-to-gpu|tile-plan-hopper-matmul|tile-plan-fragments|"
    "tile-plan-async-operands";

/// Turns on the optimisation remarks of the passes `categories` (a regex)
/// on `context`, sent to its diagnostic handlers as remarks: the missed
/// ones, and with `passed` the plans taken too.
llvm::Error enableTileRemarks(mlir::MLIRContext &context,
                              llvm::StringRef categories, bool passed);

/// A remark as one line: `file:line:col: remark: [Missed] ...`.
std::string formatRemark(mlir::Diagnostic &d);

/// `tilec --explain KERNEL`: compiles kernel `name` of `module` (verified)
/// to PTX for `options`' GPU target with every remark on (the module's
/// context must have none enabled yet), runs `ptxas -v` on it, and prints
/// the remarks and ptxas's resource lines to `os`.
llvm::Error explainKernel(mlir::ModuleOp module, llvm::StringRef name,
                         const CompileOptions &options, llvm::raw_ostream &os);

} // namespace tile

#endif // TILE_TOOLS_TILEC_EXPLAIN_H
