//===- EmitElementwiseBuiltins.cpp - element-wise builtins of .tile ---------===//
//
// where, maximum and minimum, fma and the math functions
// (EmitBuiltins.cpp dispatches).
//
//===----------------------------------------------------------------------===//

#include "BuiltinArgs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tile;
using namespace tile::lang;
using namespace tile::lang::builtins;

std::optional<Val> EmitterImpl::elementwiseBuiltin(const Expr &e, bool &handled) {
  handled = true;
  Args args{*this, e};
  Location l = loc(e.loc);
  const std::string &name = e.name;
  // -- Element-wise ------------------------------------------------------------
  if (name == "where") {
    if (!args.arity(3, 3) || !args.noNamed())
      return std::nullopt;
    auto c = expr(args[0]), x = c ? expr(args[1]) : std::nullopt;
    auto y = x ? expr(args[2]) : std::nullopt;
    if (!y)
      return std::nullopt;
    Value a, z;
    if (failed(unify(*x, *y, e.loc, a, z)))
      return std::nullopt;
    Value cond = materialize(*c, args[0].loc, b.getI1Type());
    if (!cond)
      return std::nullopt;
    if (elementOf(cond.getType()) != b.getI1Type()) {
      error(args[0].loc) << "the condition of where must be bool";
      return std::nullopt;
    }
    if (auto t = dyn_cast<RankedTensorType>(a.getType())) {
      if (!isa<RankedTensorType>(cond.getType()))
        cond = splat(cond, t);
      else
        cond = broadcastTo(cond, t.getShape(), e.loc);
    } else if (isa<RankedTensorType>(cond.getType())) {
      auto t = cast<RankedTensorType>(cond.getType());
      a = splat(a, t);
      z = splat(z, t);
    }
    return Val::of(arith::SelectOp::create(b, l, cond, a, z));
  }
  if (name == "maximum" || name == "minimum") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    auto x = expr(args[0]), y = x ? expr(args[1]) : std::nullopt;
    Value a, c;
    if (!y || failed(unify(*x, *y, e.loc, a, c)))
      return std::nullopt;
    bool greater = name == "maximum";
    if (isa<FloatType>(elementOf(a.getType())))
      return Val::of(greater ? arith::MaximumFOp::create(b, l, a, c).getResult()
                             : arith::MinimumFOp::create(b, l, a, c).getResult());
    return Val::of(greater ? arith::MaxSIOp::create(b, l, a, c).getResult()
                           : arith::MinSIOp::create(b, l, a, c).getResult());
  }
  if (name == "fma") {
    // a * b + c with one rounding (math.fma: FFMA on the GPU, llvm.fma on
    // the host, so both paths agree). Operands broadcast as for `+`.
    if (!args.arity(3, 3) || !args.noNamed())
      return std::nullopt;
    auto x = expr(args[0]), y = x ? expr(args[1]) : std::nullopt;
    auto z = y ? expr(args[2]) : std::nullopt;
    // Pairwise, as `+` would: x with y, then with z, then y with the result.
    Value p, q, r, p2, q2, r2;
    if (!z || failed(unify(*x, *y, e.loc, p, q)) ||
        failed(unify(Val::of(p), *z, e.loc, p2, r)) ||
        failed(unify(Val::of(q), Val::of(p2), e.loc, q2, r2)))
      return std::nullopt;
    if (!isa<FloatType>(elementOf(p2.getType()))) {
      error(e.loc) << "'fma' needs floats, got " << elementOf(p2.getType());
      return std::nullopt;
    }
    return Val::of(math::FmaOp::create(b, l, p2, q2, r));
  }
  static const char *kMath[] = {"exp",  "exp2", "log",  "log2", "sqrt",
                                "rsqrt", "sin", "cos",  "tanh", "abs",
                                "floor", "ceil", "erf", "sigmoid"};
  if (llvm::is_contained(kMath, StringRef(name))) {
    if (!args.arity(1, 1) || !args.noNamed())
      return std::nullopt;
    Value x = value(args[0]);
    if (!x)
      return std::nullopt;
    Type elt = elementOf(x.getType());
    if (!isa<FloatType>(elt)) {
      if (name == "abs")
        return Val::of(math::AbsIOp::create(b, l, x));
      error(args[0].loc) << "'" << name << "' needs floats, got " << elt;
      return std::nullopt;
    }
    Value r;
    if (name == "exp") r = math::ExpOp::create(b, l, x);
    else if (name == "exp2") r = math::Exp2Op::create(b, l, x);
    else if (name == "log") r = math::LogOp::create(b, l, x);
    else if (name == "log2") r = math::Log2Op::create(b, l, x);
    else if (name == "sqrt") r = math::SqrtOp::create(b, l, x);
    else if (name == "rsqrt") r = math::RsqrtOp::create(b, l, x);
    else if (name == "sin") r = math::SinOp::create(b, l, x);
    else if (name == "cos") r = math::CosOp::create(b, l, x);
    else if (name == "tanh") r = math::TanhOp::create(b, l, x);
    else if (name == "abs") r = math::AbsFOp::create(b, l, x);
    else if (name == "floor") r = math::FloorOp::create(b, l, x);
    else if (name == "ceil") r = math::CeilOp::create(b, l, x);
    else if (name == "erf") r = math::ErfOp::create(b, l, x);
    else {
      // sigmoid(x) = 1 / (1 + exp(-x))
      Value one = materialize(Val::floatLit(1.0), e.loc, elt);
      if (auto t = dyn_cast<RankedTensorType>(x.getType()))
        one = splat(one, t);
      Value ex = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
      r = arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, ex));
    }
    return Val::of(r);
  }
  handled = false;
  return std::nullopt;
}
