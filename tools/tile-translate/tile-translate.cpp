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
#include "tile/Pipelines/Pipelines.h"
#include "tile/Support/KernelCache.h"
#include "tile/Target/Host/HostCodegen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
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

/// `ptxas --version`, the toolchain part of GPU cache keys.
static std::string ptxasFingerprint() {
  llvm::ErrorOr<std::string> ptxas =
      llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    return "no ptxas";
  llvm::SmallString<128> out;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tile-ptxas", "txt", fd, out))
    return *ptxas;
  ::close(fd);
  llvm::FileRemover remove(out);
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(out), std::nullopt};
  llvm::sys::ExecuteAndWait(*ptxas, {*ptxas, "--version"}, std::nullopt,
                            redirects);
  auto text = llvm::MemoryBuffer::getFile(out);
  return text ? (*text)->getBuffer().str() : *ptxas;
}

/// The tile-to-cubin options the flags select.
static LogicalResult gpuOptions(TileToNVVMOptions &options) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(options.parseFromString(pipelineOptions, os)))
    return failure();
  options.chip = target.getValue();
  options.optLevel = std::min(optLevel.getValue(), 3);
  options.numWarps = numWarps;
  options.format = emit == "ptx" ? "isa" : emit == "llvmir" ? "llvm" : "bin";
  return success();
}

/// Compiles `module` for a GPU: the PTX or CUBIN of its gpu.binary.
static llvm::Expected<std::string> compileGPU(ModuleOp module) {
  auto error = [](const llvm::Twine &m) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), m);
  };
  PassManager pm(module.getContext());
  TileToNVVMOptions options;
  if (failed(gpuOptions(options)))
    return error("--pipeline-options: cannot parse '" + pipelineOptions + "'");
  buildTileToCubinPipeline(pm, options);
  if (failed(pm.run(module)))
    return error("compilation failed (see the diagnostics above)");
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects()) {
      std::string bytes = cast<gpu::ObjectAttr>(object).getObject().str();
      if (emit != "llvmir")
        return bytes;
      // The NVVM module as LLVM bitcode: print it as text.
      llvm::LLVMContext context;
      auto parsed = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(bytes, "tile_kernels"), context);
      if (!parsed)
        return parsed.takeError();
      std::string text;
      llvm::raw_string_ostream os(text);
      (*parsed)->print(os, nullptr);
      return text;
    }
  return error("the module has no kernels");
}

/// Compiles `module` to the requested output, as bytes.
static llvm::Expected<std::string> compile(ModuleOp module) {
  auto error = [](const llvm::Twine &m) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), m);
  };
  if (target != "host")
    return compileGPU(module);
  PassManager pm(module.getContext());
  buildTileToCPUPipeline(pm, TileToCPUOptions());
  if (failed(pm.run(module)))
    return error("compilation failed (see the diagnostics above)");
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateToHostLLVMIR(module, llvmContext, optLevel);
  if (!llvmModule)
    return llvmModule.takeError();
  if (emit == "llvmir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    (*llvmModule)->print(os, nullptr);
    return text;
  }
  auto object = emitHostObject(**llvmModule, hostCpu, optLevel);
  if (!object)
    return object.takeError();
  llvm::SmallString<128> soPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-host", "so", soPath))
    return error("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeSo(soPath);
  if (llvm::Error e = linkHostSharedObject(*object, soPath))
    return std::move(e);
  auto so = llvm::MemoryBuffer::getFile(soPath, /*IsText=*/false);
  if (!so)
    return error("cannot read " + soPath + ": " + so.getError().message());
  return (*so)->getBuffer().str();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(toolOptions);
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

  if (emit != "llvmir" && emit != "host-so" && emit != "ptx" && emit != "cubin")
    return fail("--emit=" + emit +
                " is not one of llvmir, host-so, ptx, cubin");
  bool gpuOutput = emit == "ptx" || emit == "cubin";
  if (target.empty())
    target = gpuOutput ? "sm_90a" : "host";
  bool isGpu = isSupportedChip(target);
  if (target != "host" && !isGpu)
    return fail("--target=" + target +
                " is not one of host, sm_80, sm_89, sm_90a, sm_100");
  if (isGpu && emit == "host-so")
    return fail("--emit=host-so is for --target=host; use --emit=llvmir, "
                "ptx or cubin for --target=" +
                target);
  if (!isGpu && gpuOutput)
    return fail("--emit=" + emit +
                " needs a GPU --target (sm_80, sm_89, "
                "sm_90a, sm_100)");
  if (numWarps < 1 || numWarps > 32)
    return fail("--num-warps=" + llvm::Twine(numWarps.getValue()) +
                " is not in [1, 32]");
  if (optLevel < 0 || optLevel > 3)
    return fail("-O" + llvm::Twine(optLevel.getValue()) +
                " is not an optimization level (0-3)");

  std::string errorMessage;
  auto input = openInputFile(inputFile, &errorMessage);
  if (!input)
    return fail(errorMessage);

  DialectRegistry registry;
  registry.insert<TileDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllGPUToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser reported the error with its location

  KernelCacheKeyInputs key;
  key.target = target;
  key.features = emit == "host-so" ? hostCpu.getValue() : "";
  key.optLevel = optLevel;
  key.emit = emit;
  key.pipelineOptions = "tile-to-cpu";
  if (isGpu) {
    TileToNVVMOptions options;
    if (failed(gpuOptions(options))) {
      llvm::errs() << "tile-translate: --pipeline-options: cannot parse '"
                   << pipelineOptions << "'\n";
      return 2;
    }
    std::string printed;
    llvm::raw_string_ostream os(printed);
    options.print(os);
    key.pipelineOptions = "tile-to-cubin" + printed;
  }
  if (isGpu)
    key.toolchain = ptxasFingerprint();
  std::string keyHex;
  std::optional<std::string> result;
  if (!noCache) {
    key.module = canonicalModuleBytes(*module);
    keyHex = KernelCache::computeKey(key);
    std::string warning;
    result = cache.lookup(keyHex, &warning);
    if (!warning.empty())
      llvm::WithColor::warning(llvm::errs(), "tile-translate")
          << warning << "\n";
    if (verbose)
      llvm::errs() << "kernel cache " << (result ? "hit" : "miss") << ": "
                   << keyHex << "\n";
  }
  if (!result) {
    llvm::Expected<std::string> compiled = compile(*module);
    if (!compiled)
      return fail(llvm::toString(compiled.takeError()));
    result = std::move(*compiled);
    if (!noCache)
      if (llvm::Error e = cache.store(keyHex, *result))
        llvm::WithColor::warning(llvm::errs(), "tile-translate")
            << llvm::toString(std::move(e)) << "\n";
  }

  auto output = openOutputFile(outputFile, &errorMessage);
  if (!output)
    return fail(errorMessage);
  output->os() << *result;
  output->keep();
  return 0;
}
