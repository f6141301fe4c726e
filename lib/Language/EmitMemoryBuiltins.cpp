//===- EmitMemoryBuiltins.cpp - memory builtins of .tile --------------------===//
//
// Claims, loads, stores, atomic adds, gathers, prefetches and the grid
// barrier: the builtins that address views (EmitBuiltins.cpp dispatches).
//
//===----------------------------------------------------------------------===//

#include "BuiltinArgs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tile;
using namespace tile::lang;
using namespace tile::lang::builtins;

std::optional<Val> EmitterImpl::memoryBuiltin(const Expr &e, bool &handled) {
  handled = true;
  Args args{*this, e};
  Location l = loc(e.loc);
  const std::string &name = e.name;
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
    Value x = tileValue(*this, args, pt);
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
      Value x = tileValue(*this, args, pt);
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

  handled = false;
  return std::nullopt;
}
