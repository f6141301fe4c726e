//===- IndexSystemExact.cpp - disjunctive encodings of index values --------===//
//
// The exact mode of IndexSystem: values the convex model can only bound get
// an encoding as a choice among conjunctions, one of which holds, and
// queries try them case by case (IndexSystem::feasible).
//
//  * min(a, b) is a (where a <= b) or b (where b <= a); max likewise; a
//    select is one of its operands.
//  * d / n and d % n, for d >= 0 and a run-time n >= 1, are q and r with
//    0 <= r < n. A divisor of at most kSmallDivisor is split into its
//    values, each giving the exact floor division. A wider one keeps
//    d = q * n + r implicit: per copy, q = 0 exactly when d < n; between the
//    copies A and B of the same division, with equal divisors, q_A = q_B
//    gives d_A - d_B = r_A - r_B, and q_A < q_B gives
//    d_B - d_A >= n + r_B - r_A (as (q_B - q_A) * n >= n). So distinct
//    dividends have distinct (q, r): the division is injective.
//  * a loop `for iv = lb to ub step s` with a run-time s >= 1 has
//    iv = lb + k * s, the same relation with (q, r) = (k, lb), which is
//    what makes a grid-stride loop's iterations of distinct programs
//    distinct.
//  * a product p = a * b of non-negative values is k * b where a = k for a
//    small k (and symmetrically), else at least (k + 1) times both. A
//    division by n = c * b then has d = c * (q * b) + r, and
//    p - c * (q * b) = (a - c * q) * b is split on small a - c * q the same
//    way: what bounds the tiles of a grouped order's partial last group.
//  * an entry of a table declared by tile.assume_distinct (the launch
//    contract checks it), read at an element index inside the table, lies
//    in [lo, hi), and two reads are equal exactly when their element
//    indices are.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/IndexSystem.h"
#include "tile/Analysis/IntegerSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tile;

/// Divisors and steps up to this are split into their values.
static constexpr int64_t kSmallDivisor = 16;
/// Products with a factor up to this are split into its values.
static constexpr int64_t kSmallFactor = 4;

/// Emptiness tests one query may spend on case splits.
static constexpr unsigned kCaseBudget = 2000;

using LC = LinearConstraint;

static LinearExpr cst(int64_t c) { return LinearExpr::constantExpr(c); }

static bool sameExpr(const LinearExpr &a, const LinearExpr &b) {
  return (a - b).getConstant() == 0;
}

/// c where `e` == c * `b` for an integer c >= 1.
static std::optional<int64_t> multipleOf(const LinearExpr &e,
                                         const LinearExpr &b) {
  if (b.coeffs.empty())
    return std::nullopt;
  auto [v, k] = *b.coeffs.begin();
  auto it = e.coeffs.find(v);
  if (it == e.coeffs.end() || it->second % k != 0)
    return std::nullopt;
  int64_t c = it->second / k;
  if (c < 1 || !sameExpr(e, b * c))
    return std::nullopt;
  return c;
}

std::optional<LinearExpr> IndexSystem::computeExact(Value value, Operation *op,
                                                    Copy copy) {
  if (isa<arith::MinSIOp, arith::MaxSIOp>(op))
    return minMax(value, op, copy);
  // Unsigned min/max of non-negative values are the signed ones.
  if (isa<arith::MinUIOp, arith::MaxUIOp>(op) &&
      isAtLeast(op->getOperand(0), 0, copy) &&
      isAtLeast(op->getOperand(1), 0, copy))
    return minMax(value, op, copy);
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp, arith::RemSIOp,
          arith::RemUIOp>(op) &&
      integerWidth(value.getType()) >= 64)
    return divRem(op, copy);
  if (auto extract = dyn_cast<ExtractOp>(op))
    return tableEntry(extract, copy);
  if (auto select = dyn_cast<arith::SelectOp>(op);
      select && select.getCondition().getType().isInteger(1)) {
    LinearExpr m = freeVar(value, copy, "select");
    addChoice({{LC::eq(m, get(select.getTrueValue(), copy))},
               {LC::eq(m, get(select.getFalseValue(), copy))}});
    facts.insert("exact select");
    return m;
  }
  if (isa<arith::MulIOp>(op) && integerWidth(value.getType()) >= 64) {
    LinearExpr a = get(op->getOperand(0), copy);
    LinearExpr b = get(op->getOperand(1), copy);
    if (a.getConstant() || b.getConstant() ||
        !isAtLeast(op->getOperand(0), 0, copy) ||
        !isAtLeast(op->getOperand(1), 0, copy))
      return std::nullopt;
    LinearExpr p = freeVar(value, copy, "non-linear product");
    add(LC::le(cst(0), p));
    // Exact where a factor is small, else bounded below.
    Alternatives alts;
    for (int64_t k = 0; k <= kSmallFactor; ++k) {
      alts.push_back({LC::eq(a, cst(k)), LC::eq(p, b * k)});
      alts.push_back({LC::eq(b, cst(k)), LC::eq(p, a * k)});
    }
    alts.push_back({LC::le(cst(kSmallFactor + 1), a),
                    LC::le(cst(kSmallFactor + 1), b),
                    LC::le(a * (kSmallFactor + 1), p),
                    LC::le(b * (kSmallFactor + 1), p)});
    addChoice(std::move(alts));
    facts.insert("products of non-negative values");
    products.push_back({p, a, b});
    for (const Quotient &x : std::vector<Quotient>(quotients))
      relate(products.back(), x);
    return p;
  }
  return std::nullopt;
}

LinearExpr IndexSystem::minMax(Value value, Operation *op, Copy copy) {
  bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(op);
  LinearExpr a = get(op->getOperand(0), copy);
  LinearExpr b = get(op->getOperand(1), copy);
  LinearExpr m = freeVar(value, copy, "min/max");
  add(isMin ? LC::le(m, a) : LC::le(a, m));
  add(isMin ? LC::le(m, b) : LC::le(b, m));
  // m is the operand on the min's (max's) side.
  LC aFirst = isMin ? LC::le(a, b) : LC::le(b, a);
  LC bFirst = isMin ? LC::le(b, a) : LC::le(a, b);
  addChoice({{LC::eq(m, a), aFirst}, {LC::eq(m, b), bFirst}});
  facts.insert("exact min/max");
  return m;
}

std::optional<LinearExpr> IndexSystem::divRem(Operation *op, Copy copy) {
  Value dividend = op->getOperand(0), divisor = op->getOperand(1);
  if (getConstantInt(divisor))
    return std::nullopt; // The convex model's floor division is exact.
  LinearExpr n = get(divisor, copy);
  if (n.getConstant())
    return std::nullopt;
  // Truncating, unsigned and floor forms agree for d >= 0, n >= 1.
  if (!isAtLeast(divisor, 1, copy) || !isAtLeast(dividend, 0, copy))
    return std::nullopt;
  LinearExpr d = get(dividend, copy);
  // The div and rem of one (dividend, divisor) share q and r.
  bool isRem = isa<arith::RemSIOp, arith::RemUIOp>(op);
  std::pair<const void *, const void *> key{dividend.getAsOpaquePointer(),
                                            divisor.getAsOpaquePointer()};
  for (const Quotient &x : quotients)
    if (x.key == key && x.copy == copy)
      return isRem ? x.r : x.q;
  LinearExpr q = LinearExpr::var(newVar("quotient", copy));
  LinearExpr r = LinearExpr::var(newVar("remainder", copy));
  add(LC::le(cst(0), r));
  add(LC::le(r, n - 1));
  add(LC::le(cst(0), q));
  add(LC::le(q, d));
  add(LC::le(r, d));
  if (isEmpty({LC::le(cst(kSmallDivisor + 1), n)})) {
    // A small divisor: one case per value, each an exact floor division.
    Alternatives alts;
    for (int64_t k = 1; k <= kSmallDivisor; ++k)
      alts.push_back({LC::eq(n, cst(k)), LC::eq(d, q * k + r)});
    addChoice(std::move(alts));
    facts.insert("division by a small run-time divisor");
  } else {
    addChoice({{LC::le(d, n - 1), LC::eq(q, cst(0)), LC::eq(r, d)},
               {LC::le(n, d), LC::le(cst(1), q)}});
    facts.insert("division by a run-time divisor (injective)");
  }
  addQuotient({key, copy, /*division=*/true, d, q, r, n});
  return isRem ? r : q;
}

void IndexSystem::addQuotient(Quotient x) {
  for (const Product &p : std::vector<Product>(products))
    relate(p, x);
  for (const Quotient &y : std::vector<Quotient>(quotients)) {
    if (y.copy == x.copy || y.copy == Copy::Shared || x.copy == Copy::Shared)
      continue;
    if (y.key != x.key)
      continue;
    Alternatives alts;
    if (!sameExpr(x.n, y.n)) {
      alts.push_back({LC::le(x.n + 1, y.n)});
      alts.push_back({LC::le(y.n + 1, x.n)});
    }
    auto withEqualN = [&](SmallVector<LC> c) {
      if (!sameExpr(x.n, y.n))
        c.push_back(LC::eq(x.n, y.n));
      return c;
    };
    alts.push_back(
        withEqualN({LC::eq(x.q, y.q), LC::eq(x.d - y.d, x.r - y.r)}));
    alts.push_back(withEqualN(
        {LC::le(x.q + 1, y.q), LC::le(x.n + x.r - y.r, y.d - x.d)}));
    alts.push_back(withEqualN(
        {LC::le(y.q + 1, x.q), LC::le(y.n + y.r - x.r, x.d - y.d)}));
    addChoice(std::move(alts));
  }
  quotients.push_back(std::move(x));
}

void IndexSystem::relate(const Product &p, const Quotient &x) {
  // With n = c * b for the product p = a * b, d = c * t + r for t = q * b,
  // and p - c * t = (a - c * q) * b, split on the small values of
  // a - c * q: a grouped tile order's last group, a - c * q of its
  // tiles, has d < p exactly when r < (a - c * q) * b.
  if (!x.division)
    return;
  for (auto [a, b] : {std::pair{p.a, p.b}, std::pair{p.b, p.a}}) {
    std::optional<int64_t> c = multipleOf(x.n, b);
    if (!c)
      continue;
    LinearExpr t = LinearExpr::var(newVar("quotient * divisor", x.copy));
    add(LC::eq(x.d, t * *c + x.r));
    addChoice({{LC::eq(x.q, cst(0)), LC::eq(t, cst(0))},
               {LC::le(cst(1), x.q), LC::le(b, t), LC::le(x.q, t)}});
    LinearExpr left = a - x.q * *c, rest = p.p - t * *c;
    Alternatives alts;
    for (int64_t k = 0; k <= kSmallDivisor; ++k)
      alts.push_back({LC::eq(left, cst(k)), LC::eq(rest, b * k)});
    alts.push_back({LC::le(cst(kSmallDivisor + 1), left),
                    LC::le(b * (kSmallDivisor + 1), rest)});
    alts.push_back({LC::le(left, cst(-1)), LC::le(rest, b * -1)});
    addChoice(std::move(alts));
    return;
  }
}

std::optional<LinearExpr> IndexSystem::steppedIv(scf::ForOp loop, Copy copy) {
  // The loop verifier (checkLoop) rejects ivs that may wrap.
  if (!isAtLeast(loop.getStep(), 1, copy))
    return std::nullopt;
  LinearExpr lb = get(loop.getLowerBound(), copy);
  LinearExpr ub = get(loop.getUpperBound(), copy);
  LinearExpr s = get(loop.getStep(), copy);
  LinearExpr iv =
      LinearExpr::var(newVar("loop iv" + std::string(copy == Copy::A ? "@A"
                                                     : copy == Copy::B
                                                         ? "@B"
                                                         : ""),
                             copy));
  LinearExpr k = LinearExpr::var(newVar("loop trip", copy));
  add(LC::le(lb, iv));
  add(LC::le(iv, ub - 1));
  add(LC::le(cst(0), k));
  add(LC::le(k, iv - lb));
  addChoice({{LC::eq(k, cst(0)), LC::eq(iv, lb)},
             {LC::le(cst(1), k), LC::le(lb + s, iv)}});
  facts.insert("loop stepping by a run-time value");
  addQuotient({{loop.getOperation(), nullptr}, copy, /*division=*/false, iv,
               k, lb, s});
  return iv;
}

std::optional<LinearExpr> IndexSystem::tableEntry(ExtractOp op, Copy copy) {
  auto load = op.getSource().getDefiningOp<LoadOp>();
  if (!load || load.getIndices().size() != 1)
    return std::nullopt;
  auto partition = load.getSource().getDefiningOp<PartitionOp>();
  auto view = partition ? dyn_cast<BlockArgument>(partition.getView())
                        : BlockArgument();
  if (!view || !tables.count(view.getArgNumber()))
    return std::nullopt;
  AssumeDistinctOp rule = tables.lookup(view.getArgNumber());
  int64_t tile = partition.getType().getTileShape()[0];
  LinearExpr element =
      get(load.getIndices()[0], copy) * tile + op.getPosition()[0];
  // Outside the table a load reads padding, which repeats.
  LinearExpr size = numTiles(view, 0, 1);
  if (!isEmpty({LC::le(element, cst(-1))}) ||
      !isEmpty({LC::le(size, element)}))
    return std::nullopt;
  LinearExpr value =
      freeVar(op.getResult(), copy,
              "entry of " + describeKernelArg(kernel, view.getArgNumber()));
  add(LC::le(get(rule.getLo(), Copy::Shared), value));
  add(LC::le(value, get(rule.getHi(), Copy::Shared) - 1));
  for (const TableRead &other : std::vector<TableRead>(tableReads)) {
    if (other.table != view.getArgNumber())
      continue;
    const LinearExpr &e = other.element, &v = other.value;
    addChoice({{LC::eq(element, e), LC::eq(value, v)},
               {LC::le(element + 1, e), LC::le(value + 1, v)},
               {LC::le(element + 1, e), LC::le(v + 1, value)},
               {LC::le(e + 1, element), LC::le(value + 1, v)},
               {LC::le(e + 1, element), LC::le(v + 1, value)}});
  }
  tableReads.push_back({view.getArgNumber(), element, value});
  facts.insert("entries of " + describeKernelArg(kernel, view.getArgNumber()) +
               " distinct and in range (launch contract)");
  return value;
}

//===----------------------------------------------------------------------===//
// Case splits
//===----------------------------------------------------------------------===//

bool IndexSystem::solve(SmallVectorImpl<LinearConstraint> &extra,
                        SmallVectorImpl<int64_t> *point,
                        unsigned cases) const {
  budget = cases ? cases : kCaseBudget;
  if (choices.empty() || !convexFeasible(extra, nullptr))
    return choices.empty() ? convexFeasible(extra, point) : false;
  // Drop the alternatives that contradict what is known; a choice left
  // with one alternative is decided, which may rule out more.
  SmallVector<SmallVector<unsigned>> live(choices.size());
  SmallVector<unsigned> open;
  for (unsigned c = 0; c < choices.size(); ++c) {
    live[c] = llvm::to_vector(llvm::seq<unsigned>(0, choices[c].size()));
    open.push_back(c);
  }
  for (bool changed = true; changed && budget;) {
    changed = false;
    for (auto it = open.begin(); it != open.end();) {
      SmallVector<unsigned> keep;
      for (unsigned a : live[*it]) {
        size_t size = extra.size();
        extra.append(choices[*it][a].begin(), choices[*it][a].end());
        if (!budget || (--budget, convexFeasible(extra, nullptr)))
          keep.push_back(a);
        extra.resize(size);
      }
      if (keep.empty())
        return false;
      changed |= keep.size() < live[*it].size();
      live[*it] = std::move(keep);
      if (live[*it].size() == 1) {
        extra.append(choices[*it][live[*it][0]].begin(),
                     choices[*it][live[*it][0]].end());
        it = open.erase(it);
        continue;
      }
      ++it;
    }
  }
  llvm::stable_sort(open, [&](unsigned x, unsigned y) {
    return live[x].size() < live[y].size();
  });
  return branch(extra, open, 0, live, point);
}

bool IndexSystem::branch(SmallVectorImpl<LinearConstraint> &extra,
                         ArrayRef<unsigned> open, unsigned i,
                         ArrayRef<SmallVector<unsigned>> live,
                         SmallVectorImpl<int64_t> *point) const {
  if (i == open.size() || budget == 0)
    return convexFeasible(extra, point);
  for (unsigned a : live[open[i]]) {
    if (budget == 0)
      break;
    --budget;
    size_t size = extra.size();
    const SmallVector<LinearConstraint> &alt = choices[open[i]][a];
    extra.append(alt.begin(), alt.end());
    bool found = convexFeasible(extra, nullptr) &&
                 branch(extra, open, i + 1, live, point);
    extra.resize(size);
    if (found)
      return true;
  }
  // Out of budget: not shown empty.
  return budget == 0 && convexFeasible(extra, point);
}
