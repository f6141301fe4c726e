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
#include "tile/Support/ToolFiles.h"
#include "llvm/Support/CommandLine.h"

#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

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

  // --version names tile's version beside LLVM's.
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "tile " TILE_VERSION_STRING "\n"; });
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tile optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // Listing modes read no input: upstream's driver prints them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
  // The input through tile's checks (a regular file of bounded size, or
  // stdin), the output written whole once the run succeeded: a FIFO or a
  // device neither blocks nor streams forever, a full disk is an error
  // naming the file, and no partial output is left.
  auto fail = [](const std::string &message) {
    llvm::WithColor::error(llvm::errs(), "tile-opt") << message << "\n";
    return 1;
  };
  auto buffer = tile::openToolInput(input);
  if (!buffer)
    return fail(llvm::toString(buffer.takeError()));
  if (llvm::Error e = tile::checkMlirNesting(**buffer))
    return fail(llvm::toString(std::move(e)));
  std::string text;
  llvm::raw_string_ostream os(text);
  if (mlir::failed(mlir::MlirOptMain(os, std::move(*buffer), registry, config)))
    return 1;
  tile::ToolOutputs outputs;
  outputs.add(output, std::move(text));
  if (llvm::Error e = outputs.commit())
    return fail(llvm::toString(std::move(e)));
  return 0;
}
