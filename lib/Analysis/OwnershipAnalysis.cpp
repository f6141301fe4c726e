//===- OwnershipAnalysis.cpp - proving claims disjoint and in bounds -------===//

#include "tile/Analysis/OwnershipAnalysis.h"
#include "tile/Analysis/IndexSystem.h"
#include "tile/Analysis/IntegerSemantics.h"
#include "tile/Analysis/Uniformity.h"

#include "WitnessCheck.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tile;

namespace {

struct Claim {
  OwnOp op;
  BlockArgument view;
  PartitionType type;
  /// Inside the tile.join region: run by one program per group.
  bool inJoin = false;
  /// The phases (between grid barriers, tile.grid_sync) the claim is
  /// made or written or read through in, one bit each (the last bit stands
  /// for every phase past 62): claims with no phase in common never run at
  /// once.
  uint64_t phases = 1;
};

uint64_t phaseBit(unsigned phase) { return uint64_t(1) << std::min(phase, 63u); }

/// Formats a witness: program ids, ranges and the launch values involved.
class Witness {
public:
  Witness(const IndexSystem &sys, ArrayRef<int64_t> values)
      : sys(sys), values(values) {}

  int64_t operator()(const LinearExpr &e) const {
    return IndexSystem::evaluate(e, values);
  }

  std::string program(ArrayRef<LinearExpr> pid, unsigned rank) const {
    std::string s = "(";
    for (unsigned d = 0; d < rank; ++d)
      s += (d ? ", " : "") + std::to_string((*this)(pid[d]));
    return s + ")";
  }

  static std::string program(ProgramIds pid, unsigned rank) {
    std::string s = "(";
    for (unsigned d = 0; d < rank; ++d)
      s += (d ? ", " : "") + std::to_string(pid[d]);
    return s + ")";
  }

  /// "grid = (4, 2), dim(%arg0, 0) = 100, %arg3 = 7", with the values the
  /// model gave its unknowns unless `launchOnly` (a witness other than the
  /// model's programs).
  std::string launchValues(ArrayRef<LinearExpr> grid, unsigned rank,
                           bool launchOnly = false) const {
    std::string s = "grid = " + program(grid, rank);
    for (unsigned v = 0; v < sys.getNumVars(); ++v) {
      const IndexVar &var = sys.getVar(v);
      if (var.showInWitness && !StringRef(var.name).starts_with("grid.") &&
          !StringRef(var.name).starts_with("pid.") &&
          (!launchOnly || var.launchValue))
        s += ", " + var.name + " = " + std::to_string(values[v]);
    }
    return s;
  }

private:
  const IndexSystem &sys;
  ArrayRef<int64_t> values;
};

class OwnershipVerifier {
public:
  OwnershipVerifier(KernelOp kernel, OwnershipStats &stats)
      : kernel(kernel), stats(stats) {}

  LogicalResult run();

private:
  void checkPair(Claim a, Claim b);
  /// Two distinct programs whose claims `a` and `b` overlap at the launch
  /// of the model point `values`: the point's own programs (`atModel`),
  /// else any pair of that launch.
  std::optional<Collision> confirmPair(const IndexSystem &sys,
                                       ArrayRef<int64_t> values,
                                       ArrayRef<LinearExpr> grid,
                                       ArrayRef<LinearExpr> pa,
                                       ArrayRef<LinearExpr> pb, Claim a,
                                       Claim b, bool &atModel);
  /// A program of the launch of `values` whose `op` (a claim, or a sub-tile
  /// access) has an index outside [0, counts[d]): the model point's own
  /// program (`atModel`), else any; with the dim and the index.
  std::optional<std::tuple<ProgramIds, unsigned, int64_t>>
  confirmOutside(const IndexSystem &sys, ArrayRef<int64_t> values,
                 ArrayRef<LinearExpr> grid, ArrayRef<LinearExpr> p,
                 Operation *op, BlockArgument view, ArrayRef<int64_t> tiles,
                 bool &atModel);
  void checkTickets(JoinOp join);
  void checkSyncTickets(GridSyncOp sync);
  bool checkReadClearOf(LoadOp load, Claim c, bool inJoin);
  void checkInIndexSpace(Claim c);
  void checkLoop(scf::ForOp loop);
  void checkSubTile(Operation *op, Value block, ValueRange indices,
                    RankedTensorType tile);
  std::unique_ptr<IndexSystem> newSystem() {
    auto sys = std::make_unique<IndexSystem>(kernel, uniformity, solver,
                                             /*exact=*/true);
    sys->addAssumptions();
    return sys;
  }
  SmallVector<LinearExpr> programIds(IndexSystem &sys, Copy copy) {
    SmallVector<LinearExpr> p;
    for (unsigned d = 0; d < 3; ++d)
      p.push_back(sys.programId(d, copy));
    return p;
  }
  SmallVector<LinearExpr> gridExtents(IndexSystem &sys) {
    SmallVector<LinearExpr> g;
    for (unsigned d = 0; d < 3; ++d)
      g.push_back(sys.gridExtent(d));
    return g;
  }
  std::string gridHint(const IndexSystem &sys) const {
    return sys.hasDeclaredGrid()
               ? ""
               : "; the kernel declares no tile.grid, so program ids are "
                 "unbounded: declare the launch grid";
  }

  KernelOp kernel;
  /// The kernel's tile.join (at most one), whose grid dim groups programs.
  JoinOp join;
  OwnershipStats &stats;
  Uniformity uniformity;
  DataFlowSolver solver;
  bool anyFailure = false;
};

} // namespace

/// Lexicographic order of program ids: a < b.
static SmallVector<SmallVector<LinearConstraint>>
lexLess(ArrayRef<LinearExpr> a, ArrayRef<LinearExpr> b) {
  SmallVector<SmallVector<LinearConstraint>> cases;
  for (unsigned d = 0; d < a.size(); ++d) {
    SmallVector<LinearConstraint> c;
    for (unsigned e = 0; e < d; ++e)
      c.push_back(LinearConstraint::eq(a[e], b[e]));
    c.push_back(LinearConstraint::le(a[d] + 1, b[d]));
    cases.push_back(std::move(c));
  }
  return cases;
}

/// The element boxes of two tiles (of programs A and B) and the
/// constraints under which they overlap.
struct TileBoxes {
  SmallVector<LinearExpr> loA, hiA, loB, hiB;
  SmallVector<LinearConstraint> overlap;

  /// One dim: tile index `a` of size `ta` in A, `b` of size `tb` in B.
  void addDim(const LinearExpr &a, int64_t ta, const LinearExpr &b, int64_t tb) {
    loA.push_back(a * ta);
    hiA.push_back(loA.back() + (ta - 1));
    loB.push_back(b * tb);
    hiB.push_back(loB.back() + (tb - 1));
    overlap.push_back(LinearConstraint::le(loA.back(), hiB.back()));
    overlap.push_back(LinearConstraint::le(loB.back(), hiA.back()));
  }
  /// The overlapping elements at a witness, per dim [lo, hi).
  SmallVector<std::pair<int64_t, int64_t>> region(const Witness &w) const {
    SmallVector<std::pair<int64_t, int64_t>> r;
    for (unsigned d = 0; d < loA.size(); ++d)
      r.push_back({std::max(w(loA[d]), w(loB[d])), std::min(w(hiA[d]), w(hiB[d])) + 1});
    return r;
  }
};

static std::string formatRegion(ArrayRef<std::pair<int64_t, int64_t>> r) {
  std::string s;
  for (auto [i, range] : llvm::enumerate(r))
    s += (i ? " x [" : "[") + std::to_string(range.first) + ", " +
         std::to_string(range.second) + ")";
  return s;
}

static ProgramIds idsAt(const IndexSystem &sys, ArrayRef<int64_t> values,
                        ArrayRef<LinearExpr> p) {
  return {IndexSystem::evaluate(p[0], values),
          IndexSystem::evaluate(p[1], values),
          IndexSystem::evaluate(p[2], values)};
}

std::optional<Collision> OwnershipVerifier::confirmPair(
    const IndexSystem &sys, ArrayRef<int64_t> values, ArrayRef<LinearExpr> grid,
    ArrayRef<LinearExpr> pa, ArrayRef<LinearExpr> pb, Claim a, Claim b,
    bool &atModel) {
  WitnessLaunch launch(kernel, sys, values, grid);
  if (!launch.valid())
    return std::nullopt;
  ProgramIds ia = idsAt(sys, values, pa), ib = idsAt(sys, values, pb);
  if (ia != ib) {
    ConcreteTrace ta = launch.run(ia, Copy::A);
    ConcreteTrace tb = launch.run(ib, Copy::B);
    if (auto region = overlap(ta, a.op, tb, b.op)) {
      atModel = true;
      return Collision{ia, ib, *region};
    }
  }
  SmallVector<ProgramIds> all = launch.allPrograms();
  SmallVector<ConcreteTrace> traces;
  for (ProgramIds p : all)
    traces.push_back(launch.run(p, Copy::A));
  for (unsigned i = 0; i < all.size(); ++i)
    for (unsigned j = 0; j < all.size(); ++j)
      if (i != j)
        if (auto region = overlap(traces[i], a.op, traces[j], b.op))
          return Collision{all[i], all[j], *region};
  return std::nullopt;
}

std::optional<std::tuple<ProgramIds, unsigned, int64_t>>
OwnershipVerifier::confirmOutside(const IndexSystem &sys,
                                  ArrayRef<int64_t> values,
                                  ArrayRef<LinearExpr> grid,
                                  ArrayRef<LinearExpr> p, Operation *op,
                                  BlockArgument view, ArrayRef<int64_t> tiles,
                                  bool &atModel) {
  WitnessLaunch launch(kernel, sys, values, grid);
  if (!launch.valid())
    return std::nullopt;
  // Claims: the partition's index space, on a non-empty view; sub-tiles:
  // the block's (`tiles` are then the counts).
  SmallVector<int64_t> counts(tiles);
  if (view) {
    for (auto [d, tile] : llvm::enumerate(tiles)) {
      counts[d] = llvm::divideCeilSigned(
          launch.get().dim(kernel, view.getArgNumber(), d), tile);
      if (counts[d] < 1)
        return std::nullopt;
    }
  }
  ProgramIds model = idsAt(sys, values, p);
  if (auto bad = outside(launch.run(model, Copy::A), op, counts)) {
    atModel = true;
    return std::make_tuple(model, bad->first, bad->second);
  }
  for (ProgramIds q : launch.allPrograms())
    if (auto bad = outside(launch.run(q, Copy::A), op, counts))
      return std::make_tuple(q, bad->first, bad->second);
  return std::nullopt;
}

void OwnershipVerifier::checkPair(Claim a, Claim b) {
  std::unique_ptr<IndexSystem> sys = newSystem();
  SmallVector<LinearExpr> pa = programIds(*sys, Copy::A);
  SmallVector<LinearExpr> pb = programIds(*sys, Copy::B);
  SmallVector<LinearExpr> grid = gridExtents(*sys);
  sys->addPathConditions(a.op, Copy::A);
  sys->addPathConditions(b.op, Copy::B);
  TileBoxes boxes;
  for (unsigned d = 0; d < a.type.getRank(); ++d)
    boxes.addDim(sys->get(a.op.getIndices()[d], Copy::A), a.type.getTileShape()[d],
                 sys->get(b.op.getIndices()[d], Copy::B), b.type.getTileShape()[d]);
  // Claims that could run at once belong to distinct programs; where one
  // of them is in the join's region, to distinct groups (a program of the
  // same group stored before the ticket, the region runs after the last).
  SmallVector<LinearExpr> ka(pa), kb(pb);
  if (a.inJoin || b.inJoin) {
    unsigned d = static_cast<unsigned>(join.getDim());
    ka = {pa[d]};
    kb = {pb[d]};
  }
  auto cases = lexLess(ka, kb);
  // A claim compared with itself is symmetric: A < B covers B < A.
  if (a.op != b.op)
    llvm::append_range(cases, lexLess(kb, ka));
  for (SmallVector<LinearConstraint> &c : cases) {
    llvm::append_range(c, boxes.overlap);
    if (sys->isEmpty(c))
      continue;
    std::optional<SmallVector<int64_t>> values = sys->sample(c);
    InFlightDiagnostic diag = a.op.emitError();
    sys->noteMayWrap(diag);
    // Join regions are not run (ConcreteRun): their witness stays the
    // model's.
    bool joined = a.inJoin || b.inJoin;
    bool atModel = false;
    std::optional<Collision> real;
    if (values && !joined)
      real = confirmPair(*sys, *values, grid, pa, pb, a, b, atModel);
    if (!values || (!joined && !real)) {
      diag << "cannot prove that distinct programs claim disjoint blocks of "
           << describeKernelArg(kernel, a.view.getArgNumber())
           << (values ? " (no witness: the model's candidate collision does "
                        "not happen when the kernel's index arithmetic is "
                        "run)"
                      : "");
    } else if (real) {
      Witness w(*sys, *values);
      unsigned gridRank = sys->gridRank();
      diag << "programs " << Witness::program(real->pa, gridRank) << " and "
           << Witness::program(real->pb, gridRank) << " both own elements "
           << formatRegion(real->region) << " of "
           << describeKernelArg(kernel, a.view.getArgNumber()) << " (with "
           << w.launchValues(grid, gridRank, !atModel) << ")";
    } else {
      Witness w(*sys, *values);
      unsigned gridRank = sys->gridRank();
      diag << (a.inJoin || b.inJoin ? "the join regions of programs "
                                     : "programs ")
           << w.program(pa, gridRank) << " and "
           << w.program(pb, gridRank) << " both own elements "
           << formatRegion(boxes.region(w)) << " of "
           << describeKernelArg(kernel, a.view.getArgNumber()) << " (with "
           << w.launchValues(grid, gridRank) << ")";
    }
    if (a.op != b.op)
      diag.attachNote(b.op.getLoc()) << "the other claim";
    anyFailure = true;
    return;
  }
  ++stats.disjointPairs;
  stats.facts.insert(sys->getFacts().begin(), sys->getFacts().end());
}

void OwnershipVerifier::checkInIndexSpace(Claim c) {
  std::unique_ptr<IndexSystem> sys = newSystem();
  SmallVector<LinearExpr> p = programIds(*sys, Copy::A);
  SmallVector<LinearExpr> grid = gridExtents(*sys);
  sys->addPathConditions(c.op, Copy::A);
  // A claim on an empty view touches nothing; only non-empty views matter.
  SmallVector<LinearConstraint> nonEmpty;
  for (unsigned d = 0; d < c.type.getRank(); ++d)
    nonEmpty.push_back(LinearConstraint::le(
        LinearExpr::constantExpr(1),
        sys->numTiles(c.view, d, c.type.getTileShape()[d])));
  for (unsigned d = 0; d < c.type.getRank(); ++d) {
    LinearExpr index = sys->get(c.op.getIndices()[d], Copy::A);
    LinearExpr count = sys->numTiles(c.view, d, c.type.getTileShape()[d]);
    for (LinearConstraint outside :
         {LinearConstraint::le(index, LinearExpr::constantExpr(-1)),
          LinearConstraint::le(count, index)}) {
      SmallVector<LinearConstraint> query(nonEmpty);
      query.push_back(outside);
      if (sys->isEmpty(query))
        continue;
      std::optional<SmallVector<int64_t>> values = sys->sample(query);
      InFlightDiagnostic diag = c.op.emitError();
      sys->noteMayWrap(diag);
      bool atModel = false;
      std::optional<std::tuple<ProgramIds, unsigned, int64_t>> real;
      if (values)
        real = confirmOutside(*sys, *values, grid, p, c.op, c.view,
                              c.type.getTileShape(), atModel);
      if (!real) {
        diag << "cannot prove that the claimed tile index along dim " << d
             << " stays inside the index space of "
             << describeKernelArg(kernel, c.view.getArgNumber())
             << (values ? " (no witness: the model's candidate index is "
                          "inside when the kernel's index arithmetic is run)"
                        : "")
             << gridHint(*sys);
      } else {
        Witness w(*sys, *values);
        auto [q, dim, i] = *real;
        int64_t tile = c.type.getTileShape()[dim];
        int64_t extent = llvm::divideCeilSigned(
            WitnessLaunch(kernel, *sys, *values, grid)
                .get()
                .dim(kernel, c.view.getArgNumber(), dim),
            tile);
        diag << "program " << Witness::program(q, sys->gridRank())
             << " claims tile index " << i << " along dim " << dim
             << " of " << describeKernelArg(kernel, c.view.getArgNumber())
             << ", outside its index space [0, " << extent << ") (with "
             << w.launchValues(grid, sys->gridRank(), !atModel) << ")"
             << gridHint(*sys);
      }
      anyFailure = true;
      return;
    }
  }
  ++stats.claimsInBounds;
  stats.facts.insert(sys->getFacts().begin(), sys->getFacts().end());
}

void OwnershipVerifier::checkSubTile(Operation *op, Value block,
                                     ValueRange indices,
                                     RankedTensorType tile) {
  auto type = cast<OwnedType>(block.getType());
  std::unique_ptr<IndexSystem> sys = newSystem();
  SmallVector<LinearExpr> p = programIds(*sys, Copy::A);
  SmallVector<LinearExpr> grid = gridExtents(*sys);
  sys->addPathConditions(op, Copy::A);
  for (auto [d, value] : llvm::enumerate(indices)) {
    int64_t count = type.getShape()[d] / tile.getDimSize(d);
    LinearExpr index = sys->get(value, Copy::A);
    for (LinearConstraint outside :
         {LinearConstraint::le(index, LinearExpr::constantExpr(-1)),
          LinearConstraint::le(LinearExpr::constantExpr(count), index)}) {
      if (sys->isEmpty(outside))
        continue;
      std::optional<SmallVector<int64_t>> values = sys->sample(outside);
      InFlightDiagnostic diag = op->emitError();
      sys->noteMayWrap(diag);
      bool atModel = false;
      std::optional<std::tuple<ProgramIds, unsigned, int64_t>> real;
      SmallVector<int64_t> counts;
      for (unsigned k = 0; k < indices.size(); ++k)
        counts.push_back(type.getShape()[k] / tile.getDimSize(k));
      if (values)
        real = confirmOutside(*sys, *values, grid, p, op, BlockArgument(),
                              counts, atModel);
      if (real) {
        Witness w(*sys, *values);
        auto [q, dim, i] = *real;
        diag << "sub-tile index along dim " << dim << " can be " << i
             << ", outside the owned block's [0, " << counts[dim]
             << ") (in program " << Witness::program(q, sys->gridRank())
             << ", with "
             << w.launchValues(grid, sys->gridRank(), !atModel) << ")";
      } else {
        diag << "sub-tile index along dim " << d
             << " cannot be proven inside the owned block's [0, " << count
             << ")"
             << (values ? " (no witness: the model's candidate index is "
                          "inside when the kernel's index arithmetic is run)"
                        : "");
      }
      diag << "; a sub-tile outside the block belongs to another program";
      anyFailure = true;
      return;
    }
  }
  ++stats.subTilesInBounds;
  stats.facts.insert(sys->getFacts().begin(), sys->getFacts().end());
}

/// The model takes a loop's iv in [lb, ub) and so does range analysis: an
/// iN iv whose last step passes the type's maximum wraps and runs on below
/// lb, and unsigned bounds compare as signed ones only when non-negative.
void OwnershipVerifier::checkLoop(scf::ForOp loop) {
  unsigned width = integerWidth(loop.getInductionVar().getType());
  if (width >= 64 && !loop.getUnsignedCmp())
    return;
  std::unique_ptr<IndexSystem> sys = newSystem();
  sys->addPathConditions(loop, Copy::A);
  LinearExpr lb = sys->get(loop.getLowerBound(), Copy::A);
  LinearExpr ub = sys->get(loop.getUpperBound(), Copy::A);
  LinearExpr step = sys->get(loop.getStep(), Copy::A);
  SmallVector<SmallVector<LinearConstraint>> bad;
  if (width < 64)
    bad.push_back({LinearConstraint::le(lb + 1, ub),
                   LinearConstraint::le(
                       LinearExpr::constantExpr(signedMax(width)),
                       ub + step - 2)});
  if (loop.getUnsignedCmp()) {
    bad.push_back({LinearConstraint::le(lb, LinearExpr::constantExpr(-1))});
    bad.push_back({LinearConstraint::le(ub, LinearExpr::constantExpr(-1))});
  }
  for (ArrayRef<LinearConstraint> c : bad) {
    if (sys->isEmpty(c))
      continue;
    InFlightDiagnostic diag = loop.emitError();
    sys->noteMayWrap(diag);
    diag << "the induction variable of this i" << width
         << " loop may wrap: its last value plus the step is not proven to "
            "fit i"
         << width << " [" << signedMin(width) << ", " << signedMax(width)
         << "]" << (loop.getUnsignedCmp() ? ", nor its bounds to be non-negative" : "");
    anyFailure = true;
    return;
  }
}

/// The join's counters: one per group, so dim(tickets, 0) >= the grid's
/// extent along the join's dim.
void OwnershipVerifier::checkTickets(JoinOp j) {
  std::unique_ptr<IndexSystem> sys = newSystem();
  auto tickets = cast<BlockArgument>(j.getTickets());
  unsigned d = static_cast<unsigned>(j.getDim());
  LinearExpr count = sys->numTiles(tickets, 0, 1);
  LinearExpr groups = sys->gridExtent(d);
  LinearConstraint tooFew = LinearConstraint::le(count + 1, groups);
  if (sys->isEmpty(tooFew)) {
    ++stats.joinTickets;
    stats.facts.insert(sys->getFacts().begin(), sys->getFacts().end());
    return;
  }
  std::optional<SmallVector<int64_t>> values = sys->sample(tooFew);
  InFlightDiagnostic diag = j.emitError();
  sys->noteMayWrap(diag);
  diag << "cannot prove one counter per group: "
       << describeKernelArg(kernel, tickets.getArgNumber())
       << " needs at least as many elements as the grid has programs along "
       << stringifyDimension(j.getDim());
  if (values) {
    Witness w(*sys, *values);
    diag << " (with " << w.launchValues(gridExtents(*sys), sys->gridRank())
         << ", it has " << w(count) << " for " << w(groups) << " groups)";
  }
  diag << "; state it with tile.assume" << gridHint(*sys);
  anyFailure = true;
}

/// A plain load of an inout partition reads what other programs stored
/// before it: in the join's region (`inJoin`), the group's stores, and no
/// program of another group may claim any of it (those may still be
/// running); after a grid barrier, earlier phases' stores, and no other
/// program may claim any of it in the load's phase (those run beside it).
/// Whether that is proven against claim `c`; otherwise reported.
bool OwnershipVerifier::checkReadClearOf(LoadOp load, Claim c, bool inJoin) {
  std::unique_ptr<IndexSystem> sys = newSystem();
  SmallVector<LinearExpr> pa = programIds(*sys, Copy::A);
  SmallVector<LinearExpr> pb = programIds(*sys, Copy::B);
  SmallVector<LinearExpr> grid = gridExtents(*sys);
  sys->addPathConditions(load, Copy::A);
  sys->addPathConditions(c.op, Copy::B);
  auto partition = cast<PartitionType>(load.getSource().getType());
  TileBoxes boxes;
  for (unsigned d = 0; d < partition.getRank(); ++d)
    boxes.addDim(sys->get(load.getIndices()[d], Copy::A), partition.getTileShape()[d],
                 sys->get(c.op.getIndices()[d], Copy::B), c.type.getTileShape()[d]);
  // The programs that may run beside the reader: of another group, or any
  // other.
  SmallVector<LinearExpr> ka(pa), kb(pb);
  if (inJoin) {
    unsigned g = static_cast<unsigned>(join.getDim());
    ka = {pa[g]};
    kb = {pb[g]};
  }
  auto cases = lexLess(ka, kb);
  llvm::append_range(cases, lexLess(kb, ka));
  for (SmallVector<LinearConstraint> &q : cases) {
    llvm::append_range(q, boxes.overlap);
    if (sys->isEmpty(q))
      continue;
    std::optional<SmallVector<int64_t>> values = sys->sample(q);
    InFlightDiagnostic diag = load.emitError();
    sys->noteMayWrap(diag);
    std::string arg = describeKernelArg(kernel, c.view.getArgNumber());
    if (!values) {
      diag << (inJoin ? "cannot prove that the join's reads of " + arg +
                            " miss what programs of other groups claim"
                      : "cannot prove that the reads of " + arg +
                            " after the grid barrier miss what other programs claim in "
                            "the same phase");
    } else {
      Witness w(*sys, *values);
      unsigned gridRank = sys->gridRank();
      diag << (inJoin ? "the join of program " : "program ") << w.program(pa, gridRank)
           << " reads elements " << formatRegion(boxes.region(w)) << " of " << arg
           << " that program " << w.program(pb, gridRank)
           << (inJoin ? ", of another group, owns (with " : " claims in the same phase (with ")
           << w.launchValues(grid, gridRank) << ")";
    }
    diag.attachNote(c.op.getLoc()) << "the other program's claim";
    anyFailure = true;
    return false;
  }
  stats.facts.insert(sys->getFacts().begin(), sys->getFacts().end());
  return true;
}

/// The barriers' counter: the ticket view has at least one element.
void OwnershipVerifier::checkSyncTickets(GridSyncOp sync) {
  std::unique_ptr<IndexSystem> sys = newSystem();
  auto tickets = cast<BlockArgument>(sync.getTickets());
  LinearExpr count = sys->numTiles(tickets, 0, 1);
  LinearConstraint none = LinearConstraint::le(count, LinearExpr::constantExpr(0));
  if (sys->isEmpty(none)) {
    stats.facts.insert(sys->getFacts().begin(), sys->getFacts().end());
    return;
  }
  InFlightDiagnostic diag = sync.emitError();
  sys->noteMayWrap(diag);
  diag << "cannot prove a counter for the grid barrier: "
       << describeKernelArg(kernel, tickets.getArgNumber())
       << " may be empty; state dim(tickets, 0) >= 1 with tile.assume";
  anyFailure = true;
}

LogicalResult OwnershipVerifier::run() {
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(kernel)))
    return kernel.emitError("integer range analysis failed");

  SmallVector<Claim> claims;
  kernel.walk([&](Operation *op) {
    if (isa<UncheckedOp>(op)) {
      ++stats.uncheckedRegions;
      return WalkResult::skip(); // Exempt from the proof.
    }
    if (auto own = dyn_cast<OwnOp>(op)) {
      auto partition = own.getPartition().getDefiningOp<PartitionOp>();
      uint64_t phases = phaseBit(gridSyncsBefore(own));
      for (Operation *user : own->getUsers())
        phases |= phaseBit(gridSyncsBefore(user));
      claims.push_back({own, cast<BlockArgument>(partition.getView()),
                        own.getPartition().getType(),
                        own->getParentOfType<JoinOp>() != nullptr, phases});
    }
    if (auto j = dyn_cast<JoinOp>(op))
      join = j;
    if (auto sync = dyn_cast<GridSyncOp>(op)) {
      ++stats.gridSyncs;
      checkSyncTickets(sync);
    }
    return WalkResult::advance();
  });
  stats.claims = claims.size();

  for (const Claim &c : claims)
    checkInIndexSpace(c);
  if (join) {
    checkTickets(join);
    join.getBody().walk([&](LoadOp load) {
      auto partition = dyn_cast<PartitionType>(load.getSource().getType());
      if (!partition || partition.getMode() != OwnershipMode::InOut)
        return;
      Value view = load.getSource().getDefiningOp<PartitionOp>().getView();
      for (const Claim &c : claims)
        if (c.view == view)
          stats.joinReads += checkReadClearOf(load, c, /*inJoin=*/true);
    });
  }
  // After a grid barrier, plain loads of inout partitions (outside the
  // join, whose reads are checked above).
  if (stats.gridSyncs)
    kernel.walk([&](LoadOp load) {
      auto partition = dyn_cast<PartitionType>(load.getSource().getType());
      if (!partition || partition.getMode() != OwnershipMode::InOut ||
          load->getParentOfType<JoinOp>() || load->getParentOfType<UncheckedOp>())
        return;
      unsigned phase = gridSyncsBefore(load);
      if (phase == 0)
        return; // refused by tile.load's verifier
      Value view = load.getSource().getDefiningOp<PartitionOp>().getView();
      bool clear = true;
      for (const Claim &c : claims)
        if (c.view == view && (c.phases & phaseBit(phase)))
          clear = checkReadClearOf(load, c, /*inJoin=*/false) && clear;
      stats.phaseReads += clear;
    });
  for (unsigned i = 0; i < claims.size(); ++i)
    for (unsigned j = i; j < claims.size(); ++j)
      if (claims[i].view == claims[j].view && (claims[i].phases & claims[j].phases))
        checkPair(claims[i], claims[j]);

  kernel.walk([&](Operation *op) {
    if (isa<UncheckedOp>(op))
      return WalkResult::skip();
    if (auto loop = dyn_cast<scf::ForOp>(op))
      checkLoop(loop);
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (isa<OwnedType>(load.getSource().getType()) &&
          !load.getIndices().empty())
        checkSubTile(op, load.getSource(), load.getIndices(),
                     load.getResult().getType());
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      if (isa<OwnedType>(store.getDest().getType()) &&
          !store.getIndices().empty())
        checkSubTile(op, store.getDest(), store.getIndices(),
                     store.getValue().getType());
    }
    return WalkResult::advance();
  });
  return failure(anyFailure);
}

LogicalResult tile::verifyOwnership(KernelOp kernel,
                                          OwnershipStats &stats) {
  return OwnershipVerifier(kernel, stats).run();
}
