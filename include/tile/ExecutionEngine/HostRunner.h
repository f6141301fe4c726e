//===- HostRunner.h - run tile kernels on the host through the JIT -*- C++ -*-===//
//
// The reference semantics of the dialect, as tests use it (like Triton's
// interpreter): compile a module with the tile-to-cpu pipeline, JIT it with
// MLIR's ExecutionEngine, and run any kernel over a grid on host buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXECUTIONENGINE_HOSTRUNNER_H
#define TILE_EXECUTIONENGINE_HOSTRUNNER_H

#include "tile/Support/LLVM.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace tile {

/// One kernel argument: a strided view of host memory, or a scalar.
struct HostArg {
  enum class Kind { View, Int, F32, F64, F16Bits } kind = Kind::Int;
  void *data = nullptr;
  std::vector<int64_t> shape, strides; ///< elements
  int64_t intValue = 0;
  double floatValue = 0;
  uint16_t bits = 0;

  static HostArg view(void *data, std::vector<int64_t> shape,
                      std::vector<int64_t> strides);
  /// A row-major contiguous view.
  static HostArg view(void *data, std::vector<int64_t> shape);
  static HostArg i64(int64_t v);
  static HostArg f32(float v);
  static HostArg f64(double v);
  /// An f16 or bf16 scalar given by its bits.
  static HostArg half(uint16_t bits);
};

class HostRunner {
public:
  ~HostRunner();
  HostRunner(HostRunner &&) noexcept;

  /// Verifies and lowers `module` (tile-to-cpu) and JIT-compiles it. Errors
  /// carry the diagnostics of the failing stage.
  static llvm::Expected<HostRunner> compile(ModuleOp module);
  /// Parses `source` (MLIR text) in a context of the runner's own.
  static llvm::Expected<HostRunner> compileSource(llvm::StringRef source);

  /// Runs every program of `grid` of `kernel`. Programs of a kernel in the
  /// safe subset run on up to `threads` threads (0: one per core): they are
  /// race-free by the ownership proof. A kernel with tile.unchecked regions
  /// runs its programs in order on one thread.
  llvm::Error run(llvm::StringRef kernel, std::vector<HostArg> args,
                  std::array<int64_t, 3> grid, unsigned threads = 0);

private:
  HostRunner();
  std::unique_ptr<MLIRContext> context; // set by compileSource
  std::unique_ptr<ExecutionEngine> engine;
  /// Kernels with tile.unchecked regions: run sequentially.
  std::vector<std::string> uncheckedKernels;
};

} // namespace tile

#endif // TILE_EXECUTIONENGINE_HOSTRUNNER_H
