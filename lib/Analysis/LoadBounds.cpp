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

/// Why an element of the tile `load` reads may lie outside its view; none
/// when every one lies inside: 0 <= index * tile and (index + 1) * tile <=
/// dim, along every dim, under the assumptions and the enclosing
/// if-conditions.
static std::optional<std::string> whyNotWhole(KernelOp kernel, LoadOp load,
                                              Uniformity &uniformity,
                                              DataFlowSolver &solver) {
  auto partition = load.getSource().getDefiningOp<PartitionOp>();
  if (!partition)
    return std::string("not a load of a partition");
  auto view = dyn_cast<BlockArgument>(partition.getView());
  if (!view)
    return std::string("not a partition of a kernel argument");
  PartitionType type = partition.getType();
  IndexSystem sys(kernel, uniformity, solver);
  sys.addAssumptions();
  sys.addPathConditions(load, Copy::A);
  for (unsigned d = 0; d < type.getRank(); ++d) {
    int64_t tile = type.getTileShape()[d];
    LinearExpr index = sys.get(load.getIndices()[d], Copy::A);
    LinearExpr dim = sys.numTiles(view, d, 1);
    if (!sys.isEmpty(LinearConstraint::le(index, LinearExpr::constantExpr(-1))))
      return "index " + std::to_string(d) + " may be negative";
    if (!sys.isEmpty(LinearConstraint::le(dim + 1, (index + 1) * tile)))
      return "the tile may end past dim " + std::to_string(d) +
             " of the view (no assume or condition bounds its index by "
             "the tile count)";
  }
  return std::nullopt;
}

FailureOr<SmallVector<LoadOp>>
tile::findInBoundsLoads(KernelOp kernel,
                        SmallVectorImpl<std::pair<LoadOp, std::string>> *missed) {
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
    if (auto load = dyn_cast<LoadOp>(op)) {
      std::optional<std::string> why =
          whyNotWhole(kernel, load, uniformity, solver);
      if (!why)
        found.push_back(load);
      else if (missed)
        missed->push_back({load, std::move(*why)});
    }
    return WalkResult::advance();
  });
  return found;
}
