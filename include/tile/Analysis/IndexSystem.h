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
// bounded by its type and range analysis, and diagnostics name it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_INDEXSYSTEM_H
#define TILE_ANALYSIS_INDEXSYSTEM_H

#include "tile/Analysis/Uniformity.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "llvm/ADT/MapVector.h"

#include <optional>
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
};

class IndexSystem {
public:
  /// `ranges` is a solver on which IntegerRangeAnalysis has run over the
  /// kernel; it bounds values the model cannot express exactly.
  IndexSystem(KernelOp kernel, Uniformity &uniformity, DataFlowSolver &ranges);

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
};

/// A readable name of kernel argument `index`: its `tile.name` argument
/// attribute if the front end set one, else `%argN`.
std::string describeKernelArg(KernelOp kernel, unsigned index);

} // namespace tile

#endif // TILE_ANALYSIS_INDEXSYSTEM_H
