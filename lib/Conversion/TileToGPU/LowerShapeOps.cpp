//===- LowerShapeOps.cpp - ops that move elements -------------------------===//
//
// Ops that move elements between positions: in registers, as warp
// shuffles, or through the scratch arena by element index. The faster
// forms are in LowerBroadcast.cpp and LowerWarpShuffles.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"
#include "Remarks.h"

#include "llvm/Support/FormatVariadic.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

LogicalResult ShapeLowering::lowerShapeOp(Operation *op) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Layout layout = Layout::get(type, threads);
  ArrayRef<int64_t> shape = type.getShape();

  if (auto iota = dyn_cast<IotaOp>(op)) {
    Type elt = type.getElementType();
    map.map(iota.getResult(),
            emit.buildRegisters(
                loc, layout, [&](int64_t, int64_t, Value e) -> Value {
                  if (elt.isIndex())
                    return e;
                  return arith::IndexCastOp::create(b, loc, elt, e);
                }));
    return success();
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    if (Value regs = lowering.shapes.broadcastInRegisters(broadcast)) {
      map.map(broadcast.getResult(), regs);
      return success();
    }
    if (Value regs = lowering.shapes.loadBroadcast(broadcast)) {
      map.map(broadcast.getResult(), regs);
      return success();
    }
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // Same linear order; identical registers when the vector width agrees.
    Layout src = Layout::get(reshape.getSource().getType(), threads);
    if (src.vec == layout.vec) {
      map.map(reshape.getResult(), map.lookup(reshape.getSource()));
      state.setReplicated(reshape.getResult(),
                          state.replicatedIn(reshape.getSource()));
      return success();
    }
  }
  if (auto roll = dyn_cast<RollOp>(op))
    if (Value regs = lowering.shapes.rollInWarp(roll)) {
      map.map(op->getResult(0), regs);
      return success();
    }
  if (Value regs = lowering.shapes.shapeOpInWarp(op)) {
    map.map(op->getResult(0), regs);
    return success();
  }
  // Everything else reads its operands from shared memory by index.
  SmallVector<Value> bufs = shared.toShared(loc, op->getOperands());
  auto srcShape = [&](unsigned i) {
    return cast<RankedTensorType>(op->getOperand(i).getType()).getShape();
  };
  Value regs =
      emit.buildRegisters(loc, layout, [&](int64_t, int64_t, Value e) -> Value {
        SmallVector<Value> idx = emit.delinearize(e, shape);
        if (isa<ReshapeOp>(op))
          return memref::LoadOp::create(b, loc, bufs[0], e);
        if (isa<BroadcastOp>(op)) {
          SmallVector<Value> at;
          for (auto [d, s] : llvm::enumerate(srcShape(0)))
            at.push_back(s == 1 ? emit.index(0) : idx[d]);
          return memref::LoadOp::create(b, loc, bufs[0],
                                        emit.linearize(at, srcShape(0)));
        }
        if (auto permute = dyn_cast<PermuteOp>(op)) {
          SmallVector<Value> at(idx.size());
          for (auto [i, p] : llvm::enumerate(permute.getPermutation()))
            at[p] = idx[i];
          return memref::LoadOp::create(b, loc, bufs[0],
                                        emit.linearize(at, srcShape(0)));
        }
        if (auto roll = dyn_cast<RollOp>(op)) {
          // Index i along the dim reads (i - shift) mod n = (i + back) mod n.
          int64_t d = roll.getDim(), n = shape[d];
          int64_t back = ((-static_cast<int64_t>(roll.getShift())) % n + n) % n;
          SmallVector<Value> at(idx);
          at[d] = arith::RemUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, idx[d], emit.index(back)),
              emit.index(n));
          return memref::LoadOp::create(b, loc, bufs[0],
                                        emit.linearize(at, shape));
        }
        if (auto slice = dyn_cast<SliceOp>(op)) {
          SmallVector<Value> at;
          for (auto [d, o] : llvm::enumerate(slice.getOffsets()))
            at.push_back(arith::AddIOp::create(b, loc, idx[d], emit.index(o)));
          return memref::LoadOp::create(b, loc, bufs[0],
                                        emit.linearize(at, srcShape(0)));
        }
        auto concat = cast<ConcatOp>(op);
        int64_t dim = concat.getDim();
        // Nested ifs pick the input whose range holds idx[dim].
        std::function<Value(unsigned, int64_t)> pick =
            [&](unsigned i, int64_t start) -> Value {
          ArrayRef<int64_t> s = srcShape(i);
          SmallVector<Value> at(idx);
          at[dim] = arith::SubIOp::create(b, loc, idx[dim], emit.index(start));
          if (i + 1 == op->getNumOperands())
            return memref::LoadOp::create(b, loc, bufs[i],
                                          emit.linearize(at, s));
          Value here =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, idx[dim],
                                    emit.index(start + s[dim]));
          auto branch =
              scf::IfOp::create(b, loc, TypeRange{type.getElementType()}, here,
                                /*withElse=*/true);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(branch.thenBlock());
          scf::YieldOp::create(
              b, loc,
              memref::LoadOp::create(b, loc, bufs[i], emit.linearize(at, s))
                  .getResult());
          b.setInsertionPointToStart(branch.elseBlock());
          scf::YieldOp::create(b, loc, pick(i + 1, start + s[dim]));
          return branch.getResult(0);
        };
        return pick(0, 0);
      });
  map.map(op->getResult(0), regs);
  return success();
}

/// The pattern of shape op OpT, lowered by lowerShapeOp.
template <typename OpT>
static void addShapeOpPattern(RewritePatternSet &patterns,
                              KernelLowering &lowering, ShapeLowering &shapes) {
  patterns.add<TileOpPattern<OpT>>(
      patterns.getContext(), lowering,
      [&shapes](OpT op) { return shapes.lowerShapeOp(op); });
}

void ShapeLowering::populatePatterns(RewritePatternSet &patterns) {
  addShapeOpPattern<BroadcastOp>(patterns, lowering, *this);
  addShapeOpPattern<IotaOp>(patterns, lowering, *this);
  addShapeOpPattern<ReshapeOp>(patterns, lowering, *this);
  addShapeOpPattern<PermuteOp>(patterns, lowering, *this);
  addShapeOpPattern<SliceOp>(patterns, lowering, *this);
  addShapeOpPattern<ConcatOp>(patterns, lowering, *this);
  addShapeOpPattern<RollOp>(patterns, lowering, *this);
}
