//===- Compiler.h - compile tile kernels to an artifact, with the cache -*- C++ -*-===//
//
// The one compile entry point of tile-translate and tilec: a module of tile
// kernels in, the requested artifact out (LLVM IR, host shared object, PTX,
// CUBIN, or a relocatable CUBIN that tilec links with its other kernels),
// through the named pipelines and the content-hashed kernel cache.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_COMPILER_H
#define TILE_DRIVER_COMPILER_H

#include "tile/Support/KernelCache.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorOr.h"

#include <string>

namespace mlir {
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace tile {

/// Everything a context needs to parse tile kernels and run every pipeline
/// of compileModule: the tile dialect, the upstream dialects, extensions and
/// GPU-to-LLVM-IR translations.
void registerCompilerDialects(mlir::DialectRegistry &registry);

struct CompileOptions {
  /// llvmir (host or NVVM), host-so, ptx, cubin, or cubin-relocatable.
  std::string emit = "llvmir";
  /// host, sm_80, sm_89, sm_90a, sm_100; empty: sm_90a for GPU outputs,
  /// else host.
  std::string target;
  int optLevel = 2;
  int64_t numWarps = 4;
  /// More tile-to-cubin options ("invariant-loads=0 ...").
  std::string pipelineOptions;
  /// CPU of host objects: x86-64 (portable) or native.
  std::string hostCpu = "x86-64";

  bool isGpu() const;
  /// Whether GPU kernels compiled with these options begin with
  /// griddepcontrol.wait (the manifest's grid_dependency_wait).
  bool waitsForPriorGrid() const;
  /// Whether kernels that tile::planHopperMatmul accepts compile to the
  /// Hopper TMA + wgmma pipeline (block size, shared memory and tensor maps
  /// in the manifest follow the plan).
  bool usesHopperMatmul() const;
  /// Whether the GPU pipeline runs tile-mark-in-bounds-loads, whose
  /// aligned_rows rules the manifest's launch contracts must then carry.
  bool marksInBoundsLoads() const;
};

/// Checks the options and fills in the default target; the error names the
/// flag at fault.
llvm::Error validateCompileOptions(CompileOptions &options);

struct CompileResult {
  std::string bytes;
  std::string cacheKey; ///< the content key, also without a cache
  bool cacheHit = false;
};

/// Compiles the kernels of `module` (which the pipelines may rewrite).
/// With `cache`, looks the result up first and stores it after; cache
/// warnings (a corrupt entry, a failed write) go to `warnings`.
llvm::Expected<CompileResult> compileModule(mlir::ModuleOp module,
                                            const CompileOptions &options,
                                            const KernelCache *cache,
                                            std::string *warnings = nullptr);

/// The ptxas the GPU pipelines run (PATH, then /usr/local/cuda/bin).
llvm::ErrorOr<std::string> findPtxas();

/// `ptxas --version` (the toolchain part of GPU cache keys), or "no ptxas".
const std::string &ptxasFingerprint();

/// Links relocatable CUBINs (one per kernel) into one CUBIN with nvlink.
llvm::Expected<std::string>
linkCubins(const std::vector<std::string> &relocatable,
           const std::string &chip);

} // namespace tile

#endif // TILE_DRIVER_COMPILER_H
