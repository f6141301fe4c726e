//===- Pipelines.cpp - the named compile pipelines -------------------------===//

#include "tile/Pipelines/Pipelines.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

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
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void tile::registerTilePipelines() {
  PassPipelineRegistration<TileToCPUOptions>(
      "tile-to-cpu",
      "verify tile kernels and lower them to LLVM dialect for the host",
      buildTileToCPUPipeline);
}
