//===- Enumerate.cpp - a kernel's small launches, run exhaustively ---------===//

#include "Referee.h"

#include "tile/Analysis/ConcreteRun.h"
#include "tile/Dialect/Tile/Transforms/LaunchContractEmission.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cstring>
#include <random>

using namespace mlir;
using namespace tile;

namespace {

/// The runtime's view of `launch`: row-major views at disjoint fake
/// addresses, tables in host memory (`tables` keeps them alive).
bool contractArgs(KernelOp kernel, const ::tile_runtime::LaunchContract &c,
                  const ConcreteLaunch &launch,
                  const std::map<std::pair<unsigned, std::vector<int64_t>>,
                                 int64_t> &data,
                  std::vector<::tile_runtime::LaunchArg> &args,
                  std::vector<std::vector<char>> &tables) {
  namespace rt = ::tile_runtime;
  tables.reserve(c.params.size());
  for (unsigned i = 0; i < c.params.size(); ++i) {
    const rt::ContractParam &p = c.params[i];
    rt::LaunchArg a;
    if (p.kind == rt::ContractParam::Kind::Scalar) {
      auto it = launch.scalars.find(i);
      a.scalar = it == launch.scalars.end() ? 0 : it->second;
      args.push_back(a);
      continue;
    }
    a.isView = true;
    a.dtype = p.dtype;
    a.rank = static_cast<int32_t>(p.shape.size());
    int64_t stride = 1;
    for (int d = a.rank - 1; d >= 0; --d) {
      a.shape[d] = launch.dim(kernel, i, d);
      a.strides[d] = stride;
      stride *= std::max<int64_t>(a.shape[d], 1);
    }
    a.address = (uint64_t(i) + 1) << 40;
    // Integer 1-D views: their entries, in host memory (distinct_in_range
    // reads them).
    int64_t esize = rt::sizeInBytes(p.dtype);
    if (a.rank == 1 && p.dtype >= rt::DType::I8 && p.dtype <= rt::DType::I64) {
      tables.emplace_back(a.shape[0] * esize + 1, 0);
      for (int64_t k = 0; k < a.shape[0]; ++k) {
        auto it = data.find({i, {k}});
        int64_t v = it == data.end() ? 0 : it->second;
        std::memcpy(tables.back().data() + k * esize, &v, esize);
      }
      a.host = tables.back().data();
    }
    args.push_back(a);
  }
  return true;
}

/// The largest tile of any partition of `arg` along `d` (1 if none).
int64_t largestTile(KernelOp kernel, unsigned arg, unsigned d) {
  int64_t t = 1;
  kernel.walk([&](PartitionOp p) {
    auto a = dyn_cast<BlockArgument>(p.getView());
    if (a && a.getArgNumber() == arg)
      t = std::max(t, p.getType().getTileShape()[d]);
  });
  return t;
}

struct Runner {
  KernelOp kernel;
  std::mt19937_64 &rng;
  RefereeResult &result;
  int64_t maxPrograms;

  /// Fills `launch.data` with random small entries, distinct and in range
  /// for the tables the contract checks; false if a table cannot be.
  bool fillData(ConcreteLaunch &launch,
                std::map<std::pair<unsigned, std::vector<int64_t>>, int64_t>
                    &data) {
    std::map<unsigned, AssumeDistinctOp> tables;
    kernel.walk([&](AssumeDistinctOp op) {
      tables[cast<BlockArgument>(op.getTable()).getArgNumber()] = op;
    });
    for (auto [arg, op] : tables) {
      std::optional<int64_t> lo = evaluateLaunchValue(kernel, launch, op.getLo());
      std::optional<int64_t> hi = evaluateLaunchValue(kernel, launch, op.getHi());
      int64_t n = launch.dim(kernel, arg, 0);
      if (!lo || !hi || *hi - *lo < n || *hi - *lo > 4096)
        return false;
      std::vector<int64_t> values;
      for (int64_t v = *lo; v < *hi; ++v)
        values.push_back(v);
      std::shuffle(values.begin(), values.end(), rng);
      for (int64_t i = 0; i < n; ++i)
        data[{arg, {i}}] = values[i];
    }
    launch.data = [&data, this](unsigned arg, ArrayRef<int64_t> coords,
                                Operation *) -> std::optional<int64_t> {
      auto key = std::make_pair(arg, std::vector<int64_t>(coords.begin(),
                                                          coords.end()));
      auto it = data.find(key);
      if (it != data.end())
        return it->second;
      int64_t v = static_cast<int64_t>(rng() % 10) - 2;
      data[key] = v;
      return v;
    };
    return true;
  }

  /// Runs every program of `launch`; records the first collision or
  /// out-of-bounds access in `result`.
  void runLaunch(ConcreteLaunch &launch) {
    const auto &g = launch.grid;
    if (g[0] < 0 || g[1] < 0 || g[2] < 0 ||
        g[0] * g[1] * g[2] > maxPrograms)
      return;
    ++result.launches;
    SmallVector<std::pair<std::array<int64_t, 3>, ConcreteTrace>> traces;
    for (int64_t z = 0; z < g[2]; ++z)
      for (int64_t y = 0; y < g[1]; ++y)
        for (int64_t x = 0; x < g[0]; ++x) {
          traces.push_back({{x, y, z}, runProgram(kernel, launch, {x, y, z})});
          ++result.programs;
          if (!traces.back().second.complete)
            ++result.incomplete;
        }
    for (auto &[pid, trace] : traces) {
      for (const ConcreteAccess &c : trace.claims) {
        auto own = cast<OwnOp>(c.op);
        PartitionType type = own.getPartition().getType();
        auto view = cast<BlockArgument>(
            own.getPartition().getDefiningOp<PartitionOp>().getView());
        bool empty = false;
        for (unsigned d = 0; d < type.getRank(); ++d)
          empty |= launch.dim(kernel, view.getArgNumber(), d) == 0;
        for (unsigned d = 0; d < type.getRank() && !empty; ++d) {
          int64_t count = llvm::divideCeilSigned(
              launch.dim(kernel, view.getArgNumber(), d),
              type.getTileShape()[d]);
          if (c.indices[d] < 0 || c.indices[d] >= count)
            return note(launch, "program " + str(pid) + " claims tile index " +
                                    std::to_string(c.indices[d]) +
                                    " along dim " + std::to_string(d) +
                                    " outside [0, " + std::to_string(count) +
                                    ")");
        }
      }
      for (const ConcreteAccess &s : trace.subTiles) {
        Value block = isa<LoadOp>(s.op) ? cast<LoadOp>(s.op).getSource()
                                        : cast<StoreOp>(s.op).getDest();
        auto type = cast<OwnedType>(block.getType());
        auto tile = cast<RankedTensorType>(
            isa<LoadOp>(s.op) ? cast<LoadOp>(s.op).getResult().getType()
                              : cast<StoreOp>(s.op).getValue().getType());
        for (unsigned d = 0; d < s.indices.size(); ++d)
          if (s.indices[d] < 0 ||
              s.indices[d] >= type.getShape()[d] / tile.getDimSize(d))
            return note(launch, "program " + str(pid) +
                                    " accesses sub-tile index " +
                                    std::to_string(s.indices[d]) +
                                    " along dim " + std::to_string(d));
      }
    }
    for (unsigned i = 0; i < traces.size(); ++i)
      for (unsigned j = i + 1; j < traces.size(); ++j)
        for (const ConcreteAccess &a : traces[i].second.claims)
          for (const ConcreteAccess &b : traces[j].second.claims)
            if (overlaps(a, b))
              return note(launch, "programs " + str(traces[i].first) +
                                      " and " + str(traces[j].first) +
                                      " claim overlapping blocks");
  }

  static bool overlaps(const ConcreteAccess &a, const ConcreteAccess &b) {
    auto oa = cast<OwnOp>(a.op), ob = cast<OwnOp>(b.op);
    if (oa.getPartition().getDefiningOp<PartitionOp>().getView() !=
        ob.getPartition().getDefiningOp<PartitionOp>().getView())
      return false;
    ArrayRef<int64_t> ta = oa.getPartition().getType().getTileShape();
    ArrayRef<int64_t> tb = ob.getPartition().getType().getTileShape();
    for (unsigned d = 0; d < ta.size(); ++d)
      if (std::max(a.indices[d] * ta[d], b.indices[d] * tb[d]) >=
          std::min((a.indices[d] + 1) * ta[d], (b.indices[d] + 1) * tb[d]))
        return false;
    return true;
  }

  static std::string str(std::array<int64_t, 3> p) {
    return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " +
           std::to_string(p[2]) + ")";
  }

  void note(const ConcreteLaunch &launch, std::string what) {
    if (!result.violation.empty())
      return;
    std::string s = what + " (grid = " + str(launch.grid);
    for (auto [key, v] : launch.dims)
      s += ", dim(%arg" + std::to_string(key.first) + ", " +
           std::to_string(key.second) + ") = " + std::to_string(v);
    for (auto [arg, v] : launch.scalars)
      s += ", %arg" + std::to_string(arg) + " = " + std::to_string(v);
    result.violation = s + ")";
  }
};

} // namespace

void tile::enumerateLaunches(KernelOp kernel, unsigned budget, uint64_t seed,
                             RefereeResult &result) {
  if (kernel.getBody().front().getOps<JoinOp>().begin() !=
      kernel.getBody().front().getOps<JoinOp>().end()) {
    result.skipped = "a tile.join (its regions are not run)";
    return;
  }
  std::mt19937_64 rng(seed);
  Runner runner{kernel, rng, result, /*maxPrograms=*/256};
  // Candidate values per launch value: dims around multiples of their
  // tiles, scalars around zero, grids (without tile.grid) up to 3.
  SmallVector<std::function<void(ConcreteLaunch &, int64_t)>> setters;
  SmallVector<SmallVector<int64_t>> candidates;
  for (BlockArgument arg : kernel.getBody().getArguments()) {
    unsigned i = arg.getArgNumber();
    if (auto view = dyn_cast<ViewType>(arg.getType())) {
      for (unsigned d = 0; d < view.getRank(); ++d) {
        if (!ShapedType::isDynamic(view.getShape()[d]))
          continue;
        int64_t t = largestTile(kernel, i, d);
        candidates.push_back(
            {0, 1, t, t + 1, 2 * t, 3 * t - 1, 4 * t, 4 * t + 1, 8 * t});
        setters.push_back(
            [i, d](ConcreteLaunch &l, int64_t v) { l.dims[{i, d}] = v; });
      }
    } else if (arg.getType().isIntOrIndex()) {
      if (arg.getType().isInteger(1))
        candidates.push_back({0, 1});
      else
        candidates.push_back({-1, 0, 1, 2, 3, 4, 7});
      setters.push_back([i](ConcreteLaunch &l, int64_t v) { l.scalars[i] = v; });
    }
  }
  bool declaresGrid = false;
  kernel.getBody().front().walk([&](GridOp) { declaresGrid = true; });
  if (!declaresGrid)
    for (unsigned d = 0; d < 3; ++d) {
      candidates.push_back({1, 2, 3});
      setters.push_back([d](ConcreteLaunch &l, int64_t v) { l.grid[d] = v; });
    }
  FailureOr<::tile_runtime::LaunchContract> contract =
      buildLaunchContract(kernel);
  if (failed(contract)) {
    result.skipped = "no launch contract";
    return;
  }
  // Every combination when there are few, else `budget` random ones.
  uint64_t combos = 1;
  for (auto &c : candidates)
    combos = std::min<uint64_t>(combos * c.size(), uint64_t(1) << 40);
  uint64_t tries = std::min<uint64_t>(combos, budget);
  for (uint64_t n = 0; n < tries && result.violation.empty(); ++n) {
    ConcreteLaunch launch;
    uint64_t code = combos <= budget ? n : rng() % combos;
    for (unsigned k = 0; k < candidates.size(); ++k) {
      setters[k](launch, candidates[k][code % candidates[k].size()]);
      code /= candidates[k].size();
    }
    std::map<std::pair<unsigned, std::vector<int64_t>>, int64_t> data;
    if (!runner.fillData(launch, data))
      continue;
    // Only launches the contract lets through: what it checks (assumptions,
    // their wrap rules, tables, the grid) the proof may assume.
    std::vector<::tile_runtime::LaunchArg> args;
    std::vector<std::vector<char>> tables;
    if (!contractArgs(kernel, *contract, launch, data, args, tables))
      continue;
    std::array<int64_t, 3> g;
    if (!::tile_runtime::checkLaunch(*contract, args.data(), args.size(), g))
      continue;
    if (declaresGrid)
      launch.grid = g;
    runner.runLaunch(launch);
  }
}
