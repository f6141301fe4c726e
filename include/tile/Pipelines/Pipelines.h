//===- Pipelines.h - the named compile pipelines ----------------*- C++ -*-===//
//
// Every tool compiles through these, and `tile-opt --tile-to-cpu` runs
// exactly the same passes, so any stage can be reproduced and inspected.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINES_PIPELINES_H
#define TILE_PIPELINES_PIPELINES_H

#include "tile/Support/LLVM.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace tile {

struct TileToCPUOptions : public PassPipelineOptions<TileToCPUOptions> {
  PassOptions::Option<bool> forbidUnchecked{
      *this, "forbid-unchecked",
      llvm::cl::desc("reject kernels with tile.unchecked regions"),
      llvm::cl::init(false)};
};

/// tile kernels -> LLVM dialect for the host: verify ownership (always
/// first), lower to func/scf/tensor, bufferize, lower to loops and to LLVM.
void buildTileToCPUPipeline(OpPassManager &pm, const TileToCPUOptions &options);

/// Registers `tile-to-cpu` with tile-opt.
void registerTilePipelines();

} // namespace tile

#endif // TILE_PIPELINES_PIPELINES_H
