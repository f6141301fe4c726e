//===- FragmentMoves.cpp - tiles moved between layouts --------------------===//
//
// The registers of a tile in a fragment layout, and moves between the flat
// layout and fragment layouts through the scratch arena, by element index
// (Layouts.h describes both).
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

using Kind = FragmentLayout::Kind;

VectorType
FragmentMoves::registerType(RankedTensorType type,
                            std::optional<FragmentLayout> layout) const {
  return tileRegisterType(type, layout, state.threads);
}

std::pair<Value, Value> FragmentMoves::fragmentElement(const FragmentLayout &l,
                                                       int64_t reg) {
  Location loc = state.func.getLoc();
  auto rowOf = [&](int64_t mTile, int64_t half) -> Value {
    // 16*(i*W + w) + g + 8*h
    Value base = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, state.warpId, emit.index(16)),
        state.laneGroup);
    return arith::AddIOp::create(b, loc, base,
                                 emit.index(16 * mTile * l.warps + 8 * half));
  };
  auto colOf = [&](int64_t nTile, int64_t c) -> Value {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, state.laneInGroup, emit.index(2)),
        emit.index(8 * nTile + c));
  };
  switch (l.kind) {
  case Kind::Acc: {
    int64_t tile = reg / 4, r = reg % 4;
    return {rowOf(tile / l.nTiles(), r / 2), colOf(tile % l.nTiles(), r % 2)};
  }
  case Kind::Rows:
    return {rowOf(reg / 2, reg % 2), emit.index(0)};
  case Kind::Cols:
    return {emit.index(0), colOf(reg / 2, reg % 2)};
  }
  llvm_unreachable("fragment kind");
}

Value FragmentMoves::relayout(Location loc, Value regs, RankedTensorType type,
                              std::optional<FragmentLayout> from,
                              std::optional<FragmentLayout> to) {
  if (from == to)
    return regs;
  Type elt = type.getElementType();
  Value buf = shared.scratch(loc, {{elt, type.getNumElements()}})[0];
  int64_t cols = type.getRank() == 2 ? type.getDimSize(1) : 1;
  auto linear = [&](const FragmentLayout &l, int64_t reg) -> Value {
    auto [row, col] = fragmentElement(l, reg);
    if (l.kind == Kind::Rows)
      return row;
    if (l.kind == Kind::Cols)
      return col;
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, emit.index(cols)), col);
  };
  // Readers of an earlier use of the scratch space must be done.
  gpu::BarrierOp::create(b, loc);
  if (!from) {
    shared.writeSharedRegs(loc, regs, Layout::get(type, state.threads), buf);
  } else {
    // Copies of a row or column in several threads write the same value.
    for (int64_t r = 0; r < from->registers(); ++r)
      memref::StoreOp::create(b, loc,
                              vector::ExtractOp::create(b, loc, regs, r), buf,
                              ValueRange{linear(*from, r)});
  }
  gpu::BarrierOp::create(b, loc);
  if (!to)
    return emit.buildRegisters(
        loc, Layout::get(type, state.threads), [&](int64_t, int64_t, Value e) {
          return memref::LoadOp::create(b, loc, buf, e).getResult();
        });
  SmallVector<Value> elements;
  for (int64_t r = 0; r < to->registers(); ++r)
    elements.push_back(
        memref::LoadOp::create(b, loc, buf, ValueRange{linear(*to, r)}));
  return vector::FromElementsOp::create(b, loc, registerType(type, to),
                                        elements);
}

Value FragmentMoves::operandIn(Value v, std::optional<FragmentLayout> want) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return state.map.lookup(v);
  // Splats are built in whatever layout the user wants.
  {
    if (auto splat = v.getDefiningOp<SplatOp>())
      return vector::BroadcastOp::create(b, v.getLoc(),
                                         registerType(type, want),
                                         state.map.lookup(splat.getValue()));
    if (auto c = v.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue()))
        return arith::ConstantOp::create(
            b, v.getLoc(),
            DenseElementsAttr::get(registerType(type, want),
                                   dense.getSplatValue<Attribute>()));
  }
  auto it = state.fragmentRegs.find(v);
  if (it == state.fragmentRegs.end())
    return relayout(v.getLoc(), state.map.lookup(v), type, std::nullopt, want);
  return relayout(v.getLoc(), it->second, type, state.layoutOf(v), want);
}

void FragmentMoves::setResult(Value v, Value regs,
                              std::optional<FragmentLayout> have) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  std::optional<FragmentLayout> want = type ? state.layoutOf(v) : std::nullopt;
  if (type)
    regs = relayout(v.getLoc(), regs, type, have, want);
  if (want)
    state.fragmentRegs[v] = regs;
  else
    state.map.map(v, regs);
}
