//===- IntegerSemantics.cpp - machine integers in the proof ----------------===//

#include "tile/Analysis/IntegerSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tile;

LaunchWrapRule tile::launchWrapRule(Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).getType().isIntOrIndex())
    return LaunchWrapRule::None;
  unsigned width = integerWidth(op->getResult(0).getType());
  // Zero-extending an iN (N > 1: an i1 is 0 or 1 in both) keeps the value
  // only when it is non-negative.
  if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op)) {
    unsigned from = integerWidth(op->getOperand(0).getType());
    if (from < width && from > 1)
      return LaunchWrapRule::OperandsNonNegative;
  }
  if (width >= 64 || width == 1)
    return LaunchWrapRule::None;
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
          arith::FloorDivSIOp, arith::CeilDivSIOp, arith::TruncIOp>(op))
    return LaunchWrapRule::ResultFits;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return LaunchWrapRule::ResultFits; // Narrowing: the widening ones are above.
  if (isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op))
    return LaunchWrapRule::OperandsNonNegative;
  return LaunchWrapRule::None;
}

SmallVector<Operation *> tile::launchExpressionOps(Value root) {
  llvm::SetVector<Operation *> ops;
  SmallVector<std::pair<Operation *, unsigned>> stack;
  auto visit = [&](Value v) {
    Operation *op = v.getDefiningOp();
    if (op && !ops.contains(op) && !isa<DimOp, NumTilesOp>(op))
      stack.push_back({op, 0});
  };
  visit(root);
  // Post-order, iteratively: operands of an op are listed before it.
  while (!stack.empty()) {
    auto &[op, next] = stack.back();
    if (next < op->getNumOperands()) {
      Value operand = op->getOperand(next++);
      visit(operand);
      continue;
    }
    ops.insert(op);
    stack.pop_back();
  }
  return ops.takeVector();
}
