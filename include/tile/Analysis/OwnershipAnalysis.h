//===- OwnershipAnalysis.h - proving claims disjoint and in bounds -*- C++ -*-===//
//
// The proof behind tile-verify-ownership. For one kernel it shows, or
// reports why it cannot:
//
//  * disjoint writes: no two distinct programs of the declared grid claim
//    (tile.own) overlapping elements of a view, over all loop iterations and
//    all launch-time values of dims and scalars allowed by tile.assume;
//  * claims inside the index space: every claimed tile index lies in
//    [0, ceildiv(dim, tile)) (so a grid with too many programs is rejected);
//  * sub-tiles inside their block: every dynamic sub-tile index of a load or
//    store through an owned block stays inside the block;
//  * tile.join: its region's claims are disjoint between groups (one
//    program per group runs it), what its region loads of inout partitions
//    is claimed by no program of another group, and the ticket view has a
//    counter per group.
//
// Everything else the safety argument needs (in views never written, out
// views never read, no raw memory) is enforced by the op verifiers.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_OWNERSHIPANALYSIS_H
#define TILE_ANALYSIS_OWNERSHIPANALYSIS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include <set>
#include <string>

namespace tile {

/// Where each obligation of a kernel was discharged.
struct OwnershipStats {
  unsigned claims = 0;
  /// Pairs of claims (including a claim with itself) proven disjoint across
  /// distinct programs.
  unsigned disjointPairs = 0;
  /// Claims proven inside their partition's index space.
  unsigned claimsInBounds = 0;
  /// Loads and stores at dynamic sub-tile indices proven inside their block.
  unsigned subTilesInBounds = 0;
  /// Obligations left to the launch contract (tile.assume, no-overlap and
  /// layout rules).
  unsigned launchChecks = 0;
  unsigned uncheckedRegions = 0;
  /// tile.join: counters proven one per group, and loads of inout
  /// partitions in its region proven clear of other groups' claims.
  unsigned joinTickets = 0;
  unsigned joinReads = 0;
  /// tile.grid_sync: the barriers, and loads of inout partitions after one
  /// proven clear of what other programs claim in the same phase.
  unsigned gridSyncs = 0;
  unsigned phaseReads = 0;
  /// Facts beyond linear arithmetic the proofs relied on (exact min/max,
  /// injective divisions, distinct table entries...).
  std::set<std::string> facts;
};

/// Runs the proof on `kernel`. Every failure is reported as an error at the
/// offending op, with a witness (program ids, the overlapping region, and the
/// launch values that produce it); returns failure if any was reported.
LogicalResult verifyOwnership(KernelOp kernel, OwnershipStats &stats);

} // namespace tile

#endif // TILE_ANALYSIS_OWNERSHIPANALYSIS_H
