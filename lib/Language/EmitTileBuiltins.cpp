//===- EmitTileBuiltins.cpp - tile builtins of .tile ------------------------===//
//
// Tiles made (zeros, full, iota), reshaped, sliced, rolled and joined;
// reductions and dot (EmitBuiltins.cpp dispatches).
//
//===----------------------------------------------------------------------===//

#include "BuiltinArgs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tile;
using namespace tile::lang;
using namespace tile::lang::builtins;

std::optional<Val> EmitterImpl::tileBuiltin(const Expr &e, bool &handled) {
  handled = true;
  Args args{*this, e};
  Location l = loc(e.loc);
  const std::string &name = e.name;
  // -- Construction and shape -------------------------------------------------
  if (name == "zeros" || name == "full") {
    bool full = name == "full";
    if (!args.arity(full ? 3 : 2, full ? 3 : 2) || !args.noNamed())
      return std::nullopt;
    auto shape = intList(args[0]);
    Type elt = shape ? args.type(args[full ? 2 : 1]) : Type();
    if (!elt)
      return std::nullopt;
    Value scalar = full ? value(args[1], elt)
                        : materialize(Val::intLit(0), e.loc, elt);
    if (!scalar)
      return std::nullopt;
    if (scalar.getType() != elt) {
      error(args[1].loc) << "the fill value is " << scalar.getType()
                         << ", the tile " << elt;
      return std::nullopt;
    }
    return some(splat(scalar, RankedTensorType::get(*shape, elt)));
  }
  if (name == "iota") {
    if (!args.arity(1, 2) || !args.noNamed())
      return std::nullopt;
    auto n = constant(args[0]);
    Type elt = e.operands.size() == 2 ? args.type(args[1]) : b.getI32Type();
    if (!n || !elt)
      return std::nullopt;
    return Val::of(IotaOp::create(b, l, RankedTensorType::get({*n}, elt)));
  }
  if (name == "reshape" || name == "broadcast" || name == "permute" ||
      name == "extract") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    Value t = args.tile(0);
    auto list = t ? intList(args[1]) : std::nullopt;
    if (!list)
      return std::nullopt;
    auto tt = cast<RankedTensorType>(t.getType());
    if (name == "reshape")
      return Val::of(ReshapeOp::create(
          b, l, RankedTensorType::get(*list, tt.getElementType()), t));
    if (name == "broadcast")
      return Val::of(BroadcastOp::create(
          b, l, RankedTensorType::get(*list, tt.getElementType()), t));
    if (name == "extract")
      return Val::of(ExtractOp::create(b, l, tt.getElementType(), t,
                                       b.getDenseI64ArrayAttr(*list)));
    SmallVector<int64_t> shape;
    for (int64_t p : *list) {
      if (p < 0 || p >= tt.getRank()) {
        error(args[1].loc) << "permutation entry " << p << " out of range";
        return std::nullopt;
      }
      shape.push_back(tt.getDimSize(p));
    }
    return Val::of(PermuteOp::create(
        b, l, RankedTensorType::get(shape, tt.getElementType()), t,
        b.getDenseI64ArrayAttr(*list)));
  }
  if (name == "slice") {
    if (!args.arity(3, 3) || !args.noNamed())
      return std::nullopt;
    Value t = args.tile(0);
    auto offsets = t ? intList(args[1]) : std::nullopt;
    auto sizes = offsets ? intList(args[2]) : std::nullopt;
    if (!sizes)
      return std::nullopt;
    auto tt = cast<RankedTensorType>(t.getType());
    return Val::of(SliceOp::create(
        b, l, RankedTensorType::get(*sizes, tt.getElementType()), t,
        b.getDenseI64ArrayAttr(*offsets)));
  }
  if (name == "roll") {
    if (!args.arity(2, 2) || !args.noNamed({"dim"}) || !args.named("dim")) {
      error(e.loc) << "roll takes a tile, a shift and dim = d";
      return std::nullopt;
    }
    Value t = args.tile(0);
    auto shift = t ? constant(args[1]) : std::nullopt;
    auto d = shift ? constant(*args.named("dim")) : std::nullopt;
    if (!d)
      return std::nullopt;
    auto tt = cast<RankedTensorType>(t.getType());
    if (*d < 0 || *d >= tt.getRank()) {
      error(e.loc) << "roll dim " << *d << " out of range for rank "
                   << tt.getRank();
      return std::nullopt;
    }
    return Val::of(RollOp::create(b, l, tt, t, *shift, *d));
  }
  if (name == "concat") {
    if (e.operands.size() < 2 || !args.noNamed({"dim"}) || !args.named("dim")) {
      error(e.loc) << "concat takes two or more tiles and dim = d";
      return std::nullopt;
    }
    SmallVector<Value> tiles;
    for (size_t i = 0; i < e.operands.size(); ++i) {
      Value t = args.tile(i);
      if (!t)
        return std::nullopt;
      tiles.push_back(t);
    }
    auto t0 = cast<RankedTensorType>(tiles[0].getType());
    auto d = constant(*args.named("dim"));
    if (!d)
      return std::nullopt;
    if (*d < 0 || *d >= t0.getRank()) {
      error(e.loc) << "concat dim " << *d << " out of range";
      return std::nullopt;
    }
    SmallVector<int64_t> shape(t0.getShape());
    shape[*d] = 0;
    for (Value t : tiles)
      shape[*d] += cast<RankedTensorType>(t.getType()).getDimSize(*d);
    return Val::of(ConcatOp::create(
        b, l, RankedTensorType::get(shape, t0.getElementType()), tiles, *d));
  }

  // -- Reductions and dot -----------------------------------------------------
  if (name == "sum" || name == "max" || name == "min" || name == "argmax" ||
      name == "argmin") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    Value t = args.tile(0);
    if (!t)
      return std::nullopt;
    auto tt = cast<RankedTensorType>(t.getType());
    auto d = args.dim(1, tt.getRank());
    if (!d)
      return std::nullopt;
    Type elt = tt.getElementType();
    bool fp = isa<FloatType>(elt);
    auto pick = [&](OpBuilder &ob, Location bl, Value x, Value y,
                    bool greater) -> Value {
      if (fp)
        return greater ? arith::MaximumFOp::create(ob, bl, x, y).getResult()
                       : arith::MinimumFOp::create(ob, bl, x, y).getResult();
      return greater ? arith::MaxSIOp::create(ob, bl, x, y).getResult()
                     : arith::MinSIOp::create(ob, bl, x, y).getResult();
    };
    if (name == "sum" || name == "max" || name == "min") {
      auto r = reduce(*this, l, {t}, *d,
                      [&](OpBuilder &ob, Location bl, ValueRange acc,
                          ValueRange in) -> SmallVector<Value> {
                        if (name == "sum")
                          return {fp ? arith::AddFOp::create(ob, bl, acc[0],
                                                             in[0])
                                           .getResult()
                                     : arith::AddIOp::create(ob, bl, acc[0],
                                                             in[0])
                                           .getResult()};
                        return {pick(ob, bl, acc[0], in[0], name == "max")};
                      });
      return Val::of(r[0]);
    }
    // argmax/argmin: (value, index) pairs; ties go to the smaller index.
    int64_t n = tt.getDimSize(*d);
    Type i32 = b.getI32Type();
    Value idx = IotaOp::create(b, l, RankedTensorType::get({n}, i32));
    SmallVector<int64_t> unit(tt.getRank(), 1);
    unit[*d] = n;
    idx = ReshapeOp::create(b, l, RankedTensorType::get(unit, i32), idx);
    idx = broadcastTo(idx, tt.getShape(), e.loc);
    bool greater = name == "argmax";
    auto r = reduce(
        *this, l, {t, idx}, *d,
        [&](OpBuilder &ob, Location bl, ValueRange acc,
            ValueRange in) -> SmallVector<Value> {
          Value better, same;
          if (fp) {
            better = arith::CmpFOp::create(
                ob, bl,
                greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                in[0], acc[0]);
            same = arith::CmpFOp::create(ob, bl, arith::CmpFPredicate::OEQ,
                                         in[0], acc[0]);
          } else {
            better = arith::CmpIOp::create(
                ob, bl,
                greater ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
                in[0], acc[0]);
            same = arith::CmpIOp::create(ob, bl, arith::CmpIPredicate::eq,
                                         in[0], acc[0]);
          }
          Value lower = arith::CmpIOp::create(ob, bl, arith::CmpIPredicate::slt,
                                              in[1], acc[1]);
          Value take = arith::OrIOp::create(
              ob, bl, better, arith::AndIOp::create(ob, bl, same, lower));
          return {arith::SelectOp::create(ob, bl, take, in[0], acc[0]),
                  arith::SelectOp::create(ob, bl, take, in[1], acc[1])};
        });
    Val tuple;
    tuple.kind = Val::Kind::Tuple;
    tuple.elements = {Val::of(r[0]), Val::of(r[1])};
    return tuple;
  }
  if (name == "dot") {
    if (!args.arity(3, 3) || !args.noNamed())
      return std::nullopt;
    Value x = args.tile(0), y = x ? args.tile(1) : Value();
    Value acc = y ? args.tile(2) : Value();
    if (!acc)
      return std::nullopt;
    return Val::of(DotOp::create(b, l, acc.getType(), x, y, acc));
  }

  handled = false;
  return std::nullopt;
}
