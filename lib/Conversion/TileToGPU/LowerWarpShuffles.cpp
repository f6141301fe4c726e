//===- LowerWarpShuffles.cpp - shape ops moved between the lanes of a warp ===//
//
// A small tile (a head of 128 elements is 16 vectors) lives on the first
// threads of the block. A slice, concat, reshape, broadcast or permute
// whose operands and result all fit the first warp moves its elements with
// shfl.idx instead of through shared memory (a store, two barriers and a
// load): RoPE's rotate-half is a slice of the upper half, a slice of the
// lower half and their concat, each once two barriers.
//
// Which source element each result element takes is known at compile time
// (the shapes are static), so the lowering groups the threads of each
// result lane into runs where the source's linear index is affine in the
// thread id, and issues one shuffle per run and source lane that run
// reads; a thread takes its run's value by a select on its id.
//
// A roll along the last dim by whole vectors, on a tile of any size whose
// rows each lie on Q lanes of one warp (Q vectors a row, a power of two up
// to 32): every thread's slot k holds column vector j = lane % Q of its row,
// and the result's takes vector j - shift (mod Q) of the same row, from lane
// (lane - j) + ((j - shift) mod Q) in the same slot: one shfl.idx per
// register, whatever the tile's size.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

/// Shuffles per op at most (past that, shared memory is cheaper).
static constexpr int64_t kShuffleBudget = 64;

/// The operand and its linear element index that element `e` of the result
/// of shape op `op` is (the same mapping lowerShapeOp reads shared memory
/// by).
static std::pair<unsigned, int64_t> sourceOf(Operation *op, int64_t e) {
  auto shapeOf = [&](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  // Row-major linear index of `at` in a tile of `shape`.
  auto linear = [](ArrayRef<int64_t> at, ArrayRef<int64_t> shape) {
    return mlir::linearize(at, computeStrides(shape));
  };
  if (isa<ReshapeOp>(op))
    return {0, e};
  SmallVector<int64_t> idx =
      mlir::delinearize(e, computeStrides(shapeOf(op->getResult(0))));
  if (auto roll = dyn_cast<RollOp>(op)) {
    int64_t d = roll.getDim(), n = shapeOf(op->getResult(0))[d];
    int64_t shift = static_cast<int64_t>(roll.getShift()) % n;
    idx[d] = ((idx[d] - shift) % n + n) % n;
    return {0, linear(idx, shapeOf(op->getOperand(0)))};
  }
  if (isa<BroadcastOp>(op)) {
    ArrayRef<int64_t> src = shapeOf(op->getOperand(0));
    for (auto [d, s] : llvm::enumerate(src))
      if (s == 1)
        idx[d] = 0;
    return {0, linear(idx, src)};
  }
  if (auto permute = dyn_cast<PermuteOp>(op)) {
    SmallVector<int64_t> at(idx.size());
    for (auto [i, p] : llvm::enumerate(permute.getPermutation()))
      at[p] = idx[i];
    return {0, linear(at, shapeOf(op->getOperand(0)))};
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    for (auto [d, o] : llvm::enumerate(slice.getOffsets()))
      idx[d] += o;
    return {0, linear(idx, shapeOf(op->getOperand(0)))};
  }
  auto concat = cast<ConcatOp>(op);
  int64_t dim = concat.getDim();
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    ArrayRef<int64_t> s = shapeOf(op->getOperand(i));
    if (idx[dim] < s[dim] || i + 1 == op->getNumOperands())
      return {i, linear(idx, s)};
    idx[dim] -= s[dim];
  }
  llvm_unreachable("concat operands cover the result");
}

namespace {
/// Threads t0 .. t1 - 1 read operand `operand`'s element f0 + a * (t - t0),
/// from the source lanes in `lanes`.
struct Run {
  unsigned operand;
  int64_t t0, t1, f0, a;
  SmallVector<int64_t> lanes;
};
} // namespace

Value ShapeLowering::shapeOpInWarp(Operation *op) {
  if (!isa<ReshapeOp, BroadcastOp, PermuteOp, SliceOp, ConcatOp, RollOp>(op))
    return {};
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Layout layout = Layout::get(type, threads);
  SmallVector<Layout> sources;
  for (Value v : op->getOperands()) {
    sources.push_back(Layout::get(cast<RankedTensorType>(v.getType()), threads));
    if (sources.back().positions > 32)
      return {};
  }
  if (layout.positions > 32)
    return {};
  // The runs of each result lane, and the shuffles they take.
  SmallVector<SmallVector<Run>> lanes(layout.vec);
  int64_t shuffles = 0;
  for (int64_t i = 0; i < layout.vec; ++i) {
    SmallVector<Run> &runs = lanes[i];
    for (int64_t t = 0; t < layout.positions; ++t) {
      auto [o, f] = sourceOf(op, t * layout.vec + i);
      if (!runs.empty()) {
        Run &r = runs.back();
        bool second = r.t1 - r.t0 == 1;
        if (r.operand == o && r.t1 == t &&
            (second || f == r.f0 + r.a * (t - r.t0))) {
          if (second)
            r.a = f - r.f0;
          r.t1 = t + 1;
          int64_t lane = f % sources[o].vec;
          if (!llvm::is_contained(r.lanes, lane))
            r.lanes.push_back(lane);
          continue;
        }
      }
      runs.push_back({o, t, t + 1, f, 0, {f % sources[o].vec}});
    }
    for (const Run &r : runs)
      shuffles += static_cast<int64_t>(r.lanes.size());
  }
  if (shuffles > kShuffleBudget)
    return {};

  Location loc = op->getLoc();
  Type i32 = b.getI32Type();
  Value regs = emit.zeroOf(layout.registerType());
  for (int64_t i = 0; i < layout.vec; ++i) {
    Value lane;
    for (const Run &r : lanes[i]) {
      const Layout &src = sources[r.operand];
      Value srcRegs = map.lookup(op->getOperand(r.operand));
      // f = f0 + a * (tid - t0), as signed index arithmetic: threads outside
      // the run compute some other lane, whose value they never select.
      Value f = arith::AddIOp::create(
          b, loc, emit.index(r.f0 - r.a * r.t0),
          arith::MulIOp::create(b, loc, tid, emit.index(r.a)));
      Value from = arith::IndexCastOp::create(
          b, loc, i32, arith::DivSIOp::create(b, loc, f, emit.index(src.vec)));
      Value v;
      Value at = r.lanes.size() > 1
                     ? arith::RemSIOp::create(b, loc, f, emit.index(src.vec))
                           .getResult()
                     : Value();
      for (int64_t l : r.lanes) {
        Value moved = emit.shuffleIdx(
            loc, vector::ExtractOp::create(b, loc, srcRegs, l), from);
        if (!v) {
          v = moved;
          continue;
        }
        Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, at,
                                           emit.index(l));
        v = arith::SelectOp::create(b, loc, here, moved, v);
      }
      if (!lane) {
        lane = v;
        continue;
      }
      // Runs are consecutive: thread ids from t0 on take this one.
      Value inRun = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          tid, emit.index(r.t0));
      lane = arith::SelectOp::create(b, loc, inRun, v, lane);
    }
    regs = vector::InsertOp::create(b, loc, lane, regs, i);
  }
  return regs;
}

Value ShapeLowering::rollInWarp(RollOp op) {
  RankedTensorType type = op.getResult().getType();
  Layout layout = Layout::get(type, threads);
  int64_t n = type.getShape().back();
  if (static_cast<int64_t>(op.getDim()) != type.getRank() - 1 ||
      n % layout.vec != 0)
    return {};
  int64_t q = n / layout.vec;
  int64_t shift = (static_cast<int64_t>(op.getShift()) % n + n) % n;
  if (shift % layout.vec != 0 || !llvm::isPowerOf2_64(q) || q > 32 ||
      threads % q != 0)
    return {};
  Value src = map.lookup(op.getSource());
  if (shift == 0)
    return src;
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  // from = (lane & ~(q - 1)) | ((lane + q - shift / vec) & (q - 1)).
  Value lane = arith::IndexCastOp::create(
      b, loc, i32, arith::RemUIOp::create(b, loc, tid, emit.index(32)));
  Value from = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, lane, c32(~(q - 1))),
      arith::AndIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, lane, c32(q - shift / layout.vec)),
          c32(q - 1)));
  Value regs = emit.zeroOf(layout.registerType());
  for (int64_t r = 0; r < layout.registers(); ++r)
    regs = vector::InsertOp::create(
        b, loc,
        emit.shuffleIdx(loc, vector::ExtractOp::create(b, loc, src, r), from),
        regs, r);
  return regs;
}
