//===- EmitBuiltins.cpp - intrinsics and helper calls of .tile ------------===//
//
// The builtins (docs/language.md lists them) map one-to-one onto tile ops,
// arith/math ops, or a short fixed sequence (sum = tile.reduce with addf,
// argmax = a reduction of (value, index) pairs). This file dispatches a
// call to them and holds the launch's (program ids, the grid, launch
// attributes, assumptions, sizes); memory builtins are in
// EmitMemoryBuiltins.cpp, tile construction, shape, reductions and dot in
// EmitTileBuiltins.cpp, element-wise ones in EmitElementwiseBuiltins.cpp.
// (Calls of helper functions: EmitCalls.cpp.)
//
//===----------------------------------------------------------------------===//

#include "BuiltinArgs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tile;
using namespace tile::lang;
using namespace tile::lang::builtins;

/// A padding attribute of element type `elt` from a literal expression.
TypedAttr builtins::paddingAttr(EmitterImpl &E, const Expr &e, Type elt) {
  auto v = E.expr(e);
  if (!v)
    return nullptr;
  if (v->kind == Val::Kind::FloatLit && isa<FloatType>(elt))
    return E.b.getFloatAttr(elt, v->floatValue);
  if (v->kind == Val::Kind::IntLit) {
    if (isa<FloatType>(elt))
      return E.b.getFloatAttr(elt, static_cast<double>(v->intValue));
    return E.b.getIntegerAttr(elt, v->intValue);
  }
  E.error(e.loc) << "the padding must be a literal of the element type "
                 << elt;
  return nullptr;
}

/// Emits `tile.reduce` of `inputs` along `dim`; `combine` builds the
/// combiner body from (accumulated..., incoming...) block arguments.
SmallVector<Value>
builtins::reduce(EmitterImpl &E, Location loc, ValueRange inputs, int64_t dim,
       function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange,
                                       ValueRange)>
           combine) {
  SmallVector<Type> results;
  for (Value in : inputs) {
    auto t = cast<RankedTensorType>(in.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = 1;
    results.push_back(RankedTensorType::get(shape, t.getElementType()));
  }
  auto op = ReduceOp::create(E.b, loc, results, inputs, dim);
  Block *body = new Block();
  op.getCombiner().push_back(body);
  for (int pass = 0; pass < 2; ++pass)
    for (Value in : inputs)
      body->addArgument(elementOf(in.getType()), loc);
  OpBuilder::InsertionGuard guard(E.b);
  E.b.setInsertionPointToStart(body);
  size_t n = inputs.size();
  SmallVector<Value> out =
      combine(E.b, loc, body->getArguments().take_front(n),
              body->getArguments().drop_front(n));
  YieldOp::create(E.b, loc, out);
  return SmallVector<Value>(op.getResults());
}

Value builtins::tileValue(EmitterImpl &E, Args &args, PartitionType pt) {
  auto v = E.expr(args[1]);
  if (!v)
    return {};
  return E.coerce(*v, pt.getTileType(), args[1].loc);
}

std::optional<Val> EmitterImpl::builtin(const Expr &e, bool &handled) {
  using Section = std::optional<Val> (EmitterImpl::*)(const Expr &, bool &);
  for (Section section : {&EmitterImpl::launchBuiltin, &EmitterImpl::memoryBuiltin,
                          &EmitterImpl::tileBuiltin, &EmitterImpl::elementwiseBuiltin}) {
    std::optional<Val> r = (this->*section)(e, handled);
    if (handled)
      return r;
  }
  return std::nullopt;
}

std::optional<Val> EmitterImpl::launchBuiltin(const Expr &e, bool &handled) {
  handled = true;
  Args args{*this, e};
  Location l = loc(e.loc);
  const std::string &name = e.name;
  // -- The launch ------------------------------------------------------------
  if (name == "program_id" || name == "num_programs") {
    if (!args.arity(1, 1) || !args.noNamed())
      return std::nullopt;
    auto d = args.dim(0, 3);
    if (!d)
      return std::nullopt;
    auto dim = static_cast<Dimension>(*d);
    if (name == "program_id")
      return Val::of(ProgramIdOp::create(b, l, dim));
    return Val::of(NumProgramsOp::create(b, l, dim));
  }
  if (name == "grid") {
    if (!args.arity(1, 3) || !args.noNamed())
      return std::nullopt;
    if (sawGrid) {
      error(e.loc) << "the grid is already set (by 'by [...]' or an earlier "
                      "grid(...))";
      return std::nullopt;
    }
    SmallVector<Value> extents = indexList(e);
    if (extents.empty())
      return std::nullopt;
    GridOp::create(b, l, extents);
    sawGrid = true;
    return none();
  }
  // Kernel settings for the GPU, each a compile-time integer in [1, 32]
  // given once at the kernel's top level and kept as a kernel attribute.
  // num_warps: threads per program, instead of tilec's --num-warps (a
  // one-program kernel, sampling, wants all 32 warps). min_programs_per_sm:
  // occupancy for a grid of about one wave, where a register count just
  // past a multiple sends the last programs to a second wave
  // (decode_attention in bf16 fit one program fewer per SM than f16 and ran
  // much slower: bench/results/2026-11-22-decode-attention-tiers-h200.md).
  if (name == "num_warps" || name == "min_programs_per_sm") {
    StringRef attr = name == "num_warps" ? kNumWarpsAttrName : kMinProgramsPerSMAttrName;
    if (!args.arity(1, 1) || !args.noNamed())
      return std::nullopt;
    auto v = expr(args[0]);
    if (!v)
      return std::nullopt;
    if (v->kind != Val::Kind::IntLit || v->intValue < 1 || v->intValue > 32 ||
        !currentKernel || inlineDepth > 0) {
      error(e.loc) << name << " needs a compile-time integer in [1, 32], at "
                              "the kernel's top level";
      return std::nullopt;
    }
    if (currentKernel->hasAttr(attr)) {
      error(e.loc) << name << " is already set";
      return std::nullopt;
    }
    currentKernel->setAttr(attr, b.getI64IntegerAttr(v->intValue));
    return none();
  }
  if (name == "assume") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    Value cond = value(args[0], b.getI1Type());
    auto msg = expr(args[1]);
    if (!cond || !msg)
      return std::nullopt;
    if (msg->kind != Val::Kind::String) {
      error(args[1].loc) << "assume needs a \"message\" string";
      return std::nullopt;
    }
    AssumeOp::create(b, l, cond, b.getStringAttr(msg->text));
    return none();
  }
  if (name == "assume_distinct") {
    if (!args.arity(4, 4) || !args.noNamed())
      return std::nullopt;
    auto table = expr(args[0]);
    if (!table)
      return std::nullopt;
    if (table->kind != Val::Kind::View && table->kind != Val::Kind::Partition) {
      error(args[0].loc) << "assume_distinct needs a tensor parameter";
      return std::nullopt;
    }
    Value lo = value(args[1], b.getIndexType());
    Value hi = value(args[2], b.getIndexType());
    auto msg = expr(args[3]);
    if (!lo || !hi || !msg)
      return std::nullopt;
    if (msg->kind != Val::Kind::String) {
      error(args[3].loc) << "assume_distinct needs a \"message\" string";
      return std::nullopt;
    }
    AssumeDistinctOp::create(b, l, table->view, lo, hi,
                             b.getStringAttr(msg->text));
    return none();
  }
  if (name == "num_tiles" || name == "dim") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    auto h = expr(args[0]);
    if (!h)
      return std::nullopt;
    if (name == "num_tiles") {
      if (h->kind != Val::Kind::Partition) {
        error(args[0].loc) << "num_tiles needs a partition";
        return std::nullopt;
      }
      auto d = args.dim(1, cast<PartitionType>(h->value.getType()).getRank());
      if (!d)
        return std::nullopt;
      return Val::of(NumTilesOp::create(b, l, h->value, *d));
    }
    if (h->kind != Val::Kind::View && h->kind != Val::Kind::Partition) {
      error(args[0].loc) << "dim needs a tensor parameter";
      return std::nullopt;
    }
    auto d = args.dim(1, cast<ViewType>(h->view.getType()).getRank());
    if (!d)
      return std::nullopt;
    return Val::of(DimOp::create(b, l, h->view, *d));
  }
  if (name == "cdiv") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    auto x = expr(args[0]), y = expr(args[1]);
    if (!x || !y)
      return std::nullopt;
    if (x->kind == Val::Kind::IntLit && y->kind == Val::Kind::IntLit &&
        y->intValue > 0) {
      std::optional<int64_t> sum = foldInt("+", x->intValue, y->intValue - 1, e.loc);
      if (!sum)
        return std::nullopt;
      return Val::intLit(*foldInt("/", *sum, y->intValue, e.loc));
    }
    Value a, c;
    if (failed(unify(*x, *y, e.loc, a, c)))
      return std::nullopt;
    Value one = materialize(Val::intLit(1), e.loc, a.getType());
    Value sum = arith::AddIOp::create(b, l, a, c);
    return Val::of(arith::DivSIOp::create(
        b, l, arith::SubIOp::create(b, l, sum, one), c));
  }

  handled = false;
  return std::nullopt;
}
