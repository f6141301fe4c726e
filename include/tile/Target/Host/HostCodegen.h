//===- HostCodegen.h - host LLVM IR, objects and shared objects -*- C++ -*-===//
//
// The ahead-of-time end of the host path: a module lowered by tile-to-cpu
// becomes LLVM IR, an object file, and a shared object exporting one
// `_mlir_ciface_<kernel>_grid` entry per kernel, which the runtime's CPU
// device loads with dlopen (no LLVM at run time).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_HOST_HOSTCODEGEN_H
#define TILE_TARGET_HOST_HOSTCODEGEN_H

#include "tile/Support/LLVM.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tile {

/// Defines __truncsfbf2 (f32 -> bf16, nearest even, NaN kept quiet) in
/// `module`, weak and hidden, unless it has one: x86-64 without AVX512-BF16
/// calls it to store bf16 values, and the OS's libraries here lack it.
void defineBf16Truncation(llvm::Module &module);

/// LLVM IR of a module in the LLVM dialect (after tile-to-cpu), optimized at
/// `optLevel`.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToHostLLVMIR(ModuleOp module, llvm::LLVMContext &context,
                      int optLevel);

/// An ELF object for `cpu` ("x86-64" is portable; "native" is this
/// machine's CPU), position independent.
llvm::Expected<std::string> emitHostObject(llvm::Module &module,
                                           llvm::StringRef cpu, int optLevel);

/// Links `object` into a shared object at `outputPath` with ld.lld
/// (libm and libgcc_s as dependencies, for math and half conversions).
llvm::Error linkHostSharedObject(llvm::StringRef object,
                                 llvm::StringRef outputPath);

} // namespace tile

#endif // TILE_TARGET_HOST_HOSTCODEGEN_H
