//===- Explain.cpp - tilec --remarks and --explain -------------------------===//

#include "Explain.h"

#include "tile/Conversion/TileToGPU/HopperMatmul.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace mlir;

llvm::Error tile::enableTileRemarks(MLIRContext &context,
                                    llvm::StringRef shown, bool passed) {
  remark::RemarkCategories categories;
  categories.missed = shown.str();
  if (passed)
    categories.passed = shown.str();
  if (failed(remark::enableOptimizationRemarks(
          context, /*streamer=*/nullptr,
          std::make_unique<remark::RemarkEmittingPolicyAll>(), categories,
          /*printAsEmitRemarks=*/true)))
    return llvm::createStringError("cannot enable optimisation remarks");
  return llvm::Error::success();
}

std::string tile::formatRemark(Diagnostic &d) {
  std::string line;
  llvm::raw_string_ostream os(line);
  if (auto l = dyn_cast<FileLineColLoc>(d.getLocation()))
    os << l.getFilename().getValue() << ":" << l.getLine() << ":"
       << l.getColumn();
  else
    os << d.getLocation();
  os << ": remark: " << d;
  return line;
}

/// `ptxas -v` on `ptx`: its report, one line per resource fact.
static llvm::Expected<std::string> ptxasReport(llvm::StringRef ptx,
                                               llvm::StringRef chip) {
  llvm::ErrorOr<std::string> ptxas = tile::findPtxas();
  if (!ptxas)
    return llvm::createStringError("--explain: ptxas not found (PATH, "
                                   "/usr/local/cuda/bin)");
  llvm::SmallString<128> input, report;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tilec-explain", "ptx", fd, input))
    return llvm::createStringError("--explain: cannot create a temporary file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::FileRemover removeInput(input);
  if (llvm::sys::fs::createTemporaryFile("tilec-explain", "txt", report))
    return llvm::createStringError("--explain: cannot create a temporary file");
  llvm::FileRemover removeReport(report);
  std::string arch = ("-arch=" + chip).str();
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, report, report};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(
      *ptxas, {*ptxas, "-v", arch, input.str(), "-o", "/dev/null"},
      std::nullopt, redirects, /*SecondsToWait=*/120, 0, &message);
  auto text = llvm::MemoryBuffer::getFile(report);
  if (rc != 0)
    return llvm::createStringError(
        "--explain: ptxas failed: " +
        (text ? (*text)->getBuffer().trim().str() : message));
  if (!text)
    return llvm::createStringError("--explain: cannot read ptxas's report");
  std::string out;
  llvm::SmallVector<llvm::StringRef> lines;
  (*text)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    line = line.trim();
    line.consume_front("ptxas info    : ");
    if (line.starts_with("Compiling entry") ||
        line.starts_with("Function properties") ||
        line.starts_with("Compile time"))
      continue;
    out += "  ptxas: " + line.str() + "\n";
  }
  return out;
}

llvm::Error tile::explainKernel(ModuleOp module, llvm::StringRef name,
                                const CompileOptions &options,
                                llvm::raw_ostream &os) {
  if (!options.isGpu())
    return llvm::createStringError("--explain needs a GPU --target");
  KernelOp kernel;
  std::string names;
  for (KernelOp k : module.getOps<KernelOp>()) {
    if (k.getSymName() == name)
      kernel = k;
    names += (names.empty() ? "" : ", ") + k.getSymName().str();
  }
  if (!kernel)
    return llvm::createStringError("--explain: no kernel instance named '" +
                                   name + "' (the instances: " + names + ")");
  int64_t warps = options.numWarps;
  if (auto w = kernel->getAttrOfType<mlir::IntegerAttr>(kNumWarpsAttrName))
    warps = w.getInt();
  if (options.usesHopperMatmul())
    if (std::optional<HopperMatmulPlan> plan = planHopperMatmul(kernel))
      warps = plan->numWarps();

  // The kernel alone, lowered with every remark collected.
  OwningOpRef<ModuleOp> one = ModuleOp::create(module.getLoc());
  one->getBody()->push_back(kernel->clone());
  std::vector<std::string> remarks;
  MLIRContext *context = module.getContext();
  if (llvm::Error e = enableTileRemarks(
          *context, std::string(kInBoundsRemarks) + "|" + kLoweringRemarks,
          /*passed=*/true))
    return e;
  {
    ScopedDiagnosticHandler collect(context, [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Remark)
        return failure(); // errors go on to the tool's handler
      remarks.push_back(formatRemark(d));
      return success();
    });
    CompileOptions ptx = options;
    ptx.emit = "ptx";
    auto compiled = compileModule(*one, ptx, /*cache=*/nullptr);
    if (!compiled)
      return compiled.takeError();
    auto report = ptxasReport(compiled->bytes, options.target);
    if (!report)
      return report.takeError();
    os << "kernel " << name << ": " << options.target << ", " << warps
       << " warps\n";
    std::string function = ("Function=" + name + " ").str();
    for (const std::string &r : remarks)
      if (llvm::StringRef(r).contains(function))
        os << "  " << r << "\n";
    os << *report;
  }
  return llvm::Error::success();
}
