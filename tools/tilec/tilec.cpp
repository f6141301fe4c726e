//===- tilec.cpp - the .tile compiler --------------------------------------===//
//
//   tilec model.tile -o kernels.cubin        (and kernels.json beside it)
//   tilec model.tile --emit=mlir|llvmir|ptx|cubin|host-so [--target=sm_XX|host]
//         [-D NAME=VALUE] [--specialize 'kernel<N=V,...>'] [-I DIR] [-j N]
//         [--no-cache] [--time]
//
// Front end (lib/Language) -> tile-report-unchecked + tile-verify-ownership
// -> per kernel, the compile driver (lib/Driver) through the kernel cache ->
// one CUBIN (relocatable per-kernel CUBINs linked by nvlink) and a manifest.
//
//===----------------------------------------------------------------------===//

#include "Explain.h"

#include "tile/Conversion/TileToGPU/HopperMatmul.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/LaunchContractEmission.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Driver/Compiler.h"
#include "tile/Language/Emitter.h"
#include "tile/Language/Parser.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/ToolOutputFile.h"
#include "tile/Support/ToolFiles.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>

using namespace mlir;
using namespace tile;
namespace cl = llvm::cl;

static cl::OptionCategory toolOptions("tilec options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.tile>"),
                                      cl::Required, cl::cat(toolOptions));
static cl::opt<std::string> outputFile("o", cl::desc("output file"),
                                       cl::value_desc("file"), cl::init(""),
                                       cl::cat(toolOptions));
static cl::opt<std::string>
    emit("emit", cl::desc("mlir, llvmir, ptx, cubin (default), host-so"),
         cl::init("cubin"), cl::cat(toolOptions));
static cl::opt<std::string>
    target("target",
           cl::desc("sm_80, sm_89, sm_90a (default), sm_100, or host"),
           cl::init(""), cl::cat(toolOptions));
static cl::list<std::string>
    defines("D", cl::desc("compile-time parameter NAME=VALUE"), cl::Prefix,
            cl::cat(toolOptions));
static cl::list<std::string>
    specializations("specialize",
                    cl::desc("an extra instance: 'kernel<NAME=VALUE,...>'"),
                    cl::cat(toolOptions));
static cl::list<std::string> includeDirs("I", cl::desc("import search path"),
                                         cl::Prefix, cl::cat(toolOptions));
static cl::opt<unsigned> jobs("j", cl::desc("kernels compiled in parallel"),
                              cl::init(0), cl::Prefix, cl::cat(toolOptions));
static cl::opt<int64_t> numWarps("num-warps",
                                 cl::desc("GPU: warps per program"),
                                 cl::init(4), cl::cat(toolOptions));
static cl::opt<int> optLevel("O", cl::desc("optimization level (0-3)"),
                             cl::init(2), cl::Prefix, cl::cat(toolOptions));
static cl::opt<std::string> pipelineOptions(
    "pipeline-options", cl::desc("more tile-to-cubin options"), cl::init(""),
    cl::cat(toolOptions));
static cl::opt<bool> noCache("no-cache", cl::desc("do not use the kernel cache"),
                             cl::init(false), cl::cat(toolOptions));
static cl::opt<bool> timing("time", cl::desc("print the time of each stage"),
                            cl::init(false), cl::cat(toolOptions));

static cl::opt<bool> withHost(
    "with-host",
    cl::desc("with --emit=cubin, also write <stem>.so for the runtime's CPU "
             "device; the manifest describes both"),
    cl::init(false), cl::cat(toolOptions));

static cl::list<std::string> chains(
    "chain",
    cl::desc("GPU: also compile 'k1,k2,...' (kernel instances of this build) "
             "as one kernel named k1__then__k2..., which runs them in order "
             "in one grid (docs/runtime.md, chained launches)"),
    cl::cat(toolOptions));

static cl::opt<bool> remarks(
    "remarks",
    cl::desc("GPU: say where a kernel missed a fast path it was eligible "
             "to try (Hopper GEMM, wgmma, async copies, vector and "
             "unguarded loads) and which condition failed; compiles "
             "without the kernel cache"),
    cl::init(false), cl::cat(toolOptions));
static cl::opt<std::string> explain(
    "explain",
    cl::desc("GPU: print the plan kernel instance KERNEL got (remarks on "
             "every decision, ptxas's registers, spills and shared "
             "memory) instead of compiling the file"),
    cl::value_desc("KERNEL"), cl::init(""), cl::cat(toolOptions));

static cl::opt<bool> forbidUnchecked(
    "forbid-unchecked",
    cl::desc("reject any unchecked { ... } region (safe-subset builds)"),
    cl::init(false), cl::cat(toolOptions));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tilec") << message << "\n";
  return 1;
}

namespace {
/// Wall-clock stage timer for --time.
struct StageTimer {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), last = start;
  std::vector<std::pair<std::string, double>> stages;
  void mark(const std::string &name) {
    auto now = Clock::now();
    stages.push_back(
        {name, std::chrono::duration<double, std::milli>(now - last).count()});
    last = now;
  }
  void print(llvm::raw_ostream &os) {
    for (auto &[name, ms] : stages)
      os << llvm::format("  %-28s %9.1f ms\n", name.c_str(), ms);
    os << llvm::format(
        "  %-28s %9.1f ms\n", "total",
        std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
};

/// Loads `path` and, transitively, its imports (relative to the importing
/// file, then the -I dirs), each once.
class SourceLoader {
public:
  SourceLoader(llvm::SourceMgr &sm, lang::Module &module)
      : sm(sm), module(module) {}

  bool load(const std::string &path, llvm::SMLoc importedAt) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(path, real))
      real = path;
    if (!seen.insert(std::string(real)).second)
      return true;
    auto buffer = tile::openToolInput(path);
    if (!buffer) {
      std::string why = llvm::toString(buffer.takeError());
      if (importedAt.isValid())
        sm.PrintMessage(importedAt, llvm::SourceMgr::DK_Error, why);
      else
        llvm::WithColor::error(llvm::errs(), "tilec") << why << "\n";
      return false;
    }
    unsigned id = sm.AddNewSourceBuffer(std::move(*buffer), importedAt);
    size_t firstImport = module.imports.size();
    if (!lang::parseBuffer(sm, id, module))
      return false;
    std::vector<std::pair<llvm::SMLoc, std::string>> imports(
        module.imports.begin() + firstImport, module.imports.end());
    for (auto &[at, name] : imports) {
      std::string found = resolve(path, name);
      if (found.empty()) {
        sm.PrintMessage(at, llvm::SourceMgr::DK_Error,
                        "cannot find '" + name +
                            "' next to this file or in any -I directory");
        return false;
      }
      if (!load(found, at))
        return false;
    }
    return true;
  }

private:
  std::string resolve(const std::string &from, const std::string &name) {
    llvm::SmallString<256> candidate(llvm::sys::path::parent_path(from));
    llvm::sys::path::append(candidate, name);
    if (llvm::sys::fs::exists(candidate))
      return std::string(candidate);
    for (const std::string &dir : includeDirs) {
      llvm::SmallString<256> c(dir);
      llvm::sys::path::append(c, name);
      if (llvm::sys::fs::exists(c))
        return std::string(c);
    }
    return "";
  }

  llvm::SourceMgr &sm;
  lang::Module &module;
  std::set<std::string> seen;
};

std::string sha256Hex(llvm::StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)),
                     /*LowerCase=*/true);
}

/// The manifest entry of one kernel (everything but the cache key).
llvm::json::Object describeKernel(KernelOp kernel) {
  llvm::json::Object k;
  k["name"] = kernel.getSymName().str();
  if (auto l = dyn_cast<FileLineColLoc>(kernel.getLoc()))
    k["source"] = (l.getFilename().str() + ":" + std::to_string(l.getLine()));
  auto dims = [](ArrayRef<int64_t> shape) {
    llvm::json::Array a;
    for (int64_t d : shape)
      a.push_back(ShapedType::isDynamic(d) ? llvm::json::Value(nullptr)
                                           : llvm::json::Value(d));
    return a;
  };
  auto typeName = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t.print(os);
    return s;
  };
  llvm::json::Array params;
  for (auto [i, t] : llvm::enumerate(kernel.getArgumentTypes())) {
    llvm::json::Object p;
    if (auto name = kernel.getArgAttrOfType<StringAttr>(i, "tile.name"))
      p["name"] = name.str();
    if (auto view = dyn_cast<ViewType>(t)) {
      p["kind"] = "tensor";
      p["mode"] = stringifyOwnershipMode(view.getMode()).str();
      p["dtype"] = typeName(view.getElementType());
      p["shape"] = dims(view.getShape());
      p["strides"] = dims(view.getStrides());
    } else {
      p["kind"] = "scalar";
      p["dtype"] = typeName(t);
    }
    params.push_back(std::move(p));
  }
  k["params"] = std::move(params);
  llvm::json::Array partitions;
  kernel.walk([&](PartitionOp op) {
    llvm::json::Object p;
    if (auto arg = dyn_cast<BlockArgument>(op.getView()))
      p["param"] = static_cast<int64_t>(arg.getArgNumber());
    p["mode"] = stringifyOwnershipMode(op.getResult().getType().getMode()).str();
    p["tile"] = dims(op.getResult().getType().getTileShape());
    partitions.push_back(std::move(p));
  });
  k["partitions"] = std::move(partitions);
  if (auto contract = kernel->getAttrOfType<StringAttr>(kLaunchContractAttrName)) {
    llvm::Expected<llvm::json::Value> parsed =
        llvm::json::parse(contract.getValue());
    if (parsed)
      k["launch_contract"] = std::move(*parsed);
    else
      llvm::consumeError(parsed.takeError());
  }
  int64_t unchecked = 0;
  if (auto n = kernel->getAttrOfType<IntegerAttr>(kUncheckedRegionsAttrName))
    unchecked = n.getInt();
  k["unchecked_regions"] = unchecked;
  // Grid barriers (tile.grid_sync): every program must be resident at once,
  // so the runtime launches the kernel cooperatively.
  bool gridSync = false;
  kernel.walk([&](GridSyncOp) { gridSync = true; });
  if (gridSync)
    k["grid_sync"] = true;
  return k;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(toolOptions);
  // --version names tile's version beside LLVM's.
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "tile " TILE_VERSION_STRING "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "the .tile kernel compiler\n");
  StageTimer timer;

  bool toMlir = emit == "mlir";
  CompileOptions options;
  options.emit = toMlir ? "llvmir" : emit.getValue();
  options.target = target.empty() && emit == "host-so" ? "host"
                   : target.empty() && emit == "llvmir" ? "sm_90a"
                                                        : target.getValue();
  options.optLevel = optLevel;
  options.numWarps = numWarps;
  options.pipelineOptions = pipelineOptions;
  if (llvm::Error e = validateCompileOptions(options))
    return fail(llvm::toString(std::move(e)));
  lang::Bindings bindings;
  for (const std::string &d : defines) {
    auto [k, v] = llvm::StringRef(d).split('=');
    if (k.empty() || v.empty())
      return fail("-D" + d + ": expected NAME=VALUE");
    bindings[k.str()] = v.str();
  }
  std::string output = outputFile;
  if (output.empty()) {
    llvm::SmallString<256> o(llvm::sys::path::stem(inputFile));
    o += emit == "mlir"      ? ".mlir"
         : emit == "llvmir"  ? ".ll"
         : emit == "ptx"     ? ".ptx"
         : emit == "host-so" ? ".so"
                             : ".cubin";
    output = std::string(o);
  }

  // -- Front end --------------------------------------------------------------
  llvm::SourceMgr sourceMgr;
  // The front end's diagnostics quote their source line with a caret; a
  // line of a megabyte would bury the message, so the quote is cut to the
  // columns around the caret.
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *) {
        constexpr int kContext = 80;
        std::string line = d.getLineContents().str();
        int column = d.getColumnNo();
        if (line.size() > 2 * kContext) {
          int from = std::max(0, column - kContext);
          line = (from > 0 ? "..." : "") + line.substr(from, 2 * kContext) + "...";
          column = column - from + (from > 0 ? 3 : 0);
        }
        llvm::SMDiagnostic cut(*d.getSourceMgr(), d.getLoc(), d.getFilename(), d.getLineNo(),
                               column, d.getKind(), d.getMessage(), line, {});
        cut.print(nullptr, llvm::errs());
      },
      nullptr);
  lang::Module ast;
  SourceLoader loader(sourceMgr, ast);
  if (!loader.load(inputFile, llvm::SMLoc()))
    return 1;
  timer.mark("parse");
  std::string selectError;
  auto instances =
      lang::selectInstances(ast, bindings, specializations, selectError);
  if (failed(instances))
    return fail(selectError);
  if (instances->empty())
    return fail(inputFile + " defines no kernels");

  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  // Errors point at the .tile source; the IR of the op adds only noise.
  context.printOpOnDiagnostic(false);
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  bool explaining = !explain.empty();
  if ((remarks || explaining) && !options.isGpu())
    return fail(std::string(explaining ? "--explain" : "--remarks") +
                " needs a GPU --target");
  // A CUBIN: the in-bounds proof's remarks from the run here (they quote
  // the .tile line), the lowering's from each kernel's compile. Other
  // outputs compile here: every remark from that pipeline (which runs the
  // in-bounds proof again), enabled below.
  if (remarks && emit == "cubin")
    if (llvm::Error e = enableTileRemarks(context, kInBoundsRemarks,
                                          /*passed=*/false))
      return fail(llvm::toString(std::move(e)));
  OwningOpRef<ModuleOp> module =
      lang::emitKernels(context, sourceMgr, ast, *instances);
  if (!module || failed(verify(*module)))
    return 1;
  timer.mark("emit tile IR");
  {
    PassManager pm(&context);
    TileReportUncheckedOptions report;
    report.forbid = forbidUnchecked;
    pm.addNestedPass<KernelOp>(createTileReportUnchecked(report));
    pm.addNestedPass<KernelOp>(createTileVerifyOwnership());
    // The GPU pipeline adds aligned_rows rules with its in-bounds proof; the
    // manifest's contracts must have them too.
    if (options.marksInBoundsLoads())
      pm.addNestedPass<KernelOp>(createTileMarkInBoundsLoads());
    if (failed(pm.run(*module)))
      return 1;
  }
  timer.mark("verify ownership");
  if (explaining) {
    if (llvm::Error e = explainKernel(*module, explain, options, llvm::outs()))
      return fail(llvm::toString(std::move(e)));
    return 0;
  }

  // Every output (the artifact, the host object, the manifest) is written
  // at the end, all or none.
  tile::ToolOutputs outputs;
  if (toMlir) {
    // With locations: they name the .tile line of every op.
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo(
                          /*enable=*/true, /*prettyForm=*/false)
                          .useLocalScope());
    outputs.add(output, std::move(text));
    if (llvm::Error e = outputs.commit())
      return fail(llvm::toString(std::move(e)));
    if (timing)
      timer.print(llvm::errs());
    return 0;
  }

  KernelCache cache = KernelCache::openDefault();
  // Remarks come from the lowering, which a cache hit skips.
  const KernelCache *cachePtr = noCache || remarks ? nullptr : &cache;
  std::vector<KernelOp> kernels(module->getOps<KernelOp>().begin(),
                                module->getOps<KernelOp>().end());
  llvm::json::Array manifestKernels;
  // Read before compiling: lowering to PTX replaces the kernel ops.
  std::vector<int64_t> warps;
  for (KernelOp k : kernels) {
    manifestKernels.push_back(describeKernel(k));
    auto w = k->getAttrOfType<IntegerAttr>(kNumWarpsAttrName);
    warps.push_back(w ? w.getInt() : static_cast<int64_t>(numWarps));
    // A Hopper matmul's block, shared memory and TMA descriptors.
    std::optional<HopperMatmulPlan> plan;
    if (options.usesHopperMatmul())
      plan = planHopperMatmul(k);
    if (!plan)
      continue;
    warps.back() = plan->numWarps();
    llvm::json::Object *desc = manifestKernels.back().getAsObject();
    (*desc)["dynamic_shared_bytes"] = plan->sharedBytes();
    llvm::json::Array maps;
    for (TensorMapParam m : plan->tensorMaps())
      maps.push_back(llvm::json::Object{
          {"argument", m.argument},
          {"box", llvm::json::Array{m.box[0], m.box[1]}}});
    (*desc)["tensor_maps"] = std::move(maps);
  }
  // Chains: their parts by name, in order; each compiles as a module of
  // its parts with tile-chain-kernels.
  // (Names are copied: the host compile below lowers the module.)
  struct Chain {
    std::string name;
    std::vector<size_t> parts;
    std::vector<std::string> partNames;
    int64_t unchecked = 0;
  };
  std::vector<Chain> chainList;
  for (const std::string &spec : chains) {
    if (emit != "cubin" || !options.waitsForPriorGrid())
      return fail("--chain=" + spec +
                  ": chains need --emit=cubin for a GPU with griddepcontrol "
                  "(sm_90a, sm_100)");
    Chain c;
    llvm::SmallVector<StringRef> names;
    StringRef(spec).split(names, ',', -1, /*KeepEmpty=*/false);
    if (names.size() < 2)
      return fail("--chain=" + spec +
                  ": expected two kernels or more, "
                  "separated by commas");
    for (StringRef n : names) {
      auto it = llvm::find_if(kernels,
                              [&](KernelOp k) { return k.getSymName() == n; });
      if (it == kernels.end())
        return fail("--chain=" + spec + ": no kernel instance named '" + n +
                    "' (add it with --specialize)");
      size_t index = it - kernels.begin();
      if (llvm::is_contained(c.parts, index))
        return fail("--chain=" + spec + ": '" + n + "' is listed twice");
      if (warps[index] != warps[c.parts.empty() ? index : c.parts.front()])
        return fail("--chain=" + spec + ": '" + n +
                    "' runs another number of warps than '" + names.front() +
                    "'");
      c.parts.push_back(index);
      c.partNames.push_back(n.str());
      if (auto u = kernels[index]->getAttrOfType<IntegerAttr>(
              kUncheckedRegionsAttrName))
        c.unchecked += u.getInt();
      c.name += (c.name.empty() ? "" : "__then__") + n.str();
    }
    if (llvm::any_of(kernels,
                     [&](KernelOp k) { return k.getSymName() == c.name; }) ||
        llvm::any_of(chainList,
                     [&](const Chain &o) { return o.name == c.name; }))
      return fail("--chain=" + spec + ": '" + c.name + "' is defined twice");
    chainList.push_back(std::move(c));
  }

  std::string artifact;
  std::vector<std::string> keys(kernels.size());
  std::string hitSummary;

  if (emit == "cubin") {
    // One relocatable CUBIN per kernel, each through the cache, in
    // parallel; then one link.
    // One module per kernel, then one per chain (its parts).
    const size_t units = kernels.size() + chainList.size();
    std::vector<std::string> payloads(units), unitNames(units);
    for (size_t i = 0; i < units; ++i) {
      OwningOpRef<ModuleOp> one = ModuleOp::create(module->getLoc());
      if (i < kernels.size()) {
        one->getBody()->push_back(kernels[i]->clone());
        unitNames[i] = kernels[i].getSymName().str();
      } else {
        for (size_t part : chainList[i - kernels.size()].parts)
          one->getBody()->push_back(kernels[part]->clone());
        unitNames[i] = chainList[i - kernels.size()].name;
      }
      llvm::raw_string_ostream os(payloads[i]);
      if (failed(writeBytecodeToFile(*one, os)))
        return fail("cannot serialize kernel " + unitNames[i]);
    }
    keys.resize(units);
    std::vector<std::string> objects(units), errors(units);
    std::vector<char> hits(units, 0);
    std::mutex diagMutex;
    CompileOptions relocatable = options;
    relocatable.emit = "cubin-relocatable";
    std::vector<std::string> unitRemarks(units);
    auto work = [&](size_t i) {
      MLIRContext local(registry);
      std::string diags;
      llvm::raw_string_ostream ds(diags);
      llvm::raw_string_ostream rs(unitRemarks[i]);
      ScopedDiagnosticHandler handler(&local, [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Remark)
          rs << formatRemark(d) << "\n";
        else
          ds << d.getLocation() << ": " << d << "\n";
        return success();
      });
      if (remarks)
        if (llvm::Error e = enableTileRemarks(local, kLoweringRemarks,
                                              /*passed=*/false)) {
          errors[i] = llvm::toString(std::move(e));
          return;
        }
      OwningOpRef<ModuleOp> m =
          parseSourceString<ModuleOp>(payloads[i], ParserConfig(&local));
      if (!m) {
        errors[i] = "cannot reload kernel";
        return;
      }
      std::string warnings;
      CompileOptions unit = relocatable;
      if (i >= kernels.size()) {
        const Chain &c = chainList[i - kernels.size()];
        unit.pipelineOptions += " chain=" + c.name + "=";
        for (size_t k = 0; k < c.partNames.size(); ++k)
          unit.pipelineOptions += (k ? "," : "") + c.partNames[k];
      }
      auto r = compileModule(*m, unit, cachePtr, &warnings);
      if (!r) {
        errors[i] = llvm::toString(r.takeError()) + "\n" + diags;
        return;
      }
      objects[i] = std::move(r->bytes);
      keys[i] = r->cacheKey;
      hits[i] = r->cacheHit;
      if (!warnings.empty()) {
        std::lock_guard<std::mutex> lock(diagMutex);
        llvm::WithColor::warning(llvm::errs(), "tilec") << warnings;
      }
    };
    unsigned threads = jobs ? jobs : llvm::hardware_concurrency().compute_thread_count();
    if (threads <= 1 || units == 1) {
      for (size_t i = 0; i < units; ++i)
        work(i);
    } else {
      llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
      for (size_t i = 0; i < units; ++i)
        pool.async([&, i] { work(i); });
      pool.wait();
    }
    // Remarks in kernel order, whatever order the kernels compiled in.
    for (const std::string &r : unitRemarks)
      llvm::errs() << r;
    size_t hitCount = 0;
    for (size_t i = 0; i < units; ++i) {
      if (!errors[i].empty())
        return fail("kernel " + unitNames[i] + ": " + errors[i]);
      hitCount += hits[i];
    }
    hitSummary = std::to_string(hitCount) + "/" + std::to_string(units) +
                 " kernels from the cache";
    timer.mark("compile kernels (" + hitSummary + ")");
    auto linked = linkCubins(objects, options.target);
    if (!linked)
      return fail(llvm::toString(linked.takeError()));
    artifact = std::move(*linked);
    timer.mark("link (nvlink)");
  } else {
    if (remarks)
      if (llvm::Error e = enableTileRemarks(
              context, std::string(kInBoundsRemarks) + "|" + kLoweringRemarks,
              /*passed=*/false))
        return fail(llvm::toString(std::move(e)));
    std::string warnings;
    auto r = compileModule(*module, options, cachePtr, &warnings);
    if (!warnings.empty())
      llvm::WithColor::warning(llvm::errs(), "tilec") << warnings;
    if (!r)
      return fail(llvm::toString(r.takeError()));
    artifact = std::move(r->bytes);
    std::fill(keys.begin(), keys.end(), r->cacheKey);
    hitSummary = r->cacheHit ? "from the cache" : "compiled";
    timer.mark("compile module (" + hitSummary + ")");
  }
  outputs.add(output, artifact);

  // Every artifact the manifest describes: the primary one, and with
  // --with-host the CPU device's shared object beside it.
  llvm::json::Array artifacts;
  auto describeArtifact = [&](StringRef kind, StringRef path,
                              StringRef artifactTarget, StringRef bytes) {
    llvm::json::Object a;
    a["kind"] = kind.str();
    a["file"] = llvm::sys::path::filename(path).str();
    a["target"] = artifactTarget.str();
    a["sha256"] = sha256Hex(bytes);
    artifacts.push_back(std::move(a));
  };
  describeArtifact(emit.getValue(), output, options.target, artifact);
  if (withHost) {
    if (emit != "cubin")
      return fail("--with-host goes with --emit=cubin");
    CompileOptions host = options;
    host.target = "host";
    host.emit = "host-so";
    host.pipelineOptions.clear();
    std::string warnings;
    auto r = compileModule(*module, host, cachePtr, &warnings);
    if (!r)
      return fail("host shared object: " + llvm::toString(r.takeError()));
    llvm::SmallString<256> soPath(output);
    llvm::sys::path::replace_extension(soPath, "so");
    describeArtifact("host-so", soPath, "host", r->bytes);
    outputs.add(std::string(soPath), std::move(r->bytes));
    timer.mark(std::string("host shared object (") +
               (r->cacheHit ? "from the cache" : "compiled") + ")");
  }

  // The manifest beside the artifact.
  for (size_t i = 0; i < kernels.size(); ++i) {
    llvm::json::Object *k = manifestKernels[i].getAsObject();
    (*k)["cache_key"] = keys[i];
    (*k)["num_warps"] = warps[i];
    if (options.waitsForPriorGrid())
      (*k)["grid_dependency_wait"] = true;
  }
  // A chain has no contract of its own: the runtime checks each part's.
  for (size_t c = 0; c < chainList.size(); ++c) {
    llvm::json::Object k;
    k["name"] = chainList[c].name;
    llvm::json::Array parts;
    for (const std::string &part : chainList[c].partNames)
      parts.push_back(part);
    k["chain"] = std::move(parts);
    k["cache_key"] = keys[kernels.size() + c];
    k["num_warps"] = warps[chainList[c].parts.front()];
    k["grid_dependency_wait"] = true;
    k["unchecked_regions"] = chainList[c].unchecked;
    manifestKernels.push_back(std::move(k));
  }
  llvm::json::Object manifest;
  manifest["tile_manifest_version"] = 1;
  manifest["target"] = options.target;
  manifest["artifact"] = llvm::sys::path::filename(output).str();
  manifest["artifact_kind"] = emit.getValue();
  manifest["artifact_sha256"] = sha256Hex(artifact);
  manifest["artifacts"] = std::move(artifacts);
  manifest["source"] = inputFile.getValue();
  manifest["kernels"] = std::move(manifestKernels);
  // An artifact written to stdout (-o -) has no file for a manifest to sit
  // beside: none is written (it used to land in ./-.json).
  if (output != "-") {
    llvm::SmallString<256> manifestPath(output);
    llvm::sys::path::replace_extension(manifestPath, "json");
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
    outputs.add(std::string(manifestPath), std::move(text));
  }
  if (llvm::Error e = outputs.commit())
    return fail(llvm::toString(std::move(e)));
  timer.mark("write outputs");
  if (timing) {
    llvm::errs() << "tilec: " << kernels.size() << " kernels -> " << output
                 << " (" << hitSummary << ")\n";
    timer.print(llvm::errs());
  }
  return 0;
}
