//===- tile-referee.cpp - the ownership proof against brute force ----------===//
//
// For every kernel of the given files (split at `// -----`) and `--random`
// generated ones, runs tile-verify-ownership's proof and, independently,
// every program of small launches the kernel's launch contract accepts
// (ConcreteRun: machine-integer semantics), and compares:
//
//  * accepted, but a launch collides or leaves bounds: unsound, a failure
//    (the kernel is printed);
//  * rejected, and no launch does: imprecise, counted;
//  * otherwise the two agree.
//
// Exits non-zero on any unsound verdict. TILE_REFEREE_KERNELS overrides
// `--random` (a longer run on demand).
//
//===----------------------------------------------------------------------===//

#include "Referee.h"

#include "tile/Analysis/OwnershipAnalysis.h"
#include "tile/Driver/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace tile;

namespace cl = llvm::cl;

static cl::list<std::string> inputs(cl::Positional, cl::desc("<files>"));
static cl::opt<unsigned> numRandom("random",
                                   cl::desc("random kernels to generate"),
                                   cl::init(0));
static cl::opt<uint64_t> seed("seed", cl::desc("generator seed"),
                              cl::init(1));
static cl::opt<unsigned> launchBudget("launches",
                                      cl::desc("launches per kernel"),
                                      cl::init(48));
static cl::opt<bool> verbose("v", cl::desc("print every kernel's verdict"));
static cl::opt<bool> dump("dump", cl::desc("print the generated kernels"));

namespace {

struct Tally {
  unsigned kernels = 0, generated = 0, accepted = 0, rejected = 0;
  unsigned unsound = 0, imprecise = 0, skipped = 0, unparsed = 0;
  unsigned launches = 0, programs = 0;
};

} // namespace

static void referee(KernelOp kernel, StringRef text, Tally &tally) {
  ++tally.kernels;
  OwnershipStats stats;
  bool accepted;
  auto start = std::chrono::steady_clock::now();
  {
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    accepted = succeeded(verifyOwnership(kernel, stats));
  }
  double proofMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  RefereeResult result;
  {
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    enumerateLaunches(kernel, launchBudget, seed + tally.kernels, result);
  }
  ++(accepted ? tally.accepted : tally.rejected);
  tally.launches += result.launches;
  tally.programs += result.programs;
  std::string name = kernel.getSymName().str();
  if (!result.skipped.empty()) {
    ++tally.skipped;
    if (verbose)
      llvm::outs() << "@" << name << ": skipped: " << result.skipped << "\n";
    return;
  }
  bool violates = !result.violation.empty();
  if (accepted && violates) {
    ++tally.unsound;
    llvm::outs() << "UNSOUND: @" << name << " is accepted, but "
                 << result.violation << "\n"
                 << text << "\n";
    return;
  }
  if (!accepted && !violates)
    ++tally.imprecise;
  if (verbose)
    llvm::outs() << "@" << name << ": "
                 << (accepted ? "accepted" : "rejected") << " ("
                 << static_cast<int>(proofMs) << " ms), "
                 << (violates ? result.violation
                              : std::to_string(result.launches) +
                                    " launches without a violation" +
                                    (accepted ? "" : " (imprecise)"))
                 << "\n";
}

static void refereeSource(MLIRContext &context, StringRef source,
                          Tally &tally) {
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    module = parseSourceString<ModuleOp>(source, &context);
  }
  if (!module) {
    ++tally.unparsed;
    return;
  }
  module->walk([&](KernelOp kernel) { referee(kernel, source, tally); });
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tile ownership referee\n");
  if (const char *n = std::getenv("TILE_REFEREE_KERNELS"))
    numRandom = static_cast<unsigned>(std::strtoul(n, nullptr, 10));

  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  Tally tally;
  for (const std::string &path : inputs) {
    auto file = llvm::MemoryBuffer::getFile(path);
    if (!file) {
      llvm::errs() << "error: cannot read " << path << "\n";
      return 1;
    }
    StringRef rest = (*file)->getBuffer();
    while (!rest.empty()) {
      auto [chunk, after] = rest.split("\n// -----\n");
      refereeSource(context, chunk, tally);
      rest = after;
    }
  }
  std::mt19937_64 rng(seed);
  for (unsigned i = 0; i < numRandom; ++i) {
    ++tally.generated;
    std::string text = randomKernel(rng, i);
    if (dump)
      llvm::outs() << text << "\n// -----\n";
    refereeSource(context, text, tally);
  }
  llvm::outs() << "referee: " << tally.kernels << " kernels ("
               << tally.generated << " generated, " << tally.unparsed
               << " sources not parsed), " << tally.accepted << " accepted, "
               << tally.rejected << " rejected, " << tally.launches
               << " launches, " << tally.programs << " programs run\n"
               << "unsound: " << tally.unsound << "\n"
               << "imprecise: " << tally.imprecise
               << " (rejected, no violation found)\n"
               << "skipped: " << tally.skipped << "\n";
  return tally.unsound ? 1 : 0;
}
