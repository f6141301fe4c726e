//===- EmitBuiltins.cpp - intrinsics and helper calls of .tile ------------===//
//
// The builtins (docs/language.md lists them) map one-to-one onto tile ops,
// arith/math ops, or a short fixed sequence (sum = tile.reduce with addf,
// argmax = a reduction of (value, index) pairs). (Calls of helper
// functions: EmitCalls.cpp.)
//
//===----------------------------------------------------------------------===//

#include "EmitterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tile;
using namespace tile::lang;

namespace {
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
} // namespace

/// A padding attribute of element type `elt` from a literal expression.
static TypedAttr paddingAttr(EmitterImpl &E, const Expr &e, Type elt) {
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
static SmallVector<Value>
reduce(EmitterImpl &E, Location loc, ValueRange inputs, int64_t dim,
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

std::optional<Val> EmitterImpl::builtin(const Expr &e, bool &handled) {
  handled = true;
  Args args{*this, e};
  Location l = loc(e.loc);
  const std::string &name = e.name;
  auto some = [](Value v) -> std::optional<Val> {
    if (!v)
      return std::nullopt;
    return Val::of(v);
  };
  auto none = []() {
    Val v;
    return std::optional<Val>(v);
  };
  // The partition of a tile position p[i, ...]; null when `ref` is not one.
  auto partitionOf = [](const Val &ref) {
    return ref.kind == Val::Kind::TileRef
               ? dyn_cast<PartitionType>(ref.value.getType())
               : PartitionType();
  };
  // The second argument as one tile of `pt` (scalars splat); null after an
  // error.
  auto tileValue = [&](PartitionType pt) -> Value {
    auto v = expr(args[1]);
    if (!v)
      return {};
    return coerce(*v, pt.getTileType(), args[1].loc);
  };

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

  // -- Memory ----------------------------------------------------------------
  if (name == "own") {
    if (!args.arity(1, 1) || !args.noNamed())
      return std::nullopt;
    auto ref = expr(args[0]);
    if (!ref)
      return std::nullopt;
    if (ref->kind != Val::Kind::TileRef ||
        !isa<PartitionType>(ref->value.getType())) {
      error(args[0].loc) << "own needs a partition position p[i, ...]";
      return std::nullopt;
    }
    auto pt = cast<PartitionType>(ref->value.getType());
    Val owned;
    owned.kind = Val::Kind::Owned;
    owned.value = OwnOp::create(b, l, pt.getOwnedType(), ref->value,
                                ref->indices);
    owned.view = ref->view;
    return owned;
  }
  if (name == "load") {
    if (!args.arity(1, 1) || !args.noNamed({"pad", "shape"}))
      return std::nullopt;
    auto ref = expr(args[0]);
    if (!ref)
      return std::nullopt;
    RankedTensorType type;
    SmallVector<Value> indices;
    if (ref->kind == Val::Kind::TileRef &&
        isa<PartitionType>(ref->value.getType())) {
      type = cast<PartitionType>(ref->value.getType()).getTileType();
      indices.assign(ref->indices.begin(), ref->indices.end());
    } else if (ref->kind == Val::Kind::Owned ||
               (ref->kind == Val::Kind::TileRef &&
                isa<OwnedType>(ref->value.getType()))) {
      auto ot = cast<OwnedType>(ref->value.getType());
      type = ot.getBlockType();
      indices.assign(ref->indices.begin(), ref->indices.end());
      if (const Expr *shapeArg = args.named("shape")) {
        auto s = intList(*shapeArg);
        if (!s)
          return std::nullopt;
        type = RankedTensorType::get(*s, ot.getElementType());
      } else if (!indices.empty()) {
        error(e.loc) << "loading a sub-tile b[i, ...] needs shape = [...]";
        return std::nullopt;
      }
    } else {
      error(args[0].loc) << "load needs a tile position p[i, ...] or a "
                            "claimed block";
      return std::nullopt;
    }
    TypedAttr pad;
    if (const Expr *p = args.named("pad")) {
      pad = paddingAttr(*this, *p, type.getElementType());
      if (!pad)
        return std::nullopt;
    }
    return Val::of(LoadOp::create(b, l, type, ref->value, indices, pad));
  }
  // A barrier across the whole grid (tile.grid_sync): a statement of the
  // kernel body itself, so every program reaches it.
  if (name == "grid_sync") {
    if (!args.arity(1, 1) || !args.noNamed())
      return std::nullopt;
    if (!currentKernel || inlineDepth > 0 ||
        !isa<KernelOp>(b.getInsertionBlock()->getParentOp())) {
      error(e.loc) << "grid_sync(...) is a statement of the kernel body, not of a loop, a "
                      "branch, a function or an unchecked block: every program must reach it";
      return std::nullopt;
    }
    auto tickets = expr(args[0]);
    if (!tickets)
      return std::nullopt;
    auto view = tickets->kind == Val::Kind::View ? dyn_cast<ViewType>(tickets->value.getType())
                                                 : ViewType();
    if (!view || view.getMode() != OwnershipMode::Ticket) {
      error(args[0].loc) << "grid_sync(...) takes a ticket tensor (&ticket Tensor<i32, [?]>)";
      return std::nullopt;
    }
    GridSyncOp::create(b, l, tickets->value);
    return none();
  }
  if (name == "prefetch") {
    if (!args.arity(1, 1) || !args.noNamed())
      return std::nullopt;
    auto ref = expr(args[0]);
    if (!ref)
      return std::nullopt;
    PartitionType pt = partitionOf(*ref);
    if (!pt || !pt.isShared()) {
      error(args[0].loc)
          << "prefetch needs a tile position p[i, ...] of a "
             "shared input (&Tensor, &frozen or &settled Tensor)";
      return std::nullopt;
    }
    PrefetchOp::create(b, l, ref->value, ref->indices);
    return none();
  }
  if (name == "atomic_add") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    auto ref = expr(args[0]);
    if (!ref)
      return std::nullopt;
    PartitionType pt = partitionOf(*ref);
    if (!pt || pt.getMode() != OwnershipMode::Add) {
      error(args[0].loc) << "atomic_add needs a tile position p[i, ...] of an "
                            "add-only tensor (&add)";
      return std::nullopt;
    }
    Value x = tileValue(pt);
    if (!x)
      return std::nullopt;
    AtomicAddOp::create(b, l, x, ref->value, ref->indices);
    return none();
  }
  if (name == "store") {
    if (!args.arity(2, 2) || !args.noNamed())
      return std::nullopt;
    auto ref = expr(args[0]);
    if (!ref)
      return std::nullopt;
    Value dest;
    SmallVector<Value> indices;
    if (ref->kind == Val::Kind::TileRef &&
        isa<PartitionType>(ref->value.getType()) && uncheckedDepth > 0) {
      // Unchecked code writes the partition at any index, unclaimed.
      auto pt = cast<PartitionType>(ref->value.getType());
      if (pt.isShared()) {
        error(args[0].loc)
            << "cannot store into a shared input (&Tensor, &frozen "
               "or &settled Tensor): it is read-only, in unchecked code too";
        return std::nullopt;
      }
      Value x = tileValue(pt);
      if (!x)
        return std::nullopt;
      StoreOp::create(b, l, x, ref->value, ref->indices);
      return none();
    }
    if (ref->kind == Val::Kind::TileRef &&
        isa<PartitionType>(ref->value.getType())) {
      // Storing to p[i, ...] claims that tile first.
      auto pt = cast<PartitionType>(ref->value.getType());
      dest = OwnOp::create(b, l, pt.getOwnedType(), ref->value, ref->indices);
    } else if (ref->kind == Val::Kind::Owned ||
               (ref->kind == Val::Kind::TileRef &&
                isa<OwnedType>(ref->value.getType()))) {
      dest = ref->value;
      indices.assign(ref->indices.begin(), ref->indices.end());
    } else {
      error(args[0].loc) << "store needs a tile position p[i, ...] of an "
                            "owned partition or a claimed block";
      return std::nullopt;
    }
    auto ot = cast<OwnedType>(dest.getType());
    auto v = expr(args[1]);
    if (!v)
      return std::nullopt;
    // A scalar fills the whole block; a tile is the block or a sub-tile.
    Value x = coerce(*v, ot.getBlockType(), args[1].loc);
    if (!x)
      return std::nullopt;
    StoreOp::create(b, l, x, dest, indices);
    return none();
  }
  if (name == "gather") {
    if (e.operands.size() < 2 || !args.noNamed({"pad"})) {
      if (e.operands.size() < 2)
        error(e.loc) << "gather takes a partition, a tile of row indices, "
                        "then the other tile indices";
      return std::nullopt;
    }
    auto p = expr(args[0]);
    Value rows = p ? args.tile(1) : Value();
    if (!rows)
      return std::nullopt;
    if (p->kind != Val::Kind::Partition) {
      error(args[0].loc) << "gather needs a partition";
      return std::nullopt;
    }
    auto pt = cast<PartitionType>(p->value.getType());
    SmallVector<Value> indices;
    for (size_t i = 2; i < e.operands.size(); ++i) {
      Value v = indexValue(args[i]);
      if (!v)
        return std::nullopt;
      indices.push_back(v);
    }
    SmallVector<int64_t> shape(pt.getTileShape());
    shape[0] = cast<RankedTensorType>(rows.getType()).getDimSize(0);
    auto type = RankedTensorType::get(shape, pt.getElementType());
    TypedAttr pad;
    if (const Expr *pe = args.named("pad")) {
      pad = paddingAttr(*this, *pe, pt.getElementType());
      if (!pad)
        return std::nullopt;
    }
    return Val::of(
        GatherOp::create(b, l, type, p->value, rows, indices, pad));
  }

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
