//===- LoadBounds.cpp - loads proven to read whole tiles -------------------===//

#include "tile/Analysis/LoadBounds.h"
#include "tile/Analysis/IndexSystem.h"
#include "tile/Analysis/Uniformity.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"

using namespace mlir;
using namespace tile;

/// Whether every element of the tile `load` reads lies inside its view:
/// 0 <= index * tile and (index + 1) * tile <= dim, along every dim, under
/// the assumptions and the enclosing if-conditions.
static bool isWhole(KernelOp kernel, LoadOp load, Uniformity &uniformity,
                    DataFlowSolver &solver) {
  auto partition = load.getSource().getDefiningOp<PartitionOp>();
  if (!partition)
    return false;
  auto view = dyn_cast<BlockArgument>(partition.getView());
  if (!view)
    return false;
  PartitionType type = partition.getType();
  IndexSystem sys(kernel, uniformity, solver);
  sys.addAssumptions();
  sys.addPathConditions(load, Copy::A);
  for (unsigned d = 0; d < type.getRank(); ++d) {
    int64_t tile = type.getTileShape()[d];
    LinearExpr index = sys.get(load.getIndices()[d], Copy::A);
    LinearExpr dim = sys.numTiles(view, d, 1);
    // Outside: index < 0, or the tile's end past the dim.
    if (!sys.isEmpty(LinearConstraint::le(index, LinearExpr::constantExpr(-1))) ||
        !sys.isEmpty(LinearConstraint::le(dim + 1, (index + 1) * tile)))
      return false;
  }
  return true;
}

FailureOr<SmallVector<LoadOp>> tile::findInBoundsLoads(KernelOp kernel) {
  DataFlowSolver solver;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(kernel)))
    return failure();
  Uniformity uniformity;
  SmallVector<LoadOp> found;
  kernel.walk([&](Operation *op) {
    if (isa<UncheckedOp>(op))
      return WalkResult::skip();
    if (auto load = dyn_cast<LoadOp>(op))
      if (isWhole(kernel, load, uniformity, solver))
        found.push_back(load);
    return WalkResult::advance();
  });
  return found;
}
