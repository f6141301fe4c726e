//===- PlanFragments.cpp - the fragment layouts as attributes -------------===//
//
// The layouts planFragmentLayouts (FragmentLayouts.cpp) decides, written on
// the ops whose tiles they distribute, so that they can be printed, tested
// and pinned by hand; the lowering reads them back (readFragmentPlan)
// instead of deciding.
//
//===----------------------------------------------------------------------===//

#include "Layouts.h"
#include "Remarks.h"

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/HopperMatmul.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace tile {
#define GEN_PASS_DEF_PLANFRAGMENTS
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

namespace {

constexpr llvm::StringLiteral kFragmentDotAttrName = "tile.fragment_dot";
constexpr llvm::StringLiteral kFoldedPermuteAttrName = "tile.folded_permute";
constexpr llvm::StringLiteral kFragmentsAttrName = "tile.fragments";
constexpr llvm::StringLiteral kIterArgFragmentsAttrName = "tile.iter_arg_fragments";

Attribute layoutAttr(Builder &b, const std::optional<FragmentLayout> &l) {
  if (!l)
    return b.getUnitAttr();
  SmallVector<NamedAttribute> fields;
  switch (l->kind) {
  case FragmentLayout::Kind::Acc:
    fields = {b.getNamedAttr("kind", b.getStringAttr("acc")),
              b.getNamedAttr("m", b.getI64IntegerAttr(l->m)),
              b.getNamedAttr("n", b.getI64IntegerAttr(l->n))};
    break;
  case FragmentLayout::Kind::Rows:
    fields = {b.getNamedAttr("kind", b.getStringAttr("rows")),
              b.getNamedAttr("m", b.getI64IntegerAttr(l->m))};
    break;
  case FragmentLayout::Kind::Cols:
    fields = {b.getNamedAttr("kind", b.getStringAttr("cols")),
              b.getNamedAttr("n", b.getI64IntegerAttr(l->n))};
    break;
  }
  fields.push_back(b.getNamedAttr("warps", b.getI64IntegerAttr(l->warps)));
  return b.getDictionaryAttr(fields);
}

/// The layout `attr` describes for `value`, or none for a unit attribute
/// (flat); an error on `op` where it is malformed, does not fit the tile
/// or is for other than `warps` warps.
FailureOr<std::optional<FragmentLayout>> parseLayout(Operation *op, Attribute attr, Value value,
                                                     int64_t warps) {
  if (isa<UnitAttr>(attr))
    return std::optional<FragmentLayout>();
  auto dict = dyn_cast<DictionaryAttr>(attr);
  auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
  auto field = [&](StringRef name) -> int64_t {
    auto v = dict.getAs<IntegerAttr>(name);
    return v ? v.getInt() : -1;
  };
  if (!kind)
    return op->emitError("tile.fragments: ")
           << attr << " is not a layout ({kind = \"acc\" | \"rows\" | \"cols\", ...} or unit)";
  FragmentLayout l;
  if (kind.getValue() == "acc")
    l = FragmentLayout::acc(field("m"), field("n"), field("warps"));
  else if (kind.getValue() == "rows")
    l = FragmentLayout::rows(field("m"), field("warps"));
  else if (kind.getValue() == "cols")
    l = FragmentLayout::cols(field("n"), field("warps"));
  else
    return op->emitError("tile.fragments: unknown kind '") << kind.getValue() << "'";
  if (l.warps != warps)
    return op->emitError("tile.fragments: ")
           << attr << " is for " << l.warps << " warps, the kernel runs " << warps;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || l.m < 0 || l.n < 0 || !l.fits(type.getShape()))
    return op->emitError("tile.fragments: ") << attr << " does not fit " << value.getType();
  return std::optional<FragmentLayout>(l);
}

/// Reads one ArrayAttr of layouts for `values` into `plan`.
LogicalResult readLayouts(Operation *op, StringRef name, ValueRange values, int64_t warps,
                          FragmentPlan &plan) {
  auto array = op->getAttrOfType<ArrayAttr>(name);
  if (!array)
    return success();
  if (array.size() != values.size())
    return op->emitError(name) << ": " << array.size() << " entries for " << values.size()
                               << " values";
  for (auto [attr, v] : llvm::zip(array, values)) {
    FailureOr<std::optional<FragmentLayout>> l = parseLayout(op, attr, v, warps);
    if (failed(l))
      return failure();
    if (*l)
      plan.layouts[v] = **l;
  }
  return success();
}

} // namespace

bool tile::gpu_lowering::hasFragmentPlan(Operation *kernel) {
  bool found = false;
  kernel->walk([&](DotOp dot) {
    if (dot->hasAttr(kFragmentDotAttrName))
      found = true;
  });
  return found;
}

FailureOr<FragmentPlan> tile::gpu_lowering::readFragmentPlan(Operation *kernel,
                                                             int64_t threads) {
  FragmentPlan plan;
  const int64_t warps = threads / 32;
  WalkResult walk = kernel->walk([&](Operation *op) {
    if (Attribute path = op->getAttr(kFragmentDotAttrName)) {
      auto dot = dyn_cast<DotOp>(op);
      if (!dot)
        return op->emitError("tile.fragment_dot on an op that is not a dot"),
               WalkResult::interrupt();
      auto name = dyn_cast<StringAttr>(path);
      if (!name || (name.getValue() != "wgmma" && name.getValue() != "mma_sync"))
        return op->emitError("tile.fragment_dot: expected \"wgmma\" or \"mma_sync\", got ")
                   << path,
               WalkResult::interrupt();
      if (std::optional<std::string> why = whyNotFragmentDot(dot, threads))
        return op->emitError("tile.fragment_dot: the dot cannot run on fragments: ") << *why,
               WalkResult::interrupt();
      plan.dots.insert(op);
      if (name.getValue() == "wgmma")
        plan.wgmmaDots.insert(op);
    }
    if (op->hasAttr(kFoldedPermuteAttrName)) {
      auto permute = dyn_cast<PermuteOp>(op);
      bool onlyB = permute && permute.getPermutation() == ArrayRef<int64_t>{1, 0} &&
                   !op->use_empty() &&
                   llvm::all_of(op->getUses(), [](OpOperand &use) {
                     return use.getOwner()->hasAttr(kFragmentDotAttrName) &&
                            use.getOperandNumber() == 1;
                   });
      if (!onlyB)
        return op->emitError("tile.folded_permute: not a [1, 0] permute that only feeds "
                             "fragment dots as B"),
               WalkResult::interrupt();
      plan.foldedPermutes.insert(op);
    }
    if (failed(readLayouts(op, kFragmentsAttrName, op->getResults(), warps, plan)))
      return WalkResult::interrupt();
    if (auto loop = dyn_cast<scf::ForOp>(op))
      if (failed(readLayouts(op, kIterArgFragmentsAttrName, loop.getRegionIterArgs(), warps,
                             plan)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // A dot's result, accumulator and A are in the plan with it.
  for (Operation *op : plan.dots) {
    auto dot = cast<DotOp>(op);
    for (Value v : {dot.getResult(), dot.getAcc(), dot.getA()})
      if (!plan.layouts.count(v))
        return op->emitError("tile.fragment_dot: its result, accumulator and A must "
                             "have fragment layouts (tile.fragments)");
  }
  for (Operation *op : plan.wgmmaDots)
    if (std::optional<std::string> why = whyNotWgmmaDot(cast<DotOp>(op), threads, plan))
      return op->emitError("tile.fragment_dot: the dot cannot run on wgmma: ") << *why;
  return plan;
}

/// Writes `plan` on the ops of `kernel`.
static void writeFragmentPlan(Operation *kernel, const FragmentPlan &plan) {
  Builder b(kernel->getContext());
  auto layoutsOf = [&](ValueRange values) -> ArrayAttr {
    SmallVector<Attribute> entries;
    bool any = false;
    for (Value v : values) {
      auto it = plan.layouts.find(v);
      std::optional<FragmentLayout> l;
      if (it != plan.layouts.end())
        l = it->second, any = true;
      entries.push_back(layoutAttr(b, l));
    }
    return any ? b.getArrayAttr(entries) : ArrayAttr();
  };
  kernel->walk([&](Operation *op) {
    if (plan.dots.count(op))
      op->setAttr(kFragmentDotAttrName,
                  b.getStringAttr(plan.wgmmaDots.count(op) ? "wgmma" : "mma_sync"));
    if (plan.foldedPermutes.count(op))
      op->setAttr(kFoldedPermuteAttrName, b.getUnitAttr());
    if (ArrayAttr a = layoutsOf(op->getResults()))
      op->setAttr(kFragmentsAttrName, a);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      if (ArrayAttr a = layoutsOf(loop.getRegionIterArgs()))
        op->setAttr(kIterArgFragmentsAttrName, a);
  });
}

int64_t tile::gpu_lowering::programThreads(KernelOp kernel, int64_t numWarps) {
  if (auto w = kernel->getAttrOfType<IntegerAttr>(kNumWarpsAttrName))
    return w.getInt() * 32;
  return numWarps * 32;
}

namespace {
struct PlanFragmentsPass : public tile::impl::PlanFragmentsBase<PlanFragmentsPass> {
  using PlanFragmentsBase::PlanFragmentsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel->hasAttr(kOwnershipVerifiedAttrName) || kernel->hasAttr(kHopperMatmulAttrName))
      return;
    const int64_t threads = programThreads(kernel, numWarps);
    if (threads < 32 || threads > 1024 || threads % 32 != 0) {
      kernel.emitError("tile-plan-fragments: tile.num_warps must be in [1, 32]");
      return signalPassFailure();
    }
    // A plan pinned by hand (any dot with its path) is checked and kept.
    bool pinned = hasFragmentPlan(kernel);
    kernel.walk([&](DotOp dot) { pinned |= dot->hasAttr(kFlatDotAttrName); });
    FragmentPlan plan;
    std::vector<std::pair<DotOp, std::string>> notWgmma;
    if (pinned) {
      FailureOr<FragmentPlan> read = readFragmentPlan(kernel, threads);
      if (failed(read))
        return signalPassFailure();
      plan = std::move(*read);
    } else {
      plan = planFragmentLayouts(kernel, threads);
      if (wgmmaDots)
        for (Operation *op : plan.dots) {
          std::optional<std::string> why =
              whyNotWgmmaDot(cast<DotOp>(op), threads, plan);
          if (!why)
            plan.wgmmaDots.insert(op);
          else
            notWgmma.push_back({cast<DotOp>(op), *why});
        }
      writeFragmentPlan(kernel, plan);
    }
    // The other dots stage their operands at each use, on mma.sync where
    // it can run.
    std::vector<std::pair<DotOp, std::string>> onFma;
    OpBuilder b(&getContext());
    kernel.walk([&](DotOp dot) {
      if (plan.dots.count(dot) || dot->hasAttr(kFlatDotAttrName))
        return;
      std::optional<std::string> why = whyNotStagedMma(dot);
      dot->setAttr(kFlatDotAttrName, b.getStringAttr(why ? "fma" : "mma_sync"));
      if (why)
        onFma.push_back({dot, *why});
    });
    if (!remarksEnabled(&getContext()))
      return;
    auto opts = [&](StringRef name) {
      return remark::RemarkOpts::name(name).category(getArgument()).function(
          kernel.getSymName());
    };
    kernel.walk([&](DotOp dot) {
      if (pinned)
        return;
      if (std::optional<std::string> why = whyNotFragmentDot(dot, threads))
        remark::missed(dot.getLoc(), opts("mma-fragments"))
            << remark::reason("operands and accumulator through shared memory "
                              "at every dot: {0}",
                              *why);
    });
    for (auto &[dot, why] : notWgmma)
      remark::missed(dot.getLoc(), opts("wgmma-dots"))
          << remark::reason("mma.sync instead of wgmma: {0}", why);
    for (auto &[dot, why] : onFma)
      remark::missed(dot.getLoc(), opts("tensor-cores"))
          << remark::reason("FMA instead of mma.sync: {0}", why);
  }
};
} // namespace
