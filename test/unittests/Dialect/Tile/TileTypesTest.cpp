//===- TileTypesTest.cpp - unit tests of the tile dialect types ------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tile;

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

class TileTypesTest : public ::testing::Test {
protected:
  TileTypesTest() { context.loadDialect<TileDialect>(); }

  /// Parses `text`, collecting diagnostics instead of printing them.
  Type parse(StringRef text) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      lastError = d.str();
      return success();
    });
    return parseType(text, &context);
  }

  std::string print(Type type) {
    std::string s;
    llvm::raw_string_ostream os(s);
    type.print(os);
    return s;
  }

  MLIRContext context;
  std::string lastError;
};

TEST_F(TileTypesTest, ContiguousStrides) {
  EXPECT_EQ(ViewType::getContiguousStrides({kDyn, 4096}),
            (SmallVector<int64_t>{4096, 1}));
  EXPECT_EQ(ViewType::getContiguousStrides({2, 3, 4}),
            (SmallVector<int64_t>{12, 4, 1}));
  EXPECT_EQ(ViewType::getContiguousStrides({4, kDyn, 8}),
            (SmallVector<int64_t>{kDyn, 8, 1}));
  EXPECT_EQ(ViewType::getContiguousStrides({7}), (SmallVector<int64_t>{1}));
}

TEST_F(TileTypesTest, ViewRoundTripsAndOmitsContiguousStrides) {
  Type t = parse("!tile.view<in, ?x4096xbf16>");
  ASSERT_TRUE(t) << lastError;
  auto view = cast<ViewType>(t);
  EXPECT_EQ(view.getMode(), OwnershipMode::In);
  EXPECT_EQ(view.getStrides(), ArrayRef<int64_t>({4096, 1}));
  EXPECT_EQ(print(view), "!tile.view<in, ?x4096xbf16>");

  Type strided = parse("!tile.view<inout, 8x128xf16, strides = [256, 1]>");
  ASSERT_TRUE(strided) << lastError;
  EXPECT_EQ(print(strided),
            "!tile.view<inout, 8x128xf16, strides = [256, 1]>");
  // Spelling out the contiguous strides gives the same (uniqued) type.
  EXPECT_EQ(parse("!tile.view<in, ?x4096xbf16, strides = [4096, 1]>"), t);
}

TEST_F(TileTypesTest, ViewRejectsBadInput) {
  EXPECT_FALSE(parse("!tile.view<shared, 4xf16>"));
  EXPECT_NE(lastError.find("expected ownership mode"), std::string::npos)
      << lastError;
  EXPECT_FALSE(parse("!tile.view<in, 4xf16, strides = [0]>"));
  EXPECT_NE(lastError.find("stride #0 must be positive"), std::string::npos)
      << lastError;
  EXPECT_FALSE(parse("!tile.view<in, 4xcomplex<f32>>"));
  EXPECT_NE(lastError.find("view element type"), std::string::npos)
      << lastError;
  EXPECT_FALSE(parse("!tile.view<in, 4x4xf16, strides = [1]>"));
  EXPECT_NE(lastError.find("has 1 strides"), std::string::npos) << lastError;
}

TEST_F(TileTypesTest, ExclusiveViewsMustNotOverlapThemselves) {
  auto emit = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  Type f16 = Float16Type::get(&context);
  // Rows 4 elements apart but 8 wide: row r and r+1 share elements.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  EXPECT_FALSE(ViewType::getChecked(emit, &context, OwnershipMode::Out,
                                    ArrayRef<int64_t>{4, 8}, f16,
                                    ArrayRef<int64_t>{4, 1}));
  // The same layout is fine for a shared read-only view.
  EXPECT_TRUE(ViewType::getChecked(emit, &context, OwnershipMode::In,
                                   ArrayRef<int64_t>{4, 8}, f16,
                                   ArrayRef<int64_t>{4, 1}));
  // Column-major and padded layouts do not overlap.
  EXPECT_TRUE(ViewType::getChecked(emit, &context, OwnershipMode::InOut,
                                   ArrayRef<int64_t>{4, 8}, f16,
                                   ArrayRef<int64_t>{1, 4}));
  EXPECT_TRUE(ViewType::getChecked(emit, &context, OwnershipMode::Out,
                                   ArrayRef<int64_t>{4, 8}, f16,
                                   ArrayRef<int64_t>{16, 1}));
  // Dynamic strides are checked at launch, not here.
  EXPECT_TRUE(ViewType::getChecked(emit, &context, OwnershipMode::Out,
                                   ArrayRef<int64_t>{4, 8}, f16,
                                   ArrayRef<int64_t>{kDyn, 1}));
}

TEST_F(TileTypesTest, PartitionGridIsCeilDiv) {
  Type t = parse("!tile.partition<in, 100x4096xf16, tile = [16, 512]>");
  ASSERT_TRUE(t) << lastError;
  auto partition = cast<PartitionType>(t);
  EXPECT_EQ(partition.getGridShape(), (SmallVector<int64_t>{7, 8}));
  EXPECT_EQ(partition.getTileType(),
            RankedTensorType::get({16, 512}, Float16Type::get(&context)));

  auto dynamic = cast<PartitionType>(
      parse("!tile.partition<out, ?x4096xf32, tile = [1, 4096]>"));
  EXPECT_EQ(dynamic.getGridShape(), (SmallVector<int64_t>{kDyn, 1}));
  OwnedType owned = dynamic.getOwnedType();
  EXPECT_EQ(owned.getMode(), OwnershipMode::Out);
  EXPECT_EQ(print(owned), "!tile.owned<out, 1x4096xf32>");
}

TEST_F(TileTypesTest, PartitionTileIsCapped) {
  EXPECT_FALSE(parse("!tile.partition<in, ?x?xf32, strides = [?, 1], "
                     "tile = [2048, 1024]>"));
  EXPECT_NE(lastError.find("more than the limit of 1048576"),
            std::string::npos)
      << lastError;
  EXPECT_TRUE(parse("!tile.partition<in, ?x?xf32, strides = [?, 1], "
                    "tile = [1024, 1024]>"))
      << lastError;
  EXPECT_FALSE(parse("!tile.partition<in, 4x4xf32, tile = [4]>"));
  EXPECT_NE(lastError.find("has rank 1 but its view has rank 2"),
            std::string::npos)
      << lastError;
  EXPECT_FALSE(parse("!tile.partition<in, 4x4xf32, tile = [0, 4]>"));
  EXPECT_FALSE(parse("!tile.partition<in, 4x4xf32>"));
  EXPECT_NE(lastError.find("needs its tile shape"), std::string::npos)
      << lastError;
}

TEST_F(TileTypesTest, OwnedBlockOfInIsRejected) {
  EXPECT_FALSE(parse("!tile.owned<in, 4xf32>"));
  EXPECT_NE(lastError.find("not of an 'in' one"), std::string::npos)
      << lastError;
}

TEST_F(TileTypesTest, TileTypeCheck) {
  auto emit = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    lastError = d.str();
    return success();
  });
  Type f32 = Float32Type::get(&context);
  EXPECT_TRUE(succeeded(
      verifyTileType(emit, RankedTensorType::get({1024, 1024}, f32))));
  EXPECT_TRUE(failed(
      verifyTileType(emit, RankedTensorType::get({1025, 1024}, f32))));
  EXPECT_NE(lastError.find("has 1049600 elements; the limit is 1048576"),
            std::string::npos)
      << lastError;
  EXPECT_TRUE(
      failed(verifyTileType(emit, RankedTensorType::get({kDyn, 4}, f32))));
  EXPECT_TRUE(failed(verifyTileType(emit, RankedTensorType::get({}, f32))));
}

} // namespace
