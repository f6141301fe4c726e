//===- LowerReductions.cpp - tile.reduce ----------------------------------===//
//
// Contiguous lines by shuffles within their thread group, the rest
// through the scratch arena; column reductions in registers are in
// LowerReduceColumns.cpp.
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
LogicalResult ReduceLowering::lowerReduceLastDim(ReduceOp op) {
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
  if (Q == 1 && rows > 1 && out0.vec == 1 && out0.positions == rows) {
    // Each thread folds its own slots' vectors, into its own slots.
    SmallVector<Value> out;
    for (unsigned i = 0; i < n; ++i)
      out.push_back(emit.zeroOf(resultRegs(i)));
    for (int64_t k = 0; k < in.slots; ++k) {
      SmallVector<Value> acc;
      for (unsigned i = 0; i < n; ++i)
        acc.push_back(lane(i, k * in.vec));
      for (int64_t l = 1; l < in.vec; ++l) {
        SmallVector<Value> next;
        for (unsigned i = 0; i < n; ++i)
          next.push_back(lane(i, k * in.vec + l));
        acc = emit.combine(op.getCombiner(), acc, next);
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
  SmallVector<Value> bufs =
      shapes.empty() ? SmallVector<Value>() : shared.scratch(loc, shapes);
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
        acc = emit.combine(op.getCombiner(), acc, next);
      }
    for (int64_t off = std::min<int64_t>(G, 32) / 2; off >= 1; off /= 2) {
      SmallVector<Value> other;
      for (Value v : acc)
        other.push_back(emit.shuffleXor(loc, v, static_cast<int32_t>(off)));
      acc = emit.combine(op.getCombiner(), acc, other);
    }
    Value warp = arith::DivUIOp::create(b, loc, tid, emit.index(32));
    if (G > 32) {
      // Warp partials through shared memory, combined in warp order.
      Value laneId = arith::RemUIOp::create(b, loc, tid, emit.index(32));
      Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           laneId, emit.index(0));
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
          b, loc, arith::DivUIOp::create(b, loc, tid, emit.index(G)),
          emit.index(warpsPerGroup));
      for (unsigned i = 0; i < n; ++i)
        acc[i] = memref::LoadOp::create(b, loc, partBufs[i], first);
      for (int64_t w = 1; w < warpsPerGroup; ++w) {
        Value at = arith::AddIOp::create(b, loc, first, emit.index(w));
        SmallVector<Value> next;
        for (unsigned i = 0; i < n; ++i)
          next.push_back(memref::LoadOp::create(b, loc, partBufs[i], at));
        acc = emit.combine(op.getCombiner(), acc, next);
      }
      // The next row's partials reuse the buffers (a single row has none;
      // the next op's own barrier covers these reads).
      if (!single)
        gpu::BarrierOp::create(b, loc);
    }
    if (single) {
      // Threads 0 .. G - 1 hold the result; lane 0 gives it to its warp.
      for (unsigned i = 0; i < n; ++i) {
        Value v = G < 32 ? emit.shuffleFromLane0(loc, acc[i]) : acc[i];
        map.map(op.getResults()[i],
                vector::BroadcastOp::create(b, loc, resultRegs(i), v));
        state.setReplicated(op.getResults()[i], std::max<int64_t>(G, 32));
      }
      return success();
    }
    // The group's first thread writes the row result.
    Value p = arith::AddIOp::create(b, loc, tid, emit.index(k0 * T));
    Value row = arith::DivUIOp::create(b, loc, p, emit.index(Q));
    Value isFirst = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, tid, emit.index(G)), emit.index(0));
    Value valid = arith::AndIOp::create(
        b, loc, isFirst,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                              emit.index(rows)));
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
            emit.buildRegisters(loc, out, [&](int64_t, int64_t, Value e) {
              return memref::LoadOp::create(b, loc, buf, e).getResult();
            }));
  }
  return success();
}

LogicalResult ReduceLowering::lowerReduce(ReduceOp op) {
  Location loc = op.getLoc();
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  int64_t dim = op.getDim();
  Layout in = Layout::get(inType, threads);
  int64_t line = contiguousLine(inType, dim);
  int64_t Q = line / in.vec;
  bool shuffles =
      Q > 0 && llvm::isPowerOf2_64(Q) && (Q % threads == 0 || threads % Q == 0);
  if (shuffles)
    return lowering.reductions.lowerReduceLastDim(op);
  if (lowering.reductions.reducesColumns(op))
    return lowering.reductions.lowerReduceColumns(op);
  // General: inputs in shared memory; each output element folds its line in
  // index order.
  unsigned n = op.getInputs().size();
  SmallVector<Value> bufs = shared.toShared(loc, op.getInputs());
  auto outType = cast<RankedTensorType>(op.getResults()[0].getType());
  Layout out = Layout::get(outType, threads);
  int64_t extent = inType.getShape()[dim];
  SmallVector<Value> results;
  for (Value r : op.getResults())
    results.push_back(
        emit.zeroOf(Layout::get(cast<RankedTensorType>(r.getType()), threads)
                        .registerType()));
  for (int64_t k = 0; k < out.slots; ++k)
    for (int64_t l = 0; l < out.vec; ++l) {
      Value p = arith::AddIOp::create(b, loc, tid, emit.index(k * threads));
      Value e = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, p, emit.index(out.vec)),
          emit.index(l));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                          emit.index(out.positions));
      SmallVector<Type> types;
      for (Value input : op.getInputs())
        types.push_back(
            cast<RankedTensorType>(input.getType()).getElementType());
      auto branch = scf::IfOp::create(b, loc, types, valid, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        SmallVector<Value> idx = emit.delinearize(e, outType.getShape());
        idx[dim] = emit.index(0);
        SmallVector<Value> init;
        for (unsigned i = 0; i < n; ++i)
          init.push_back(memref::LoadOp::create(
              b, loc, bufs[i], emit.linearize(idx, inType.getShape())));
        auto loop = scf::ForOp::create(
            b, loc, emit.index(1), emit.index(extent), emit.index(1), init,
            [&](OpBuilder &lb, Location ll, Value j, ValueRange iter) {
              OpBuilder::InsertionGuard inner(b);
              b.setInsertionPoint(lb.getInsertionBlock(),
                                  lb.getInsertionPoint());
              SmallVector<Value> at(idx);
              at[dim] = j;
              Value lin = emit.linearize(at, inType.getShape());
              SmallVector<Value> next;
              for (unsigned i = 0; i < n; ++i)
                next.push_back(memref::LoadOp::create(b, ll, bufs[i], lin));
              scf::YieldOp::create(b, ll,
                                   emit.combine(op.getCombiner(), iter, next));
            });
        scf::YieldOp::create(b, loc, loop.getResults());
        b.setInsertionPointToStart(branch.elseBlock());
        SmallVector<Value> zeros;
        for (Type t : types)
          zeros.push_back(emit.zeroOf(t));
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

void ReduceLowering::populatePatterns(RewritePatternSet &patterns) {
  addTileOpPattern(patterns, lowering, *this, &ReduceLowering::lowerReduce);
}
