//===- IndexSystem.h - index values as Presburger constraints ---*- C++ -*-===//
//
// Models the integer (index) values of a kernel as linear expressions over
// integer variables, with the constraints that relate them, so questions such
// as "can two distinct programs claim overlapping blocks?" become emptiness
// questions of Presburger sets (mlir/Analysis/Presburger).
//
// Two copies of a program (A and B) can be modelled at once: values that are
// uniform across programs are one shared variable; everything else gets a
// variable per copy. What cannot be modelled exactly is over-approximated by
// a fresh variable bounded by integer range analysis, so a proof on the model
// holds for the kernel.
//
// An iN value (N < 64) is modelled by its signed interpretation. An op that
// wraps modulo 2^N (add, sub, mul, shl, narrowing casts) is its exact result
// only where that result is proven to fit iN (or the launch contract checks
// it, for the ops of tile.grid and tile.assume); otherwise it is an unknown
// bounded by its type and range analysis (in exact mode, tied to the exact
// result modulo 2^N), and diagnostics name it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_INDEXSYSTEM_H
#define TILE_ANALYSIS_INDEXSYSTEM_H

#include "tile/Analysis/Uniformity.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <set>
#include <vector>
#include <string>

namespace tile {

/// Which program a non-uniform value belongs to.
enum class Copy : uint8_t { Shared, A, B };

/// sum(coeff * var) + constant.
struct LinearExpr {
  llvm::SmallMapVector<unsigned, int64_t, 4> coeffs;
  int64_t constant = 0;

  static LinearExpr constantExpr(int64_t c) {
    LinearExpr e;
    e.constant = c;
    return e;
  }
  static LinearExpr var(unsigned v) {
    LinearExpr e;
    e.coeffs[v] = 1;
    return e;
  }
  std::optional<int64_t> getConstant() const {
    if (coeffs.empty())
      return constant;
    return std::nullopt;
  }
  LinearExpr operator+(const LinearExpr &o) const;
  LinearExpr operator-(const LinearExpr &o) const;
  LinearExpr operator*(int64_t k) const;
  LinearExpr operator+(int64_t k) const { return *this + constantExpr(k); }
  LinearExpr operator-(int64_t k) const { return *this + constantExpr(-k); }
};

/// `expr >= 0`, or `expr == 0` when isEquality.
struct LinearConstraint {
  LinearExpr expr;
  bool isEquality = false;
  static LinearConstraint le(const LinearExpr &a, const LinearExpr &b) {
    return {b - a, false};
  }
  static LinearConstraint eq(const LinearExpr &a, const LinearExpr &b) {
    return {a - b, true};
  }
};

/// A variable, named for diagnostics.
struct IndexVar {
  std::string name;
  Copy copy = Copy::Shared;
  /// Shown in witnesses (grid extents, dims, scalar arguments, program ids).
  bool showInWitness = false;
  /// A dim or scalar argument: a value of the launch.
  bool launchValue = false;
};

class IndexSystem {
public:
  /// `ranges` is a solver on which IntegerRangeAnalysis has run over the
  /// kernel; it bounds values the model cannot express exactly.
  /// With `exact`, values get disjunctive encodings too (min/max as one of
  /// their operands, quotients by run-time divisors, distinct table entries,
  /// loops stepping by a run-time value), which queries try case by case;
  /// tile-mark-in-bounds-loads keeps the convex model, since its answers
  /// shape the generated code.
  IndexSystem(KernelOp kernel, Uniformity &uniformity, DataFlowSolver &ranges,
              bool exact = false);

  /// The linear form of an index or integer value in program `copy`.
  LinearExpr get(Value value, Copy copy);
  /// The program id along `dim` (0..2) of `copy`, in [0, grid extent).
  LinearExpr programId(unsigned dim, Copy copy);
  /// The grid extent along `dim` (from tile.grid, or a free variable >= 1).
  LinearExpr gridExtent(unsigned dim);
  /// ceildiv(dim of `view` along `d`, tile): the extent of a partition's
  /// index space.
  LinearExpr numTiles(BlockArgument view, unsigned d, int64_t tile);
  bool hasDeclaredGrid() const { return gridOp != nullptr; }
  unsigned gridRank() const;

  /// Adds the conditions of every tile.assume the model can express.
  void addAssumptions();
  /// Adds, for program `copy`, the conditions of the scf.if then-regions
  /// that enclose `op` (it only runs where they hold).
  void addPathConditions(Operation *op, Copy copy);

  /// True when the system plus `extra` has no integer solution.
  bool isEmpty(ArrayRef<LinearConstraint> extra = {}) const;
  /// A solution of the system plus `extra`, one value per variable.
  std::optional<SmallVector<int64_t>>
  sample(ArrayRef<LinearConstraint> extra = {}) const;

  /// Attaches to `diag` a note at each op this system took as unknown
  /// because it may wrap.
  void noteMayWrap(InFlightDiagnostic &diag) const;

  /// The facts beyond the convex model this system introduced ("exact
  /// min/max", "table 'blocks' distinct in [lo, hi)"...), for reports.
  const std::set<std::string> &getFacts() const { return facts; }

  /// The form of `value` in `copy` if it was computed (or in the shared
  /// copy, for a uniform value).
  std::optional<LinearExpr> lookup(Value value, Copy copy) const;
  /// The variable of dynamic dim `d` of argument `arg`, if it was used.
  std::optional<unsigned> lookupDimVar(unsigned arg, unsigned d) const {
    auto it = dimVars.find({arg, d});
    if (it == dimVars.end())
      return std::nullopt;
    return it->second;
  }

  const IndexVar &getVar(unsigned v) const { return vars[v]; }
  unsigned getNumVars() const { return vars.size(); }
  static int64_t evaluate(const LinearExpr &e, ArrayRef<int64_t> values);

private:
  unsigned newVar(std::string name, Copy copy, bool showInWitness = false);
  void add(LinearConstraint c) { constraints.push_back(std::move(c)); }
  void addRangeBounds(Value value, const LinearExpr &e);
  LinearExpr freeVar(Value value, Copy copy, StringRef why);
  LinearExpr compute(Value value, Copy copy);
  /// `e`, the exact result of the op defining `value`, where the value the
  /// kernel computes (modulo 2^N) is `e`: when it is proven to fit the type,
  /// or the launch contract checks it; else an unknown.
  LinearExpr ifNoWrap(Value value, const LinearExpr &e, Copy copy);
  LinearExpr floorDiv(const LinearExpr &e, int64_t c, Copy copy);
  LinearExpr ceilDiv(const LinearExpr &e, int64_t c, Copy copy);
  /// The integer range analysis' range of `value`, if it has one.
  std::optional<mlir::ConstantIntRanges> rangeOf(Value value);
  bool isNonNegative(Value value);
  /// Whether `value` >= `k` follows from its integer range or this system's
  /// facts, looking through min/max and constant offsets (a min has no
  /// lower bound in the model: it is only below both operands).
  bool isAtLeast(Value value, int64_t k, Copy copy);
  bool isKnownFalse(Value value);
  std::optional<int64_t> getConstantInt(Value value);

  // Exact mode (IndexSystemExact.cpp).
  using Alternatives = SmallVector<SmallVector<LinearConstraint>>;
  /// One of `alts` holds (each a conjunction).
  void addChoice(Alternatives alts) { choices.push_back(std::move(alts)); }
  /// Whether the system, `extra` and one alternative of every choice have
  /// an integer point (stored in `point` when given). Past a budget of
  /// emptiness tests it answers yes, which only costs precision.
  /// `cases` bounds the case splits (0: the default budget).
  bool solve(SmallVectorImpl<LinearConstraint> &extra,
             SmallVectorImpl<int64_t> *point, unsigned cases = 0) const;
  /// The same for the constraints alone, without the choices.
  bool convexFeasible(ArrayRef<LinearConstraint> extra,
                      SmallVectorImpl<int64_t> *point) const;
  bool branch(SmallVectorImpl<LinearConstraint> &extra,
              ArrayRef<unsigned> open, unsigned i,
              ArrayRef<SmallVector<unsigned>> live,
              SmallVectorImpl<int64_t> *point) const;
  /// The exact encoding of the value `op` defines, where exact mode has one.
  std::optional<LinearExpr> computeExact(Value value, Operation *op,
                                         Copy copy);
  LinearExpr minMax(Value value, Operation *op, Copy copy);
  std::optional<LinearExpr> divRem(Operation *op, Copy copy);
  std::optional<LinearExpr> tableEntry(ExtractOp op, Copy copy);
  /// The iv of a loop whose step is not a constant.
  std::optional<LinearExpr> steppedIv(scf::ForOp loop, Copy copy);
  /// d = q * n + r (q >= 0, n >= 1): per-copy facts, and the relation to the
  /// other copy's quotient of the same `key`.
  struct Quotient {
    /// (dividend, divisor) of a division, (loop, null) of a loop.
    std::pair<const void *, const void *> key;
    Copy copy;
    /// d / n exactly (a loop's iv is lb + k * s, lb not in [0, s)).
    bool division;
    LinearExpr d, q, r, n;
  };
  void addQuotient(Quotient x);
  /// p = a * b of non-negative a, b.
  struct Product {
    LinearExpr p, a, b;
  };
  void relate(const Product &p, const Quotient &x);
  struct TableRead {
    unsigned table;
    LinearExpr element, value;
  };
  std::string nameOf(Value value);
  /// Adds `cond` (or, with holds = false, its negation) where it is a
  /// conjunction of linear comparisons; a non-convex one adds nothing.
  void linearizeCondition(Value cond, Copy copy, bool holds = true);

  KernelOp kernel;
  GridOp gridOp;
  Uniformity &uniformity;
  DataFlowSolver &ranges;
  SmallVector<IndexVar> vars;
  SmallVector<LinearConstraint> constraints;
  llvm::DenseMap<std::pair<Value, unsigned>, LinearExpr> memo;
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> programIds;
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> dimVars;
  llvm::DenseMap<std::tuple<unsigned, unsigned, int64_t>, LinearExpr> tileCounts;
  SmallVector<std::optional<LinearExpr>, 3> grid;
  /// The narrow ops of tile.grid and tile.assume, whose agreement with the
  /// contract's exact arithmetic the launch contract checks.
  llvm::DenseSet<Operation *> launchChecked;
  /// Ops modelled as unknown because they may wrap, with their width.
  llvm::MapVector<Operation *, unsigned> mayWrap;
  bool exact;
  SmallVector<Alternatives> choices;
  std::vector<Quotient> quotients;
  std::vector<Product> products;
  std::vector<TableRead> tableReads;
  /// The tile.assume_distinct of each table argument.
  llvm::DenseMap<unsigned, AssumeDistinctOp> tables;
  std::set<std::string> facts;
  /// Emptiness tests left to the current query's case split.
  mutable unsigned budget = 0;
};

/// A readable name of kernel argument `index`: its `tile.name` argument
/// attribute if the front end set one, else `%argN`.
std::string describeKernelArg(KernelOp kernel, unsigned index);

} // namespace tile

#endif // TILE_ANALYSIS_INDEXSYSTEM_H
