//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

namespace tile {

/// The unit attribute `tile-verify-ownership` sets on each kernel it proved.
/// Lowerings check it before using the proof (noalias/readonly arguments,
/// non-coherent loads).
inline constexpr llvm::StringLiteral kOwnershipVerifiedAttrName =
    "tile.ownership_verified";

/// The attribute `tile-report-unchecked` sets on each kernel.
inline constexpr llvm::StringLiteral kUncheckedRegionsAttrName =
    "tile.unchecked_regions";

/// The unit attribute `tile-mark-in-bounds-loads` sets on partition loads
/// proven to read a whole tile inside the view.
inline constexpr llvm::StringLiteral kInBoundsAttrName = "tile.in_bounds";

#define GEN_PASS_DECL
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
