//===- LowerReduceRows.cpp - row reductions that broadcast back, in registers ===//
//
// An RMSNorm over the rows of a tile, `x * rsqrt(sum(x * x, 1) / n + eps)`,
// reduces each row to an [R, 1] column, computes on it, and broadcasts it
// back over the row. In the flat layout a row of Q vector positions (Q a
// power of two up to 32) lies on Q consecutive lanes of one warp, and after
// the reduction's xor shuffles every one of them holds the row's result;
// the [R, 1] layout holds row r in thread r instead, so the result went
// through shared memory (a barrier, a store by each row's first lane, a
// barrier, a load) and the broadcast back through it again.
//
// Where every use of the reduction's result is element-wise work on [R, 1]
// tiles (with splats and splat constants) ending in broadcasts to the
// reduced tile's shape, the result is kept as each thread's row value per
// slot of the reduced tile's layout (`rowSlots`), the element-wise work runs
// on those, and the broadcast splats them over the slots' lanes: no shared
// memory. The values are the ones the shared-memory path computes (xor
// butterflies leave every lane of a group the same sum; the element-wise
// ops see the same operands), so the output is bit for bit the same. The
// [R, 1] registers of those values are left as zeros, which nothing reads.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

/// A splat or splat constant tile: uniform, so it has a row form of any
/// size.
static bool isUniformTile(Value v) {
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<SplatOp>(def))
    return true;
  auto c = dyn_cast_or_null<arith::ConstantOp>(def);
  return c && isa<SplatElementsAttr>(c.getValue());
}

bool GPUKernelLowering::reducesIntoRows(ReduceOp op) const {
  if (!rowsInRegisters || op.getInputs().size() != 1)
    return false;
  Value input = op.getInputs()[0], result = op.getResults()[0];
  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(result.getType());
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(op.getDim()) != rank - 1 || layoutOf(input) ||
      layoutOf(result))
    return false;
  Layout in = Layout::get(inType, threads);
  int64_t Q = inType.getShape().back() / in.vec;
  int64_t rows = inType.getNumElements() / inType.getShape().back();
  // Each row on Q lanes of one warp, in one slot of each of its threads;
  // one row is the single-row path's (registers-for-reductions).
  if (rows < 2 || !llvm::isPowerOf2_64(Q) || Q > 32 || threads % Q != 0)
    return false;
  // The uses: element-wise ops on [.., R, 1] tiles whose other tile
  // operands are uniform or themselves such uses, ending in broadcasts back
  // to the input's shape, all in the reduction's block.
  SmallVector<Value> work{result};
  llvm::SmallPtrSet<Value, 8> inRows{result};
  SmallVector<Operation *> elementwise;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user->getBlock() != op->getBlock())
        return false;
      if (auto broadcast = dyn_cast<BroadcastOp>(user)) {
        if (broadcast.getResult().getType().getShape() != inType.getShape() ||
            layoutOf(broadcast.getResult()))
          return false;
        continue;
      }
      if (!user->hasTrait<OpTrait::Elementwise>() ||
          user->getNumRegions() != 0 || user->getNumResults() != 1)
        return false;
      auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
      if (!type || type.getShape() != outType.getShape() ||
          layoutOf(user->getResult(0)))
        return false;
      if (inRows.insert(user->getResult(0)).second) {
        work.push_back(user->getResult(0));
        elementwise.push_back(user);
      }
    }
  }
  for (Operation *user : elementwise)
    for (Value operand : user->getOperands())
      if (isa<RankedTensorType>(operand.getType()) &&
          !inRows.contains(operand) && !isUniformTile(operand))
        return false;
  return true;
}

Value GPUKernelLowering::rowFormOf(Value v, int64_t slots) {
  if (Value rows = rowSlots.lookup(v))
    return rows;
  Location loc = v.getLoc();
  auto type = cast<RankedTensorType>(v.getType());
  auto rowType = VectorType::get({slots}, type.getElementType());
  if (auto splat = v.getDefiningOp<SplatOp>())
    return vector::BroadcastOp::create(b, loc, rowType,
                                       map.lookup(splat.getValue()));
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue()))
      return arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(rowType, dense.getSplatValue<Attribute>()));
  return {};
}

void GPUKernelLowering::lowerInRows(Operation *op) {
  int64_t slots = 0;
  for (Value operand : op->getOperands())
    if (Value rows = rowSlots.lookup(operand))
      slots = cast<VectorType>(rows.getType()).getNumElements();
  if (slots == 0)
    return;
  IRMapping operands;
  for (Value operand : op->getOperands()) {
    if (!isa<RankedTensorType>(operand.getType())) {
      operands.map(operand, map.lookup(operand)); // a uniform scalar
      continue;
    }
    Value rows = rowFormOf(operand, slots);
    if (!rows)
      return; // not in reducesIntoRows' set: the flat registers serve
    operands.map(operand, rows);
  }
  Operation *clone = b.clone(*op, operands);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  clone->getResult(0).setType(
      VectorType::get({slots}, type.getElementType()));
  rowSlots[op->getResult(0)] = clone->getResult(0);
}

Value GPUKernelLowering::broadcastRows(BroadcastOp op) {
  Value rows = rowSlots.lookup(op.getSource());
  if (!rows)
    return {};
  Location loc = op.getLoc();
  Layout layout = Layout::get(op.getResult().getType(), threads);
  Value regs = zeroOf(layout.registerType());
  for (int64_t k = 0; k < layout.slots; ++k)
    regs = insertSlot(
        loc, regs,
        vector::BroadcastOp::create(b, loc, layout.slotType(),
                                    vector::ExtractOp::create(b, loc, rows, k)),
        k);
  return regs;
}
