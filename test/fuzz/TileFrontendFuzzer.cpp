//===- TileFrontendFuzzer.cpp - libFuzzer target of the .tile front end ---===//
//
// Any byte string: lex, parse, and (when it parses) emit the tile dialect
// and verify it. Must never crash, hang or abort; errors are fine.
// scripts/test.sh runs it for a bounded time on test/fuzz/corpus.
//
//===----------------------------------------------------------------------===//

#include "tile/Language/Emitter.h"
#include "tile/Language/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    auto *c = new mlir::MLIRContext();
    c->printOpOnDiagnostic(false);
    return c;
  }();
  llvm::SourceMgr sm;
  sm.setDiagHandler([](const llvm::SMDiagnostic &, void *) {});
  unsigned id = sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.tile"),
      llvm::SMLoc());
  tile::lang::Module ast;
  if (!tile::lang::parseBuffer(sm, id, ast))
    return 0;
  std::string error;
  auto instances = tile::lang::selectInstances(ast, {}, {}, error);
  if (mlir::failed(instances))
    return 0;
  mlir::ScopedDiagnosticHandler quiet(context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  auto module = tile::lang::emitKernels(*context, sm, ast, *instances);
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
