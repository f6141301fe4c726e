//===- IndexSystem.cpp - index values as Presburger constraints ------------===//

#include "tile/Analysis/IndexSystem.h"
#include "tile/Analysis/IntegerSemantics.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/Presburger/IntegerRelation.h"
#include "mlir/Analysis/Presburger/PresburgerSpace.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tile;

//===----------------------------------------------------------------------===//
// LinearExpr
//===----------------------------------------------------------------------===//

LinearExpr LinearExpr::operator+(const LinearExpr &o) const {
  LinearExpr r = *this;
  for (auto [v, c] : o.coeffs) {
    int64_t &slot = r.coeffs[v];
    slot += c;
    if (slot == 0)
      r.coeffs.erase(v);
  }
  r.constant += o.constant;
  return r;
}

LinearExpr LinearExpr::operator-(const LinearExpr &o) const {
  return *this + o * -1;
}

LinearExpr LinearExpr::operator*(int64_t k) const {
  LinearExpr r;
  if (k == 0)
    return r;
  for (auto [v, c] : coeffs)
    r.coeffs[v] = c * k;
  r.constant = constant * k;
  return r;
}

//===----------------------------------------------------------------------===//
// IndexSystem
//===----------------------------------------------------------------------===//

std::string tile::describeKernelArg(KernelOp kernel, unsigned index) {
  if (auto name = kernel.getArgAttrOfType<StringAttr>(index, "tile.name"))
    return "'" + name.str() + "'";
  return "%arg" + std::to_string(index);
}

static constexpr int64_t kMaxGridExtent[3] = {(int64_t(1) << 31) - 1, 65535,
                                              65535};

IndexSystem::IndexSystem(KernelOp kernel, Uniformity &uniformity,
                         DataFlowSolver &ranges, bool exact)
    : kernel(kernel), uniformity(uniformity), ranges(ranges), exact(exact) {
  auto launchTime = [&](Value root) {
    for (Operation *op : launchExpressionOps(root))
      if (launchWrapRule(op) != LaunchWrapRule::None)
        launchChecked.insert(op);
  };
  kernel.getBody().front().walk([&](Operation *op) {
    if (auto g = dyn_cast<GridOp>(op)) {
      gridOp = g;
      for (Value extent : g.getExtents())
        launchTime(extent);
    } else if (auto assume = dyn_cast<AssumeOp>(op)) {
      launchTime(assume.getCondition());
    } else if (auto distinct = dyn_cast<AssumeDistinctOp>(op)) {
      launchTime(distinct.getLo());
      launchTime(distinct.getHi());
      tables[cast<BlockArgument>(distinct.getTable()).getArgNumber()] =
          distinct;
    }
  });
  grid.resize(3);
}

unsigned IndexSystem::gridRank() const {
  GridOp op = gridOp;
  return op ? op.getExtents().size() : 3;
}

unsigned IndexSystem::newVar(std::string name, Copy copy, bool show) {
  vars.push_back({std::move(name), copy, show});
  return vars.size() - 1;
}

static StringRef copySuffix(Copy copy) {
  switch (copy) {
  case Copy::Shared:
    return "";
  case Copy::A:
    return "@A";
  case Copy::B:
    return "@B";
  }
  return "";
}

LinearExpr IndexSystem::gridExtent(unsigned dim) {
  if (grid[dim])
    return *grid[dim];
  LinearExpr e;
  if (gridOp && dim >= gridOp.getExtents().size()) {
    e = LinearExpr::constantExpr(1);
  } else if (gridOp) {
    e = get(gridOp.getExtents()[dim], Copy::Shared);
  } else {
    e = LinearExpr::var(
        newVar(std::string("grid.") + "xyz"[dim], Copy::Shared, true));
    add(LinearConstraint::le(LinearExpr::constantExpr(1), e));
  }
  add(LinearConstraint::le(e, LinearExpr::constantExpr(kMaxGridExtent[dim])));
  grid[dim] = e;
  return e;
}

LinearExpr IndexSystem::programId(unsigned dim, Copy copy) {
  assert(copy != Copy::Shared && "program ids differ between programs");
  auto key = std::make_pair(dim, static_cast<unsigned>(copy));
  auto it = programIds.find(key);
  if (it != programIds.end())
    return LinearExpr::var(it->second);
  unsigned v = newVar(std::string("pid.") + "xyz"[dim] + copySuffix(copy).str(),
                      copy, true);
  programIds[key] = v;
  LinearExpr p = LinearExpr::var(v);
  add(LinearConstraint::le(LinearExpr::constantExpr(0), p));
  add(LinearConstraint::le(p, gridExtent(dim) - 1));
  return p;
}

LinearExpr IndexSystem::numTiles(BlockArgument view, unsigned d,
                                 int64_t tile) {
  auto key = std::make_tuple(view.getArgNumber(), d, tile);
  auto it = tileCounts.find(key);
  if (it != tileCounts.end())
    return it->second;
  auto type = cast<ViewType>(view.getType());
  LinearExpr dimExpr;
  int64_t size = type.getShape()[d];
  if (!ShapedType::isDynamic(size)) {
    dimExpr = LinearExpr::constantExpr(size);
  } else {
    auto dkey = std::make_pair(view.getArgNumber(), d);
    auto dit = dimVars.find(dkey);
    unsigned v;
    if (dit != dimVars.end()) {
      v = dit->second;
    } else {
      v = newVar("dim(" + describeKernelArg(kernel, view.getArgNumber()) +
                     ", " + std::to_string(d) + ")",
                 Copy::Shared, true);
      dimVars[dkey] = v;
      vars[v].launchValue = true;
      add(LinearConstraint::le(LinearExpr::constantExpr(0),
                               LinearExpr::var(v)));
    }
    dimExpr = LinearExpr::var(v);
  }
  LinearExpr n = ceilDiv(dimExpr, tile, Copy::Shared);
  tileCounts[key] = n;
  return n;
}

std::optional<int64_t> IndexSystem::getConstantInt(Value value) {
  APInt v;
  if (matchPattern(value, m_ConstantInt(&v)))
    return v.getSExtValue();
  return std::nullopt;
}

std::optional<ConstantIntRanges> IndexSystem::rangeOf(Value value) {
  auto *lattice =
      ranges.lookupState<dataflow::IntegerValueRangeLattice>(value);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}

bool IndexSystem::isKnownFalse(Value value) {
  if (std::optional<int64_t> c = getConstantInt(value))
    return *c == 0;
  std::optional<ConstantIntRanges> r = rangeOf(value);
  return r && r->umin().isZero() && r->umax().isZero();
}

bool IndexSystem::isNonNegative(Value value) {
  if (std::optional<int64_t> c = getConstantInt(value))
    return *c >= 0;
  std::optional<ConstantIntRanges> r = rangeOf(value);
  return r && r->smin().isNonNegative();
}

bool IndexSystem::isAtLeast(Value value, int64_t k, Copy copy) {
  if (std::optional<int64_t> c = getConstantInt(value))
    return *c >= k;
  if (std::optional<ConstantIntRanges> r = rangeOf(value);
      r && r->smin().getBitWidth() <= 64 && r->smin().getSExtValue() >= k)
    return true;
  if (Operation *op = value.getDefiningOp()) {
    if (isa<arith::MinSIOp>(op))
      return isAtLeast(op->getOperand(0), k, copy) &&
             isAtLeast(op->getOperand(1), k, copy);
    if (isa<arith::MaxSIOp>(op))
      return isAtLeast(op->getOperand(0), k, copy) ||
             isAtLeast(op->getOperand(1), k, copy);
    // Shifting the bound is exact only where the add cannot wrap; the
    // system's model below covers narrow types.
    if (isa<arith::AddIOp, arith::SubIOp>(op) &&
        integerWidth(value.getType()) >= 64)
      if (std::optional<int64_t> c = getConstantInt(op->getOperand(1)))
        return isAtLeast(op->getOperand(0),
                         isa<arith::AddIOp>(op) ? k - *c : k + *c, copy);
  }
  return isEmpty({LinearConstraint::le(get(value, copy),
                                       LinearExpr::constantExpr(k - 1))});
}

void IndexSystem::addRangeBounds(Value value, const LinearExpr &e) {
  // A narrow value lies in its type's signed range, which later no-wrap
  // proofs need; the range of a 64-bit type adds nothing the model uses.
  unsigned width = integerWidth(value.getType());
  int64_t lo = signedMin(width), hi = signedMax(width);
  bool typeBounds = width < 64;
  if (std::optional<ConstantIntRanges> r = rangeOf(value);
      r && r->smin().getBitWidth() <= 64) {
    lo = std::max(lo, r->smin().getSExtValue());
    hi = std::min(hi, r->smax().getSExtValue());
  }
  if (typeBounds || lo > signedMin(64))
    add(LinearConstraint::le(LinearExpr::constantExpr(lo), e));
  if (typeBounds || hi < signedMax(64))
    add(LinearConstraint::le(e, LinearExpr::constantExpr(hi)));
}

LinearExpr IndexSystem::ifNoWrap(Value value, const LinearExpr &e, Copy copy) {
  unsigned width = integerWidth(value.getType());
  if (width >= 64)
    return e;
  LinearExpr lo = LinearExpr::constantExpr(signedMin(width));
  LinearExpr hi = LinearExpr::constantExpr(signedMax(width));
  Operation *op = value.getDefiningOp();
  if (launchChecked.contains(op)) {
    add(LinearConstraint::le(lo, e));
    add(LinearConstraint::le(e, hi));
    return e;
  }
  if (isEmpty({LinearConstraint::le(e, lo - 1)}) &&
      isEmpty({LinearConstraint::le(hi + 1, e)}))
    return e;
  mayWrap.insert({op, width});
  LinearExpr u = freeVar(value, copy, "may wrap in i" + std::to_string(width));
  // Exact mode: the value is e modulo 2^N in the type's range,
  // u = e - 2^N * k for an integer k. Wider types' coefficients send the
  // solver to big integers: there, split on k in {-1, 0, 1}, the rest of
  // e's range leaving u unknown.
  if (exact && width <= 8) {
    LinearExpr k = LinearExpr::var(newVar("wraps", copy));
    add(LinearConstraint::eq(u, e - k * (int64_t(1) << width)));
  } else if (exact) {
    int64_t m = int64_t(1) << width;
    addChoice({{LinearConstraint::eq(u, e)},
               {LinearConstraint::eq(u, e - m)},
               {LinearConstraint::eq(u, e + m)},
               {LinearConstraint::le(hi + (m + 1), e)},
               {LinearConstraint::le(e, lo - (m + 1))}});
  }
  return u;
}

void IndexSystem::noteMayWrap(InFlightDiagnostic &diag) const {
  for (auto [op, width] : mayWrap)
    diag.attachNote(op->getLoc())
        << "this i" << width << " '" << op->getName()
        << "' may wrap: its exact result is not proven to fit i" << width
        << " [" << signedMin(width) << ", " << signedMax(width)
        << "], so the proof takes its value "
        << (exact ? "modulo 2^" + std::to_string(width) : "as unknown");
}

std::string IndexSystem::nameOf(Value value) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (isa<KernelOp>(arg.getOwner()->getParentOp()))
      return describeKernelArg(kernel, arg.getArgNumber());
    os << "block argument #" << arg.getArgNumber();
  } else {
    os << "'" << value.getDefiningOp()->getName() << "'";
  }
  return s;
}

LinearExpr IndexSystem::freeVar(Value value, Copy copy, StringRef why) {
  // Shown in witnesses: the proof treated this value as unknown.
  unsigned v = newVar(nameOf(value) + " (" + why.str() + ")" +
                          copySuffix(copy).str(),
                      copy, /*showInWitness=*/true);
  LinearExpr e = LinearExpr::var(v);
  addRangeBounds(value, e);
  return e;
}

LinearExpr IndexSystem::floorDiv(const LinearExpr &e, int64_t c, Copy copy) {
  if (std::optional<int64_t> k = e.getConstant())
    return LinearExpr::constantExpr(llvm::divideFloorSigned(*k, c));
  if (c == 1)
    return e;
  // q = floor(e / c)  <=>  c*q <= e <= c*q + c - 1
  LinearExpr q = LinearExpr::var(newVar("floordiv", copy));
  add(LinearConstraint::le(q * c, e));
  add(LinearConstraint::le(e, q * c + (c - 1)));
  return q;
}

LinearExpr IndexSystem::ceilDiv(const LinearExpr &e, int64_t c, Copy copy) {
  if (std::optional<int64_t> k = e.getConstant())
    return LinearExpr::constantExpr(llvm::divideCeilSigned(*k, c));
  if (c == 1)
    return e;
  // q = ceil(e / c)  <=>  c*q - c + 1 <= e <= c*q
  LinearExpr q = LinearExpr::var(newVar("ceildiv", copy));
  add(LinearConstraint::le(e, q * c));
  add(LinearConstraint::le(q * c - (c - 1), e));
  return q;
}

std::optional<LinearExpr> IndexSystem::lookup(Value value, Copy copy) const {
  for (Copy c : {copy, Copy::Shared}) {
    auto it = memo.find({value, static_cast<unsigned>(c)});
    if (it != memo.end())
      return it->second;
  }
  return std::nullopt;
}

LinearExpr IndexSystem::get(Value value, Copy copy) {
  if (uniformity.isUniform(value))
    copy = Copy::Shared;
  auto key = std::make_pair(value, static_cast<unsigned>(copy));
  auto it = memo.find(key);
  if (it != memo.end())
    return it->second;
  LinearExpr e = compute(value, copy);
  memo[key] = e;
  return e;
}

LinearExpr IndexSystem::compute(Value value, Copy copy) {
  if (std::optional<int64_t> c = getConstantInt(value))
    return LinearExpr::constantExpr(*c);

  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (isa<KernelOp>(parent)) {
      LinearExpr e = LinearExpr::var(
          newVar(describeKernelArg(kernel, arg.getArgNumber()), Copy::Shared,
                 true));
      vars.back().launchValue = true;
      addRangeBounds(value, e);
      return e;
    }
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (loop && arg == loop.getInductionVar()) {
      if (exact && !getConstantInt(loop.getStep()))
        if (std::optional<LinearExpr> iv = steppedIv(loop, copy))
          return *iv;
      // lb <= iv < ub, iv = lb + step * k for a constant step (the verifier
      // rejects loops whose iv may wrap: checkLoop).
      LinearExpr lb = get(loop.getLowerBound(), copy);
      LinearExpr ub = get(loop.getUpperBound(), copy);
      LinearExpr iv =
          LinearExpr::var(newVar("loop iv" + copySuffix(copy).str(), copy));
      add(LinearConstraint::le(lb, iv));
      add(LinearConstraint::le(iv, ub - 1));
      if (std::optional<int64_t> step = getConstantInt(loop.getStep());
          step && *step > 1) {
        LinearExpr k = LinearExpr::var(newVar("loop trip", copy));
        add(LinearConstraint::eq(iv, lb + k * *step));
      }
      return iv;
    }
    return freeVar(value, copy, "block argument");
  }

  Operation *op = value.getDefiningOp();
  auto operand = [&](unsigned i) { return get(op->getOperand(i), copy); };
  auto constOperand = [&](unsigned i) {
    return getConstantInt(op->getOperand(i));
  };

  if (auto pid = dyn_cast<ProgramIdOp>(op)) {
    assert(copy != Copy::Shared);
    return programId(static_cast<unsigned>(pid.getDim()), copy);
  }
  if (auto n = dyn_cast<NumProgramsOp>(op))
    return gridExtent(static_cast<unsigned>(n.getDim()));
  if (auto dim = dyn_cast<DimOp>(op)) {
    auto arg = cast<BlockArgument>(dim.getView());
    // ceildiv(d, 1) == d: reuse the shared dim variable.
    return numTiles(arg, dim.getIndex(), 1);
  }
  if (auto tiles = dyn_cast<NumTilesOp>(op)) {
    PartitionType type = tiles.getPartition().getType();
    auto partition = tiles.getPartition().getDefiningOp<PartitionOp>();
    auto arg = cast<BlockArgument>(partition.getView());
    return numTiles(arg, tiles.getIndex(),
                    type.getTileShape()[tiles.getIndex()]);
  }
  // The contract checks these operands non-negative (launchWrapRule).
  if (launchChecked.contains(op) &&
      launchWrapRule(op) == LaunchWrapRule::OperandsNonNegative)
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      add(LinearConstraint::le(LinearExpr::constantExpr(0), operand(i)));
  unsigned width = integerWidth(value.getType());
  if (exact)
    if (std::optional<LinearExpr> e = computeExact(value, op, copy))
      return *e;

  if (isa<arith::AddIOp>(op))
    return ifNoWrap(value, operand(0) + operand(1), copy);
  if (isa<arith::SubIOp>(op))
    return ifNoWrap(value, operand(0) - operand(1), copy);
  if (isa<arith::MulIOp>(op)) {
    if (std::optional<int64_t> c = constOperand(1))
      return ifNoWrap(value, operand(0) * *c, copy);
    if (std::optional<int64_t> c = constOperand(0))
      return ifNoWrap(value, operand(1) * *c, copy);
    // A product of two variables is not linear.
    LinearExpr a = operand(0), b = operand(1);
    if (std::optional<int64_t> c = b.getConstant())
      return ifNoWrap(value, a * *c, copy);
    if (std::optional<int64_t> c = a.getConstant())
      return ifNoWrap(value, b * *c, copy);
    return freeVar(value, copy, "non-linear product");
  }
  // Shifts by a constant below the width: shl multiplies (and may wrap),
  // an arithmetic shift right is a floor division, a logical one too for
  // a non-negative value. Other shift amounts give poison: unknown.
  if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
    std::optional<int64_t> c = constOperand(1);
    if (!c || *c < 0 || *c >= static_cast<int64_t>(width) || *c >= 63)
      return freeVar(value, copy, "shift by a non-constant");
    int64_t scale = int64_t(1) << *c;
    if (isa<arith::ShLIOp>(op))
      return ifNoWrap(value, operand(0) * scale, copy);
    if (isa<arith::ShRSIOp>(op) || isAtLeast(op->getOperand(0), 0, copy))
      return floorDiv(operand(0), scale, copy);
    return freeVar(value, copy, "logical shift of a value that may be negative");
  }
  if (isa<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::RemSIOp,
          arith::RemUIOp>(op)) {
    std::optional<int64_t> c = constOperand(1);
    if (!c || *c <= 0) {
      LinearExpr d = operand(1);
      if (std::optional<int64_t> k = d.getConstant(); k && *k > 0)
        c = k;
    }
    // Truncating and unsigned forms equal the floor forms for a
    // non-negative dividend: known from its integer range, or else from the
    // facts of this system (a ceil-div `(n + c - 1) / c` of a dim, whose
    // range analysis gives up at the add's possible overflow).
    bool floorSemantics = isa<arith::FloorDivSIOp>(op) ||
                          (c && *c > 0 && isAtLeast(op->getOperand(0), 0, copy));
    if (c && *c > 0 && floorSemantics) {
      LinearExpr e = operand(0);
      if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
        return ceilDiv(e, *c, copy);
      LinearExpr q = floorDiv(e, *c, copy);
      if (isa<arith::RemSIOp, arith::RemUIOp>(op))
        return e - q * *c;
      return q;
    }
    // A run-time divisor n >= 1 of a dividend d >= 0 (every form agrees
    // there): the quotient lies in [0, d], the remainder in [0, min(d, n -
    // 1)] (a head index `bg % heads` stays below the head count).
    bool ceil = isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op);
    if (!ceil && isAtLeast(op->getOperand(1), 1, copy) &&
        isAtLeast(op->getOperand(0), 0, copy)) {
      bool rem = isa<arith::RemSIOp, arith::RemUIOp>(op);
      LinearExpr r = freeVar(value, copy, rem ? "remainder by a run-time divisor"
                                              : "quotient by a run-time divisor");
      add(LinearConstraint::le(LinearExpr::constantExpr(0), r));
      add(LinearConstraint::le(r, operand(0)));
      if (rem)
        add(LinearConstraint::le(r, operand(1) - 1));
      return r;
    }
    return freeVar(value, copy, "division by a non-constant");
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op)) {
    // Narrowing keeps the value where it fits; sign extension always keeps
    // the signed interpretation, zero extension where it is non-negative.
    unsigned from = integerWidth(op->getOperand(0).getType());
    if (width < from)
      return ifNoWrap(value, operand(0), copy);
    if (width == from || isa<arith::IndexCastOp, arith::ExtSIOp>(op) ||
        isAtLeast(op->getOperand(0), 0, copy))
      return operand(0);
    return freeVar(value, copy, "zero extension of a value that may be negative");
  }
  if (isa<arith::MinSIOp, arith::MaxSIOp>(op)) {
    // m <= a and m <= b (min) or m >= both (max): the exact value is one of
    // them; the bound over-approximates it soundly.
    LinearExpr m = freeVar(value, copy, "min/max");
    bool isMin = isa<arith::MinSIOp>(op);
    for (unsigned i = 0; i < 2; ++i)
      add(isMin ? LinearConstraint::le(m, operand(i))
                : LinearConstraint::le(operand(i), m));
    // A min of two non-negative values is non-negative (a block count
    // clamped to the cache, the start of a loop over the rest).
    if (isMin && isAtLeast(op->getOperand(0), 0, copy) &&
        isAtLeast(op->getOperand(1), 0, copy))
      add(LinearConstraint::le(LinearExpr::constantExpr(0), m));
    return m;
  }
  return freeVar(value, copy, "not affine");
}

void IndexSystem::linearizeCondition(Value cond, Copy copy, bool holds) {
  Operation *op = cond.getDefiningOp();
  if (!op)
    return;
  // a && b holds: both do. !(a || b): neither does. The other two are
  // disjunctions, convex only when one side is known false: a condition
  // switched off by a compile-time parameter (`WHOLE == 0 || ...`).
  if (isa<arith::AndIOp>(op) ? holds : isa<arith::OrIOp>(op) && !holds) {
    linearizeCondition(op->getOperand(0), copy, holds);
    linearizeCondition(op->getOperand(1), copy, holds);
    return;
  }
  if (isa<arith::OrIOp>(op)) {
    for (unsigned i = 0; i < 2; ++i)
      if (isKnownFalse(op->getOperand(i)))
        return linearizeCondition(op->getOperand(1 - i), copy, holds);
    return;
  }
  auto cmp = dyn_cast<arith::CmpIOp>(op);
  if (!cmp || !cmp.getLhs().getType().isIntOrIndex())
    return;
  using P = arith::CmpIPredicate;
  P pred = holds ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
  bool isUnsigned = pred == P::ult || pred == P::ule || pred == P::ugt ||
                    pred == P::uge;
  if (isUnsigned &&
      !(isNonNegative(cmp.getLhs()) && isNonNegative(cmp.getRhs())))
    return;
  LinearExpr a = get(cmp.getLhs(), copy);
  LinearExpr b = get(cmp.getRhs(), copy);
  switch (pred) {
  case P::eq:
    add(LinearConstraint::eq(a, b));
    break;
  case P::slt:
  case P::ult:
    add(LinearConstraint::le(a + 1, b));
    break;
  case P::sle:
  case P::ule:
    add(LinearConstraint::le(a, b));
    break;
  case P::sgt:
  case P::ugt:
    add(LinearConstraint::le(b + 1, a));
    break;
  case P::sge:
  case P::uge:
    add(LinearConstraint::le(b, a));
    break;
  case P::ne:
    break; // Not convex; still checked at launch.
  }
}

void IndexSystem::addAssumptions() {
  kernel.getBody().front().walk(
      [&](AssumeOp op) { linearizeCondition(op.getCondition(), Copy::Shared); });
}

void IndexSystem::addPathConditions(Operation *op, Copy copy) {
  // An op in the then-region of an scf.if runs only where the condition
  // holds, one in the else-region only where it does not; the conditions
  // of enclosing ifs bound what it touches.
  for (Operation *child = op, *parent = op->getParentOp();
       parent && !isa<KernelOp>(parent);
       child = parent, parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      linearizeCondition(ifOp.getCondition(), copy,
                         child->getParentRegion() == &ifOp.getThenRegion());
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

static presburger::IntegerPolyhedron
buildPolyhedron(unsigned numVars, ArrayRef<LinearConstraint> a,
                ArrayRef<LinearConstraint> b) {
  using namespace presburger;
  IntegerPolyhedron poly(PresburgerSpace::getSetSpace(numVars));
  SmallVector<int64_t> row(numVars + 1);
  auto addOne = [&](const LinearConstraint &c) {
    std::fill(row.begin(), row.end(), 0);
    for (auto [v, k] : c.expr.coeffs)
      row[v] = k;
    row[numVars] = c.expr.constant;
    if (c.isEquality)
      poly.addEquality(row);
    else
      poly.addInequality(row);
  };
  for (const LinearConstraint &c : a)
    addOne(c);
  for (const LinearConstraint &c : b)
    addOne(c);
  return poly;
}

bool IndexSystem::isEmpty(ArrayRef<LinearConstraint> extra) const {
  SmallVector<LinearConstraint> query(extra.begin(), extra.end());
  return !solve(query, nullptr);
}

bool IndexSystem::convexFeasible(ArrayRef<LinearConstraint> extra,
                                 SmallVectorImpl<int64_t> *point) const {
  // isIntegerEmpty is exact (the integer sampling algorithm); isEmpty is only
  // a Fourier-Motzkin test that can miss empty sets.
  presburger::IntegerPolyhedron poly =
      buildPolyhedron(vars.size(), constraints, extra);
  if (!point)
    return !poly.isIntegerEmpty();
  std::optional<SmallVector<llvm::DynamicAPInt, 8>> sample =
      poly.findIntegerSample();
  if (!sample)
    return false;
  point->clear();
  for (const llvm::DynamicAPInt &v : *sample)
    point->push_back(static_cast<int64_t>(v));
  return true;
}

std::optional<SmallVector<int64_t>>
IndexSystem::sample(ArrayRef<LinearConstraint> extra) const {
  // Prefer a small witness: bound the variables a diagnostic shows, and
  // widen the bound until a point exists.
  SmallVector<int64_t> point;
  for (int64_t bound : {1, 2, 4, 8, 32, 256, 1 << 16, -1}) {
    SmallVector<LinearConstraint> bounded(extra.begin(), extra.end());
    if (bound > 0)
      for (unsigned v = 0; v < vars.size(); ++v)
        if (vars[v].showInWitness) {
          bounded.push_back(LinearConstraint::le(
              LinearExpr::var(v), LinearExpr::constantExpr(bound)));
          bounded.push_back(LinearConstraint::le(
              LinearExpr::constantExpr(-bound), LinearExpr::var(v)));
        }
    // Small witnesses are a preference: a few cases each (a try that runs
    // out of them proves nothing), the last try the full budget.
    if (solve(bounded, &point, bound > 0 ? 200 : 0) &&
        (bound < 0 || budget > 0))
      return point;
  }
  return std::nullopt;
}

int64_t IndexSystem::evaluate(const LinearExpr &e, ArrayRef<int64_t> values) {
  int64_t r = e.constant;
  for (auto [v, c] : e.coeffs)
    r += c * values[v];
  return r;
}
