//===- BlockAccess.cpp - claimed blocks as clipped subviews ----------------===//

#include "tile/Conversion/Utils/BlockAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

Value tile::createClippedBlock(OpBuilder &b, Location loc, Value memref,
                               ArrayRef<Value> offsets,
                               ArrayRef<int64_t> tile) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<OpFoldResult> offs, sizes, strides;
  for (unsigned d = 0; d < tile.size(); ++d) {
    Value dim = memref::DimOp::create(b, loc, memref, d);
    Value left = arith::SubIOp::create(b, loc, dim, offsets[d]);
    Value size = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, left, zero),
        arith::ConstantIndexOp::create(b, loc, tile[d]));
    Value off = arith::MaxSIOp::create(
        b, loc, arith::MinSIOp::create(b, loc, offsets[d], dim), zero);
    offs.push_back(off);
    sizes.push_back(size);
    strides.push_back(b.getIndexAttr(1));
  }
  return memref::SubViewOp::create(b, loc, memref, offs, sizes, strides);
}

Value tile::isInBounds(OpBuilder &b, Location loc, Value index, Value bound) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, bound));
}

Value tile::loadOrPad(OpBuilder &b, Location loc, Value memref,
                      ValueRange indices, Value inBounds, Value pad) {
  auto branch = scf::IfOp::create(
      b, loc, inBounds,
      [&](OpBuilder &t, Location tl) {
        scf::YieldOp::create(
            t, tl, memref::LoadOp::create(t, tl, memref, indices).getResult());
      },
      [&](OpBuilder &e, Location el) { scf::YieldOp::create(e, el, pad); });
  return branch.getResult(0);
}

Value tile::gatherElement(OpBuilder &b, Location loc, Value memref, Value row,
                          ArrayRef<Value> offsets, ValueRange idx,
                          ArrayRef<Value> bounds, Value pad) {
  if (!row.getType().isIndex())
    row = arith::IndexCastOp::create(b, loc, b.getIndexType(), row);
  SmallVector<Value> at{row};
  Value ok = isInBounds(b, loc, row, bounds[0]);
  for (unsigned d = 1; d < idx.size(); ++d) {
    at.push_back(arith::AddIOp::create(b, loc, offsets[d], idx[d]));
    ok = arith::AndIOp::create(b, loc, ok,
                               isInBounds(b, loc, at.back(), bounds[d]));
  }
  return loadOrPad(b, loc, memref, at, ok, pad);
}
