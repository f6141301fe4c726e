//===- Uniformity.h - values equal in every program -------------*- C++ -*-===//
//
// A value is uniform when every program of a launch computes the same value
// for it: it depends only on constants, kernel arguments, the grid, view
// dims, and data loaded from `in` views (read-only for the whole launch) at
// uniform indices. The ownership proof compares two programs; a uniform
// value is one variable shared by both, any other value is a variable of
// each.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_UNIFORMITY_H
#define TILE_ANALYSIS_UNIFORMITY_H

#include "tile/Support/LLVM.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace tile {

class Uniformity {
public:
  bool isUniform(Value value);

private:
  bool compute(Value value);
  llvm::DenseMap<Value, bool> cache;
};

} // namespace tile

#endif // TILE_ANALYSIS_UNIFORMITY_H
