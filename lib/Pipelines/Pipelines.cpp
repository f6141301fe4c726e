//===- Pipelines.cpp - the named compile pipelines -------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/HopperMatmul.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace tile;

void tile::buildTileToCPUPipeline(OpPassManager &pm,
                                        const TileToCPUOptions &options) {
  // The safety proof comes first in every pipeline.
  pm.addNestedPass<KernelOp>(createTileVerifyOwnership());
  if (options.forbidUnchecked)
    pm.addNestedPass<KernelOp>(
        createTileReportUnchecked(TileReportUncheckedOptions{false, true}));
  pm.addPass(createConvertTileToSCF());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Loops carrying tiles (flash attention accumulators) yield new buffers.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertMemRefCopyToLoops());
  // f16/bf16 arithmetic computes in f32 and rounds back: the same results
  // for add/sub/mul/div, and code every host can run.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"f16", "bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  // f32 -> bf16 rounding as integer ops: LLVM would otherwise call
  // __truncsfbf2, which the host libraries here do not provide.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

bool tile::isSupportedChip(llvm::StringRef chip) {
  return llvm::is_contained({"sm_80", "sm_89", "sm_90a", "sm_100"}, chip);
}

bool tile::hasL2Prefetch(llvm::StringRef chip) {
  return chip == "sm_90a" || chip == "sm_100";
}

bool tile::hasF8Conversions(llvm::StringRef chip) {
  return chip == "sm_89" || chip == "sm_90a" || chip == "sm_100";
}

bool tile::hasGridDependencyControl(llvm::StringRef chip) {
  return chip == "sm_90a" || chip == "sm_100";
}

bool tile::waitsForPriorGrid(const TileToNVVMOptions &options) {
  return options.gridDependencyControl && hasGridDependencyControl(options.chip);
}

bool tile::usesHopperMatmul(const TileToNVVMOptions &options) {
  return options.hopperMatmul && hasHopperMatmul(options.chip);
}

void tile::buildTileToNVVMPipeline(OpPassManager &pm,
                                   const TileToNVVMOptions &options) {
  pm.addNestedPass<KernelOp>(createTileVerifyOwnership());
  if (options.inBoundsLoads)
    pm.addNestedPass<KernelOp>(createTileMarkInBoundsLoads());
  if (usesHopperMatmul(options))
    pm.addNestedPass<KernelOp>(createPlanHopperMatmul());
  PlanFragmentsOptions fragments;
  fragments.numWarps = options.numWarps;
  fragments.wgmmaDots = options.wgmmaDots && hasHopperMatmul(options.chip);
  pm.addNestedPass<KernelOp>(createPlanFragments(fragments));
  if (options.asyncDotOperands && fragments.wgmmaDots) {
    PlanAsyncOperandsOptions async;
    async.numWarps = options.numWarps;
    pm.addNestedPass<KernelOp>(createPlanAsyncOperands(async));
  }
  ConvertTileToGPUOptions toGPU;
  toGPU.numWarps = options.numWarps;
  toGPU.gridDependencyControl = waitsForPriorGrid(options);
  toGPU.f8Conversions = hasF8Conversions(options.chip);
  toGPU.l2Prefetch = hasL2Prefetch(options.chip);
  pm.addPass(createConvertTileToGPU(toGPU));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (!options.chain.empty()) {
    ChainKernelsOptions chain;
    chain.chain = options.chain;
    pm.addPass(createChainKernels(chain));
  }
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  // math.exp and friends lower to libdevice calls (__nv_expf): link it.
  llvm::SmallString<128> libdevice(options.cudaPath.getValue());
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (llvm::sys::fs::exists(libdevice))
    target.linkLibs.push_back(std::string(libdevice));
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  // Order matters: strided metadata before the LLVM conversion, scf->cf
  // before gpu->nvvm.
  // nvgpu (mma.sync) first: later conversions would leave its loop-carried
  // fragments unconverted.
  gpu.addPass(createConvertNVGPUToNVVMPass());
  gpu.addPass(memref::createExpandStridedMetadataPass());
  gpu.addPass(createLowerAffinePass());
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(createConvertGpuOpsToNVVMOps());
  // mbarrier waits and other NVVM ops without an LLVM intrinsic become
  // inline PTX.
  gpu.addPass(createConvertNVVMToLLVMPass());
  gpu.addPass(createGridConstantParams());
  gpu.addPass(createReconcileUnrealizedCastsPass());
  gpu.addPass(createCanonicalizerPass());
  if (options.invariantLoads)
    gpu.addPass(createMarkInvariantLoads());
}

void tile::buildTileToCubinPipeline(OpPassManager &pm,
                                     const TileToNVVMOptions &options) {
  buildTileToNVVMPipeline(pm, options);
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.cmdOptions = options.ptxasOptions;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void tile::registerTilePipelines() {
  PassPipelineRegistration<TileToCPUOptions>(
      "tile-to-cpu",
      "verify tile kernels and lower them to LLVM dialect for the host",
      buildTileToCPUPipeline);
  PassPipelineRegistration<TileToNVVMOptions>(
      "tile-to-nvvm",
      "verify tile kernels and lower them to a gpu.module in NVVM dialect",
      buildTileToNVVMPipeline);
  PassPipelineRegistration<TileToNVVMOptions>(
      "tile-to-cubin",
      "tile-to-nvvm, then PTX (format=isa) or CUBIN (format=bin)",
      buildTileToCubinPipeline);
}
