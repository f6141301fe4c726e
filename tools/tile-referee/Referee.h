//===- Referee.h - the ownership proof against brute force ------*- C++ -*-===//

#ifndef TILE_TOOLS_TILE_REFEREE_REFEREE_H
#define TILE_TOOLS_TILE_REFEREE_REFEREE_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <random>
#include <string>

namespace tile {

/// What running a kernel's small launches found.
struct RefereeResult {
  unsigned launches = 0, programs = 0, incomplete = 0;
  /// The first collision or out-of-bounds access, empty if none.
  std::string violation;
  /// Why the kernel was not run, empty if it was.
  std::string skipped;
};

/// Runs up to `budget` small launches of `kernel` that its launch contract
/// accepts (every one when there are fewer), every program of each.
void enumerateLaunches(KernelOp kernel, unsigned budget, uint64_t seed,
                       RefereeResult &result);

/// A random kernel in MLIR's generic form of the tile dialect: one claim
/// whose index mixes affine and non-affine arithmetic, narrow casts, loops
/// and guards.
std::string randomKernel(std::mt19937_64 &rng, unsigned id);

} // namespace tile

#endif // TILE_TOOLS_TILE_REFEREE_REFEREE_H
