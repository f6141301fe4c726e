//===- RegisterEmitter.cpp - flat layout, registers, shuffles -------------===//
//
// The flat layout of a tile shape (Layouts.h), and the RegisterEmitter:
// index constants, register vectors built slot by slot, warp shuffles and
// cloned combiners.
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

Layout Layout::get(RankedTensorType type, int64_t threads) {
  Layout l;
  l.type = type;
  l.threads = threads;
  int64_t last = type.getShape().back();
  l.vec = 8;
  while (last % l.vec != 0)
    l.vec /= 2;
  l.positions = type.getNumElements() / l.vec;
  l.slots = llvm::divideCeil(l.positions, threads);
  return l;
}

VectorType tile::gpu_lowering::tileRegisterType(
    RankedTensorType type, std::optional<FragmentLayout> layout,
    int64_t threads) {
  if (!layout)
    return Layout::get(type, threads).registerType();
  return VectorType::get({layout->registers()}, type.getElementType());
}

Value RegisterEmitter::index(int64_t v) {
  return arith::ConstantIndexOp::create(b, state.func.getLoc(), v);
}

Value RegisterEmitter::zeroOf(Type type) {
  Location loc = state.func.getLoc();
  if (auto v = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(v)));
  return arith::ConstantOp::create(b, loc,
                                   cast<TypedAttr>(b.getZeroAttr(type)));
}

Value RegisterEmitter::insertSlot(Location loc, Value regs, Value slot,
                                  int64_t k) {
  // One shufflevector: lanes of `slot` replace lanes [k*vec, (k+1)*vec).
  int64_t total = cast<VectorType>(regs.getType()).getNumElements();
  int64_t vec = cast<VectorType>(slot.getType()).getNumElements();
  if (total == vec)
    return slot;
  SmallVector<int64_t> mask;
  for (int64_t j = 0; j < total; ++j)
    mask.push_back(j >= k * vec && j < (k + 1) * vec ? total + (j - k * vec)
                                                     : j);
  // vector.shuffle takes operands of one length: widen the slot first.
  SmallVector<int64_t> widen;
  for (int64_t j = 0; j < total; ++j)
    widen.push_back(j < vec ? j : 0);
  Value wide = vector::ShuffleOp::create(b, loc, slot, slot,
                                         b.getDenseI64ArrayAttr(widen));
  return vector::ShuffleOp::create(b, loc, regs, wide,
                                   b.getDenseI64ArrayAttr(mask));
}

Value RegisterEmitter::extractSlot(Location loc, Value regs, int64_t k,
                                   int64_t vec) {
  int64_t total = cast<VectorType>(regs.getType()).getNumElements();
  if (total == vec)
    return regs;
  SmallVector<int64_t> mask;
  for (int64_t j = 0; j < vec; ++j)
    mask.push_back(k * vec + j);
  return vector::ShuffleOp::create(b, loc, regs, regs,
                                   b.getDenseI64ArrayAttr(mask));
}

SmallVector<Value> RegisterEmitter::delinearize(Value linear,
                                                ArrayRef<int64_t> shape) {
  Location loc = state.func.getLoc();
  SmallVector<Value> idx(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value q =
        stride == 1
            ? linear
            : arith::DivUIOp::create(b, loc, linear, index(stride)).getResult();
    idx[d] =
        d == 0 ? q
               : arith::RemUIOp::create(b, loc, q, index(shape[d])).getResult();
    stride *= shape[d];
  }
  return idx;
}

Value RegisterEmitter::linearize(ArrayRef<Value> indices,
                                 ArrayRef<int64_t> shape) {
  Location loc = state.func.getLoc();
  Value acc = indices[0];
  for (size_t d = 1; d < shape.size(); ++d)
    acc = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, acc, index(shape[d])),
        indices[d]);
  return acc;
}

Value RegisterEmitter::buildRegisters(
    Location loc, const Layout &layout,
    function_ref<Value(int64_t, int64_t, Value)> element) {
  Value regs = zeroOf(layout.registerType());
  for (int64_t k = 0; k < layout.slots; ++k) {
    // p = tid + k*T; elements past the tile are left zero.
    Value p =
        arith::AddIOp::create(b, loc, state.tid, index(k * layout.threads));
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                        index(layout.positions));
    auto branch = scf::IfOp::create(b, loc, TypeRange{layout.slotType()}, valid,
                                    /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      Value slot = zeroOf(layout.slotType());
      Value base = arith::MulIOp::create(b, loc, p, index(layout.vec));
      for (int64_t i = 0; i < layout.vec; ++i) {
        Value e = arith::AddIOp::create(b, loc, base, index(i));
        Value v = element(k, i, e);
        slot = vector::InsertOp::create(b, loc, v, slot, i);
      }
      scf::YieldOp::create(b, loc, slot);
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, loc, zeroOf(layout.slotType()));
    }
    regs = insertSlot(loc, regs, branch.getResult(0), k);
  }
  return regs;
}

/// gpu.shuffle moves 32- and 64-bit values; narrower ones are widened.
static Value shuffle(OpBuilder &b, Location loc, Value v, Value offset,
                     gpu::ShuffleMode mode) {
  Type type = v.getType();
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  auto move = [&](Value w) {
    return gpu::ShuffleOp::create(b, loc, w, offset, width, mode)
        .getShuffleResult();
  };
  if (type.isF16() || type.isBF16())
    return arith::TruncFOp::create(
        b, loc, type, move(arith::ExtFOp::create(b, loc, b.getF32Type(), v)));
  if (type.isIndex())
    return arith::IndexCastOp::create(
        b, loc, type,
        move(arith::IndexCastOp::create(b, loc, b.getI64Type(), v)));
  if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
    return arith::TruncIOp::create(
        b, loc, type, move(arith::ExtUIOp::create(b, loc, b.getI32Type(), v)));
  return move(v);
}

Value RegisterEmitter::shuffleXor(Location loc, Value v, int32_t offset) {
  return shuffle(b, loc, v,
                 arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset),
                 gpu::ShuffleMode::XOR);
}

Value RegisterEmitter::shuffleIdx(Location loc, Value v, Value lane) {
  return shuffle(b, loc, v, lane, gpu::ShuffleMode::IDX);
}

Value RegisterEmitter::shuffleFromLane0(Location loc, Value v) {
  return shuffleIdx(loc, v,
                    arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
}

SmallVector<Value> RegisterEmitter::combine(Region &combiner, ValueRange lhs,
                                            ValueRange rhs) {
  Block &block = combiner.front();
  IRMapping local;
  for (unsigned i = 0; i < lhs.size(); ++i) {
    local.map(block.getArgument(i), lhs[i]);
    local.map(block.getArgument(lhs.size() + i), rhs[i]);
  }
  for (Operation &op : block.without_terminator())
    b.clone(op, local);
  SmallVector<Value> out;
  for (Value v : block.getTerminator()->getOperands())
    out.push_back(local.lookupOrDefault(v));
  return out;
}
