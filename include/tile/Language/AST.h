//===- AST.h - the syntax tree of the .tile language ------------*- C++ -*-===//
//
// Plain C++ (no MLIR): the parser builds it, the emitter (Emitter.h) turns it
// into the tile dialect. Every node keeps its source position for
// diagnostics and for the locations of the ops it becomes.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LANGUAGE_AST_H
#define TILE_LANGUAGE_AST_H

#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tile::lang {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

/// A type as written: a scalar (`f32`, `index`, or a type parameter name),
/// or `Tile<dtype, [dims]>` (dims are constant expressions).
struct TypeExpr {
  llvm::SMLoc loc;
  std::string scalar;              ///< the scalar or element type name
  bool isTile = false;
  std::vector<ExprPtr> shape;      ///< for tiles
};

struct Expr {
  enum class Kind {
    Int,     ///< integer literal
    Float,   ///< float literal
    Bool,    ///< true / false
    Name,    ///< identifier
    Unary,   ///< op: "-" or "!"
    Binary,  ///< op: + - * / % == != < <= > >= && || & |
    Cast,    ///< operand `as` type
    Call,    ///< callee(args) (builtin or helper function)
    Method,  ///< operand.callee(args)
    Index,   ///< operand[args]
    List,    ///< [args]
    Wild,    ///< `?` (a dynamic dim)
  };
  Kind kind;
  llvm::SMLoc loc;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string name; ///< Name, callee, operator
  std::vector<ExprPtr> operands;
  /// Named arguments of calls: `load(p[i], pad = 0.0)`.
  std::vector<std::pair<std::string, ExprPtr>> named;
  std::optional<TypeExpr> type; ///< for Cast
  /// The source text of a string argument (assume messages).
  std::string text;
  /// The height of the tree under this node (1: a leaf), set by the parser,
  /// which bounds it: every later walk of an expression recurses that deep.
  int height = 1;

  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
};

struct Body {
  std::vector<StmtPtr> stmts;
  /// A final expression without `;` (the value of a helper function).
  ExprPtr result;
};

struct Stmt {
  enum class Kind {
    Let,    ///< let [mut] names [: type] = value;
    Assign, ///< name = value;
    For,    ///< for var in lo..hi [step s] [unroll [if cond]] body
    If,     ///< if cond then [else otherwise]
    Expr,   ///< value;
    Return,    ///< return [value];
    Unchecked, ///< unchecked "reason" body: exempt from the ownership proof
    Join,      ///< join(tickets, dim) body: value = tickets, lower = dim
  };
  Kind kind;
  llvm::SMLoc loc;
  std::vector<std::string> names; ///< Let (tuple patterns), Assign, For var
  bool isMutable = false;
  std::optional<TypeExpr> type;
  ExprPtr value, lower, upper, step; ///< value; for bounds; If: value = cond
  Body body, otherwise;
  bool hasElse = false;
  bool unroll = false; ///< For: emitted once per iteration (constant bounds)
  ExprPtr unrollIf;    ///< For: `unroll if cond`, unrolled where cond holds
  std::string reason; ///< Unchecked

  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
};

/// `const NAME: type [= default]` or `type NAME [= default]`.
struct GenericParam {
  llvm::SMLoc loc;
  std::string name;
  bool isType = false;
  std::string scalarType; ///< of a const parameter
  ExprPtr defaultValue;   ///< const: a constant expression
  std::string defaultType;
};

struct Param {
  enum class Kind { View, Scalar };
  llvm::SMLoc loc;
  std::string name;
  Kind kind = Kind::Scalar;
  std::string mode; ///< "in" (&), "out" (&mut), "inout" (&inout), "add" (&add),
                    ///< "frozen" (&frozen), "settled" (&settled),
                    ///< "ticket" (&ticket)
  std::string dtype;
  std::vector<ExprPtr> shape; ///< Wild for `?`
  /// `strides = [...]` (Wild for `?`); empty: row-major contiguous.
  std::vector<ExprPtr> strides;
  std::vector<ExprPtr> by;    ///< the owned partition of out/inout views
  TypeExpr type;              ///< helper-function parameters
};

struct Function {
  llvm::SMLoc loc;
  std::string name;
  bool isKernel = false;
  std::vector<GenericParam> generics;
  std::vector<Param> params;
  std::optional<TypeExpr> result;
  Body body;
  unsigned bufferId = 0; ///< the SourceMgr buffer it was parsed from
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
  std::vector<std::pair<llvm::SMLoc, std::string>> imports;
};

} // namespace tile::lang

#endif // TILE_LANGUAGE_AST_H
