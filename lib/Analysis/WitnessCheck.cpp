//===- WitnessCheck.cpp - witnesses confirmed by running them -------------===//

#include "WitnessCheck.h"

using namespace mlir;
using namespace tile;

WitnessLaunch::WitnessLaunch(KernelOp kernel, const IndexSystem &sys,
                             ArrayRef<int64_t> values,
                             ArrayRef<LinearExpr> grid)
    : kernel(kernel), sys(sys), values(values) {
  for (unsigned d = 0; d < 3; ++d)
    launch.grid[d] = IndexSystem::evaluate(grid[d], values);
  for (BlockArgument arg : kernel.getBody().getArguments()) {
    unsigned i = arg.getArgNumber();
    if (auto view = dyn_cast<ViewType>(arg.getType())) {
      for (unsigned d = 0; d < view.getRank(); ++d)
        if (ShapedType::isDynamic(view.getShape()[d])) {
          std::optional<unsigned> v = sys.lookupDimVar(i, d);
          launch.dims[{i, d}] = v ? values[*v] : 1;
        }
    } else if (arg.getType().isIntOrIndex()) {
      std::optional<LinearExpr> e = sys.lookup(arg, Copy::Shared);
      launch.scalars[i] = e ? IndexSystem::evaluate(*e, values) : 0;
    }
  }
  launch.data = [this](unsigned arg, ArrayRef<int64_t> coords,
                       Operation *reader) -> std::optional<int64_t> {
    auto key = std::make_pair(arg, std::vector<int64_t>(coords.begin(),
                                                        coords.end()));
    auto it = data.find(key);
    if (it != data.end())
      return it->second;
    int64_t v = 0;
    if (std::optional<LinearExpr> e =
            this->sys.lookup(reader->getResult(0), current))
      v = IndexSystem::evaluate(*e, this->values);
    data[key] = v;
    return v;
  };
  // A witness is a launch the contract lets through.
  kernel.getBody().front().walk([&](Operation *op) {
    if (auto assume = dyn_cast<AssumeOp>(op)) {
      std::optional<int64_t> holds =
          evaluateLaunchValue(kernel, launch, assume.getCondition());
      isValid &= holds && *holds != 0;
    } else if (auto g = dyn_cast<GridOp>(op)) {
      for (unsigned d = 0; d < 3; ++d) {
        std::optional<int64_t> extent =
            d < g.getExtents().size()
                ? evaluateLaunchValue(kernel, launch, g.getExtents()[d])
                : std::optional<int64_t>(1);
        isValid &= extent && *extent == launch.grid[d];
      }
    }
  });
}

ConcreteTrace WitnessLaunch::run(ProgramIds pid, Copy copy) {
  current = copy;
  return runProgram(kernel, launch, pid);
}

SmallVector<ProgramIds> WitnessLaunch::allPrograms(int64_t limit) const {
  SmallVector<ProgramIds> all;
  const auto &g = launch.grid;
  if (g[0] <= 0 || g[1] <= 0 || g[2] <= 0 || g[0] > limit || g[1] > limit ||
      g[2] > limit || g[0] * g[1] * g[2] > limit)
    return all;
  for (int64_t z = 0; z < g[2]; ++z)
    for (int64_t y = 0; y < g[1]; ++y)
      for (int64_t x = 0; x < g[0]; ++x)
        all.push_back({x, y, z});
  return all;
}

std::optional<SmallVector<std::pair<int64_t, int64_t>>>
tile::overlap(const ConcreteTrace &ta, OwnOp a, const ConcreteTrace &tb,
              OwnOp b) {
  ArrayRef<int64_t> sa = a.getPartition().getType().getTileShape();
  ArrayRef<int64_t> sb = b.getPartition().getType().getTileShape();
  for (const ConcreteAccess &x : ta.claims) {
    if (x.op != a.getOperation())
      continue;
    for (const ConcreteAccess &y : tb.claims) {
      if (y.op != b.getOperation())
        continue;
      SmallVector<std::pair<int64_t, int64_t>> region;
      for (unsigned d = 0; d < sa.size(); ++d) {
        int64_t lo = std::max(x.indices[d] * sa[d], y.indices[d] * sb[d]);
        int64_t hi = std::min((x.indices[d] + 1) * sa[d],
                              (y.indices[d] + 1) * sb[d]);
        if (lo >= hi)
          break;
        region.push_back({lo, hi});
      }
      if (region.size() == sa.size())
        return region;
    }
  }
  return std::nullopt;
}

std::optional<std::pair<unsigned, int64_t>>
tile::outside(const ConcreteTrace &trace, Operation *op,
              ArrayRef<int64_t> counts) {
  for (const ConcreteAccess &x : trace.claims.size() && isa<OwnOp>(op)
                                     ? trace.claims
                                     : trace.subTiles) {
    if (x.op != op)
      continue;
    for (auto [d, i] : llvm::enumerate(x.indices))
      if (i < 0 || i >= counts[d])
        return std::make_pair(static_cast<unsigned>(d), i);
  }
  return std::nullopt;
}
