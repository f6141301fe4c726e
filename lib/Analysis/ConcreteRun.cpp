//===- ConcreteRun.cpp - a kernel's index arithmetic, evaluated ------------===//

#include "tile/Analysis/ConcreteRun.h"
#include "tile/Analysis/IntegerSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tile;

int64_t ConcreteLaunch::dim(KernelOp kernel, unsigned arg, unsigned d) const {
  auto type = cast<ViewType>(kernel.getBody().getArgument(arg).getType());
  int64_t size = type.getShape()[d];
  if (!ShapedType::isDynamic(size))
    return size;
  auto it = dims.find({arg, d});
  return it == dims.end() ? 0 : it->second;
}

namespace {

/// A tile of integers loaded from a partition, read element by element.
struct LoadedTile {
  unsigned arg;
  SmallVector<int64_t> start;
  std::optional<int64_t> padding;
};

class Runner {
public:
  Runner(KernelOp kernel, const ConcreteLaunch &launch,
         std::array<int64_t, 3> pid, unsigned maxSteps, bool hostOnly = false)
      : kernel(kernel), launch(launch), pid(pid), steps(maxSteps),
        hostOnly(hostOnly) {}

  ConcreteTrace run() {
    Block &body = kernel.getBody().front();
    for (BlockArgument arg : body.getArguments())
      if (arg.getType().isIntOrIndex()) {
        auto it = launch.scalars.find(arg.getArgNumber());
        if (it != launch.scalars.end())
          env[arg] = APInt(integerWidth(arg.getType()), it->second,
                           /*isSigned=*/true, /*implicitTrunc=*/true);
      }
    runBlock(body);
    return std::move(trace);
  }

  std::optional<APInt> lookup(Value v) {
    auto it = env.find(v);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  }

  bool runBlock(Block &block) {
    for (Operation &op : block)
      if (!runOp(op))
        return false;
    return true;
  }

private:
  bool fail(const Twine &why) {
    if (trace.complete)
      trace.why = why.str();
    trace.complete = false;
    return false;
  }
  std::optional<SmallVector<int64_t>> indexValues(ValueRange values) {
    SmallVector<int64_t> r;
    for (Value v : values) {
      std::optional<APInt> x = lookup(v);
      if (!x)
        return std::nullopt;
      r.push_back(x->getSExtValue());
    }
    return r;
  }
  bool runOp(Operation &op);
  bool runFor(scf::ForOp loop);
  void evalArith(Operation &op);

  KernelOp kernel;
  const ConcreteLaunch &launch;
  std::array<int64_t, 3> pid;
  unsigned steps;
  /// Only the kernel's top-level integer ops (host values).
  bool hostOnly;
  llvm::DenseMap<Value, APInt> env;
  llvm::DenseMap<Value, LoadedTile> tiles;
  ConcreteTrace trace;
};

} // namespace

static APInt fromInt(Type type, int64_t v) {
  return APInt(integerWidth(type), v, /*isSigned=*/true,
               /*implicitTrunc=*/true);
}

void Runner::evalArith(Operation &op) {
  if (op.getNumResults() != 1 || !op.getResult(0).getType().isIntOrIndex())
    return;
  Value result = op.getResult(0);
  Type type = result.getType();
  unsigned width = integerWidth(type);
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto attr = dyn_cast<IntegerAttr>(c.getValue()))
      env[result] = attr.getValue().zextOrTrunc(width);
    return;
  }
  SmallVector<APInt, 2> x;
  for (Value v : op.getOperands()) {
    std::optional<APInt> a = lookup(v);
    if (!a)
      return; // Unknown in, unknown out.
    x.push_back(*a);
  }
  auto set = [&](const APInt &v) { env[result] = v; };
  // Casts.
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op))
    return set(x[0].sextOrTrunc(width));
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op))
    return set(x[0].zextOrTrunc(width));
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return set(APInt(1, arith::applyCmpPredicate(cmp.getPredicate(), x[0],
                                                 x[1])));
  if (isa<arith::SelectOp>(op))
    return set(x[0].getBoolValue() ? x[1] : x[2]);
  if (x.size() != 2)
    return;
  const APInt &a = x[0], &b = x[1];
  if (isa<arith::AddIOp>(op))
    return set(a + b);
  if (isa<arith::SubIOp>(op))
    return set(a - b);
  if (isa<arith::MulIOp>(op))
    return set(a * b);
  if (isa<arith::AndIOp>(op))
    return set(a & b);
  if (isa<arith::OrIOp>(op))
    return set(a | b);
  if (isa<arith::XOrIOp>(op))
    return set(a ^ b);
  if (isa<arith::MinSIOp>(op))
    return set(a.slt(b) ? a : b);
  if (isa<arith::MaxSIOp>(op))
    return set(a.sgt(b) ? a : b);
  if (isa<arith::MinUIOp>(op))
    return set(a.ult(b) ? a : b);
  if (isa<arith::MaxUIOp>(op))
    return set(a.ugt(b) ? a : b);
  // Shifts by the width or more, divisions by zero and the signed
  // division overflow are poison: unknown.
  if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
    if (b.uge(width))
      return;
    unsigned s = b.getZExtValue();
    if (isa<arith::ShLIOp>(op))
      return set(a.shl(s));
    return set(isa<arith::ShRSIOp>(op) ? a.ashr(s) : a.lshr(s));
  }
  if (b.isZero())
    return;
  bool overflow = a.isMinSignedValue() && b.isAllOnes();
  if (isa<arith::DivUIOp>(op))
    return set(a.udiv(b));
  if (isa<arith::RemUIOp>(op))
    return set(a.urem(b));
  if (isa<arith::CeilDivUIOp>(op))
    return set(llvm::APIntOps::RoundingUDiv(a, b, APInt::Rounding::UP));
  if (overflow)
    return;
  if (isa<arith::DivSIOp>(op))
    return set(a.sdiv(b));
  if (isa<arith::RemSIOp>(op))
    return set(a.srem(b));
  if (isa<arith::FloorDivSIOp>(op))
    return set(llvm::APIntOps::RoundingSDiv(a, b, APInt::Rounding::DOWN));
  if (isa<arith::CeilDivSIOp>(op))
    return set(llvm::APIntOps::RoundingSDiv(a, b, APInt::Rounding::UP));
}

bool Runner::runFor(scf::ForOp loop) {
  std::optional<APInt> lb = lookup(loop.getLowerBound()),
                       ub = lookup(loop.getUpperBound()),
                       step = lookup(loop.getStep());
  if (!lb || !ub || !step)
    return fail("a loop bound is unknown");
  if (step->isZero() || (!loop.getUnsignedCmp() && step->isNegative()))
    return fail("a loop step is not positive");
  for (auto [arg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    if (std::optional<APInt> v = lookup(init))
      env[arg] = *v;
  APInt iv = *lb;
  bool isUnsigned = loop.getUnsignedCmp();
  while (isUnsigned ? iv.ult(*ub) : iv.slt(*ub)) {
    env[loop.getInductionVar()] = iv;
    Block &body = *loop.getBody();
    for (Operation &op : body.without_terminator())
      if (!runOp(op))
        return false;
    auto yield = cast<scf::YieldOp>(body.getTerminator());
    for (auto [arg, v] : llvm::zip(loop.getRegionIterArgs(), yield.getResults())) {
      if (std::optional<APInt> x = lookup(v))
        env[arg] = *x;
      else
        env.erase(arg);
    }
    APInt next = iv + *step;
    // The iv wraps past its type: the loop runs on (checkLoop rejects it).
    if (isUnsigned ? next.ult(iv) : next.slt(iv))
      return fail("the induction variable wraps");
    iv = next;
  }
  for (auto [res, arg] : llvm::zip(loop.getResults(), loop.getRegionIterArgs()))
    if (std::optional<APInt> x = lookup(arg))
      env[res] = *x;
  return true;
}

bool Runner::runOp(Operation &op) {
  if (steps-- == 0)
    return fail("too many steps");
  if (isa<UncheckedOp, JoinOp, GridOp, AssumeOp, AssumeDistinctOp>(op) ||
      (hostOnly && (op.getNumRegions() || isa<OwnOp, LoadOp, StoreOp>(op))))
    return true;
  if (auto p = dyn_cast<ProgramIdOp>(op)) {
    env[p.getResult()] = APInt(64, pid[static_cast<unsigned>(p.getDim())]);
    return true;
  }
  if (auto n = dyn_cast<NumProgramsOp>(op)) {
    env[n.getResult()] =
        APInt(64, launch.grid[static_cast<unsigned>(n.getDim())]);
    return true;
  }
  if (auto d = dyn_cast<DimOp>(op)) {
    auto arg = cast<BlockArgument>(d.getView());
    env[d.getResult()] =
        APInt(64, launch.dim(kernel, arg.getArgNumber(), d.getIndex()));
    return true;
  }
  if (auto t = dyn_cast<NumTilesOp>(op)) {
    auto partition = t.getPartition().getDefiningOp<PartitionOp>();
    auto arg = cast<BlockArgument>(partition.getView());
    int64_t tile = t.getPartition().getType().getTileShape()[t.getIndex()];
    int64_t dim = launch.dim(kernel, arg.getArgNumber(), t.getIndex());
    env[t.getResult()] = APInt(64, llvm::divideCeilSigned(dim, tile));
    return true;
  }
  if (auto own = dyn_cast<OwnOp>(op)) {
    std::optional<SmallVector<int64_t>> idx = indexValues(own.getIndices());
    if (!idx)
      return fail("a claimed index is unknown");
    trace.claims.push_back({&op, *idx});
    return true;
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    std::optional<SmallVector<int64_t>> idx = indexValues(load.getIndices());
    if (!idx)
      return fail("a load index is unknown");
    if (isa<OwnedType>(load.getSource().getType())) {
      if (!idx->empty())
        trace.subTiles.push_back({&op, *idx});
      return true;
    }
    auto partition = load.getSource().getDefiningOp<PartitionOp>();
    auto arg = partition ? dyn_cast<BlockArgument>(partition.getView())
                         : BlockArgument();
    if (!arg || !load.getResult().getType().getElementType().isIntOrIndex())
      return true;
    LoadedTile t{arg.getArgNumber(), {}, std::nullopt};
    for (auto [i, size] : llvm::zip(*idx, partition.getType().getTileShape()))
      t.start.push_back(i * size);
    t.padding = 0;
    if (auto pad = dyn_cast_or_null<IntegerAttr>(load.getPaddingAttr()))
      t.padding = pad.getValue().getSExtValue();
    tiles[load.getResult()] = t;
    return true;
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    if (!store.getIndices().empty()) {
      std::optional<SmallVector<int64_t>> idx = indexValues(store.getIndices());
      if (!idx)
        return fail("a sub-tile index is unknown");
      trace.subTiles.push_back({&op, *idx});
    }
    return true;
  }
  if (auto extract = dyn_cast<ExtractOp>(op)) {
    auto it = tiles.find(extract.getSource());
    if (it == tiles.end())
      return true; // Unknown.
    const LoadedTile &t = it->second;
    SmallVector<int64_t> coords;
    bool inside = true;
    for (auto [d, pos] : llvm::enumerate(extract.getPosition())) {
      coords.push_back(t.start[d] + pos);
      int64_t extent = launch.dim(kernel, t.arg, d);
      inside &= coords.back() >= 0 && coords.back() < extent;
    }
    std::optional<int64_t> v = inside && launch.data
                                   ? launch.data(t.arg, coords, &op)
                                   : (inside ? std::nullopt : t.padding);
    if (v)
      env[extract.getResult()] = fromInt(extract.getType(), *v);
    return true;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return runFor(loop);
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    std::optional<APInt> c = lookup(ifOp.getCondition());
    if (!c)
      return fail("an if condition is unknown");
    Region &region = c->getBoolValue() ? ifOp.getThenRegion()
                                       : ifOp.getElseRegion();
    if (region.empty())
      return true;
    Block &block = region.front();
    for (Operation &inner : block.without_terminator())
      if (!runOp(inner))
        return false;
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    for (auto [res, v] : llvm::zip(ifOp.getResults(), yield.getResults()))
      if (std::optional<APInt> x = lookup(v))
        env[res] = *x;
    return true;
  }
  evalArith(op);
  return true;
}

ConcreteTrace tile::runProgram(KernelOp kernel, const ConcreteLaunch &launch,
                               std::array<int64_t, 3> pid, unsigned maxSteps) {
  return Runner(kernel, launch, pid, maxSteps).run();
}

std::optional<int64_t> tile::evaluateLaunchValue(KernelOp kernel,
                                                 const ConcreteLaunch &launch,
                                                 Value value) {
  // Host values are computed from the kernel's top-level ops: run them.
  Runner runner(kernel, launch, {0, 0, 0}, 100000, /*hostOnly=*/true);
  ConcreteTrace ignored = runner.run();
  (void)ignored;
  std::optional<APInt> v = runner.lookup(value);
  if (!v)
    return std::nullopt;
  return v->getBitWidth() == 1 ? static_cast<int64_t>(v->getZExtValue())
                               : v->getSExtValue();
}
