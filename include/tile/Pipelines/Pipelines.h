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

struct TileToNVVMOptions : public PassPipelineOptions<TileToNVVMOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU: sm_80, sm_89, sm_90a (default) or sm_100"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features, e.g. +ptx83"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("NVPTX optimization level"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> numWarps{
      *this, "num-warps", llvm::cl::desc("warps per program"),
      llvm::cl::init(4)};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit (libdevice for math functions)"),
      llvm::cl::init("/usr/local/cuda")};
  PassOptions::Option<bool> invariantLoads{
      *this, "invariant-loads",
      llvm::cl::desc("loads of `in` views as ld.global.nc "
                     "(tile-mark-invariant-loads)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> inBoundsLoads{
      *this, "in-bounds-loads",
      llvm::cl::desc("loads proven inside their view issued without bounds "
                     "checks (tile-mark-in-bounds-loads)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> gridDependencyControl{
      *this, "grid-dependency-control",
      llvm::cl::desc("kernels wait for the prior grid at entry, so the "
                     "runtime may launch them as programmatic dependents "
                     "(sm_90 and later; ignored before)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> hopperMatmul{
      *this, "hopper-matmul",
      llvm::cl::desc("tiled-matmul kernels as warp-specialized TMA + wgmma "
                     "pipelines (sm_90a; ignored elsewhere)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> wgmmaDots{
      *this, "wgmma-dots",
      llvm::cl::desc("fragment dots with one 64-row slab per warpgroup as "
                     "register-A wgmma (sm_90a; ignored elsewhere)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> asyncDotOperands{
      *this, "async-dot-operands",
      llvm::cl::desc("with wgmma-dots: B operands loaded in an innermost "
                     "loop copied with cp.async one iteration ahead"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> chain{
      *this, "chain",
      llvm::cl::desc("name=part1,part2,...: chain the module's kernels into "
                     "one (tile-chain-kernels; the parts are dropped)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> ptxasOptions{
      *this, "ptxas-options",
      llvm::cl::desc("extra ptxas options (tilec: -c, relocatable CUBINs)"),
      llvm::cl::init("")};
  /// For tile-to-cubin: "isa" (PTX), "bin" (CUBIN) or "llvm" (bitcode).
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX), bin (CUBIN) or llvm (NVVM LLVM bitcode)"),
      llvm::cl::init("bin")};
};

/// The GPU chips the pipelines accept.
bool isSupportedChip(llvm::StringRef chip);
/// Whether the backend emits L2 prefetches for `chip` (sm_90 and later).
bool hasL2Prefetch(llvm::StringRef chip);
/// Whether `chip` converts e4m3 pairs in one instruction (sm_89 and later).
bool hasF8Conversions(llvm::StringRef chip);
/// Whether `chip` has griddepcontrol (programmatic dependent launch).
bool hasGridDependencyControl(llvm::StringRef chip);
/// Whether kernels compiled with `options` begin with griddepcontrol.wait.
bool waitsForPriorGrid(const TileToNVVMOptions &options);

/// Whether kernels compiled with `options` that planHopperMatmul accepts run
/// as Hopper TMA + wgmma pipelines.
bool usesHopperMatmul(const TileToNVVMOptions &options);

/// tile kernels -> gpu.module in NVVM/LLVM dialect: verify ownership, lower
/// to distributed gpu.func, then to NVVM.
void buildTileToNVVMPipeline(OpPassManager &pm,
                             const TileToNVVMOptions &options);
/// tile-to-nvvm, then gpu-module-to-binary (PTX through LLVM's NVPTX
/// backend; CUBIN through ptxas).
void buildTileToCubinPipeline(OpPassManager &pm,
                               const TileToNVVMOptions &options);

/// tile kernels -> LLVM dialect for the host: verify ownership (always
/// first), lower to func/scf/tensor, bufferize, lower to loops and to LLVM.
void buildTileToCPUPipeline(OpPassManager &pm, const TileToCPUOptions &options);

/// Registers `tile-to-cpu`, `tile-to-nvvm` and `tile-to-cubin`.
void registerTilePipelines();

} // namespace tile

#endif // TILE_PIPELINES_PIPELINES_H
