//===- tile-opt.cpp - the tile dialect optimizer driver --------------------===//
//
// mlir-opt with the tile dialect and its passes, plus every upstream dialect,
// pass and the GPU-to-LLVM-IR translations, so any pipeline the other tools
// run (including -gpu-module-to-binary) can be reproduced from the command
// line.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tile::registerTilePasses();
  tile::registerTileConversionPasses();
  tile::registerTilePipelines();

  mlir::DialectRegistry registry;
  registry.insert<tile::TileDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tile optimizer driver\n", registry));
}
