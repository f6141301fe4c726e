//===- LowerGPUValueOps.cpp - element-wise, shape and compute ops on GPU ---===//

#include "GPUKernelLowering.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

LogicalResult GPUKernelLowering::lowerElementwise(Operation *op) {
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  bool tensors = llvm::any_of(op->getResultTypes(), isTensor) ||
                 llvm::any_of(op->getOperandTypes(), isTensor);
  if (op->getNumRegions() != 0)
    return op->emitError("convert-tile-to-gpu: no lowering for '")
           << op->getName() << "' (ops with regions)";
  if (!tensors) {
    // Scalars are uniform across the block: every thread computes them.
    b.clone(*op, map);
    return success();
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<SplatElementsAttr>(c.getValue());
    if (!dense)
      return op->emitError("convert-tile-to-gpu: only splat constant tiles "
                           "are supported on the GPU");
    Layout layout =
        Layout::get(cast<RankedTensorType>(c.getType()), threads);
    auto attr = DenseElementsAttr::get(layout.registerType(),
                                       dense.getSplatValue<Attribute>());
    map.map(c.getResult(), arith::ConstantOp::create(b, op->getLoc(), attr));
    return success();
  }
  if (!op->hasTrait<OpTrait::Elementwise>())
    return op->emitError("convert-tile-to-gpu: no lowering for '")
           << op->getName() << "' on tiles";
  // Tiles of one shape share a layout: apply the op to the registers.
  Operation *clone = b.clone(*op, map);
  for (OpResult r : clone->getResults())
    if (auto t = dyn_cast<RankedTensorType>(r.getType()))
      r.setType(Layout::get(t, threads).registerType());
  return success();
}

LogicalResult GPUKernelLowering::lowerConvert(ConvertOp op) {
  map.map(op.getResult(),
          convertElements(b, op.getLoc(), map.lookup(op.getSource()),
                          op.getSource().getType().getElementType(),
                          op.getResult().getType().getElementType(),
                          op.getRounding()));
  return success();
}

LogicalResult GPUKernelLowering::lowerExtract(ExtractOp op) {
  Location loc = op.getLoc();
  Value buf = toShared(loc, op.getSource());
  int64_t linear = 0;
  ArrayRef<int64_t> shape = op.getSource().getType().getShape();
  for (auto [d, p] : llvm::enumerate(op.getPosition()))
    linear = linear * shape[d] + p;
  map.map(op.getResult(), memref::LoadOp::create(b, loc, buf, index(linear)));
  return success();
}

LogicalResult GPUKernelLowering::lowerShapeOp(Operation *op) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Layout layout = Layout::get(type, threads);
  ArrayRef<int64_t> shape = type.getShape();

  if (auto iota = dyn_cast<IotaOp>(op)) {
    Type elt = type.getElementType();
    map.map(iota.getResult(),
            buildRegisters(loc, layout, [&](int64_t, int64_t, Value e) -> Value {
              if (elt.isIndex())
                return e;
              return arith::IndexCastOp::create(b, loc, elt, e);
            }));
    return success();
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // Same linear order; identical registers when the vector width agrees.
    Layout src = Layout::get(reshape.getSource().getType(), threads);
    if (src.vec == layout.vec) {
      map.map(reshape.getResult(), map.lookup(reshape.getSource()));
      return success();
    }
  }
  // Everything else reads its operands from shared memory by index.
  SmallVector<Value> bufs = toShared(loc, op->getOperands());
  auto srcShape = [&](unsigned i) {
    return cast<RankedTensorType>(op->getOperand(i).getType()).getShape();
  };
  Value regs = buildRegisters(loc, layout, [&](int64_t, int64_t, Value e) -> Value {
    SmallVector<Value> idx = delinearize(e, shape);
    if (isa<ReshapeOp>(op))
      return memref::LoadOp::create(b, loc, bufs[0], e);
    if (isa<BroadcastOp>(op)) {
      SmallVector<Value> at;
      for (auto [d, s] : llvm::enumerate(srcShape(0)))
        at.push_back(s == 1 ? index(0) : idx[d]);
      return memref::LoadOp::create(b, loc, bufs[0], linearize(at, srcShape(0)));
    }
    if (auto permute = dyn_cast<PermuteOp>(op)) {
      SmallVector<Value> at(idx.size());
      for (auto [i, p] : llvm::enumerate(permute.getPermutation()))
        at[p] = idx[i];
      return memref::LoadOp::create(b, loc, bufs[0], linearize(at, srcShape(0)));
    }
    if (auto slice = dyn_cast<SliceOp>(op)) {
      SmallVector<Value> at;
      for (auto [d, o] : llvm::enumerate(slice.getOffsets()))
        at.push_back(arith::AddIOp::create(b, loc, idx[d], index(o)));
      return memref::LoadOp::create(b, loc, bufs[0], linearize(at, srcShape(0)));
    }
    auto concat = cast<ConcatOp>(op);
    int64_t dim = concat.getDim();
    // Nested ifs pick the input whose range holds idx[dim].
    std::function<Value(unsigned, int64_t)> pick = [&](unsigned i,
                                                       int64_t start) -> Value {
      ArrayRef<int64_t> s = srcShape(i);
      SmallVector<Value> at(idx);
      at[dim] = arith::SubIOp::create(b, loc, idx[dim], index(start));
      if (i + 1 == op->getNumOperands())
        return memref::LoadOp::create(b, loc, bufs[i], linearize(at, s));
      Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         idx[dim], index(start + s[dim]));
      auto branch = scf::IfOp::create(b, loc, TypeRange{type.getElementType()},
                                      here, /*withElse=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(
          b, loc, memref::LoadOp::create(b, loc, bufs[i], linearize(at, s))
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

/// Reduction along the last dim with shuffles: each row's vector positions
/// are held by G threads (G = min(Q, T) for Q positions per row).
LogicalResult GPUKernelLowering::lowerReduceLastDim(ReduceOp op) {
  Location loc = op.getLoc();
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  Layout in = Layout::get(inType, threads);
  int64_t Q = inType.getShape().back() / in.vec;
  int64_t T = threads;
  int64_t G = std::min(Q, T);
  int64_t rows = inType.getNumElements() / inType.getShape().back();
  unsigned n = op.getInputs().size();
  SmallVector<std::pair<Type, int64_t>> shapes;
  for (Value input : op.getInputs())
    shapes.push_back({cast<RankedTensorType>(input.getType()).getElementType(),
                      rows});
  if (G > 32)
    for (Value input : op.getInputs())
      shapes.push_back(
          {cast<RankedTensorType>(input.getType()).getElementType(), T / 32});
  SmallVector<Value> bufs = scratch(loc, shapes);
  SmallVector<Value> outBufs(bufs.begin(), bufs.begin() + n);
  SmallVector<Value> partBufs(bufs.begin() + n, bufs.end());
  SmallVector<Value> regs;
  for (Value input : op.getInputs())
    regs.push_back(map.lookup(input));
  auto lane = [&](unsigned i, int64_t pos) {
    return vector::ExtractOp::create(b, loc, regs[i], pos).getResult();
  };
  // Slots of one row: Q/T of them when a row spans the block, else one.
  int64_t slotsPerRow = Q >= T ? Q / T : 1;
  gpu::BarrierOp::create(b, loc);
  for (int64_t k0 = 0; k0 < in.slots; k0 += slotsPerRow) {
    SmallVector<Value> acc;
    for (unsigned i = 0; i < n; ++i)
      acc.push_back(lane(i, k0 * in.vec));
    for (int64_t k = k0; k < k0 + slotsPerRow; ++k)
      for (int64_t l = (k == k0 ? 1 : 0); l < in.vec; ++l) {
        SmallVector<Value> next;
        for (unsigned i = 0; i < n; ++i)
          next.push_back(lane(i, k * in.vec + l));
        acc = combine(op.getCombiner(), acc, next);
      }
    for (int64_t off = std::min<int64_t>(G, 32) / 2; off >= 1; off /= 2) {
      SmallVector<Value> other;
      for (Value v : acc)
        other.push_back(shuffleXor(loc, v, static_cast<int32_t>(off)));
      acc = combine(op.getCombiner(), acc, other);
    }
    Value warp = arith::DivUIOp::create(b, loc, tid, index(32));
    if (G > 32) {
      // Warp partials through shared memory, combined in warp order.
      Value laneId = arith::RemUIOp::create(b, loc, tid, index(32));
      Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           laneId, index(0));
      auto write = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(write.thenBlock());
        for (unsigned i = 0; i < n; ++i)
          memref::StoreOp::create(b, loc, acc[i], partBufs[i], warp);
      }
      gpu::BarrierOp::create(b, loc);
      int64_t warpsPerGroup = G / 32;
      Value first = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, tid, index(G)),
          index(warpsPerGroup));
      for (unsigned i = 0; i < n; ++i)
        acc[i] = memref::LoadOp::create(b, loc, partBufs[i], first);
      for (int64_t w = 1; w < warpsPerGroup; ++w) {
        Value at = arith::AddIOp::create(b, loc, first, index(w));
        SmallVector<Value> next;
        for (unsigned i = 0; i < n; ++i)
          next.push_back(memref::LoadOp::create(b, loc, partBufs[i], at));
        acc = combine(op.getCombiner(), acc, next);
      }
      gpu::BarrierOp::create(b, loc);
    }
    // The group's first thread writes the row result.
    Value p = arith::AddIOp::create(b, loc, tid, index(k0 * T));
    Value row = arith::DivUIOp::create(b, loc, p, index(Q));
    Value isFirst = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, tid, index(G)), index(0));
    Value valid = arith::AndIOp::create(
        b, loc, isFirst,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                              index(rows)));
    auto write = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(write.thenBlock());
    for (unsigned i = 0; i < n; ++i)
      memref::StoreOp::create(b, loc, acc[i], outBufs[i], row);
  }
  gpu::BarrierOp::create(b, loc);
  for (unsigned i = 0; i < n; ++i) {
    Layout out = Layout::get(
        cast<RankedTensorType>(op.getResults()[i].getType()), threads);
    Value buf = outBufs[i];
    map.map(op.getResults()[i],
            buildRegisters(loc, out, [&](int64_t, int64_t, Value e) {
              return memref::LoadOp::create(b, loc, buf, e).getResult();
            }));
  }
  return success();
}

LogicalResult GPUKernelLowering::lowerReduce(ReduceOp op) {
  Location loc = op.getLoc();
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  int64_t dim = op.getDim();
  Layout in = Layout::get(inType, threads);
  int64_t Q = inType.getShape().back() / in.vec;
  bool shuffles = dim == inType.getRank() - 1 && llvm::isPowerOf2_64(Q) &&
                  (Q % threads == 0 || threads % Q == 0);
  if (shuffles)
    return lowerReduceLastDim(op);
  // General: inputs in shared memory; each output element folds its line in
  // index order.
  unsigned n = op.getInputs().size();
  SmallVector<Value> bufs = toShared(loc, op.getInputs());
  auto outType = cast<RankedTensorType>(op.getResults()[0].getType());
  Layout out = Layout::get(outType, threads);
  int64_t extent = inType.getShape()[dim];
  SmallVector<Value> results;
  for (Value r : op.getResults())
    results.push_back(zeroOf(Layout::get(cast<RankedTensorType>(r.getType()),
                                         threads)
                                 .registerType()));
  for (int64_t k = 0; k < out.slots; ++k)
    for (int64_t l = 0; l < out.vec; ++l) {
      Value p = arith::AddIOp::create(b, loc, tid, index(k * threads));
      Value e = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, p, index(out.vec)), index(l));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                          index(out.positions));
      SmallVector<Type> types;
      for (Value input : op.getInputs())
        types.push_back(cast<RankedTensorType>(input.getType()).getElementType());
      auto branch = scf::IfOp::create(b, loc, types, valid, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        SmallVector<Value> idx = delinearize(e, outType.getShape());
        idx[dim] = index(0);
        SmallVector<Value> init;
        for (unsigned i = 0; i < n; ++i)
          init.push_back(memref::LoadOp::create(
              b, loc, bufs[i], linearize(idx, inType.getShape())));
        auto loop = scf::ForOp::create(
            b, loc, index(1), index(extent), index(1), init,
            [&](OpBuilder &lb, Location ll, Value j, ValueRange iter) {
              OpBuilder::InsertionGuard inner(b);
              b.setInsertionPoint(lb.getInsertionBlock(),
                                  lb.getInsertionPoint());
              SmallVector<Value> at(idx);
              at[dim] = j;
              Value lin = linearize(at, inType.getShape());
              SmallVector<Value> next;
              for (unsigned i = 0; i < n; ++i)
                next.push_back(memref::LoadOp::create(b, ll, bufs[i], lin));
              scf::YieldOp::create(b, ll, combine(op.getCombiner(), iter, next));
            });
        scf::YieldOp::create(b, loc, loop.getResults());
        b.setInsertionPointToStart(branch.elseBlock());
        SmallVector<Value> zeros;
        for (Type t : types)
          zeros.push_back(zeroOf(t));
        scf::YieldOp::create(b, loc, zeros);
      }
      for (unsigned i = 0; i < n; ++i)
        results[i] = vector::InsertOp::create(b, loc, branch.getResult(i),
                                              results[i], k * out.vec + l);
    }
  for (unsigned i = 0; i < n; ++i)
    map.map(op.getResults()[i], results[i]);
  return success();
}

LogicalResult GPUKernelLowering::lowerDot(DotOp op) {
  // Correct first: operands from shared memory, f32 FMA per output element.
  // Tensor-core MMA (mma.sync, wgmma) replaces this.
  Location loc = op.getLoc();
  SmallVector<Value> operands =
      toShared(loc, ValueRange{op.getA(), op.getB()});
  Value a = operands[0], bb = operands[1];
  RankedTensorType type = op.getResult().getType();
  Layout layout = Layout::get(type, threads);
  int64_t K = op.getA().getType().getDimSize(1);
  int64_t N = type.getDimSize(1);
  Value acc = map.lookup(op.getAcc());
  Type f32 = b.getF32Type();
  map.map(op.getResult(),
          buildRegisters(loc, layout, [&](int64_t k, int64_t l, Value e) {
            Value row = arith::DivUIOp::create(b, loc, e, index(N));
            Value col = arith::RemUIOp::create(b, loc, e, index(N));
            Value init = vector::ExtractOp::create(b, loc, acc,
                                                   k * layout.vec + l);
            auto loop = scf::ForOp::create(
                b, loc, index(0), index(K), index(1), ValueRange{init},
                [&](OpBuilder &lb, Location ll, Value kk, ValueRange iter) {
                  Value ai = arith::AddIOp::create(
                      lb, ll, arith::MulIOp::create(lb, ll, row, index(K)), kk);
                  Value bi = arith::AddIOp::create(
                      lb, ll, arith::MulIOp::create(lb, ll, kk, index(N)), col);
                  Value x = arith::ExtFOp::create(
                      lb, ll, f32,
                      memref::LoadOp::create(lb, ll, a, ValueRange{ai}).getResult());
                  Value y = arith::ExtFOp::create(
                      lb, ll, f32,
                      memref::LoadOp::create(lb, ll, bb, ValueRange{bi}).getResult());
                  Value s = math::FmaOp::create(lb, ll, x, y, iter[0]);
                  scf::YieldOp::create(lb, ll, s);
                });
            return loop.getResult(0);
          }));
  return success();
}
