//===- ControlFlow.cpp - loops, branches, unchecked regions ---------------===//
//
// scf.for keeps each iter_arg in its planned layout (and copies async
// operands ahead around it); scf.if yields flat tiles; a single-element
// value's replication follows it through both. tile.join is in
// LowerJoin.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

LogicalResult ControlFlowLowering::lowerFor(scf::ForOp op) {
  // Each iter_arg keeps the layout it is assigned (flat without one).
  SmallVector<Value> inits;
  for (auto [v, arg] : llvm::zip(op.getInitArgs(), op.getRegionIterArgs()))
    inits.push_back(moves.operandIn(v, state.layoutOf(arg)));
  SmallVector<AsyncOperand *> async = lowering.asyncOperands.planLoop(op);
  lowering.asyncOperands.beginLoop(async, map.lookup(op.getLowerBound()),
                                   map.lookup(op.getUpperBound()));
  auto loop = scf::ForOp::create(b, op.getLoc(), map.lookup(op.getLowerBound()),
                                 map.lookup(op.getUpperBound()),
                                 map.lookup(op.getStep()), inits);
  map.map(op.getInductionVar(), loop.getInductionVar());
  for (auto [old, neu, init] :
       llvm::zip(op.getRegionIterArgs(), loop.getRegionIterArgs(),
                 op.getInitArgs())) {
    if (state.layoutOf(old))
      fragmentRegs[old] = neu;
    else
      map.map(old, neu);
    // A single-element iter_arg is taken to be in as many threads as its
    // init, up to a warp: the yield makes it so (a shuffle, see below).
    state.setReplicated(old, std::min<int64_t>(state.replicatedIn(init), 32));
  }
  Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    state.rewriter->eraseOp(&body->back());
  // The body's ops move into the loop and are converted there, in order.
  SmallVector<Operation *> inner =
      llvm::map_to_vector(*op.getBody(), [](Operation &o) { return &o; });
  SmallVector<Value> iterArgs(op.getRegionIterArgs());
  tileIterArgs[loop] = iterArgs;
  state.rewriter->inlineBlockBefore(op.getBody(), body, body->end(),
                                    body->getArguments());
  for (Operation *o : inner)
    if (failed(lowering.lowerNested(o)))
      return failure();
  b.setInsertionPointAfter(loop);
  lowering.asyncOperands.endLoop(async);
  for (auto [old, neu, arg] :
       llvm::zip(op.getResults(), loop.getResults(), iterArgs)) {
    moves.setResult(old, neu, state.layoutOf(arg));
    state.setReplicated(old, state.replicatedIn(arg));
  }
  return success();
}

LogicalResult ControlFlowLowering::lowerIf(scf::IfOp op) {
  SmallVector<Type> types;
  for (Type t : op.getResultTypes())
    types.push_back(state.types.convertType(t)); // flat
  scf::YieldOp thenYield, elseYield;
  if (op.getNumResults() != 0) {
    thenYield = cast<scf::YieldOp>(op.thenBlock()->getTerminator());
    elseYield = cast<scf::YieldOp>(op.elseBlock()->getTerminator());
  }
  auto branch =
      scf::IfOp::create(b, op.getLoc(), types, map.lookup(op.getCondition()),
                        /*withElse=*/!op.getElseRegion().empty());
  for (auto [old, neu] : llvm::zip(op->getRegions(), branch->getRegions())) {
    if (old.empty())
      continue;
    Block &nb = neu.front();
    if (!nb.empty() && nb.back().hasTrait<OpTrait::IsTerminator>())
      state.rewriter->eraseOp(&nb.back());
    // The branch's ops move into the new branch and are converted there.
    SmallVector<Operation *> inner =
        llvm::map_to_vector(old.front(), [](Operation &o) { return &o; });
    state.rewriter->inlineBlockBefore(&old.front(), &nb, nb.end());
    for (Operation *o : inner)
      if (failed(lowering.lowerNested(o)))
        return failure();
  }
  // What follows the branch (its results moved to their layouts) goes
  // after it.
  b.setInsertionPointAfter(branch);
  for (auto [old, neu] : llvm::zip(op.getResults(), branch.getResults()))
    map.map(old, neu);
  if (op.getNumResults() != 0) {
    // A result is in the threads that hold both branches' values.
    for (auto [i, r] : llvm::enumerate(op.getResults()))
      state.setReplicated(
          r, std::min(state.replicatedIn(thenYield.getOperand(i)),
                      state.replicatedIn(elseYield.getOperand(i))));
  }
  return success();
}

LogicalResult ControlFlowLowering::lowerYield(scf::YieldOp op) {
  Location loc = op.getLoc();
  // A loop's iter_args keep their layouts; an if's results are flat.
  auto it = tileIterArgs.find(op->getParentOp());
  bool loop = it != tileIterArgs.end();
  SmallVector<Value> values;
  for (auto [i, v] : llvm::enumerate(op.getOperands())) {
    values.push_back(moves.operandIn(v, loop ? state.layoutOf(it->second[i])
                                             : std::nullopt));
    // A single-element iter_arg is taken to be in a warp's threads (at
    // most) at the next iteration: lane 0 gives it to the warp.
    if (loop && state.replicatedIn(v) < state.replicatedIn(it->second[i])) {
      auto regs = cast<VectorType>(values.back().getType());
      Value e = vector::ExtractOp::create(b, loc, values.back(), 0);
      values.back() = vector::BroadcastOp::create(
          b, loc, regs, emit.shuffleFromLane0(loc, e));
    }
  }
  scf::YieldOp::create(b, loc, values);
  return success();
}

LogicalResult ControlFlowLowering::lowerUnchecked(UncheckedOp op) {
  // The region's ops move before the op and are converted there.
  Block &body = op.getBody().front();
  Operation *terminator = body.getTerminator();
  SmallVector<Operation *> inner = llvm::map_to_vector(
      body.without_terminator(), [](Operation &o) { return &o; });
  state.rewriter->inlineBlockBefore(&body, op);
  for (Operation *o : inner)
    if (failed(lowering.lowerNested(o)))
      return failure();
  b.setInsertionPoint(op);
  for (auto [r, v] : llvm::zip(op.getResults(), terminator->getOperands())) {
    auto it = fragmentRegs.find(v);
    if (it != fragmentRegs.end())
      moves.setResult(r, it->second, state.layoutOf(v));
    else
      moves.setResult(r, map.lookup(v), std::nullopt);
  }
  state.rewriter->eraseOp(terminator);
  return success();
}

void ControlFlowLowering::populatePatterns(RewritePatternSet &patterns) {
  addTileOpPattern(patterns, lowering, *this, &ControlFlowLowering::lowerFor);
  addTileOpPattern(patterns, lowering, *this, &ControlFlowLowering::lowerIf);
  addTileOpPattern(patterns, lowering, *this, &ControlFlowLowering::lowerYield);
  addTileOpPattern(patterns, lowering, *this,
                   &ControlFlowLowering::lowerUnchecked);
  addTileOpPattern(patterns, lowering, *this, &ControlFlowLowering::lowerJoin);
  addTileOpPattern(patterns, lowering, *this, &ControlFlowLowering::lowerGridSync);
}
