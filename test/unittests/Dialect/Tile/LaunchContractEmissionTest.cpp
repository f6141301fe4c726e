//===- LaunchContractEmissionTest.cpp - compile, then check launches -------===//
//
// End to end for what only a launch contract can catch: a kernel is verified
// by tile-verify-ownership, its contract is read back from JSON exactly as
// the runtime would, and launches are checked against it. Aliasing an
// exclusive view with another argument and violating a tile.assume must be
// rejected; a good launch gets its grid from the grid rule.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/LaunchContractEmission.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <vector>

using namespace mlir;
namespace rt = ::tile_runtime;

namespace {

// y[i, :] = x[i, :] * scale, rows of 256; y may not alias x, and the rows
// match by assumption.
constexpr const char *kKernel = R"mlir(
tile.kernel @scale_rows(%x: !tile.view<in, ?x256xf32> {tile.name = "x"},
                        %y: !tile.view<out, ?x256xf32> {tile.name = "y"},
                        %s: f32 {tile.name = "s"}) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x256xf32, tile = [2, 256]>
  %py = tile.partition %y : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  tile.grid %n
  %rx = tile.dim %x, 0 : !tile.view<in, ?x256xf32>
  %ry = tile.dim %y, 0 : !tile.view<out, ?x256xf32>
  %same = arith.cmpi eq, %rx, %ry : index
  tile.assume %same, "x and y have the same rows"
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x256xf32, tile = [2, 256]> -> tensor<2x256xf32>
  %sv = tile.splat %s : tensor<2x256xf32>
  %r = arith.mulf %t, %sv : tensor<2x256xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  tile.store %r, %b : tensor<2x256xf32>, !tile.owned<out, 2x256xf32>
  tile.return
}
)mlir";

class LaunchContractEmissionTest : public ::testing::Test {
protected:
  void SetUp() override {
    context.loadDialect<tile::TileDialect, arith::ArithDialect,
                        math::MathDialect, scf::SCFDialect>();
    module = parseSourceString<ModuleOp>(kKernel, &context);
    ASSERT_TRUE(module);
    PassManager pm(&context);
    pm.addNestedPass<tile::KernelOp>(tile::createTileVerifyOwnership());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    auto kernel = *module->getOps<tile::KernelOp>().begin();
    auto json = kernel->getAttrOfType<StringAttr>(tile::kLaunchContractAttrName);
    ASSERT_TRUE(json);
    rt::Status s = rt::LaunchContract::fromJson(json.getValue(), contract);
    ASSERT_TRUE(s.isOk()) << s.message();
  }

  rt::Status launch(const std::vector<rt::LaunchArg> &args,
                    std::array<int64_t, 3> *grid = nullptr) {
    std::array<int64_t, 3> g;
    rt::Status s = rt::checkLaunch(contract, args.data(), args.size(), g);
    if (grid)
      *grid = g;
    return s;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  rt::LaunchContract contract;
  std::vector<float> buffer = std::vector<float>(16 * 256);
};

TEST_F(LaunchContractEmissionTest, GoodLaunchGetsItsGrid) {
  std::array<int64_t, 3> grid;
  rt::Status s = launch(
      {rt::LaunchArg::view(buffer.data(), rt::DType::F32, {7, 256}, {256, 1}),
       rt::LaunchArg::view(buffer.data() + 8 * 256, rt::DType::F32, {7, 256},
                           {256, 1}),
       rt::LaunchArg::integer(0)},
      &grid);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(grid, (std::array<int64_t, 3>{4, 1, 1})) << "ceildiv(7, 2)";
}

TEST_F(LaunchContractEmissionTest, AliasingOutputIsRejected) {
  // y starts one row into x: programs would read rows others are writing.
  rt::Status s = launch(
      {rt::LaunchArg::view(buffer.data(), rt::DType::F32, {7, 256}, {256, 1}),
       rt::LaunchArg::view(buffer.data() + 256, rt::DType::F32, {7, 256},
                           {256, 1}),
       rt::LaunchArg::integer(0)});
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(),
            "kernel scale_rows: argument y (#1) overlaps argument x (#0) "
            "[no_overlap(y, x)]: an exclusively owned view may not alias any "
            "other argument");
}

TEST_F(LaunchContractEmissionTest, InPlaceLaunchIsRejected) {
  rt::Status s = launch(
      {rt::LaunchArg::view(buffer.data(), rt::DType::F32, {7, 256}, {256, 1}),
       rt::LaunchArg::view(buffer.data(), rt::DType::F32, {7, 256}, {256, 1}),
       rt::LaunchArg::integer(0)});
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("overlaps argument x"), std::string::npos)
      << s.message();
}

TEST_F(LaunchContractEmissionTest, AssumptionViolationNamesItsSourceLine) {
  rt::Status s = launch(
      {rt::LaunchArg::view(buffer.data(), rt::DType::F32, {7, 256}, {256, 1}),
       rt::LaunchArg::view(buffer.data() + 8 * 256, rt::DType::F32, {6, 256},
                           {256, 1}),
       rt::LaunchArg::integer(0)});
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("launch contract violated: x and y have the "
                             "same rows [dim(x, 0) == dim(y, 0)] at "),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find(":14:3"), std::string::npos)
      << "the tile.assume is on line 14 of the kernel source (the text starts with a newline): " << s.message();
}

TEST_F(LaunchContractEmissionTest, ContractDescribesTheParameters) {
  ASSERT_EQ(contract.params.size(), 3u);
  EXPECT_EQ(contract.params[0].name, "x");
  EXPECT_EQ(contract.params[1].mode, rt::AccessMode::Out);
  EXPECT_EQ(contract.params[1].shape, (std::vector<int64_t>{-1, 256}));
  EXPECT_EQ(contract.params[2].kind, rt::ContractParam::Kind::Scalar);
  EXPECT_EQ(contract.params[2].dtype, rt::DType::F32);
  // y does not overlap x; its row-major layout is non-overlapping for any
  // row count, so no layout rule; one assumption.
  ASSERT_EQ(contract.rules.size(), 2u);
  EXPECT_EQ(contract.toString(contract.rules[0]), "no_overlap(y, x)");
}

} // namespace
