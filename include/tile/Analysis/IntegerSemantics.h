//===- IntegerSemantics.h - machine integers in the proof -------*- C++ -*-===//
//
// The generated code computes an iN value modulo 2^N; the ownership proof
// models each integer value by its signed interpretation, so an op's exact
// result stands for its value only where it does not wrap. index and i64
// are 64-bit. Launch-time expressions (tile.grid, tile.assume) are computed
// by the runtime in exact 64-bit arithmetic: for the narrow ops in them, the
// launch contract checks that the two agree (docs/safety.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_INTEGERSEMANTICS_H
#define TILE_ANALYSIS_INTEGERSEMANTICS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <limits>

namespace tile {

/// The width the generated code computes `type` in: N for iN, 64 for index.
inline unsigned integerWidth(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return i.getWidth();
  return 64;
}
/// The signed range of iN (N in 1..64).
inline int64_t signedMin(unsigned width) {
  return width >= 64 ? std::numeric_limits<int64_t>::min()
                     : -(int64_t(1) << (width - 1));
}
inline int64_t signedMax(unsigned width) {
  return width >= 64 ? std::numeric_limits<int64_t>::max()
                     : (int64_t(1) << (width - 1)) - 1;
}

/// What the launch contract checks for one narrow op of a launch-time
/// expression, so that its exact 64-bit value is the kernel's.
enum class LaunchWrapRule {
  None,
  /// The exact result lies in the signed range of its type: iN add, sub,
  /// mul, signed divisions, and narrowing casts.
  ResultFits,
  /// Every operand is non-negative: unsigned divisions of iN, and
  /// zero-extensions of iN (which then equal sign-extensions).
  OperandsNonNegative,
};
LaunchWrapRule launchWrapRule(Operation *op);

/// The integer ops of the launch-time expression `root` (operands before
/// users, each once).
SmallVector<Operation *> launchExpressionOps(Value root);

} // namespace tile

#endif // TILE_ANALYSIS_INTEGERSEMANTICS_H
