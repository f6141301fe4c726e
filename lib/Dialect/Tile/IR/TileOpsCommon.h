//===- TileOpsCommon.h - helpers shared by the tile op files ----*- C++ -*-===//
//
// Private to lib/Dialect/Tile/IR.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_TILE_IR_TILEOPSCOMMON_H
#define LIB_DIALECT_TILE_IR_TILEOPSCOMMON_H

#include "tile/Dialect/Tile/IR/TileOps.h"

namespace tile::detail {

/// `[a, b, c]`, with `?` for dynamic values.
std::string formatList(ArrayRef<int64_t> values);

/// Verifies that every tensor-typed operand and result of `op` is a valid
/// tile (static shape, supported element type, size cap).
LogicalResult verifyTileOperandsAndResults(Operation *op);

} // namespace tile::detail

#endif // LIB_DIALECT_TILE_IR_TILEOPSCOMMON_H
