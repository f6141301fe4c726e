//===- Compiler.cpp - compile tile kernels to an artifact, with the cache -===//

#include "tile/Driver/Compiler.h"

#include "tile/Pipelines/Pipelines.h"
#include "tile/Target/Host/HostCodegen.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <mutex>
#include <unistd.h>

using namespace mlir;
using namespace tile;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void tile::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<TileDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllGPUToLLVMIRTranslations(registry);
}

bool CompileOptions::isGpu() const { return isSupportedChip(target); }

llvm::Error tile::validateCompileOptions(CompileOptions &o) {
  if (o.emit != "llvmir" && o.emit != "host-so" && o.emit != "ptx" &&
      o.emit != "cubin" && o.emit != "cubin-relocatable")
    return makeError("--emit=" + o.emit +
                     " is not one of llvmir, host-so, ptx, cubin");
  bool gpuOutput =
      o.emit == "ptx" || o.emit == "cubin" || o.emit == "cubin-relocatable";
  if (o.target.empty())
    o.target = gpuOutput ? "sm_90a" : "host";
  bool isGpu = o.isGpu();
  if (o.target != "host" && !isGpu)
    return makeError("--target=" + o.target +
                     " is not one of host, sm_80, sm_89, sm_90a, sm_100");
  if (isGpu && o.emit == "host-so")
    return makeError("--emit=host-so is for --target=host; use --emit=llvmir, "
                     "ptx or cubin for --target=" +
                     o.target);
  if (!isGpu && gpuOutput)
    return makeError("--emit=" + o.emit +
                     " needs a GPU --target (sm_80, sm_89, sm_90a, sm_100)");
  if (o.numWarps < 1 || o.numWarps > 32)
    return makeError("--num-warps=" + llvm::Twine(o.numWarps) +
                     " is not in [1, 32]");
  if (o.optLevel < 0 || o.optLevel > 3)
    return makeError("-O" + llvm::Twine(o.optLevel) +
                     " is not an optimization level (0-3)");
  if (isGpu) {
    TileToNVVMOptions parsed;
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (failed(parsed.parseFromString(o.pipelineOptions, os)))
      return makeError("--pipeline-options: cannot parse '" +
                       o.pipelineOptions + "'");
  }
  return llvm::Error::success();
}

/// The tile-to-cubin options `o` selects.
static void gpuOptions(const CompileOptions &o, TileToNVVMOptions &options) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  (void)options.parseFromString(o.pipelineOptions, os); // validated before
  options.chip = o.target;
  options.optLevel = std::min(o.optLevel, 3);
  options.numWarps = o.numWarps;
  options.format = o.emit == "ptx"      ? "isa"
                   : o.emit == "llvmir" ? "llvm"
                                        : "bin";
  if (o.emit == "cubin-relocatable")
    options.ptxasOptions = "-c";
}

/// `predicate` of the tile-to-cubin options `o` selects; false off the GPU.
static bool gpuOption(const CompileOptions &o,
                      bool (*predicate)(const TileToNVVMOptions &)) {
  if (!o.isGpu())
    return false;
  TileToNVVMOptions options;
  gpuOptions(o, options);
  return predicate(options);
}

bool CompileOptions::waitsForPriorGrid() const {
  return gpuOption(*this, tile::waitsForPriorGrid);
}

bool CompileOptions::usesHopperMatmul() const {
  return gpuOption(*this, tile::usesHopperMatmul);
}

bool CompileOptions::marksInBoundsLoads() const {
  return gpuOption(*this, [](const TileToNVVMOptions &o) -> bool {
    return o.inBoundsLoads;
  });
}

llvm::ErrorOr<std::string> tile::findPtxas() {
  return llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
}

const std::string &tile::ptxasFingerprint() {
  static std::once_flag once;
  static std::string fingerprint;
  std::call_once(once, [] {
    llvm::ErrorOr<std::string> ptxas = findPtxas();
    if (!ptxas) {
      fingerprint = "no ptxas";
      return;
    }
    fingerprint = *ptxas;
    llvm::SmallString<128> out;
    int fd;
    if (llvm::sys::fs::createTemporaryFile("tile-ptxas", "txt", fd, out))
      return;
    ::close(fd);
    llvm::FileRemover remove(out);
    std::optional<llvm::StringRef> redirects[] = {
        std::nullopt, llvm::StringRef(out), std::nullopt};
    llvm::sys::ExecuteAndWait(*ptxas, {*ptxas, "--version"}, std::nullopt,
                              redirects);
    if (auto text = llvm::MemoryBuffer::getFile(out))
      fingerprint = (*text)->getBuffer().str();
  });
  return fingerprint;
}

static llvm::Expected<std::string> compileGPU(ModuleOp module,
                                              const CompileOptions &o) {
  PassManager pm(module.getContext());
  TileToNVVMOptions options;
  gpuOptions(o, options);
  buildTileToCubinPipeline(pm, options);
  if (failed(pm.run(module)))
    return makeError("compilation failed (see the diagnostics above)");
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects()) {
      std::string bytes = cast<gpu::ObjectAttr>(object).getObject().str();
      if (o.emit != "llvmir")
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
  return makeError("the module has no kernels");
}

static llvm::Expected<std::string> compileHost(ModuleOp module,
                                               const CompileOptions &o) {
  PassManager pm(module.getContext());
  buildTileToCPUPipeline(pm, TileToCPUOptions());
  if (failed(pm.run(module)))
    return makeError("compilation failed (see the diagnostics above)");
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateToHostLLVMIR(module, llvmContext, o.optLevel);
  if (!llvmModule)
    return llvmModule.takeError();
  if (o.emit == "llvmir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    (*llvmModule)->print(os, nullptr);
    return text;
  }
  auto object = emitHostObject(**llvmModule, o.hostCpu, o.optLevel);
  if (!object)
    return object.takeError();
  llvm::SmallString<128> soPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-host", "so", soPath))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeSo(soPath);
  if (llvm::Error e = linkHostSharedObject(*object, soPath))
    return std::move(e);
  auto so = llvm::MemoryBuffer::getFile(soPath, /*IsText=*/false);
  if (!so)
    return makeError("cannot read " + soPath + ": " + so.getError().message());
  return (*so)->getBuffer().str();
}

/// The kernel cache key of `module` compiled with `o`: the manifest names
/// each kernel by it, with or without a cache to look it up in.
static std::string contentKey(ModuleOp module, const CompileOptions &o) {
  KernelCacheKeyInputs key;
  key.target = o.target;
  key.features = o.emit == "host-so" ? o.hostCpu : "";
  key.optLevel = o.optLevel;
  key.emit = o.emit;
  key.pipelineOptions = "tile-to-cpu";
  if (o.isGpu()) {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    TileToNVVMOptions options;
    gpuOptions(o, options);
    options.print(os);
    key.pipelineOptions = "tile-to-cubin" + printed;
    key.toolchain = ptxasFingerprint();
  }
  key.module = canonicalModuleBytes(module);
  return KernelCache::computeKey(key);
}

llvm::Expected<CompileResult>
tile::compileModule(ModuleOp module, const CompileOptions &o,
                    const KernelCache *cache, std::string *warnings) {
  CompileResult result;
  result.cacheKey = contentKey(module, o);
  if (cache) {
    std::string warning;
    if (std::optional<std::string> hit =
            cache->lookup(result.cacheKey, &warning)) {
      result.bytes = std::move(*hit);
      result.cacheHit = true;
      return result;
    }
    if (warnings && !warning.empty())
      *warnings += warning + "\n";
  }
  llvm::Expected<std::string> compiled =
      o.isGpu() ? compileGPU(module, o) : compileHost(module, o);
  if (!compiled)
    return compiled.takeError();
  result.bytes = std::move(*compiled);
  if (cache)
    if (llvm::Error e = cache->store(result.cacheKey, result.bytes)) {
      if (warnings)
        *warnings += llvm::toString(std::move(e)) + "\n";
      else
        llvm::consumeError(std::move(e));
    }
  return result;
}

llvm::Expected<std::string>
tile::linkCubins(const std::vector<std::string> &relocatable,
                 const std::string &chip) {
  llvm::ErrorOr<std::string> nvlink =
      llvm::sys::findProgramByName("nvlink", {"/usr/local/cuda/bin"});
  if (!nvlink)
    return makeError("nvlink (CUDA toolkit) not found: it links the kernels "
                     "into one CUBIN");
  std::vector<llvm::SmallString<128>> inputs(relocatable.size());
  std::vector<std::unique_ptr<llvm::FileRemover>> removers;
  std::vector<std::string> argStorage{*nvlink, "-arch=" + chip};
  for (size_t i = 0; i < relocatable.size(); ++i) {
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "tile-kernel", "o", fd, inputs[i]))
      return makeError("cannot create a temporary file: " + ec.message());
    removers.push_back(std::make_unique<llvm::FileRemover>(inputs[i]));
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << relocatable[i];
    os.close();
    if (os.has_error())
      return makeError("cannot write " + inputs[i]);
    argStorage.push_back(inputs[i].str().str());
  }
  llvm::SmallString<128> out, log;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-linked", "cubin", out))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeOut(out);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tile-nvlink", "log", log))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeLog(log);
  argStorage.push_back("-o");
  argStorage.push_back(out.str().str());
  std::vector<llvm::StringRef> argv(argStorage.begin(), argStorage.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*nvlink, argv, std::nullopt, redirects, 0,
                                     0, &message);
  if (rc != 0) {
    auto text = llvm::MemoryBuffer::getFile(log);
    return makeError("nvlink failed" +
                     (text ? ": " + (*text)->getBuffer().trim() : llvm::Twine(
                                                                    message)));
  }
  auto linked = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!linked)
    return makeError("cannot read the linked CUBIN: " +
                     linked.getError().message());
  return (*linked)->getBuffer().str();
}
