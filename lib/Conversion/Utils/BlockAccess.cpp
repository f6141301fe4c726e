//===- BlockAccess.cpp - claimed blocks as clipped subviews ----------------===//

#include "tile/Conversion/Utils/BlockAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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
