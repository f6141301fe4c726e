//===- ConcreteRun.h - a kernel's index arithmetic, evaluated --*- C++ -*-===//
//
// Runs the integer part of one program of a kernel for one concrete launch:
// every integer op in its machine semantics (iN wraps, unsigned ops read
// their operands as unsigned), loops and ifs followed, and what the program
// claims and addresses recorded. Loaded integer data (a position read from
// device memory, a table entry) comes from a callback. Tensors of floats,
// tile.unchecked regions and tile.join regions are not run.
//
// It is the reference the ownership proof is checked against: a witness is
// only printed if it reproduces here, and the referee (tile-referee)
// compares the proof's verdicts with exhaustive runs of small launches.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_CONCRETERUN_H
#define TILE_ANALYSIS_CONCRETERUN_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <functional>
#include <map>
#include <optional>

namespace tile {

/// The launch-time values of one launch.
struct ConcreteLaunch {
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// Extents of dynamic dims, by (argument, dim); static dims come from the
  /// type.
  std::map<std::pair<unsigned, unsigned>, int64_t> dims;
  /// Integer scalar arguments (their signed value).
  std::map<unsigned, int64_t> scalars;
  /// An integer element of view argument `arg` at `coords` (inside the
  /// view); nullopt if unknown.
  std::function<std::optional<int64_t>(unsigned arg, ArrayRef<int64_t> coords,
                                       Operation *reader)>
      data;

  int64_t dim(KernelOp kernel, unsigned arg, unsigned d) const;
};

/// One claim (tile.own) or sub-tile access one program made.
struct ConcreteAccess {
  Operation *op;
  SmallVector<int64_t> indices;
};

struct ConcreteTrace {
  SmallVector<ConcreteAccess> claims;
  /// Loads and stores at sub-tile indices of an owned block.
  SmallVector<ConcreteAccess> subTiles;
  /// False when a value the claims or control flow depend on could not be
  /// computed (unknown data, an unsupported op, too many steps).
  bool complete = true;
  std::string why;
};

/// Runs program `pid` of `kernel` under `launch`, at most `maxSteps` ops.
ConcreteTrace runProgram(KernelOp kernel, const ConcreteLaunch &launch,
                         std::array<int64_t, 3> pid,
                         unsigned maxSteps = 100000);

/// Evaluates a host-computable integer value (a tile.grid extent, an
/// assumption) for `launch`; nullopt where it divides by zero or is unknown.
std::optional<int64_t> evaluateLaunchValue(KernelOp kernel,
                                           const ConcreteLaunch &launch,
                                           Value value);

} // namespace tile

#endif // TILE_ANALYSIS_CONCRETERUN_H
