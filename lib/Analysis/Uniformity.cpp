//===- Uniformity.cpp - values equal in every program ----------------------===//

#include "tile/Analysis/Uniformity.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tile;

bool Uniformity::isUniform(Value value) {
  auto it = cache.find(value);
  if (it != cache.end())
    return it->second;
  bool result = compute(value);
  cache[value] = result;
  return result;
}

bool Uniformity::compute(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    // Kernel arguments are the same for every program; loop induction
    // variables and other block arguments differ between iterations.
    return isa<KernelOp>(arg.getOwner()->getParentOp());
  Operation *op = value.getDefiningOp();
  if (isa<ProgramIdOp, OwnOp>(op))
    return false;
  auto operandsUniform = [&] {
    return llvm::all_of(op->getOperands(),
                        [&](Value v) { return isUniform(v); });
  };
  // Reads of shared read-only memory at uniform places give uniform data.
  if (auto load = dyn_cast<LoadOp>(op)) {
    auto partition = dyn_cast<PartitionType>(load.getSource().getType());
    return partition && partition.isShared() &&
           operandsUniform();
  }
  if (auto gather = dyn_cast<GatherOp>(op))
    return gather.getSource().getType().isShared() &&
           operandsUniform();
  // A reduction depends only on its inputs (the combiner is pure).
  if (isa<ReduceOp>(op))
    return operandsUniform();
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  return operandsUniform();
}
