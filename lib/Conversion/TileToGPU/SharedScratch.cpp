//===- SharedScratch.cpp - the shared-memory scratch arena ----------------===//
//
// One workgroup buffer per kernel, sized at the end to what its
// largest user needed; ops take buffers in it one at a time.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

SmallVector<Value>
SharedScratch::scratch(Location loc,
                       ArrayRef<std::pair<Type, int64_t>> buffers) {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  if (!arena) {
    arena = state.func.addWorkgroupAttribution(
        MemRefType::get({16}, b.getI8Type(), AffineMap(), space), loc);
    // 16-byte vector accesses need a 16-byte aligned buffer.
    state.func.setWorkgroupAttributionAttr(
        state.func.getNumWorkgroupAttributions() - 1,
        b.getStringAttr("llvm.align"), b.getI64IntegerAttr(16));
  }
  SmallVector<Value> views;
  int64_t offset = floor;
  for (auto [elt, count] : buffers) {
    int64_t bytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
    if (elt.isIndex())
      bytes = 8;
    offset = llvm::alignTo(offset, 16);
    views.push_back(memref::ViewOp::create(
        b, loc, MemRefType::get({count}, elt, AffineMap(), space), arena,
        emit.index(offset), ValueRange{}));
    offset += bytes * count;
  }
  arenaBytes = std::max<int64_t>(arenaBytes, llvm::alignTo(offset, 16));
  return views;
}

void SharedScratch::finish() {
  if (!arena)
    return;
  auto type = cast<MemRefType>(arena.getType());
  arena.setType(MemRefType::get({std::max<int64_t>(arenaBytes, 16)},
                                type.getElementType(), AffineMap(),
                                type.getMemorySpace()));
}

SmallVector<Value> SharedScratch::toShared(Location loc, ValueRange tiles) {
  SmallVector<std::pair<Type, int64_t>> shapes;
  for (Value tile : tiles) {
    auto type = cast<RankedTensorType>(tile.getType());
    shapes.push_back({type.getElementType(), type.getNumElements()});
  }
  SmallVector<Value> bufs = scratch(loc, shapes);
  // Readers of an earlier use of the scratch space must be done.
  gpu::BarrierOp::create(b, loc);
  for (auto [tile, buf] : llvm::zip(tiles, bufs))
    writeShared(loc, tile, buf);
  gpu::BarrierOp::create(b, loc);
  return bufs;
}

void SharedScratch::writeShared(Location loc, Value tile, Value buf) {
  auto type = cast<RankedTensorType>(tile.getType());
  writeSharedRegs(loc, state.map.lookup(tile), Layout::get(type, state.threads),
                  buf);
}

void SharedScratch::writeSharedRegs(Location loc, Value regs,
                                    const Layout &layout, Value buf,
                                    int64_t rowStride) {
  int64_t cols = layout.type.getShape().back();
  writeSharedRegs(loc, regs, layout, buf, [&](Value e) -> Value {
    if (rowStride == 0)
      return e;
    // A slot never crosses a row: vec divides the row.
    return arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, e, emit.index(cols)),
            emit.index(rowStride)),
        arith::RemUIOp::create(b, loc, e, emit.index(cols)));
  });
}

void SharedScratch::writeSharedRegs(
    Location loc, Value regs, const Layout &layout, Value buf,
    function_ref<Value(Value element)> address) {
  for (int64_t k = 0; k < layout.slots; ++k) {
    Value p = arith::AddIOp::create(b, loc, state.tid,
                                    emit.index(k * layout.threads));
    Value at =
        address(arith::MulIOp::create(b, loc, p, emit.index(layout.vec)));
    Value slot = emit.extractSlot(loc, regs, k, layout.vec);
    OpBuilder::InsertionGuard guard(b);
    // Only the last slot can hold positions past the tile.
    if ((k + 1) * layout.threads > layout.positions) {
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                          emit.index(layout.positions));
      auto branch = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
      b.setInsertionPointToStart(branch.thenBlock());
    }
    // A vector of i1 is bit-packed in memory, while the readers load one
    // element (a byte) at a time: sub-byte elements go out one by one.
    Type elt = getElementTypeOrSelf(slot.getType());
    if (layout.vec > 1 && elt.isIntOrFloat() && elt.getIntOrFloatBitWidth() < 8) {
      for (int64_t l = 0; l < layout.vec; ++l)
        memref::StoreOp::create(
            b, loc, vector::ExtractOp::create(b, loc, slot, l), buf,
            ValueRange{arith::AddIOp::create(b, loc, at, emit.index(l))});
      continue;
    }
    vector::StoreOp::create(b, loc, slot, buf, ValueRange{at});
  }
}

void SharedScratch::align(int64_t bytes) {
  for (auto [i, arg] : llvm::enumerate(state.func.getWorkgroupAttributions()))
    if (arg == arena) {
      auto current = state.func.getWorkgroupAttributionAttr(i, "llvm.align");
      int64_t have = current ? cast<IntegerAttr>(current).getInt() : 1;
      if (have < bytes)
        state.func.setWorkgroupAttributionAttr(i, b.getStringAttr("llvm.align"),
                                               b.getI64IntegerAttr(bytes));
    }
}
