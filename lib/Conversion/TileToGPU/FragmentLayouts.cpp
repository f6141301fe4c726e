//===- FragmentLayouts.cpp - which tiles live in MMA fragment layouts -----===//
//
// Seeds: every dot that runs on tensor cores with fragments (isFragmentDot)
// gives its result and accumulator the Acc layout of m x n and its A operand
// the Acc layout of m x k. From there layouts spread, to a fixed point,
// along the ops that keep them in registers: element-wise ops (their tiles
// share one layout), broadcasts (the m x 1 or 1 x n source of an Acc tile
// is Rows or Cols, and such a source broadcasts to an Acc tile), row
// reductions of Acc tiles (Rows), reshapes that add or drop a unit dim
// (Rows and Cols unchanged) and loops (an iter_arg, its init, its yield and
// the loop's result share one). This is Triton's layout propagation, cut
// down to the one family of layouts flash attention needs.
//
// A tile keeps the first layout it gets. Where an op wants another (a
// store wants flat, say), the lowering moves the tile through shared
// memory there, so a layout is a choice of where data moves, never a
// matter of correctness.
//
//===----------------------------------------------------------------------===//

#include "Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

/// Elements of a thread's share above which a fragment tile would spill
/// (the attention step holds a 64 x 128 accumulator, a 64 x 64 score tile
/// and a 64 x 128 query: 64 + 32 + 32 registers of 128 threads).
static constexpr int64_t kFragmentElementsPerThread = 128;
/// Static shared memory a block gets without opting in to more.
static constexpr int64_t kStaticSharedBytes = 48 * 1024;

int64_t FragmentLayout::registers() const {
  switch (kind) {
  case Kind::Acc:
    return mTiles() * nTiles() * 4;
  case Kind::Rows:
    return mTiles() * 2;
  case Kind::Cols:
    return nTiles() * 2;
  }
  return 0;
}

bool FragmentLayout::fits(ArrayRef<int64_t> shape) const {
  switch (kind) {
  case Kind::Acc:
    return shape.size() == 2 && shape[0] == m && shape[1] == n &&
           m % (16 * warps) == 0 && n % 8 == 0;
  case Kind::Rows:
    return m % (16 * warps) == 0 &&
           ((shape.size() == 1 && shape[0] == m) ||
            (shape.size() == 2 && shape[0] == m && shape[1] == 1));
  case Kind::Cols:
    return n % 8 == 0 && ((shape.size() == 1 && shape[0] == n) ||
                          (shape.size() == 2 && shape[0] == 1 && shape[1] == n));
  }
  return false;
}

std::optional<std::string>
tile::gpu_lowering::whyNotFragmentDot(DotOp op, int64_t threads) {
  RankedTensorType a = op.getA().getType(), bt = op.getB().getType();
  RankedTensorType r = op.getResult().getType();
  Type elt = a.getElementType();
  if (!(elt.isF16() || elt.isBF16()) || bt.getElementType() != elt ||
      !r.getElementType().isF32())
    return std::string("operands not both f16 or both bf16 into f32");
  int64_t M = a.getDimSize(0), K = a.getDimSize(1), N = bt.getDimSize(1);
  int64_t warps = threads / 32;
  if (M % (16 * warps) != 0 || N % 16 != 0 || K % 16 != 0)
    return llvm::formatv("M = {0} not a multiple of 16 rows per warp ({1}), "
                         "or N = {2} or K = {3} not a multiple of 16",
                         M, 16 * warps, N, K)
        .str();
  if (M * N > kFragmentElementsPerThread * threads ||
      M * K > kFragmentElementsPerThread * threads)
    return llvm::formatv("the accumulator or A would take over {0} registers "
                         "a thread",
                         kFragmentElementsPerThread)
        .str();
  // B is staged in shared memory with rows padded by 8 elements (either
  // orientation, depending on whether a permute folds into it); A and the
  // f32 result may have to move through it to or from the flat layout.
  int64_t bytes =
      std::max({K * (N + 8) * 2, N * (K + 8) * 2, M * N * 4, M * K * 2});
  if (bytes > kStaticSharedBytes)
    return llvm::formatv("staging takes {0} bytes of shared memory, over "
                         "the static {1}",
                         bytes, kStaticSharedBytes)
        .str();
  return std::nullopt;
}

bool tile::gpu_lowering::isFragmentDot(DotOp op, int64_t threads) {
  return !whyNotFragmentDot(op, threads);
}

static bool isTile(Value v) { return isa<RankedTensorType>(v.getType()); }

FragmentPlan tile::gpu_lowering::planFragmentLayouts(Operation *kernel,
                                                     int64_t threads) {
  FragmentPlan plan;
  int64_t warps = threads / 32;
  auto find = [&](Value v) -> std::optional<FragmentLayout> {
    auto it = plan.layouts.find(v);
    if (it == plan.layouts.end())
      return std::nullopt;
    return it->second;
  };
  auto assign = [&](Value v, const FragmentLayout &l) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || plan.layouts.count(v) || !l.fits(type.getShape()))
      return false;
    plan.layouts[v] = l;
    return true;
  };
  kernel->walk([&](DotOp dot) {
    if (!isFragmentDot(dot, threads))
      return;
    plan.dots.insert(dot);
    RankedTensorType a = dot.getA().getType();
    RankedTensorType r = dot.getResult().getType();
    auto acc = FragmentLayout::acc(r.getDimSize(0), r.getDimSize(1), warps);
    assign(dot.getResult(), acc);
    assign(dot.getAcc(), acc);
    assign(dot.getA(),
           FragmentLayout::acc(a.getDimSize(0), a.getDimSize(1), warps));
  });
  if (plan.dots.empty())
    return plan;

  // Spreads one layout over a group of values that must share it.
  auto unify = [&](ArrayRef<Value> group) {
    std::optional<FragmentLayout> l;
    for (Value v : group)
      if ((l = find(v)))
        break;
    bool changed = false;
    if (l)
      for (Value v : group)
        changed |= assign(v, *l);
    return changed;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    kernel->walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::Elementwise>() || isa<ConvertOp>(op)) {
        SmallVector<Value> group;
        for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
          if (isTile(v))
            group.push_back(v);
        changed |= unify(group);
        return;
      }
      if (auto bc = dyn_cast<BroadcastOp>(op)) {
        ArrayRef<int64_t> src = bc.getSource().getType().getShape();
        ArrayRef<int64_t> dst = bc.getResult().getType().getShape();
        if (src.size() != 2 || dst.size() != 2)
          return;
        if (auto l = find(bc.getResult());
            l && l->kind == FragmentLayout::Kind::Acc) {
          if (src[1] == 1 && src[0] == dst[0])
            changed |= assign(bc.getSource(), FragmentLayout::rows(l->m, warps));
          else if (src[0] == 1 && src[1] == dst[1])
            changed |= assign(bc.getSource(), FragmentLayout::cols(l->n, warps));
        } else if (auto s = find(bc.getSource())) {
          if (s->kind == FragmentLayout::Kind::Rows)
            changed |= assign(bc.getResult(),
                              FragmentLayout::acc(s->m, dst[1], warps));
          else if (s->kind == FragmentLayout::Kind::Cols)
            changed |= assign(bc.getResult(),
                              FragmentLayout::acc(dst[0], s->n, warps));
        }
        return;
      }
      if (auto red = dyn_cast<ReduceOp>(op)) {
        auto in = find(red.getInputs()[0]);
        if (in && in->kind == FragmentLayout::Kind::Acc && red.getDim() == 1)
          for (Value r : red.getResults())
            changed |= assign(r, FragmentLayout::rows(in->m, warps));
        return;
      }
      if (auto rs = dyn_cast<ReshapeOp>(op)) {
        for (auto [from, to] : {std::pair<Value, Value>{rs.getSource(), rs.getResult()},
                                {rs.getResult(), rs.getSource()}})
          if (auto l = find(from); l && l->kind != FragmentLayout::Kind::Acc)
            changed |= assign(to, *l);
        return;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
          changed |= unify({loop.getInitArgs()[i], loop.getRegionIterArgs()[i],
                            loop.getResult(i), yield.getOperand(i)});
        return;
      }
    });
  }

  // A permute that only feeds fragment dots as B is never built: the dot
  // stages its source and reads it transposed.
  for (Operation *op : plan.dots) {
    auto permute = cast<DotOp>(op).getB().getDefiningOp<PermuteOp>();
    if (!permute || permute.getPermutation() != ArrayRef<int64_t>{1, 0})
      continue;
    bool onlyB = llvm::all_of(permute->getUses(), [&](OpOperand &use) {
      return plan.dots.count(use.getOwner()) && use.getOperandNumber() == 1;
    });
    if (onlyB)
      plan.foldedPermutes.insert(permute);
  }
  return plan;
}
