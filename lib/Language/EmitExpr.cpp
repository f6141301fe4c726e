//===- EmitExpr.cpp - expressions of .tile to the tile dialect ------------===//
//
// Operators, casts, indexing and literal typing. Literals take the type of
// the other operand; a scalar meeting a tile is splat; tiles whose shapes
// differ only in size-1 dims are broadcast (numpy rules, equal ranks).
//
//===----------------------------------------------------------------------===//

#include "EmitterImpl.h"

#include "tile/Analysis/IntegerSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <limits>

using namespace mlir;
using namespace tile;
using namespace tile::lang;


std::optional<int64_t> EmitterImpl::foldInt(StringRef op, int64_t x,
                                            int64_t y, llvm::SMLoc at) {
  std::optional<int64_t> r;
  if ((op == "/" || op == "%") && y == 0) {
    error(at) << "division by zero in a constant expression";
    return std::nullopt;
  }
  if ((op == "<<" || op == ">>") && (y < 0 || y > 63)) {
    error(at) << "shift by " << y << " in a constant expression (expected 0..63)";
    return std::nullopt;
  }
  if (op == "neg")
    r = llvm::checkedSub(int64_t(0), x);
  else if (op == "+")
    r = llvm::checkedAdd(x, y);
  else if (op == "-")
    r = llvm::checkedSub(x, y);
  else if (op == "*")
    r = llvm::checkedMul(x, y);
  else if (op == "/" || op == "%")
    r = x == std::numeric_limits<int64_t>::min() && y == -1
            ? std::nullopt
            : std::optional<int64_t>(op == "/" ? x / y : x % y);
  else if (op == "&")
    r = x & y;
  else if (op == "|")
    r = x | y;
  else if (op == "^")
    r = x ^ y;
  else if (op == "<<")
    r = y == 0 || (x >= -(int64_t(1) << (63 - y)) &&
                   x <= (int64_t(1) << (63 - y)) - 1)
            ? std::optional<int64_t>(
                  static_cast<int64_t>(static_cast<uint64_t>(x) << y))
            : std::nullopt;
  else if (op == ">>")
    r = x >> y;
  if (!r && op == "neg")
    error(at) << "constant expression -(" << x << ") overflows i64";
  else if (!r)
    error(at) << "constant expression " << x << " " << op << " " << y
              << " overflows i64";
  return r;
}

Value EmitterImpl::splat(Value scalar, RankedTensorType to) {
  return SplatOp::create(b, scalar.getLoc(),
                         RankedTensorType::get(to.getShape(),
                                               scalar.getType()),
                         scalar);
}

Value EmitterImpl::materialize(const Val &v, llvm::SMLoc at, Type elt) {
  Location l = loc(at);
  switch (v.kind) {
  case Val::Kind::Value:
    return v.value;
  case Val::Kind::IntLit: {
    Type t = elt ? elt : b.getIndexType();
    if (isa<FloatType>(t))
      return arith::ConstantOp::create(
          b, l, t, b.getFloatAttr(t, static_cast<double>(v.intValue)));
    if (t.isInteger(1) && v.intValue != 0 && v.intValue != 1) {
      error(at) << "integer " << v.intValue << " is not a bool";
      return nullptr;
    }
    // The attribute would keep only the low bits: a silent wrap.
    if (unsigned w = integerWidth(t); w > 1 && (v.intValue < signedMin(w) ||
                                                v.intValue > signedMax(w))) {
      error(at) << "integer " << v.intValue << " does not fit " << t << " ["
                << signedMin(w) << ", " << signedMax(w) << "]";
      return nullptr;
    }
    return arith::ConstantOp::create(b, l, t, b.getIntegerAttr(t, v.intValue));
  }
  case Val::Kind::FloatLit: {
    Type t = elt ? elt : b.getF32Type();
    if (!isa<FloatType>(t)) {
      error(at) << "float literal where " << t << " is expected";
      return nullptr;
    }
    return arith::ConstantOp::create(b, l, t, b.getFloatAttr(t, v.floatValue));
  }
  default:
    error(at) << "expected a scalar or a tile here";
    return nullptr;
  }
}

Value EmitterImpl::coerce(const Val &v, Type want, llvm::SMLoc at) {
  Value m = materialize(v, at, elementOf(want));
  if (m && m.getType() != want && isa<RankedTensorType>(want) &&
      !isa<RankedTensorType>(m.getType()))
    m = splat(m, cast<RankedTensorType>(want));
  return m;
}

Value EmitterImpl::value(const Expr &e, Type elt) {
  auto v = expr(e);
  if (!v)
    return nullptr;
  return materialize(*v, e.loc, elt);
}

Value EmitterImpl::indexValue(const Expr &e) {
  Value v = value(e, b.getIndexType());
  if (v && !v.getType().isIndex()) {
    error(e.loc) << "expected an index, got " << v.getType()
                 << " (convert with 'as index')";
    return nullptr;
  }
  return v;
}

Value EmitterImpl::broadcastTo(Value tile, ArrayRef<int64_t> shape,
                               llvm::SMLoc at) {
  auto t = cast<RankedTensorType>(tile.getType());
  if (t.getShape() == shape)
    return tile;
  return BroadcastOp::create(b, loc(at),
                             RankedTensorType::get(shape, t.getElementType()),
                             tile);
}

LogicalResult EmitterImpl::unify(const Val &l, const Val &r, llvm::SMLoc at,
                                 Value &a, Value &c) {
  // Literals take the other side's element type.
  if (l.isLiteral() && r.isLiteral()) {
    Type t = (l.kind == Val::Kind::FloatLit || r.kind == Val::Kind::FloatLit)
                 ? Type(b.getF32Type())
                 : Type(b.getIndexType());
    a = materialize(l, at, t);
    c = materialize(r, at, t);
  } else if (l.isLiteral()) {
    c = materialize(r, at);
    if (!c)
      return failure();
    a = materialize(l, at, elementOf(c.getType()));
  } else {
    a = materialize(l, at);
    if (!a)
      return failure();
    c = materialize(r, at, elementOf(a.getType()));
  }
  if (!a || !c)
    return failure();
  if (elementOf(a.getType()) != elementOf(c.getType()))
    return error(at) << "mismatched element types " << elementOf(a.getType())
                     << " and " << elementOf(c.getType())
                     << " (convert one with 'as')";
  auto ta = dyn_cast<RankedTensorType>(a.getType());
  auto tc = dyn_cast<RankedTensorType>(c.getType());
  if (ta && !tc)
    c = splat(c, ta);
  else if (!ta && tc)
    a = splat(a, tc);
  else if (ta && tc && ta.getShape() != tc.getShape()) {
    if (ta.getRank() != tc.getRank())
      return error(at) << "tiles of shapes " << ta << " and " << tc
                       << " have different ranks (reshape one)";
    SmallVector<int64_t> shape;
    for (auto [x, y] : llvm::zip(ta.getShape(), tc.getShape())) {
      if (x != y && x != 1 && y != 1)
        return error(at) << "tiles of shapes " << ta << " and " << tc
                         << " do not broadcast";
      shape.push_back(std::max(x, y));
    }
    a = broadcastTo(a, shape, at);
    c = broadcastTo(c, shape, at);
  }
  return success();
}

std::optional<Val> EmitterImpl::binary(const Expr &e) {
  auto l = expr(*e.operands[0]);
  if (!l)
    return std::nullopt;
  auto r = expr(*e.operands[1]);
  if (!r)
    return std::nullopt;
  const std::string &op = e.name;
  // Integer literals fold (shape arithmetic, constants).
  if (l->kind == Val::Kind::IntLit && r->kind == Val::Kind::IntLit &&
      (op == "+" || op == "-" || op == "*" || op == "/" || op == "%" ||
       op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>")) {
    std::optional<int64_t> folded =
        foldInt(op, l->intValue, r->intValue, e.loc);
    if (!folded)
      return std::nullopt;
    return Val::intLit(*folded);
  }
  Value a, c;
  if (failed(unify(*l, *r, e.loc, a, c)))
    return std::nullopt;
  Location lc = loc(e.loc);
  Type elt = elementOf(a.getType());
  bool fp = isa<FloatType>(elt);
  bool isBool = elt.isInteger(1);
  if (op == "&&" || op == "||" || op == "&" || op == "|" || op == "^") {
    if (fp) {
      error(e.loc) << "'" << op << "' needs bool or integer operands, not "
                   << elt;
      return std::nullopt;
    }
    if ((op == "&&" || op == "||") && !isBool) {
      error(e.loc) << "'" << op << "' needs bool operands, not " << elt;
      return std::nullopt;
    }
    if (op == "&&" || op == "&")
      return Val::of(arith::AndIOp::create(b, lc, a, c));
    if (op == "^")
      return Val::of(arith::XOrIOp::create(b, lc, a, c));
    return Val::of(arith::OrIOp::create(b, lc, a, c));
  }
  // Shifts: integers only; `>>` is arithmetic on signed integers (as in
  // Rust) and logical on indices, which are never negative. Hashes mask
  // after shifting right.
  if (op == "<<" || op == ">>") {
    if (fp || isBool) {
      error(e.loc) << "'" << op << "' needs integer operands, not " << elt;
      return std::nullopt;
    }
    // A shift by the width or more is poison in the generated code.
    unsigned width = integerWidth(elt);
    if (r->kind == Val::Kind::IntLit &&
        (r->intValue < 0 || r->intValue >= static_cast<int64_t>(width))) {
      error(e.loc) << "shift by " << r->intValue << " outside 0.." << width - 1
                   << ", the bits of " << elt;
      return std::nullopt;
    }
    if (op == "<<")
      return Val::of(arith::ShLIOp::create(b, lc, a, c));
    return Val::of(elt.isIndex() ? arith::ShRUIOp::create(b, lc, a, c).getResult()
                                 : arith::ShRSIOp::create(b, lc, a, c).getResult());
  }
  if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" ||
      op == ">=") {
    if (fp) {
      auto pred = llvm::StringSwitch<arith::CmpFPredicate>(op)
                      .Case("==", arith::CmpFPredicate::OEQ)
                      .Case("!=", arith::CmpFPredicate::UNE)
                      .Case("<", arith::CmpFPredicate::OLT)
                      .Case("<=", arith::CmpFPredicate::OLE)
                      .Case(">", arith::CmpFPredicate::OGT)
                      .Default(arith::CmpFPredicate::OGE);
      return Val::of(arith::CmpFOp::create(b, lc, pred, a, c));
    }
    auto pred = llvm::StringSwitch<arith::CmpIPredicate>(op)
                    .Case("==", arith::CmpIPredicate::eq)
                    .Case("!=", arith::CmpIPredicate::ne)
                    .Case("<", arith::CmpIPredicate::slt)
                    .Case("<=", arith::CmpIPredicate::sle)
                    .Case(">", arith::CmpIPredicate::sgt)
                    .Default(arith::CmpIPredicate::sge);
    return Val::of(arith::CmpIOp::create(b, lc, pred, a, c));
  }
  if (isBool) {
    error(e.loc) << "arithmetic on bools";
    return std::nullopt;
  }
  if (op == "+")
    return Val::of(fp ? arith::AddFOp::create(b, lc, a, c).getResult()
                      : arith::AddIOp::create(b, lc, a, c).getResult());
  if (op == "-")
    return Val::of(fp ? arith::SubFOp::create(b, lc, a, c).getResult()
                      : arith::SubIOp::create(b, lc, a, c).getResult());
  if (op == "*")
    return Val::of(fp ? arith::MulFOp::create(b, lc, a, c).getResult()
                      : arith::MulIOp::create(b, lc, a, c).getResult());
  // Indices are never negative: unsigned division, which the ownership
  // analysis models exactly; other integers are signed.
  if (op == "/")
    return Val::of(fp           ? arith::DivFOp::create(b, lc, a, c).getResult()
                   : elt.isIndex() ? arith::DivUIOp::create(b, lc, a, c).getResult()
                                   : arith::DivSIOp::create(b, lc, a, c).getResult());
  if (op == "%")
    return Val::of(fp           ? arith::RemFOp::create(b, lc, a, c).getResult()
                   : elt.isIndex() ? arith::RemUIOp::create(b, lc, a, c).getResult()
                                   : arith::RemSIOp::create(b, lc, a, c).getResult());
  error(e.loc) << "unknown operator '" << op << "'";
  return std::nullopt;
}

std::optional<Val> EmitterImpl::unary(const Expr &e) {
  auto v = expr(*e.operands[0]);
  if (!v)
    return std::nullopt;
  if (e.name == "-") {
    if (v->kind == Val::Kind::IntLit) {
      std::optional<int64_t> folded = foldInt("neg", v->intValue, 0, e.loc);
      return folded ? std::optional<Val>(Val::intLit(*folded)) : std::nullopt;
    }
    if (v->kind == Val::Kind::FloatLit)
      return Val::floatLit(-v->floatValue);
  }
  Value x = materialize(*v, e.loc);
  if (!x)
    return std::nullopt;
  Location l = loc(e.loc);
  Type elt = elementOf(x.getType());
  auto zeroLike = [&](Value like) -> Value {
    Value z = arith::ConstantOp::create(b, l, elt, b.getZeroAttr(elt));
    if (auto t = dyn_cast<RankedTensorType>(like.getType()))
      return splat(z, t);
    return z;
  };
  if (e.name == "-") {
    if (isa<FloatType>(elt))
      return Val::of(arith::NegFOp::create(b, l, x));
    if (elt.isInteger(1)) {
      error(e.loc) << "negation of a bool (use '!')";
      return std::nullopt;
    }
    return Val::of(arith::SubIOp::create(b, l, zeroLike(x), x));
  }
  if (!elt.isInteger(1)) {
    error(e.loc) << "'!' needs a bool, not " << elt;
    return std::nullopt;
  }
  Value one = arith::ConstantOp::create(b, l, elt, b.getIntegerAttr(elt, 1));
  if (auto t = dyn_cast<RankedTensorType>(x.getType()))
    one = splat(one, t);
  return Val::of(arith::XOrIOp::create(b, l, x, one));
}

Value EmitterImpl::convert(Value v, Type to, llvm::SMLoc at) {
  Location l = loc(at);
  Type from = elementOf(v.getType());
  if (from == to)
    return v;
  if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
    if (to.isIndex() || from.isIndex()) {
      error(at) << "tiles of index do not convert; use i32 or i64 tiles";
      return nullptr;
    }
    return ConvertOp::create(b, l, RankedTensorType::get(t.getShape(), to), v,
                             RoundingModeAttr());
  }
  // Scalars.
  bool fromF = isa<FloatType>(from), toF = isa<FloatType>(to);
  if (fromF && toF) {
    if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, l, to, v);
    return arith::TruncFOp::create(b, l, to, v);
  }
  if (from.isIndex() || to.isIndex()) {
    if (fromF || toF) {
      Type i64 = b.getI64Type();
      Value mid = convert(v, i64, at);
      return mid ? convert(mid, to, at) : nullptr;
    }
    return arith::IndexCastOp::create(b, l, to, v);
  }
  if (!fromF && toF)
    return arith::SIToFPOp::create(b, l, to, v);
  if (fromF && !toF)
    return arith::FPToSIOp::create(b, l, to, v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (tw > fw)
    return from.isInteger(1) ? arith::ExtUIOp::create(b, l, to, v).getResult()
                             : arith::ExtSIOp::create(b, l, to, v).getResult();
  return arith::TruncIOp::create(b, l, to, v);
}

std::optional<Val> EmitterImpl::castExpr(const Expr &e) {
  Type to = scalarType(e.type->scalar, e.type->loc);
  if (!to)
    return std::nullopt;
  if (e.type->isTile) {
    error(e.type->loc) << "'as' takes an element type (f32, i32...)";
    return std::nullopt;
  }
  auto v = expr(*e.operands[0]);
  if (!v)
    return std::nullopt;
  if (v->isLiteral()) {
    Value m = materialize(*v, e.loc, to);
    return m ? std::optional<Val>(Val::of(m)) : std::nullopt;
  }
  Value x = materialize(*v, e.loc);
  if (!x)
    return std::nullopt;
  Value r = convert(x, to, e.loc);
  return r ? std::optional<Val>(Val::of(r)) : std::nullopt;
}

SmallVector<Value> EmitterImpl::indexList(const Expr &e) {
  SmallVector<Value> out;
  const std::vector<ExprPtr> &items = e.operands;
  for (const ExprPtr &item : items) {
    Value v = indexValue(*item);
    if (!v)
      return {};
    out.push_back(v);
  }
  return out;
}

std::optional<std::vector<int64_t>> EmitterImpl::intList(const Expr &e) {
  if (e.kind != Expr::Kind::List) {
    error(e.loc) << "expected a list of compile-time integers [a, b, ...]";
    return std::nullopt;
  }
  std::vector<int64_t> out;
  for (const ExprPtr &item : e.operands) {
    auto v = constant(*item);
    if (!v)
      return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<Val> EmitterImpl::index(const Expr &e) {
  auto base = expr(*e.operands[0]);
  if (!base)
    return std::nullopt;
  if (base->kind != Val::Kind::Partition && base->kind != Val::Kind::Owned) {
    error(e.loc) << "only partitions (p[i, j]: the tile at a position) and "
                    "claimed blocks (b[i, j]: a sub-tile) are indexed";
    return std::nullopt;
  }
  if (!e.named.empty()) {
    error(e.loc) << "named arguments in an index";
    return std::nullopt;
  }
  Val ref;
  ref.kind = Val::Kind::TileRef;
  ref.value = base->value;
  ref.view = base->view;
  for (size_t i = 1; i < e.operands.size(); ++i) {
    Value v = indexValue(*e.operands[i]);
    if (!v)
      return std::nullopt;
    ref.indices.push_back(v);
  }
  return ref;
}

std::optional<Val> EmitterImpl::method(const Expr &e) {
  auto base = expr(*e.operands[0]);
  if (!base)
    return std::nullopt;
  if (e.name == "tiles") {
    // On a `by` parameter it partitions the same tensor again (tiles of
    // another shape); the ownership proof covers claims of both.
    Value view = base->kind == Val::Kind::View        ? base->value
                 : base->kind == Val::Kind::Partition ? base->view
                                                      : Value();
    if (!view || e.operands.size() != 2) {
      error(e.loc) << "'.tiles([...])' partitions a tensor parameter into "
                      "tiles of a static shape";
      return std::nullopt;
    }
    auto tileShape = intList(*e.operands[1]);
    if (!tileShape)
      return std::nullopt;
    auto viewType = cast<ViewType>(view.getType());
    if (tileShape->size() != static_cast<size_t>(viewType.getRank())) {
      error(e.loc) << "the tile shape has " << tileShape->size()
                   << " dims; the tensor has " << viewType.getRank();
      return std::nullopt;
    }
    for (int64_t d : *tileShape)
      if (d <= 0) {
        error(e.loc) << "tile dims must be positive";
        return std::nullopt;
      }
    Val p;
    p.kind = Val::Kind::Partition;
    p.value = PartitionOp::create(b, loc(e.loc),
                                  PartitionType::get(viewType, *tileShape),
                                  view);
    p.view = view;
    return p;
  }
  error(e.loc) << "unknown method '" << e.name << "' (tensors have .tiles)";
  return std::nullopt;
}

std::optional<Val> EmitterImpl::expr(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Int:
    return Val::intLit(e.intValue);
  case Expr::Kind::Float:
    return Val::floatLit(e.floatValue);
  case Expr::Kind::Bool:
    return Val::of(arith::ConstantOp::create(b, loc(e.loc), b.getI1Type(),
                                             b.getBoolAttr(e.intValue != 0)));
  case Expr::Kind::Name: {
    if (e.name == "\"") {
      Val s;
      s.kind = Val::Kind::String;
      s.text = e.text;
      return s;
    }
    if (auto it = consts.find(e.name); it != consts.end())
      return Val::intLit(it->second);
    if (Binding *binding = lookup(e.name))
      return binding->val;
    // Float constants a literal cannot spell (masks, padding of max).
    if (e.name == "inf")
      return Val::floatLit(std::numeric_limits<double>::infinity());
    if (e.name == "nan")
      return Val::floatLit(std::numeric_limits<double>::quiet_NaN());
    error(e.loc) << "unknown name '" << e.name << "'";
    return std::nullopt;
  }
  case Expr::Kind::Unary:
    return unary(e);
  case Expr::Kind::Binary:
    return binary(e);
  case Expr::Kind::Cast:
    return castExpr(e);
  case Expr::Kind::Call:
    return call(e);
  case Expr::Kind::Method:
    return method(e);
  case Expr::Kind::Index:
    return index(e);
  case Expr::Kind::List: {
    Val list;
    list.kind = Val::Kind::List;
    for (const ExprPtr &item : e.operands) {
      auto v = expr(*item);
      if (!v)
        return std::nullopt;
      list.elements.push_back(*v);
    }
    return list;
  }
  case Expr::Kind::Wild:
    error(e.loc) << "'?' is only allowed in tensor shapes";
    return std::nullopt;
  }
  return std::nullopt;
}
