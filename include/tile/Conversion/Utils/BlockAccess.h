//===- BlockAccess.h - claimed blocks as clipped subviews -------*- C++ -*-===//
//
// Shared by the host and GPU lowerings: a claimed block (tile.own) is the
// subview of its view at `offsets` of the tile's extent, clipped to the view,
// so partial edge blocks are smaller and stores through them stay inside.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_UTILS_BLOCKACCESS_H
#define TILE_CONVERSION_UTILS_BLOCKACCESS_H

#include "tile/Support/LLVM.h"

#include "mlir/IR/Builders.h"

namespace tile {

/// 0 <= index < bound, as an i1.
Value isInBounds(OpBuilder &b, Location loc, Value index, Value bound);

/// The element of `memref` at `indices` where `inBounds` holds, else `pad`
/// (an scf.if, so nothing outside the memref is read).
Value loadOrPad(OpBuilder &b, Location loc, Value memref, ValueRange indices,
                Value inBounds, Value pad);

/// One element of a tile.gather: row `row` (any integer type) of `memref`,
/// and `offsets[d] + idx[d]` along the other dims; `pad` where any index
/// falls outside `bounds` (the memref's dims).
Value gatherElement(OpBuilder &b, Location loc, Value memref, Value row,
                    ArrayRef<Value> offsets, ValueRange idx,
                    ArrayRef<Value> bounds, Value pad);

/// The subview of `memref` at element `offsets` with sizes
/// clamp(dim - offset, 0, tile); offsets are clamped into [0, dim] so an
/// empty block still addresses the view.
Value createClippedBlock(OpBuilder &b, Location loc, Value memref,
                         ArrayRef<Value> offsets, ArrayRef<int64_t> tile);

} // namespace tile

#endif // TILE_CONVERSION_UTILS_BLOCKACCESS_H
