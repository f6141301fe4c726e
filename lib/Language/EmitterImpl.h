//===- EmitterImpl.h - state of the .tile emitter ---------------*- C++ -*-===//
//
// Private to lib/Language. Values of the language are MLIR values (scalars,
// tiles), handles (views, partitions, claimed blocks, a tile position
// `p[i, j]`), literals not yet given a type, static integer lists
// (shapes), tuples, and strings.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_LANGUAGE_EMITTERIMPL_H
#define LIB_LANGUAGE_EMITTERIMPL_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Language/Emitter.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace tile::lang {

struct Val {
  enum class Kind {
    None,      ///< no value (a statement-like call)
    Value,     ///< scalar or tile
    IntLit,    ///< an integer literal or compile-time constant, untyped
    FloatLit,  ///< a float literal, untyped
    View,      ///< a kernel tensor parameter
    Partition, ///< x.tiles([...]) or a `by` parameter
    Owned,     ///< a claimed block
    TileRef,   ///< handle[indices]: a partition position or owned sub-tile
    List,      ///< [a, b, ...]
    Tuple,     ///< several results (argmax)
    String,
  };
  Kind kind = Kind::None;
  mlir::Value value;                 ///< Value, View, Partition, Owned, TileRef
  int64_t intValue = 0;
  double floatValue = 0;
  std::vector<mlir::Value> indices;  ///< TileRef
  std::vector<Val> elements;         ///< List, Tuple
  std::string text;                  ///< String
  mlir::Value view;                  ///< Partition/TileRef: the underlying view

  static Val of(mlir::Value v) {
    Val r;
    r.kind = Kind::Value;
    r.value = v;
    return r;
  }
  static Val intLit(int64_t v) {
    Val r;
    r.kind = Kind::IntLit;
    r.intValue = v;
    return r;
  }
  static Val floatLit(double v) {
    Val r;
    r.kind = Kind::FloatLit;
    r.floatValue = v;
    return r;
  }
  bool isLiteral() const {
    return kind == Kind::IntLit || kind == Kind::FloatLit;
  }
};

struct Binding {
  Val val;
  bool isMutable = false;
};

class EmitterImpl {
public:
  EmitterImpl(mlir::MLIRContext &context, llvm::SourceMgr &sm,
              const Module &module);

  mlir::LogicalResult emitKernel(mlir::ModuleOp into,
                                 const KernelInstance &instance);

  // -- Diagnostics and locations ---------------------------------------------
  mlir::Location loc(llvm::SMLoc at);
  mlir::InFlightDiagnostic error(llvm::SMLoc at);

  // -- Scopes -----------------------------------------------------------------
  void push() { scopes.emplace_back(); }
  void pop() { scopes.pop_back(); }
  Binding *lookup(llvm::StringRef name);
  void bind(const std::string &name, Val v, bool isMutable = false) {
    scopes.back()[name] = Binding{std::move(v), isMutable};
  }

  // -- Types ------------------------------------------------------------------
  /// An element/scalar type by name (f16, bf16, f32, f64, i1, i8..i64,
  /// index, bool, or a type parameter); null after reporting an error.
  mlir::Type scalarType(llvm::StringRef name, llvm::SMLoc at);
  mlir::Type type(const TypeExpr &t);
  /// A constant expression (literals, const parameters, + - * / %).
  std::optional<int64_t> constant(const Expr &e);
  /// `x op y` for a constant expression (+ - * / % & | ^ << >>, or "neg":
  /// -x), computed in
  /// i64 as the generated code would, except that what would wrap or trap
  /// there (overflow, INT64_MIN / -1, division by zero, a shift amount
  /// outside 0..63, bits shifted out of a left shift) is an error at `at`.
  std::optional<int64_t> foldInt(llvm::StringRef op, int64_t x, int64_t y,
                                 llvm::SMLoc at);
  std::optional<std::vector<int64_t>> shape(const std::vector<ExprPtr> &dims,
                                            bool allowDynamic);

  // -- Statements -------------------------------------------------------------
  mlir::LogicalResult emitBlock(const Body &block);
  mlir::LogicalResult emitStmt(const Stmt &s);
  mlir::LogicalResult emitFor(const Stmt &s);
  mlir::LogicalResult emitUnrolledFor(const Stmt &s, mlir::Value lo,
                                      mlir::Value hi, mlir::Value step,
                                      llvm::ArrayRef<std::string> carried);
  mlir::LogicalResult emitIf(const Stmt &s);
  mlir::LogicalResult emitUnchecked(const Stmt &s);
  mlir::LogicalResult emitJoin(const Stmt &s);
  /// Emits the body of a region op at the insertion point, in a scope where
  /// each `carried` variable starts as `starts[i]` (and `inductionVar` is
  /// bound to `induction`, when given); returns their values at the end,
  /// which the region yields.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  emitCarriedBody(const Body &ast, llvm::ArrayRef<std::string> carried,
                  mlir::ValueRange starts, const std::string &inductionVar = "",
                  mlir::Value induction = nullptr);

  // -- Expressions ------------------------------------------------------------
  std::optional<Val> expr(const Expr &e);
  std::optional<Val> binary(const Expr &e);
  std::optional<Val> unary(const Expr &e);
  std::optional<Val> castExpr(const Expr &e);
  std::optional<Val> index(const Expr &e);
  std::optional<Val> method(const Expr &e);
  std::optional<Val> call(const Expr &e);
  std::optional<Val> builtin(const Expr &e, bool &handled);
  // The builtins by kind (EmitBuiltins.cpp dispatches): each sets `handled`
  // false for a name not its own.
  std::optional<Val> launchBuiltin(const Expr &e, bool &handled);
  std::optional<Val> memoryBuiltin(const Expr &e, bool &handled);
  std::optional<Val> tileBuiltin(const Expr &e, bool &handled);
  std::optional<Val> elementwiseBuiltin(const Expr &e, bool &handled);
  std::optional<Val> inlineCall(const Function &fn, const Expr &e);

  /// The value as a scalar or tile of element type `elt` (literals take it);
  /// null after reporting an error.
  mlir::Value materialize(const Val &v, llvm::SMLoc at,
                          mlir::Type elt = nullptr);
  /// `v` as a value for a slot of type `want`: literals take its element
  /// type, a scalar is splat when `want` is a tile. The caller checks the
  /// result's type (it differs from `want` when `v` does not fit); null
  /// after reporting an error.
  mlir::Value coerce(const Val &v, mlir::Type want, llvm::SMLoc at);
  /// A scalar or tile value; literals default to index / f32.
  mlir::Value value(const Expr &e, mlir::Type elt = nullptr);
  mlir::Value indexValue(const Expr &e);
  /// Brings two operands to one type: literals adopt the other side's
  /// element type, scalars are splat to tiles, tiles of shapes that differ
  /// only in size-1 dims are broadcast.
  mlir::LogicalResult unify(const Val &l, const Val &r, llvm::SMLoc at,
                            mlir::Value &a, mlir::Value &b);
  mlir::Value splat(mlir::Value scalar, mlir::RankedTensorType to);
  mlir::Value broadcastTo(mlir::Value tile, llvm::ArrayRef<int64_t> shape,
                          llvm::SMLoc at);
  mlir::Value convert(mlir::Value v, mlir::Type elt, llvm::SMLoc at);
  std::optional<std::vector<int64_t>> intList(const Expr &e);
  llvm::SmallVector<mlir::Value> indexList(const Expr &e);

  mlir::MLIRContext &ctx;
  llvm::SourceMgr &sm;
  const Module &module;
  mlir::OpBuilder b;
  std::map<std::string, const Function *> functions;
  std::vector<std::map<std::string, Binding>> scopes;
  /// Compile-time parameters of the kernel being emitted.
  std::map<std::string, int64_t> consts;
  std::map<std::string, mlir::Type> typeParams;
  bool sawGrid = false;
  /// The kernel being emitted (num_warps(...) sets its attribute).
  mlir::Operation *currentKernel = nullptr;
  int inlineDepth = 0;
  /// Helper calls inlined into the current kernel: bounded, since helpers
  /// that each call the next twice inline into 2^depth copies.
  int64_t inlinedCalls = 0;
  static constexpr int64_t kMaxInlinedCalls = 20000;
  /// > 0 inside `unchecked { ... }`: stores to p[i, ...] write the
  /// partition directly instead of claiming the tile.
  int uncheckedDepth = 0;
};

/// The element type of a scalar or tile type.
inline mlir::Type elementOf(mlir::Type t) {
  if (auto r = mlir::dyn_cast<mlir::RankedTensorType>(t))
    return r.getElementType();
  return t;
}

} // namespace tile::lang

#endif // LIB_LANGUAGE_EMITTERIMPL_H
