//===- ElementConversion.h - tile.convert semantics on values ---*- C++ -*-===//
//
// The element conversion every backend lowers tile.convert to: float
// widening/narrowing (round to nearest even, or toward zero), integer to
// float, saturating float to integer (NaN to 0), integer resizing. Works on
// scalars and on vectors of them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_UTILS_ELEMENTCONVERSION_H
#define TILE_CONVERSION_UTILS_ELEMENTCONVERSION_H

#include "tile/Dialect/Tile/IR/TileOps.h"

namespace tile {

/// Converts `v` (a scalar of type `from`, or a vector of them) to `to`.
Value convertElements(OpBuilder &b, Location loc, Value v, Type from, Type to,
                      std::optional<RoundingMode> rounding);

} // namespace tile

#endif // TILE_CONVERSION_UTILS_ELEMENTCONVERSION_H
