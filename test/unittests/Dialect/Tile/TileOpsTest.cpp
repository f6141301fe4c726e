//===- TileOpsTest.cpp - unit tests of tile ops built from C++ -------------===//
//
// Builds kernels with the C++ API (as the .tile front end will), and checks
// folding and the integer ranges the ownership proof relies on.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tile;

namespace {

class TileOpsTest : public ::testing::Test {
protected:
  TileOpsTest() : builder(&context) {
    context.loadDialect<TileDialect, arith::ArithDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A row-copy kernel: program i copies row i of `src` into row i of `dst`.
  KernelOp buildCopyKernel(int64_t rows) {
    Type f16 = builder.getF16Type();
    auto src = ViewType::get(OwnershipMode::In, {rows, 256}, f16);
    auto dst = ViewType::get(OwnershipMode::Out, {rows, 256}, f16);
    auto kernel = KernelOp::create(builder, loc, "copy",
                                   builder.getFunctionType({src, dst}, {}));
    OpBuilder::InsertionGuard guard(builder);
    Block &entry = kernel.getBody().front();
    builder.setInsertionPointToStart(&entry);
    Value pid = ProgramIdOp::create(builder, loc, Dimension::X);
    Value c0 = arith::ConstantIndexOp::create(builder, loc, 0);
    auto srcPart = PartitionType::get(src, {1, 256});
    auto dstPart = PartitionType::get(dst, {1, 256});
    Value ps = PartitionOp::create(builder, loc, srcPart, entry.getArgument(0));
    Value pd = PartitionOp::create(builder, loc, dstPart, entry.getArgument(1));
    Value row = LoadOp::create(builder, loc, srcPart.getTileType(), ps,
                               ValueRange{pid, c0}, /*padding=*/nullptr);
    Value blk = OwnOp::create(builder, loc, dstPart.getOwnedType(), pd,
                              ValueRange{pid, c0});
    StoreOp::create(builder, loc, row, blk, ValueRange{});
    ReturnOp::create(builder, loc);
    return kernel;
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
};

TEST_F(TileOpsTest, BuiltKernelVerifies) {
  KernelOp kernel = buildCopyKernel(64);
  EXPECT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(kernel.getNumArguments(), 2u);
}

TEST_F(TileOpsTest, StaticDimAndNumTilesFold) {
  KernelOp kernel = buildCopyKernel(100);
  builder.setInsertionPoint(kernel.getBody().front().getTerminator());
  Value view = kernel.getArgument(0);
  auto dim = DimOp::create(builder, loc, view, 0);
  SmallVector<OpFoldResult> folded;
  ASSERT_TRUE(succeeded(dim->fold(folded)));
  ASSERT_EQ(folded.size(), 1u);
  EXPECT_EQ(cast<IntegerAttr>(cast<Attribute>(folded[0])).getInt(), 100);

  auto part = PartitionOp::create(
      builder, loc,
      PartitionType::get(cast<ViewType>(view.getType()), {16, 256}), view);
  auto tiles = NumTilesOp::create(builder, loc, part, 0);
  folded.clear();
  ASSERT_TRUE(succeeded(tiles->fold(folded)));
  EXPECT_EQ(cast<IntegerAttr>(cast<Attribute>(folded[0])).getInt(), 7);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TileOpsTest, ProgramIdRangeIsTheGrid) {
  KernelOp kernel = buildCopyKernel(64);
  builder.setInsertionPoint(kernel.getBody().front().getTerminator());
  Value x = ProgramIdOp::create(builder, loc, Dimension::X);
  Value y = ProgramIdOp::create(builder, loc, Dimension::Y);
  Value ny = NumProgramsOp::create(builder, loc, Dimension::Y);

  DataFlowSolver solver;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  ASSERT_TRUE(succeeded(solver.initializeAndRun(kernel)));

  auto range = [&](Value v) {
    auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
    EXPECT_TRUE(lattice && !lattice->getValue().isUninitialized());
    return lattice->getValue().getValue();
  };
  EXPECT_EQ(range(x).smin().getSExtValue(), 0);
  EXPECT_EQ(range(x).smax().getSExtValue(), (int64_t(1) << 31) - 2);
  EXPECT_EQ(range(y).smax().getSExtValue(), 65534);
  EXPECT_EQ(range(ny).smin().getSExtValue(), 1);
  EXPECT_EQ(range(ny).smax().getSExtValue(), 65535);
}

} // namespace
