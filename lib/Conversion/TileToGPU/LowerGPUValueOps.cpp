//===- LowerGPUValueOps.cpp - element-wise, shape and compute ops on GPU ---===//

#include "GPUKernelLowering.h"
#include "Remarks.h"

#include "llvm/Support/FormatVariadic.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
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
    setReplicated(c.getResult(), threads);
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
  int64_t held = threads;
  for (Value operand : op->getOperands())
    held = std::min(held, replicatedIn(operand));
  for (Value r : op->getResults())
    setReplicated(r, held);
  return success();
}

/// bf16 -> f32 of a register vector as integer ops on its 32-bit words:
/// element 2i is the low half of word i (shifted up 16), element 2i + 1 the
/// high half (the low bits cleared). Bit-exact with the conversion (a bf16
/// is the top half of the f32 it denotes), one ALU op per element where
/// the conversion instruction also needs the half extracted first; the
/// decode GEMVs convert every weight element.
static Value widenBF16Pairs(OpBuilder &b, Location loc, Value regs) {
  auto type = cast<VectorType>(regs.getType());
  int64_t n = type.getNumElements();
  auto words = VectorType::get({n / 2}, b.getI32Type());
  Value w = vector::BitCastOp::create(b, loc, words, regs);
  auto splat = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(words, b.getI32IntegerAttr(v)));
  };
  Value lo = arith::ShLIOp::create(b, loc, w, splat(16));
  Value hi = arith::AndIOp::create(b, loc, w, splat(0xFFFF0000u));
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < n / 2; ++i) {
    mask.push_back(i);
    mask.push_back(n / 2 + i);
  }
  Value both = vector::ShuffleOp::create(b, loc, lo, hi, mask);
  return vector::BitCastOp::create(
      b, loc, VectorType::get({n}, b.getF32Type()), both);
}

/// e4m3 -> f16 of a register vector, two elements per cvt.rn.f16x2.e4m3x2
/// (sm_89 and later): exact, and one instruction where the integer form
/// takes several per element.
static Value widenE4M3Pairs(OpBuilder &b, Location loc, Value regs) {
  auto type = cast<VectorType>(regs.getType());
  int64_t n = type.getNumElements();
  Value bytes = vector::BitCastOp::create(
      b, loc, VectorType::get({n}, b.getI8Type()), regs);
  auto pairType = VectorType::get({2}, b.getF16Type());
  SmallVector<Value> halves;
  for (int64_t i = 0; i < n; i += 2) {
    Value pair = vector::ShuffleOp::create(b, loc, bytes, bytes,
                                           ArrayRef<int64_t>{i, i + 1});
    Value half = NVVM::ConvertF8x2ToF16x2Op::create(
        b, loc, pairType, pair, /*relu=*/b.getBoolAttr(false),
        TypeAttr::get(type.getElementType()));
    halves.push_back(vector::ExtractOp::create(b, loc, half, 0));
    halves.push_back(vector::ExtractOp::create(b, loc, half, 1));
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({n}, b.getF16Type()), halves);
}

LogicalResult GPUKernelLowering::lowerConvert(ConvertOp op) {
  Value regs = map.lookup(op.getSource());
  Type from = op.getSource().getType().getElementType();
  Type to = op.getResult().getType().getElementType();
  if (auto vec = dyn_cast<VectorType>(regs.getType());
      f8Conversions && vec && vec.getRank() == 1 &&
      vec.getNumElements() % 2 == 0 && isa<Float8E4M3FNType>(from)) {
    Value half = widenE4M3Pairs(b, op.getLoc(), regs);
    map.map(op.getResult(), convertElements(b, op.getLoc(), half,
                                            b.getF16Type(), to,
                                            op.getRounding()));
    setReplicated(op.getResult(), replicatedIn(op.getSource()));
    return success();
  }
  if (auto vec = dyn_cast<VectorType>(regs.getType());
      vec && vec.getRank() == 1 && vec.getNumElements() % 2 == 0 &&
      from.isBF16() && to.isF32()) {
    map.map(op.getResult(), widenBF16Pairs(b, op.getLoc(), regs));
    return success();
  }
  map.map(op.getResult(),
          convertElements(b, op.getLoc(), regs, from, to, op.getRounding()));
  setReplicated(op.getResult(), replicatedIn(op.getSource()));
  return success();
}

LogicalResult GPUKernelLowering::lowerExtract(ExtractOp op) {
  Location loc = op.getLoc();
  if (replicatedIn(op.getSource()) >= threads) {
    // Every thread holds the only element: the scalar is uniform as it is.
    map.map(op.getResult(),
            vector::ExtractOp::create(b, loc, map.lookup(op.getSource()), 0));
    return success();
  }
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
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    if (Value regs = broadcastInRegisters(broadcast)) {
      map.map(broadcast.getResult(), regs);
      return success();
    }
    if (Value regs = loadBroadcast(broadcast)) {
      map.map(broadcast.getResult(), regs);
      return success();
    }
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // Same linear order; identical registers when the vector width agrees.
    Layout src = Layout::get(reshape.getSource().getType(), threads);
    if (src.vec == layout.vec) {
      map.map(reshape.getResult(), map.lookup(reshape.getSource()));
      setReplicated(reshape.getResult(), replicatedIn(reshape.getSource()));
      return success();
    }
  }
  if (auto roll = dyn_cast<RollOp>(op))
    if (Value regs = rollInWarp(roll)) {
      map.map(op->getResult(0), regs);
      return success();
    }
  if (Value regs = shapeOpInWarp(op)) {
    map.map(op->getResult(0), regs);
    return success();
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
    if (auto roll = dyn_cast<RollOp>(op)) {
      // Index i along the dim reads (i - shift) mod n = (i + back) mod n.
      int64_t d = roll.getDim(), n = shape[d];
      int64_t back = ((-static_cast<int64_t>(roll.getShift())) % n + n) % n;
      SmallVector<Value> at(idx);
      at[d] = arith::RemUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, idx[d], index(back)), index(n));
      return memref::LoadOp::create(b, loc, bufs[0], linearize(at, shape));
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

/// The elements a reduction along `dim` combines into each result: the
/// extent of `dim`, when every dim after it is 1 (the reduced line is then
/// contiguous, as a last dim is); 0 otherwise.
static int64_t contiguousLine(RankedTensorType type, int64_t dim) {
  ArrayRef<int64_t> shape = type.getShape();
  for (int64_t d = dim + 1; d < type.getRank(); ++d)
    if (shape[d] != 1)
      return 0;
  return shape[dim];
}

/// Reduction of contiguous lines (along the last dim, or a dim followed by
/// unit dims only) with shuffles: each line's vector positions are held by
/// G threads (G = min(Q, T) for Q positions per line). Where each thread's
/// registers already hold its results, shared memory is not used: lines
/// of one vector (Q = 1: line r is position r of the input and of the
/// result), and a single line (its result is in each of the G threads,
/// and lane 0 gives it to the rest of the warp).
LogicalResult GPUKernelLowering::lowerReduceLastDim(ReduceOp op) {
  Location loc = op.getLoc();
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  Layout in = Layout::get(inType, threads);
  int64_t line = contiguousLine(inType, op.getDim());
  int64_t Q = line / in.vec;
  int64_t T = threads;
  int64_t G = std::min(Q, T);
  int64_t rows = inType.getNumElements() / line;
  unsigned n = op.getInputs().size();
  SmallVector<Value> regs;
  for (Value input : op.getInputs())
    regs.push_back(map.lookup(input));
  auto lane = [&](unsigned i, int64_t pos) {
    return vector::ExtractOp::create(b, loc, regs[i], pos).getResult();
  };
  auto resultRegs = [&](unsigned i) {
    return Layout::get(cast<RankedTensorType>(op.getResults()[i].getType()),
                       threads)
        .registerType();
  };
  Layout out0 = Layout::get(
      cast<RankedTensorType>(op.getResults()[0].getType()), threads);
  if (Q == 1 && rows > 1 && out0.vec == 1 &&
      out0.positions == rows) {
    // Each thread folds its own slots' vectors, into its own slots.
    SmallVector<Value> out;
    for (unsigned i = 0; i < n; ++i)
      out.push_back(zeroOf(resultRegs(i)));
    for (int64_t k = 0; k < in.slots; ++k) {
      SmallVector<Value> acc;
      for (unsigned i = 0; i < n; ++i)
        acc.push_back(lane(i, k * in.vec));
      for (int64_t l = 1; l < in.vec; ++l) {
        SmallVector<Value> next;
        for (unsigned i = 0; i < n; ++i)
          next.push_back(lane(i, k * in.vec + l));
        acc = combine(op.getCombiner(), acc, next);
      }
      for (unsigned i = 0; i < n; ++i)
        out[i] = vector::InsertOp::create(b, loc, acc[i], out[i], k);
    }
    for (unsigned i = 0; i < n; ++i)
      map.map(op.getResults()[i], out[i]);
    return success();
  }
  bool single = rows == 1;
  SmallVector<std::pair<Type, int64_t>> shapes;
  if (!single)
    for (Value input : op.getInputs())
      shapes.push_back(
          {cast<RankedTensorType>(input.getType()).getElementType(), rows});
  if (G > 32)
    for (Value input : op.getInputs())
      shapes.push_back(
          {cast<RankedTensorType>(input.getType()).getElementType(), T / 32});
  SmallVector<Value> bufs = shapes.empty() ? SmallVector<Value>()
                                           : scratch(loc, shapes);
  unsigned outCount = single ? 0 : n;
  SmallVector<Value> outBufs(bufs.begin(), bufs.begin() + outCount);
  SmallVector<Value> partBufs(bufs.begin() + outCount, bufs.end());
  // Slots of one row: Q/T of them when a row spans the block, else one.
  int64_t slotsPerRow = Q >= T ? Q / T : 1;
  if (!bufs.empty())
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
      // The next row's partials reuse the buffers (a single row has none;
      // the next op's own barrier covers these reads).
      if (!single)
        gpu::BarrierOp::create(b, loc);
    }
    if (single) {
      // Threads 0 .. G - 1 hold the result; lane 0 gives it to its warp.
      for (unsigned i = 0; i < n; ++i) {
        Value v = G < 32 ? shuffleFromLane0(loc, acc[i]) : acc[i];
        map.map(op.getResults()[i],
                vector::BroadcastOp::create(b, loc, resultRegs(i), v));
        setReplicated(op.getResults()[i], std::max<int64_t>(G, 32));
      }
      return success();
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
  int64_t line = contiguousLine(inType, dim);
  int64_t Q = line / in.vec;
  bool shuffles = Q > 0 && llvm::isPowerOf2_64(Q) &&
                  (Q % threads == 0 || threads % Q == 0);
  if (shuffles)
    return lowerReduceLastDim(op);
  if (reducesColumns(op))
    return lowerReduceColumns(op);
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
  int64_t M = op.getA().getType().getDimSize(0);
  int64_t K = op.getA().getType().getDimSize(1);
  int64_t N = op.getB().getType().getDimSize(1);
  // The MMA path stages A, B and the f32 accumulator in shared memory; it
  // must fit the 48 KB a block gets without opting in to more. (Keeping the
  // accumulator in registers in the MMA layout lifts this: next step.)
  int64_t eltBytes = op.getA().getType().getElementTypeBitWidth() / 8;
  int64_t staged = (M * K + K * N) * eltBytes + M * N * 4;
  // nvgpu.mma.sync cannot lower bf16 operands (upstream deduces PTX types
  // for f16, tf32, i8, i4 and f64 only): bf16 takes the FMA path for now.
  bool mmaType = !op.getA().getType().getElementType().isBF16();
  bool mma = mmaType && M % 16 == 0 && N % 8 == 0 && K % 16 == 0 &&
             staged <= 48 * 1024;
  if (remarksEnabled(b.getContext())) {
    if (!mma)
      missedFastPath(op.getLoc(), func.getName(), "tensor-cores")
          << remark::reason(
                 "FMA instead of mma.sync: {0}",
                 !mmaType ? std::string("bf16 operands (staged mma.sync "
                                        "takes f16)")
                 : staged > 48 * 1024
                     ? llvm::formatv("staging takes {0} bytes of shared "
                                     "memory, over 48 KB",
                                     staged)
                           .str()
                     : llvm::formatv("M = {0}, N = {1}, K = {2} not "
                                     "multiples of 16, 8, 16",
                                     M, N, K)
                           .str());
  }
  if (mma)
    return lowerDotMMA(op);
  return lowerDotFMA(op);
}

/// Tensor cores (mma.sync m16n8k16): A, B and the accumulator go through
/// shared memory; warps take the 16x8 output tiles round-robin, each keeping
/// its tile's accumulator fragment in registers over the K steps.
LogicalResult GPUKernelLowering::lowerDotMMA(DotOp op) {
  Location loc = op.getLoc();
  RankedTensorType type = op.getResult().getType();
  int64_t M = type.getDimSize(0), N = type.getDimSize(1);
  int64_t K = op.getA().getType().getDimSize(1);
  Type elt = op.getA().getType().getElementType();
  SmallVector<Value> bufs =
      toShared(loc, ValueRange{op.getA(), op.getB(), op.getAcc()});
  Value a = bufs[0], bb = bufs[1], c = bufs[2];
  Value warp = arith::DivUIOp::create(b, loc, tid, index(32));
  Value lane = arith::RemUIOp::create(b, loc, tid, index(32));
  Value g = arith::DivUIOp::create(b, loc, lane, index(4));
  Value t2 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, index(4)), index(2));
  int64_t tilesN = N / 8, tiles = (M / 16) * tilesN;
  auto at = [&](OpBuilder &lb, Location ll, Value buf, Value row, Value col,
                int64_t stride) {
    Value i = arith::AddIOp::create(
        lb, ll, arith::MulIOp::create(lb, ll, row, index(stride)), col);
    return memref::LoadOp::create(lb, ll, buf, ValueRange{i}).getResult();
  };
  auto add = [&](OpBuilder &lb, Location ll, Value x, int64_t k) -> Value {
    return k == 0 ? x : arith::AddIOp::create(lb, ll, x, index(k)).getResult();
  };
  auto fragA = VectorType::get({4, 2}, elt);
  auto fragB = VectorType::get({2, 2}, elt);
  auto fragC = VectorType::get({2, 2}, b.getF32Type());
  scf::ForOp::create(
      b, loc, warp, index(tiles), index(threads / 32), ValueRange{},
      [&](OpBuilder &lb, Location ll, Value tileId, ValueRange) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(lb.getInsertionBlock(), lb.getInsertionPoint());
        Value r0 = arith::MulIOp::create(
            b, ll, arith::DivUIOp::create(b, ll, tileId, index(tilesN)),
            index(16));
        Value c0 = arith::MulIOp::create(
            b, ll, arith::RemUIOp::create(b, ll, tileId, index(tilesN)),
            index(8));
        Value row = arith::AddIOp::create(b, ll, r0, g);
        Value row8 = add(b, ll, row, 8);
        Value col = arith::AddIOp::create(b, ll, c0, t2);
        // C fragment: rows g and g+8, columns 2t and 2t+1 of the tile.
        Value acc = zeroOf(fragC);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j)
            acc = vector::InsertOp::create(
                b, ll, at(b, ll, c, i ? row8 : row, add(b, ll, col, j), N), acc,
                ArrayRef<int64_t>{i, j});
        auto kLoop = scf::ForOp::create(
            b, ll, index(0), index(K), index(16), ValueRange{acc},
            [&](OpBuilder &kb, Location kl, Value k0, ValueRange iter) {
              OpBuilder::InsertionGuard inner(b);
              b.setInsertionPoint(kb.getInsertionBlock(),
                                  kb.getInsertionPoint());
              Value kc = arith::AddIOp::create(b, kl, k0, t2);
              // A fragment: (g, 2t..), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..).
              Value fa = zeroOf(fragA);
              for (int r = 0; r < 4; ++r)
                for (int j = 0; j < 2; ++j) {
                  Value rr = (r % 2) ? row8 : row;
                  Value cc = add(b, kl, kc, (r / 2) * 8 + j);
                  fa = vector::InsertOp::create(b, kl, at(b, kl, a, rr, cc, K),
                                                fa, ArrayRef<int64_t>{r, j});
                }
              // B fragment: (2t.., g) and (2t+8.., g) of the K x 8 slice.
              Value n = arith::AddIOp::create(b, kl, c0, g);
              Value fb = zeroOf(fragB);
              for (int r = 0; r < 2; ++r)
                for (int j = 0; j < 2; ++j)
                  fb = vector::InsertOp::create(
                      b, kl, at(b, kl, bb, add(b, kl, kc, r * 8 + j), n, N), fb,
                      ArrayRef<int64_t>{r, j});
              Value next = nvgpu::MmaSyncOp::create(
                  b, kl, fa, fb, iter[0], ArrayRef<int64_t>{16, 8, 16});
              scf::YieldOp::create(b, kl, next);
            });
        Value res = kLoop.getResult(0);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            Value v = vector::ExtractOp::create(b, ll, res,
                                                ArrayRef<int64_t>{i, j});
            Value idx = arith::AddIOp::create(
                b, ll,
                arith::MulIOp::create(b, ll, i ? row8 : row, index(N)),
                add(b, ll, col, j));
            memref::StoreOp::create(b, ll, v, c, ValueRange{idx});
          }
        scf::YieldOp::create(b, ll);
      });
  gpu::BarrierOp::create(b, loc);
  Layout layout = Layout::get(type, threads);
  map.map(op.getResult(),
          buildRegisters(loc, layout, [&](int64_t, int64_t, Value e) {
            return memref::LoadOp::create(b, loc, c, ValueRange{e}).getResult();
          }));
  return success();
}

LogicalResult GPUKernelLowering::lowerDotFMA(DotOp op) {
  // Shapes the MMA path does not tile: f32 FMAs from shared memory.
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
