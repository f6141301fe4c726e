//===- LowerReduceColumns.cpp - reductions across rows, in registers ------===//
//
// A reduction along a dim followed by others (a column reduction: a
// softmax-weighted sum of [S, HD] partials over S, P V over a key block)
// when every slot of a thread holds the same columns of the flat layout.
// Each thread folds its own rows, the threads holding the same columns in
// a warp combine with xor shuffles, and the warps' partials meet in shared
// memory. The general lowering writes the whole tile to shared memory and
// has one thread fold each column's line in sequence: 48 dependent shared
// loads and adds for a 48-row tile, a serial chain that showed in decode
// (bench/results/2026-11-23-column-reductions-h200.md).
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

namespace {
/// How a column reduction maps onto the flat layout: threads `tid` and
/// `tid + C` hold the same columns (C = inner / vec), each slot `k` of a
/// thread is row `tid / C + k * (T / C)` of the reduced dim.
struct ColumnShape {
  int64_t inner = 0; ///< elements after the reduced dim (one output row)
  int64_t C = 0;     ///< threads per row: inner / vec
  int64_t M = 0;     ///< threads per group of rows combined in a warp
  /// Groups that hold rows: their partials meet in shared memory.
  int64_t groups = 0;
  bool allValid = false; ///< every slot of every thread is inside the tile
};
} // namespace

/// The column shape of reducing `type` along `dim` on `threads`, where
/// this lowering applies: a single output row (the dims before `dim` are
/// 1), vectors inside one row, rows a whole number of warps' shuffles.
static std::optional<ColumnShape> columnShape(RankedTensorType type,
                                              int64_t dim, int64_t threads) {
  ArrayRef<int64_t> shape = type.getShape();
  for (int64_t d = 0; d < dim; ++d)
    if (shape[d] != 1)
      return std::nullopt;
  Layout in = Layout::get(type, threads);
  ColumnShape s;
  s.inner = 1;
  for (int64_t d = dim + 1; d < type.getRank(); ++d)
    s.inner *= shape[d];
  if (s.inner % in.vec != 0 || threads % 32 != 0)
    return std::nullopt;
  s.C = s.inner / in.vec;
  if (!llvm::isPowerOf2_64(s.C) || threads % s.C != 0)
    return std::nullopt;
  s.M = std::max<int64_t>(s.C, 32);
  // A group g holds rows iff its first thread's first slot is in the tile;
  // then each of its columns is (thread g * M + c, a multiple of C apart).
  s.groups =
      std::min<int64_t>(threads / s.M, llvm::divideCeil(in.positions, s.M));
  s.allValid = in.positions % threads == 0;
  return s;
}

bool ReduceLowering::reducesColumns(ReduceOp op) const {
  auto type = cast<RankedTensorType>(op.getInputs()[0].getType());
  int64_t dim = op.getDim();
  return columnShape(type, dim, threads).has_value();
}

LogicalResult ReduceLowering::lowerReduceColumns(ReduceOp op) {
  Location loc = op.getLoc();
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  Layout in = Layout::get(inType, threads);
  ColumnShape s = *columnShape(inType, op.getDim(), threads);
  unsigned n = op.getInputs().size();
  SmallVector<Value> regs;
  for (Value input : op.getInputs())
    regs.push_back(map.lookup(input));
  auto lane = [&](unsigned i, int64_t pos) {
    return vector::ExtractOp::create(b, loc, regs[i], pos).getResult();
  };
  auto select = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };

  // acc[l][i]: this thread's fold of column lane l of input i over its
  // slots, in slot (row) order; `have`: whether it holds any row (a thread
  // past the tile holds none, and slots past it are skipped).
  SmallVector<SmallVector<Value>> acc(in.vec);
  for (int64_t l = 0; l < in.vec; ++l)
    for (unsigned i = 0; i < n; ++i)
      acc[l].push_back(lane(i, l));
  Value have;
  auto slotValid = [&](int64_t k) {
    Value p = arith::AddIOp::create(b, loc, tid, emit.index(k * threads));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                 emit.index(in.positions))
        .getResult();
  };
  if (!s.allValid)
    have = slotValid(0);
  for (int64_t k = 1; k < in.slots; ++k) {
    // Slots past the tile are a thread's last ones: a valid slot k means
    // slot 0 is too, so the fold needs no flag of its own.
    Value valid = s.allValid ? Value() : slotValid(k);
    for (int64_t l = 0; l < in.vec; ++l) {
      SmallVector<Value> next;
      for (unsigned i = 0; i < n; ++i)
        next.push_back(lane(i, k * in.vec + l));
      SmallVector<Value> merged = emit.combine(op.getCombiner(), acc[l], next);
      for (unsigned i = 0; i < n; ++i)
        acc[l][i] = valid ? select(valid, merged[i], acc[l][i]) : merged[i];
    }
  }
  // The rows of a warp: lanes C apart hold the same columns.
  for (int64_t off = s.C; off < 32; off *= 2) {
    Value otherHave =
        have ? emit.shuffleXor(loc, have, static_cast<int32_t>(off)) : Value();
    for (int64_t l = 0; l < in.vec; ++l) {
      SmallVector<Value> other;
      for (Value v : acc[l])
        other.push_back(emit.shuffleXor(loc, v, static_cast<int32_t>(off)));
      SmallVector<Value> merged = emit.combine(op.getCombiner(), acc[l], other);
      for (unsigned i = 0; i < n; ++i) {
        if (!have) {
          acc[l][i] = merged[i];
          continue;
        }
        Value both = arith::AndIOp::create(b, loc, have, otherHave);
        acc[l][i] = select(both, merged[i], select(have, acc[l][i], other[i]));
      }
    }
    if (have)
      have = arith::OrIOp::create(b, loc, have, otherHave);
  }

  // Each group's partials (lanes 0 .. C - 1 of it hold all columns) meet
  // in shared memory, combined in group order by the threads of the result.
  SmallVector<std::pair<Type, int64_t>> shapes;
  for (Value input : op.getInputs())
    shapes.push_back({cast<RankedTensorType>(input.getType()).getElementType(),
                      s.groups * s.inner});
  SmallVector<Value> bufs = shared.scratch(loc, shapes);
  gpu::BarrierOp::create(b, loc);
  {
    Value inGroup = arith::RemUIOp::create(b, loc, tid, emit.index(s.M));
    Value writer = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, inGroup,
                              emit.index(s.C)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                              emit.index(s.groups * s.M)));
    auto write = scf::IfOp::create(b, loc, writer, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(write.thenBlock());
    Value group = arith::DivUIOp::create(b, loc, tid, emit.index(s.M));
    Value base = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, group, emit.index(s.inner)),
        arith::MulIOp::create(b, loc, inGroup, emit.index(in.vec)));
    for (int64_t l = 0; l < in.vec; ++l) {
      Value at = arith::AddIOp::create(b, loc, base, emit.index(l));
      for (unsigned i = 0; i < n; ++i)
        memref::StoreOp::create(b, loc, acc[l][i], bufs[i], at);
    }
  }
  gpu::BarrierOp::create(b, loc);
  auto column = [&](Value e) {
    SmallVector<Value> r;
    for (unsigned i = 0; i < n; ++i)
      r.push_back(memref::LoadOp::create(b, loc, bufs[i], e));
    for (int64_t g = 1; g < s.groups; ++g) {
      Value at = arith::AddIOp::create(b, loc, e, emit.index(g * s.inner));
      SmallVector<Value> next;
      for (unsigned i = 0; i < n; ++i)
        next.push_back(memref::LoadOp::create(b, loc, bufs[i], at));
      r = emit.combine(op.getCombiner(), r, next);
    }
    return r;
  };
  if (s.inner == 1) {
    // One element: every thread combines it, so it is in all registers.
    SmallVector<Value> r = column(emit.index(0));
    for (unsigned i = 0; i < n; ++i) {
      auto type = cast<RankedTensorType>(op.getResults()[i].getType());
      map.map(op.getResults()[i],
              vector::BroadcastOp::create(
                  b, loc, Layout::get(type, threads).registerType(), r[i]));
      state.setReplicated(op.getResults()[i], threads);
    }
    return success();
  }
  for (unsigned i = 0; i < n; ++i) {
    Layout out = Layout::get(
        cast<RankedTensorType>(op.getResults()[i].getType()), threads);
    map.map(op.getResults()[i],
            emit.buildRegisters(loc, out, [&](int64_t, int64_t, Value e) {
              return column(e)[i];
            }));
  }
  return success();
}
