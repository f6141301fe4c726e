//===- LowerBroadcast.cpp - broadcasts recomputed in their own layout -----===//
//
// A broadcast whose threads already hold their elements (a single-element tile
// held by all of them, a column of one-vector rows) is a splat of registers.
// Otherwise: Triton gives a value the layout of its consumer. Here the consumer
// that would otherwise move data through shared memory (a store, a barrier, a
// load, every loop iteration) is a broadcast: the x of a GEMV, a row of norm
// weights, a normalized activation. When the broadcast's source is computed
// element-wise from loads of read-only (`in`) partitions, splats of
// uniform scalars and constants, the computation is issued again in the
// broadcast's layout: each thread loads and computes exactly the elements it
// holds. Loads repeat (they hit L1) and element-wise work repeats once per
// broadcast copy, which costs far less than the round trip through shared
// memory for the small sources broadcasts have. Only loads are reissued
// (through reshapes): recomputing converts and arithmetic per broadcast copy
// measured slower (bench/results/2026-11-22-decode-pdl-h200.md, the folded
// SwiGLU).
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

/// Reshapes followed per broadcast at most: a bound on code growth.
static constexpr unsigned kRematerializeBudget = 32;

/// A broadcast whose every thread already holds what it needs: a
/// single-element source held by all threads with positions in the result
/// (its register, splatted), or a column [..., R, 1] -> [..., R, C] whose
/// result rows are one vector each (C = vec): row r is position r of both
/// layouts, so each thread splats its own registers.
Value ShapeLowering::broadcastInRegisters(BroadcastOp op) {
  RankedTensorType srcType = op.getSource().getType();
  RankedTensorType type = op.getResult().getType();
  Layout layout = Layout::get(type, threads);
  Location loc = op.getLoc();
  Value src = map.lookup(op.getSource());
  if (srcType.getNumElements() == 1) {
    if (state.replicatedIn(op.getSource()) <
        std::min(layout.positions, threads))
      return {};
    return vector::BroadcastOp::create(
        b, loc, layout.registerType(), vector::ExtractOp::create(b, loc, src, 0));
  }
  ArrayRef<int64_t> from = srcType.getShape(), to = type.getShape();
  if (from.back() != 1 || to.back() != layout.vec ||
      from.drop_back() != to.drop_back())
    return {};
  Value regs = emit.zeroOf(layout.registerType());
  for (int64_t k = 0; k < layout.slots; ++k) {
    Value row = vector::ExtractOp::create(b, loc, src, k);
    regs = emit.insertSlot(
        loc, regs, vector::BroadcastOp::create(b, loc, layout.slotType(), row),
        k);
  }
  return regs;
}

Value ShapeLowering::loadBroadcast(BroadcastOp op) {
  unsigned budget = kRematerializeBudget;
  return rematerialize(op.getSource(), op.getSource().getType().getShape(),
                       op.getResult().getType().getShape(), budget);
}

/// `v`, of shape `from` up to unit dims (reshapes on the way may add or
/// drop them), reloaded as registers of a tile of shape `to`.
Value ShapeLowering::rematerialize(Value v, ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to, unsigned &budget) {
  if (budget == 0)
    return {};
  --budget;
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  auto vType = cast<RankedTensorType>(v.getType());
  if (auto load = dyn_cast<LoadOp>(def))
    return lowering.memory.reloadInLayout(
        load, from, RankedTensorType::get(to, vType.getElementType()));
  if (auto reshape = dyn_cast<ReshapeOp>(def)) {
    if (nonUnitSizes(reshape.getSource().getType().getShape()) !=
        nonUnitSizes(vType.getShape()))
      return {};
    return rematerialize(reshape.getSource(), from, to, budget);
  }
  return {};
}
