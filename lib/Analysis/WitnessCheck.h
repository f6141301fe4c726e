//===- WitnessCheck.h - witnesses confirmed by running them -----*- C++ -*-===//
//
// The proof's counterexamples come from a model that over-approximates the
// kernel (unknowns bounded by ranges, case splits cut short), so a point of
// the model need not be a real collision. Before a witness is printed it is
// run (ConcreteRun): the launch the point stands for, the programs it names,
// their claims compared. If they do not collide, every program of that
// launch is tried; if none does, the diagnostic says the proof failed
// without a witness.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_ANALYSIS_WITNESSCHECK_H
#define TILE_LIB_ANALYSIS_WITNESSCHECK_H

#include "tile/Analysis/ConcreteRun.h"
#include "tile/Analysis/IndexSystem.h"

namespace tile {

using ProgramIds = std::array<int64_t, 3>;

/// The launch a model point stands for: grid, dims and scalar arguments
/// from the point (unused ones 1 and 0), and, for each program, loaded data
/// equal to what the model took for the read.
class WitnessLaunch {
public:
  WitnessLaunch(KernelOp kernel, const IndexSystem &sys,
                ArrayRef<int64_t> values, ArrayRef<LinearExpr> grid);

  /// Whether the launch satisfies the kernel's tile.assume conditions and
  /// its declared grid; a witness must.
  bool valid() const { return isValid; }
  ConcreteTrace run(ProgramIds pid, Copy copy);
  const ConcreteLaunch &get() const { return launch; }
  /// Every program, when there are at most `limit`.
  SmallVector<ProgramIds> allPrograms(int64_t limit = 256) const;

private:
  KernelOp kernel;
  const IndexSystem &sys;
  ArrayRef<int64_t> values;
  ConcreteLaunch launch;
  Copy current = Copy::A;
  /// Data read so far, by (argument, coordinates): reads agree.
  std::map<std::pair<unsigned, std::vector<int64_t>>, int64_t> data;
  bool isValid = true;
};

/// An overlap of claim `a` of one program with claim `b` of another.
struct Collision {
  ProgramIds pa, pb;
  SmallVector<std::pair<int64_t, int64_t>> region;
};

/// Claims of `a` in trace `ta` and of `b` in `tb` that overlap.
std::optional<SmallVector<std::pair<int64_t, int64_t>>>
overlap(const ConcreteTrace &ta, OwnOp a, const ConcreteTrace &tb, OwnOp b);

/// A claim of `c` in `trace` outside its index space (or an access of a
/// sub-tile op outside its block): the dim and index.
std::optional<std::pair<unsigned, int64_t>>
outside(const ConcreteTrace &trace, Operation *op,
        ArrayRef<int64_t> counts);

} // namespace tile

#endif // TILE_LIB_ANALYSIS_WITNESSCHECK_H
