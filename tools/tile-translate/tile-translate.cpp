//===- tile-translate.cpp - tile kernels to LLVM IR, objects, binaries
//-----===//
//
//   tile-translate kernels.mlir --emit=llvmir|host-so|ptx|cubin
//                  [--target=host|sm_80|sm_89|sm_90a|sm_100] [-o FILE]
//                  [--no-cache] [--cache-stats] [--cache-clear]
//
// Runs the same named pipelines as tile-opt (tile-to-cpu for the host), so
// any output can be reproduced stage by stage. Results are cached by content
// (tile/Support/KernelCache.h).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Driver/Compiler.h"
#include "tile/Support/KernelCache.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "tile/Support/ToolFiles.h"
#include "llvm/Support/WithColor.h"

#include <unistd.h>

using namespace mlir;
using namespace tile;
namespace cl = llvm::cl;

static cl::OptionCategory toolOptions("tile-translate options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::init("-"), cl::cat(toolOptions));
static cl::opt<std::string> outputFile("o", cl::desc("output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(toolOptions));
static cl::opt<std::string>
    emit("emit",
         cl::desc("what to produce: llvmir (host or NVVM), host-so (host), "
                  "ptx, cubin (GPU)"),
         cl::init("llvmir"), cl::cat(toolOptions));
static cl::opt<std::string>
    target("target",
           cl::desc("host, or a GPU: sm_80, sm_89, sm_90a (default for "
                    "ptx/cubin), sm_100"),
           cl::init(""), cl::cat(toolOptions));
static cl::opt<int64_t> numWarps("num-warps",
                                 cl::desc("GPU: warps per program"),
                                 cl::init(4), cl::cat(toolOptions));
static cl::opt<std::string>
    hostCpu("host-cpu",
            cl::desc("CPU of host objects: x86-64 (portable) or native"),
            cl::init("x86-64"), cl::cat(toolOptions));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("more tile-to-cubin options, e.g. 'invariant-loads=0'"),
    cl::init(""), cl::cat(toolOptions));
static cl::opt<int> optLevel("O", cl::desc("optimization level (0-3)"),
                             cl::init(2), cl::Prefix, cl::cat(toolOptions));
static cl::opt<bool> noCache("no-cache",
                             cl::desc("do not use the kernel cache"),
                             cl::init(false), cl::cat(toolOptions));
static cl::opt<bool> cacheStats("cache-stats",
                                cl::desc("print kernel cache statistics"),
                                cl::init(false), cl::cat(toolOptions));
static cl::opt<bool> cacheClear("cache-clear",
                                cl::desc("remove every kernel cache entry"),
                                cl::init(false), cl::cat(toolOptions));
static cl::opt<bool> verbose("v", cl::desc("report cache hits and misses"),
                             cl::init(false), cl::cat(toolOptions));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tile-translate") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(toolOptions);
  // --version names tile's version beside LLVM's.
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "tile " TILE_VERSION_STRING "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "tile kernel translator\n");

  KernelCache cache = KernelCache::openDefault();
  if (cacheStats || cacheClear) {
    if (cacheClear) {
      llvm::Expected<uint64_t> removed = cache.clear();
      if (!removed)
        return fail(llvm::toString(removed.takeError()));
      llvm::outs() << "removed " << *removed << " entries from "
                   << cache.getDirectory() << "\n";
    }
    if (cacheStats) {
      KernelCache::Stats s = cache.stats();
      llvm::outs() << cache.getDirectory() << ": " << s.entries << " entries, "
                   << s.bytes << " bytes\n";
    }
    return 0;
  }

  CompileOptions options;
  options.emit = emit;
  options.target = target;
  options.optLevel = optLevel;
  options.numWarps = numWarps;
  options.pipelineOptions = pipelineOptions;
  options.hostCpu = hostCpu;
  if (llvm::Error e = validateCompileOptions(options))
    return fail(llvm::toString(std::move(e)));

  auto input = tile::openToolInput(inputFile);
  if (!input)
    return fail(llvm::toString(input.takeError()));
  if (llvm::Error e = tile::checkMlirNesting(**input))
    return fail(llvm::toString(std::move(e)));

  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser reported the error with its location

  std::string warnings;
  llvm::Expected<CompileResult> result =
      compileModule(*module, options, noCache ? nullptr : &cache, &warnings);
  if (!warnings.empty())
    llvm::WithColor::warning(llvm::errs(), "tile-translate") << warnings;
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (verbose && !noCache)
    llvm::errs() << "kernel cache " << (result->cacheHit ? "hit" : "miss")
                 << ": " << result->cacheKey << "\n";

  // Written whole at the end: a failed write names the file and leaves
  // nothing behind.
  tile::ToolOutputs outputs;
  outputs.add(outputFile, std::move(result->bytes));
  if (llvm::Error e = outputs.commit())
    return fail(llvm::toString(std::move(e)));
  return 0;
}
