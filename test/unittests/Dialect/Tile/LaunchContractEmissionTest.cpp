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

// The window [s + 8 - 8, s + 8) of rows, s an i32: the assumption's i32 add
// is exact in the contract's 64-bit arithmetic, so the contract also checks
// that it does not wrap, which the proof relies on.
constexpr const char *kNarrowKernel = R"mlir(
tile.kernel @window(%y: !tile.view<out, ?x8xf32> {tile.name = "y"},
                    %s: i32 {tile.name = "s"}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %eight = arith.constant 8 : i32
  %zero = arith.constant 0 : i32
  tile.grid %c8
  %end32 = arith.addi %s, %eight : i32
  %end = arith.index_castui %end32 : i32 to index
  %rows = tile.dim %y, 0 : !tile.view<out, ?x8xf32>
  %fits = arith.cmpi ule, %end, %rows : index
  tile.assume %fits, "the window fits"
  %pos = arith.cmpi sge, %s, %zero : i32
  tile.assume %pos, "s is not negative"
  %pid = tile.program_id x
  %p = tile.partition %y : !tile.partition<out, ?x8xf32, tile = [1, 8]>
  %start = arith.subi %end, %c8 : index
  %row = arith.addi %start, %pid : index
  %b = tile.own %p[%row, %c0] : !tile.partition<out, ?x8xf32, tile = [1, 8]>
  tile.return
}
)mlir";

TEST(LaunchContractNarrowIntegers, WrappingAddIsRejectedAtLaunch) {
  MLIRContext context;
  context.loadDialect<tile::TileDialect, arith::ArithDialect,
                      scf::SCFDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kNarrowKernel, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addNestedPass<tile::KernelOp>(tile::createTileVerifyOwnership());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto kernel = *module->getOps<tile::KernelOp>().begin();
  auto json = kernel->getAttrOfType<StringAttr>(tile::kLaunchContractAttrName);
  ASSERT_TRUE(json);
  rt::LaunchContract contract;
  ASSERT_TRUE(rt::LaunchContract::fromJson(json.getValue(), contract).isOk());

  std::vector<float> rows(64 * 8);
  auto launch = [&](int64_t s) {
    rt::LaunchArg args[] = {
        rt::LaunchArg::view(rows.data(), rt::DType::F32, {64, 8}, {8, 1}),
        rt::LaunchArg::integer(s)};
    std::array<int64_t, 3> grid;
    return rt::checkLaunch(contract, args, 2, grid);
  };
  rt::Status ok = launch(56);
  EXPECT_TRUE(ok.isOk()) << ok.message();
  // In the kernel s + 8 wraps to a negative i32: the wrap rule, checked
  // before the assumption it belongs to, names it.
  rt::Status wraps = launch(2147483646);
  ASSERT_FALSE(wraps.isOk());
  EXPECT_NE(wraps.message().find("'arith.addi' does not wrap: its value fits "
                                 "i32"),
            std::string::npos)
      << wraps.message();
  rt::Status past = launch(57);
  ASSERT_FALSE(past.isOk());
  EXPECT_NE(past.message().find("the window fits"), std::string::npos)
      << past.message();
}

} // namespace
