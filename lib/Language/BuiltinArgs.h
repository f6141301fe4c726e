//===- BuiltinArgs.h - what the builtins' emitters share (private) -*- C++ -*-===//
//
// The argument checks of one builtin call and the helpers the builtins'
// emitters share (EmitBuiltins.cpp dispatches to the launch, memory, tile
// and element-wise builtins, each in a file of its own).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_LANGUAGE_BUILTINARGS_H
#define TILE_LIB_LANGUAGE_BUILTINARGS_H

#include "EmitterImpl.h"

namespace tile::lang::builtins {
using namespace mlir;

/// Argument access with arity and kind checks for one builtin call.
struct Args {
  EmitterImpl &E;
  const Expr &call;

  bool arity(size_t lo, size_t hi) {
    size_t n = call.operands.size();
    if (n >= lo && n <= hi)
      return true;
    auto d = E.error(call.loc);
    d << "'" << call.name << "' takes ";
    if (lo == hi)
      d << lo;
    else
      d << lo << " to " << hi;
    d << " arguments, got " << n;
    return false;
  }
  bool noNamed(llvm::ArrayRef<StringRef> allowed = {}) {
    for (auto &[name, value] : call.named)
      if (!llvm::is_contained(allowed, name)) {
        E.error(value->loc) << "'" << call.name << "' has no argument named '"
                            << name << "'";
        return false;
      }
    return true;
  }
  const Expr *named(StringRef name) {
    for (auto &[n, value] : call.named)
      if (n == name)
        return value.get();
    return nullptr;
  }
  const Expr &operator[](size_t i) { return *call.operands[i]; }
  std::optional<int64_t> dim(size_t i, int64_t rank) {
    auto v = E.constant(*call.operands[i]);
    if (!v)
      return std::nullopt;
    if (*v < 0 || *v >= rank) {
      E.error(call.operands[i]->loc)
          << "dim " << *v << " is out of range for rank " << rank;
      return std::nullopt;
    }
    return v;
  }
  Value tile(size_t i) {
    Value v = E.value(*call.operands[i]);
    if (v && !isa<RankedTensorType>(v.getType())) {
      E.error(call.operands[i]->loc)
          << "'" << call.name << "' needs a tile here, got " << v.getType();
      return nullptr;
    }
    return v;
  }
  /// A type name argument (f32, i32, a type parameter).
  Type type(const Expr &e) {
    if (e.kind != Expr::Kind::Name) {
      E.error(e.loc) << "expected an element type name";
      return nullptr;
    }
    return E.scalarType(e.name, e.loc);
  }
};

/// A result that is `v`, or none (an error was reported) where `v` is null.
inline std::optional<Val> some(Value v) {
  if (!v)
    return std::nullopt;
  return Val::of(v);
}
/// The result of a builtin that yields no value (a statement).
inline std::optional<Val> none() {
  Val v;
  return std::optional<Val>(v);
}
/// The partition of a tile position p[i, ...]; null when `ref` is not one.
inline PartitionType partitionOf(const Val &ref) {
  return ref.kind == Val::Kind::TileRef ? dyn_cast<PartitionType>(ref.value.getType())
                                        : PartitionType();
}
/// The call's second argument as one tile of `pt` (scalars splat); null
/// after an error.
Value tileValue(EmitterImpl &E, Args &args, PartitionType pt);
/// A padding attribute of element type `elt` from a literal expression.
TypedAttr paddingAttr(EmitterImpl &E, const Expr &e, Type elt);
/// Emits `tile.reduce` of `inputs` along `dim`; `combine` builds the
/// combiner body from (accumulated..., incoming...) block arguments.
SmallVector<Value>
reduce(EmitterImpl &E, Location loc, ValueRange inputs, int64_t dim,
       function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange, ValueRange)> combine);

} // namespace tile::lang::builtins

#endif // TILE_LIB_LANGUAGE_BUILTINARGS_H
