//===- LowerBroadcast.cpp - broadcasts recomputed in their own layout -----===//
//
// A broadcast whose threads already hold their elements (a single-element tile
// held by all of them, a column of one-vector rows) is a splat of registers.
// Otherwise: Triton gives a value the layout of its consumer. Here the consumer
// that would otherwise move data through shared memory (a store, a barrier, a
// load, every loop iteration) is a broadcast: the x of a GEMV, a row of norm
// weights, a normalized activation. When the broadcast's source is computed
// element-wise from loads of read-only (`in`) partitions, splats of uniform
// scalars and constants, the computation is issued again in the broadcast's
// layout: each thread loads and computes exactly the elements it holds. Loads
// repeat (they hit L1) and element-wise work repeats once per broadcast copy,
// which costs far less than the round trip through shared memory for the small
// sources broadcasts have. Only the reload of a load (through reshapes) is on
// by default; recomputing converts and arithmetic is `rematerialize-broadcasts`
// (measured both ways: see the pass documentation).
//
//===----------------------------------------------------------------------===//

#include "GPUKernelLowering.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

/// Ops recomputed per broadcast at most: a bound on code growth.
static constexpr unsigned kRematerializeBudget = 32;

/// A broadcast whose every thread already holds what it needs: a
/// single-element source held by all threads with positions in the result
/// (its register, splatted), or a column [..., R, 1] -> [..., R, C] whose
/// result rows are one vector each (C = vec): row r is position r of both
/// layouts, so each thread splats its own registers.
Value GPUKernelLowering::broadcastInRegisters(BroadcastOp op) {
  RankedTensorType srcType = op.getSource().getType();
  RankedTensorType type = op.getResult().getType();
  Layout layout = Layout::get(type, threads);
  Location loc = op.getLoc();
  Value src = map.lookup(op.getSource());
  if (srcType.getNumElements() == 1) {
    if (replicatedIn(op.getSource()) < std::min(layout.positions, threads))
      return {};
    return vector::BroadcastOp::create(
        b, loc, layout.registerType(), vector::ExtractOp::create(b, loc, src, 0));
  }
  ArrayRef<int64_t> from = srcType.getShape(), to = type.getShape();
  if (!registersForReductions || from.back() != 1 || to.back() != layout.vec ||
      from.drop_back() != to.drop_back())
    return {};
  Value regs = zeroOf(layout.registerType());
  for (int64_t k = 0; k < layout.slots; ++k) {
    Value row = vector::ExtractOp::create(b, loc, src, k);
    regs = insertSlot(loc, regs,
                      vector::BroadcastOp::create(b, loc, layout.slotType(), row),
                      k);
  }
  return regs;
}

Value GPUKernelLowering::loadBroadcast(BroadcastOp op) {
  if (!reloadBroadcasts)
    return {};
  unsigned budget = kRematerializeBudget;
  return rematerialize(op.getSource(), op.getSource().getType().getShape(),
                       op.getResult().getType().getShape(), budget);
}

/// `v`, of shape `from` up to unit dims (reshapes on the way may add or
/// drop them), recomputed as registers of a tile of shape `to`.
Value GPUKernelLowering::rematerialize(Value v, ArrayRef<int64_t> from,
                                       ArrayRef<int64_t> to,
                                       unsigned &budget) {
  if (budget == 0)
    return {};
  --budget;
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  auto vType = cast<RankedTensorType>(v.getType());
  auto type = RankedTensorType::get(to, vType.getElementType());
  Layout layout = Layout::get(type, threads);
  Location loc = def->getLoc();

  if (auto load = dyn_cast<LoadOp>(def))
    return reloadInLayout(load, from, type);
  if (!rematerializeBroadcasts && !isa<ReshapeOp>(def))
    return {};
  if (auto reshape = dyn_cast<ReshapeOp>(def)) {
    if (nonUnitSizes(reshape.getSource().getType().getShape()) !=
        nonUnitSizes(vType.getShape()))
      return {};
    return rematerialize(reshape.getSource(), from, to, budget);
  }
  if (auto splat = dyn_cast<SplatOp>(def))
    return vector::BroadcastOp::create(b, loc, layout.registerType(),
                                       map.lookup(splat.getValue()));
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(c.getValue());
    if (!dense)
      return {};
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(layout.registerType(),
                               dense.getSplatValue<Attribute>()));
  }
  if (auto convert = dyn_cast<ConvertOp>(def)) {
    Value src = rematerialize(convert.getSource(), from, to, budget);
    if (!src)
      return {};
    return convertElements(b, loc, src,
                           convert.getSource().getType().getElementType(),
                           vType.getElementType(), convert.getRounding());
  }
  if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumRegions() != 0 ||
      def->getNumResults() != 1)
    return {};
  IRMapping operands;
  for (Value operand : def->getOperands()) {
    if (!isa<RankedTensorType>(operand.getType())) {
      operands.map(operand, map.lookup(operand)); // a uniform scalar
      continue;
    }
    Value regs = rematerialize(operand, from, to, budget);
    if (!regs)
      return {};
    operands.map(operand, regs);
  }
  Operation *clone = b.clone(*def, operands);
  clone->getResult(0).setType(layout.registerType());
  return clone->getResult(0);
}
