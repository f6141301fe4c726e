//===- Emitter.h - .tile syntax trees to the tile dialect -------*- C++ -*-===//
//
// Turns parsed .tile modules into `tile.kernel` ops, one per kernel and
// specialization, with a file:line:col location on every op so verifier and
// ownership errors point at the source line.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LANGUAGE_EMITTER_H
#define TILE_LANGUAGE_EMITTER_H

#include "tile/Language/AST.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <map>

namespace tile::lang {

/// Compile-time parameter values: NAME -> integer or element type spelling.
using Bindings = std::map<std::string, std::string>;

/// One kernel to emit: the kernel, the values of its compile-time
/// parameters beyond the defaults, and the name of the emitted tile.kernel.
struct KernelInstance {
  const Function *kernel = nullptr;
  Bindings bindings;
  std::string name;
};

/// The kernels of `module` to emit: each kernel once with `defines` (values
/// for any kernel declaring those names) over its defaults, plus each
/// requested specialization (`kernel<N=V,...>`), named `kernel__N_V...`.
/// Reports unknown kernels or parameters and returns an empty list.
llvm::FailureOr<std::vector<KernelInstance>>
selectInstances(const Module &module, const Bindings &defines,
                llvm::ArrayRef<std::string> specializations,
                std::string &error);

/// Emits `instances` into a new module. Diagnostics go to the context's
/// handler (a SourceMgrDiagnosticHandler prints the line and a caret).
mlir::OwningOpRef<mlir::ModuleOp>
emitKernels(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
            const Module &module, llvm::ArrayRef<KernelInstance> instances);

} // namespace tile::lang

#endif // TILE_LANGUAGE_EMITTER_H
