//===- LaunchContract.h - what a launch must satisfy ------------*- C++ -*-===//
//
// A launch contract is what the compiler could not prove about a kernel
// because it is only known at launch: shapes and strides of dynamic views,
// scalar arguments, where the buffers are. The compiler (tile-verify-ownership)
// writes one per kernel; the runtime evaluates it before every launch, and
// launches nothing when a rule is violated.
//
// This header is shared by the compiler and the runtime and depends on
// neither LLVM nor MLIR. The JSON form is documented in docs/contracts.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LAUNCHCONTRACT_H
#define TILE_RUNTIME_LAUNCHCONTRACT_H

#include "tile/runtime/Status.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tile_runtime {

/// The version of the JSON form written by toJson; fromJson accepts it only.
inline constexpr int kLaunchContractVersion = 1;

/// Most dims a view may have in a launch (views are small-rank tiles).
inline constexpr int kMaxViewRank = 8;

/// F8E4M3 is e4m3fn (bias 7, no infinities), OCP FP8 as FP8 checkpoints
/// store their weights.
enum class DType : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64, F8E4M3 };
/// Bytes per element in memory (i1 is stored as one byte).
int64_t sizeInBytes(DType type);
std::string_view toString(DType type);
bool parseDType(std::string_view text, DType &type);

/// How a kernel uses a view: `Add` views are only added into (atomically,
/// by any program); like `Out` and `InOut` they are written, so no other
/// argument may alias them. `Frozen` views are read like `In` ones, from
/// memory no kernel writes (the runtime checks that the buffer is frozen).
/// `Ticket` views hold tile.join's counters, taken atomically by every
/// program; each launch leaves them at 0, so the buffer must hold zeros
/// when first used. `Settled` views are read like `In` ones, and may be
/// read before the kernel waits for the grid before it: the stream
/// launches such a kernel as a programmatic dependent only when no launch
/// of the chain it would join writes the view.
enum class AccessMode : uint8_t {
  In,
  Out,
  InOut,
  Add,
  Frozen,
  Ticket,
  Settled
};
std::string_view toString(AccessMode mode);
/// The mode `toString` names `text`; false when none does.
bool parseAccessMode(std::string_view text, AccessMode &mode);
inline bool isShared(AccessMode mode) {
  return mode == AccessMode::In || mode == AccessMode::Frozen ||
         mode == AccessMode::Settled;
}
inline bool isExclusive(AccessMode mode) { return !isShared(mode); }

/// An integer expression over the launch arguments, in postfix order: each
/// node pops its operands from an evaluation stack and pushes its result.
/// All arithmetic is on int64_t; comparisons and logic give 0 or 1.
struct ContractExpr {
  enum class Op : uint8_t {
    // Leaves.
    Const,  ///< value
    Dim,    ///< dim `index` of view argument `arg`
    Stride, ///< stride `index` (elements) of view argument `arg`
    Scalar, ///< integer scalar argument `arg`
    // Binary, signed unless marked u.
    Add, Sub, Mul,
    DivS,      ///< truncating, like arith.divsi
    DivU,      ///< arith.divui
    FloorDiv,  ///< arith.floordivsi
    CeilDiv,   ///< arith.ceildivsi
    RemS, RemU,
    MinS, MaxS, MinU, MaxU,
    Eq, Ne, Lt, Le, Gt, Ge, ULt, ULe, UGt, UGe,
    And, Or, Xor,
    // Ternary: cond ? a : b (operands pushed in that order).
    Select,
  };
  struct Node {
    Op op;
    int64_t value = 0; ///< Const
    int32_t arg = 0;   ///< Dim, Stride, Scalar
    int32_t index = 0; ///< Dim, Stride
  };
  std::vector<Node> code;

  static ContractExpr constant(int64_t value);
  static ContractExpr dim(int arg, int index);
  static ContractExpr stride(int arg, int index);
  static ContractExpr scalar(int arg);
  /// Combines operands (already in postfix) with `op`.
  static ContractExpr apply(Op op, std::vector<ContractExpr> operands);

  static int arity(Op op);
  static std::string_view name(Op op);
  static bool parseOpName(std::string_view text, Op &op);
};

/// A parameter of the kernel, as the compiler saw it.
struct ContractParam {
  enum class Kind : uint8_t { View, Scalar };
  Kind kind = Kind::Scalar;
  std::string name;
  DType dtype = DType::I32;
  AccessMode mode = AccessMode::In; ///< views
  /// Views: dims and strides, -1 where dynamic.
  std::vector<int64_t> shape, strides;
};

struct ContractRule {
  enum class Kind : uint8_t {
    /// The memory of exclusive view `a` does not overlap that of view `b`.
    NoOverlap,
    /// Exclusive view `a` does not overlap itself (distinct indices address
    /// distinct elements); emitted when its layout is not static.
    NonSelfOverlapping,
    /// `expr` is non-zero (a tile.assume of the kernel).
    Assume,
    /// Every stride of view `a` but the innermost (dims of extent > 1) is a
    /// multiple of `bytes`: rows the kernel reads with unguarded vector loads
    /// start aligned (emitted by tile-mark-in-bounds-loads).
    AlignedRows,
    /// The entries of the 1-D integer view `a` are pairwise distinct and in
    /// [`expr`, `hi`) (a tile.assume_distinct): read from host-visible
    /// memory at launch, in O(n).
    DistinctInRange,
  };
  Kind kind = Kind::Assume;
  int a = -1, b = -1;
  ContractExpr expr;
  std::string message;  ///< Assume, DistinctInRange: what is assumed
  std::string location; ///< source location, file:line:col
  int64_t bytes = 0;    ///< AlignedRows: the alignment
  ContractExpr hi;      ///< DistinctInRange: the end of the range (`expr`
                        ///< is its start)
};

struct LaunchContract {
  std::string kernel;
  std::vector<ContractParam> params;
  /// The grid rule: 1 to 3 extents; empty when the launcher chooses.
  std::vector<ContractExpr> grid;
  std::vector<ContractRule> rules;

  /// The documented JSON form (docs/contracts.md); compact on one line
  /// unless `indent` >= 0.
  std::string toJson(int indent = -1) const;
  static Status fromJson(std::string_view text, LaunchContract &contract);

  /// Human-readable form of an expression or rule, naming parameters.
  std::string toString(const ContractExpr &expr) const;
  std::string toString(const ContractRule &rule) const;
};

/// One launch argument, as the runtime passes it to check().
struct LaunchArg {
  bool isView = false;
  // Views.
  uint64_t address = 0;
  DType dtype = DType::F32;
  int32_t rank = 0;
  std::array<int64_t, kMaxViewRank> shape{};
  std::array<int64_t, kMaxViewRank> strides{};
  /// Views: the view's first element in host-visible memory, or null when
  /// the buffer has none (device memory); distinct_in_range reads it.
  const void *host = nullptr;
  // Integer scalars (sign-extended to 64 bits).
  int64_t scalar = 0;

  static LaunchArg view(const void *base, DType dtype,
                        std::initializer_list<int64_t> shape,
                        std::initializer_list<int64_t> strides);
  static LaunchArg integer(int64_t value);
};

/// Checks `args` against `contract`: the argument kinds, dtypes, ranks,
/// static dims and strides, then every rule. On success stores the grid in
/// `grid` (1s where the contract has no grid rule; an extent may be 0 for
/// an empty problem, which launches nothing). On failure the message
/// names the kernel, the argument and the rule, e.g.
///   "kernel rmsnorm: argument y (#2) overlaps argument x (#0) [no_overlap]".
/// `tables`, where given, receives each distinct_in_range rule that held:
/// the argument and the range, which the runtime keeps for a checked
/// table's later writes (Stream::writeTable).
struct CheckedDistinct {
  int arg = -1;
  int64_t lo = 0, hi = 0;
  std::string rule; ///< the message, the rule and its location
};
Status checkLaunch(const LaunchContract &contract, const LaunchArg *args,
                   size_t numArgs, std::array<int64_t, 3> &grid,
                   std::vector<CheckedDistinct> *tables = nullptr);

/// distinct_in_range over view `a` (1-D, host-visible): an empty string
/// when every entry is in [lo, hi) and no two are equal, else what is wrong.
std::string checkDistinctEntries(const LaunchArg &a, int64_t lo, int64_t hi);

/// "argument NAME (#i)", how every message names a parameter.
std::string argumentLabel(const LaunchContract &contract, int index);

/// Evaluates `expr` over `args` (which must already match the parameters).
Status evaluate(const ContractExpr &expr, const LaunchArg *args,
                size_t numArgs, int64_t &result);

} // namespace tile_runtime

#endif // TILE_RUNTIME_LAUNCHCONTRACT_H
