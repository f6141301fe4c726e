//===- LoadBounds.h - loads proven to read whole tiles ----------*- C++ -*-===//
//
// A partition load pads what falls outside its view, so the GPU lowering
// guards every vector slot with a bounds check and keeps an element-by-
// element edge path. Where the tile provably lies inside the view for every
// program, loop iteration and launch value the kernel's tile.assume
// conditions allow, the guards are dead: this analysis finds those loads
// with the same Presburger model as the ownership proof (IndexSystem).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_LOADBOUNDS_H
#define TILE_ANALYSIS_LOADBOUNDS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <string>
#include <utility>

namespace tile {

/// The loads of `kernel` (through partitions of its views, outside
/// tile.unchecked) whose whole tile is inside the view; failure if the
/// integer range analysis the model needs fails. The other loads go to
/// `missed` (when given) with the bound that failed.
FailureOr<SmallVector<LoadOp>> findInBoundsLoads(
    KernelOp kernel,
    SmallVectorImpl<std::pair<LoadOp, std::string>> *missed = nullptr);

} // namespace tile

#endif // TILE_ANALYSIS_LOADBOUNDS_H
