//===- LaunchContractTest.cpp - contract evaluation, each rule both ways ---===//

#include "tile/runtime/LaunchContract.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

using namespace tile_runtime;
using Op = ContractExpr::Op;

namespace {

/// rmsnorm-like kernel: x: in [?, 4096] f16, w: frozen [4096] f16,
/// y: out [?, 4096] f16, pos: i32; grid = dim(y, 0).
LaunchContract makeContract() {
  LaunchContract c;
  c.kernel = "k";
  c.params.push_back({ContractParam::Kind::View, "x", DType::F16,
                      AccessMode::In, {-1, 4096}, {4096, 1}});
  c.params.push_back({ContractParam::Kind::View, "w", DType::F16,
                      AccessMode::Frozen, {4096}, {1}});
  c.params.push_back({ContractParam::Kind::View, "y", DType::F16,
                      AccessMode::Out, {-1, 4096}, {-1, 1}});
  c.params.push_back({ContractParam::Kind::Scalar, "pos", DType::I32,
                      AccessMode::In, {}, {}});
  c.grid.push_back(ContractExpr::dim(2, 0));
  c.rules.push_back({ContractRule::Kind::NoOverlap, 2, 0, {}, "", ""});
  c.rules.push_back({ContractRule::Kind::NoOverlap, 2, 1, {}, "", ""});
  c.rules.push_back(
      {ContractRule::Kind::NonSelfOverlapping, 2, -1, {}, "", ""});
  // pos + 4 <= dim(x, 0)
  ContractRule assume;
  assume.kind = ContractRule::Kind::Assume;
  assume.expr = ContractExpr::apply(
      Op::Le, {ContractExpr::apply(Op::Add, {ContractExpr::scalar(3),
                                             ContractExpr::constant(4)}),
               ContractExpr::dim(0, 0)});
  assume.message = "pos + 4 <= rows of x";
  assume.location = "k.tile:3:5";
  c.rules.push_back(assume);
  // dim(x, 0) == dim(y, 0)
  ContractRule rows;
  rows.kind = ContractRule::Kind::Assume;
  rows.expr = ContractExpr::apply(
      Op::Eq, {ContractExpr::dim(0, 0), ContractExpr::dim(2, 0)});
  rows.message = "x and y have the same rows";
  c.rules.push_back(rows);
  return c;
}

struct Buffers {
  std::vector<uint16_t> x = std::vector<uint16_t>(8 * 4096);
  std::vector<uint16_t> w = std::vector<uint16_t>(4096);
  std::vector<uint16_t> y = std::vector<uint16_t>(8 * 4096);
};

std::vector<LaunchArg> goodArgs(Buffers &b) {
  return {LaunchArg::view(b.x.data(), DType::F16, {8, 4096}, {4096, 1}),
          LaunchArg::view(b.w.data(), DType::F16, {4096}, {1}),
          LaunchArg::view(b.y.data(), DType::F16, {8, 4096}, {4096, 1}),
          LaunchArg::integer(2)};
}

Status check(const LaunchContract &c, const std::vector<LaunchArg> &args,
             std::array<int64_t, 3> *gridOut = nullptr) {
  std::array<int64_t, 3> grid;
  Status s = checkLaunch(c, args.data(), args.size(), grid);
  if (gridOut)
    *gridOut = grid;
  return s;
}

void expectViolation(const Status &s, const std::string &needle) {
  ASSERT_FALSE(s.isOk()) << "expected a violation mentioning: " << needle;
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST(LaunchContract, SatisfiedGivesTheGrid) {
  LaunchContract c = makeContract();
  Buffers b;
  std::array<int64_t, 3> grid;
  Status s = check(c, goodArgs(b), &grid);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(grid, (std::array<int64_t, 3>{8, 1, 1}));
}

TEST(LaunchContract, NoOverlapViolated) {
  LaunchContract c = makeContract();
  Buffers b;
  auto args = goodArgs(b);
  // y aliases the second half of x.
  args[2] = LaunchArg::view(b.x.data() + 4 * 4096, DType::F16, {4, 4096},
                            {4096, 1});
  args[0] = LaunchArg::view(b.x.data(), DType::F16, {4, 4096}, {4096, 1});
  args[3] = LaunchArg::integer(0);
  Status s = check(c, args);
  EXPECT_TRUE(s.isOk()) << "adjacent halves do not overlap: " << s.message();
  args[0] = LaunchArg::view(b.x.data(), DType::F16, {4, 4096}, {4096, 1});
  args[2] = LaunchArg::view(b.x.data() + 4 * 4096 - 1, DType::F16, {4, 4096},
                            {4096, 1});
  expectViolation(check(c, args),
                  "argument y (#2) overlaps argument x (#0) [no_overlap(y, x)]");
}

TEST(LaunchContract, EmptyViewsNeverOverlap) {
  LaunchContract c = makeContract();
  Buffers b;
  auto args = goodArgs(b);
  args[0] = LaunchArg::view(b.y.data(), DType::F16, {0, 4096}, {4096, 1});
  args[2] = LaunchArg::view(b.y.data(), DType::F16, {0, 4096}, {4096, 1});
  args[3] = LaunchArg::integer(-4);
  std::array<int64_t, 3> grid;
  Status s = check(c, args, &grid);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(grid[0], 0) << "an empty problem launches nothing";
}

TEST(LaunchContract, NonSelfOverlappingViolated) {
  LaunchContract c = makeContract();
  Buffers b;
  auto args = goodArgs(b);
  // Rows 2048 elements apart but 4096 wide: rows overlap each other.
  args[2] = LaunchArg::view(b.y.data(), DType::F16, {8, 4096}, {2048, 1});
  expectViolation(check(c, args), "argument y (#2) overlaps itself");
  // Padded rows are fine.
  args[2] = LaunchArg::view(b.y.data(), DType::F16, {4, 4096}, {8192, 1});
  args[0] = LaunchArg::view(b.x.data(), DType::F16, {4, 4096}, {4096, 1});
  args[3] = LaunchArg::integer(0);
  Status s = check(c, args);
  EXPECT_TRUE(s.isOk()) << s.message();
}

TEST(LaunchContract, AssumeViolatedNamesTheMessageAndLocation) {
  LaunchContract c = makeContract();
  Buffers b;
  auto args = goodArgs(b);
  args[3] = LaunchArg::integer(5); // 5 + 4 > 8
  expectViolation(check(c, args),
                  "launch contract violated: pos + 4 <= rows of x "
                  "[(pos + 4) <= dim(x, 0)] at k.tile:3:5");
  args[3] = LaunchArg::integer(4); // 4 + 4 == 8: holds
  EXPECT_TRUE(check(c, args).isOk());
}

TEST(LaunchContract, ShapeEqualityViolated) {
  LaunchContract c = makeContract();
  Buffers b;
  auto args = goodArgs(b);
  args[2] = LaunchArg::view(b.y.data(), DType::F16, {7, 4096}, {4096, 1});
  expectViolation(check(c, args), "x and y have the same rows");
}

TEST(LaunchContract, StaticShapesStridesDtypesAndKinds) {
  LaunchContract c = makeContract();
  Buffers b;
  auto args = goodArgs(b);
  args[1] = LaunchArg::view(b.w.data(), DType::F16, {2048}, {1});
  expectViolation(check(c, args),
                  "argument w (#1) dim 0 is 2048, the kernel was compiled for "
                  "4096");
  args = goodArgs(b);
  args[0] = LaunchArg::view(b.x.data(), DType::F16, {8, 4096}, {4096, 2});
  expectViolation(check(c, args), "argument x (#0) stride 1 is 2");
  args = goodArgs(b);
  args[0] = LaunchArg::view(b.x.data(), DType::BF16, {8, 4096}, {4096, 1});
  expectViolation(check(c, args), "argument x (#0) has dtype bf16, expected f16");
  args = goodArgs(b);
  args[3] = LaunchArg::view(b.x.data(), DType::F16, {1}, {1});
  expectViolation(check(c, args), "argument pos (#3) is a scalar, got a view");
  args = goodArgs(b);
  args.pop_back();
  expectViolation(check(c, args), "expects 4 arguments, got 3");
  args = goodArgs(b);
  args[0] = LaunchArg::view(b.x.data(), DType::F16, {8, 4096, 1}, {4096, 1, 1});
  expectViolation(check(c, args), "argument x (#0) has rank 3, expected 2");
}

TEST(LaunchContract, GridOutOfRange) {
  LaunchContract c = makeContract();
  c.rules.pop_back(); // drop the row equality
  c.grid[0] = ContractExpr::apply(
      Op::Sub, {ContractExpr::dim(2, 0), ContractExpr::constant(10)});
  Buffers b;
  expectViolation(check(c, goodArgs(b)),
                  "grid extent x = -2 is outside [0, 2147483647]");
}

TEST(LaunchContract, ExpressionSemantics) {
  auto eval = [](ContractExpr e) {
    int64_t r = -999;
    Status s = evaluate(e, nullptr, 0, r);
    EXPECT_TRUE(s.isOk()) << s.message();
    return r;
  };
  auto k = ContractExpr::constant;
  auto ap = [](Op op, std::vector<ContractExpr> a) {
    return ContractExpr::apply(op, std::move(a));
  };
  EXPECT_EQ(eval(ap(Op::FloorDiv, {k(-7), k(2)})), -4);
  EXPECT_EQ(eval(ap(Op::DivS, {k(-7), k(2)})), -3);
  EXPECT_EQ(eval(ap(Op::CeilDiv, {k(7), k(2)})), 4);
  EXPECT_EQ(eval(ap(Op::CeilDiv, {k(-7), k(2)})), -3);
  EXPECT_EQ(eval(ap(Op::CeilDiv, {k(8), k(2)})), 4);
  EXPECT_EQ(eval(ap(Op::RemS, {k(-7), k(2)})), -1);
  EXPECT_EQ(eval(ap(Op::RemU, {k(7), k(4)})), 3);
  EXPECT_EQ(eval(ap(Op::ULt, {k(-1), k(1)})), 0);
  EXPECT_EQ(eval(ap(Op::Lt, {k(-1), k(1)})), 1);
  EXPECT_EQ(eval(ap(Op::MinU, {k(-1), k(3)})), 3);
  EXPECT_EQ(eval(ap(Op::MaxS, {k(-1), k(3)})), 3);
  EXPECT_EQ(eval(ap(Op::Select, {k(0), k(5), k(6)})), 6);
  EXPECT_EQ(eval(ap(Op::And, {k(1), k(0)})), 0);

  int64_t r;
  EXPECT_FALSE(evaluate(ap(Op::FloorDiv, {k(1), k(0)}), nullptr, 0, r).isOk());
  EXPECT_FALSE(
      evaluate(ap(Op::Mul, {k(INT64_MAX), k(2)}), nullptr, 0, r).isOk());
  // Malformed postfix code is an error, not a crash.
  ContractExpr bad;
  bad.code.push_back({Op::Add, 0, 0, 0});
  EXPECT_FALSE(evaluate(bad, nullptr, 0, r).isOk());
  EXPECT_FALSE(evaluate(ContractExpr::dim(0, 0), nullptr, 0, r).isOk());
}

TEST(LaunchContract, AlignedRowsViolated) {
  LaunchContract c = makeContract();
  ContractRule rows;
  rows.kind = ContractRule::Kind::AlignedRows;
  rows.a = 2;
  rows.bytes = 16;
  c.rules.push_back(rows);
  Buffers b;
  auto args = goodArgs(b);
  EXPECT_TRUE(check(c, args).isOk());
  // 4100 f16 elements = 8200 bytes between rows: not a multiple of 16.
  args[0] = LaunchArg::view(b.x.data(), DType::F16, {4, 4096}, {4096, 1});
  args[2] = LaunchArg::view(b.y.data(), DType::F16, {4, 4096}, {4100, 1});
  args[3] = LaunchArg::integer(0);
  expectViolation(check(c, args),
                  "argument y (#2) has a stride of 4100 elements along dim 0, "
                  "not a multiple of 16 bytes [aligned_rows(y, 16)]");
  // 4104 elements = 8208 bytes: aligned.
  args[2] = LaunchArg::view(b.y.data(), DType::F16, {4, 4096}, {4104, 1});
  EXPECT_TRUE(check(c, args).isOk()) << check(c, args).message();
  // Only outer dims of extent > 1 have rows: w (rank 1) always passes.
  rows.a = 1;
  c.rules.push_back(rows);
  EXPECT_TRUE(check(c, args).isOk()) << check(c, args).message();
  // Round trip through JSON.
  LaunchContract back;
  ASSERT_TRUE(LaunchContract::fromJson(c.toJson(), back).isOk());
  EXPECT_EQ(back.toString(back.rules.back()), "aligned_rows(w, 16)");
  EXPECT_EQ(back.toJson(), c.toJson());
}

/// A paged write: table: frozen [?] i32, cache: inout [?, 16] f16; the
/// table's entries are distinct cache rows.
LaunchContract pagedContract() {
  LaunchContract c;
  c.kernel = "paged";
  c.params.push_back({ContractParam::Kind::View, "table", DType::I32,
                      AccessMode::Frozen, {-1}, {1}});
  c.params.push_back({ContractParam::Kind::View, "cache", DType::F16,
                      AccessMode::InOut, {-1, 16}, {16, 1}});
  ContractRule distinct;
  distinct.kind = ContractRule::Kind::DistinctInRange;
  distinct.a = 0;
  distinct.expr = ContractExpr::constant(0);
  distinct.hi = ContractExpr::dim(1, 0);
  distinct.message = "distinct cache rows";
  distinct.location = "paged.tile:4:5";
  c.rules.push_back(distinct);
  return c;
}

std::vector<LaunchArg> pagedArgs(std::vector<int32_t> &table,
                                 std::vector<uint16_t> &cache, int64_t rows) {
  std::vector<LaunchArg> args = {
      LaunchArg::view(table.data(), DType::I32,
                      {static_cast<int64_t>(table.size())}, {1}),
      LaunchArg::view(cache.data(), DType::F16, {rows, 16}, {16, 1})};
  args[0].host = table.data();
  return args;
}

TEST(LaunchContract, DistinctInRangeHolds) {
  LaunchContract c = pagedContract();
  std::vector<int32_t> table = {3, 0, 7, 5};
  std::vector<uint16_t> cache(8 * 16);
  EXPECT_TRUE(check(c, pagedArgs(table, cache, 8)).isOk());
  // A wide range, checked through a sorted copy.
  std::vector<uint16_t> big(1000 * 16);
  EXPECT_TRUE(check(c, pagedArgs(table, big, 1000)).isOk());
  // An empty table holds whatever the range.
  std::vector<int32_t> none;
  EXPECT_TRUE(check(c, pagedArgs(none, cache, 0)).isOk());
}

TEST(LaunchContract, DistinctInRangeViolated) {
  LaunchContract c = pagedContract();
  std::vector<uint16_t> cache(8 * 16), big(1000 * 16);
  std::vector<int32_t> repeat = {3, 0, 3, 5};
  expectViolation(check(c, pagedArgs(repeat, cache, 8)),
                  "launch contract violated: distinct cache rows: argument "
                  "table (#0): entry 2 (3) repeats an earlier entry "
                  "[distinct_in_range(table, 0, dim(cache, 0)) \"distinct "
                  "cache rows\"] at paged.tile:4:5");
  expectViolation(check(c, pagedArgs(repeat, big, 1000)),
                  "the value 3 appears twice");
  std::vector<int32_t> outside = {3, 0, 8};
  expectViolation(check(c, pagedArgs(outside, cache, 8)),
                  "entry 2 is 8, outside [0, 8)");
  std::vector<int32_t> negative = {-1};
  expectViolation(check(c, pagedArgs(negative, cache, 8)),
                  "entry 0 is -1, outside [0, 8)");
  // Device memory the runtime cannot read fails the rule.
  std::vector<int32_t> table = {1, 2};
  std::vector<LaunchArg> args = pagedArgs(table, cache, 8);
  args[0].host = nullptr;
  expectViolation(check(c, args), "not in host-visible memory");
  // Round trip through JSON.
  LaunchContract back;
  ASSERT_TRUE(LaunchContract::fromJson(c.toJson(), back).isOk());
  EXPECT_EQ(back.toString(back.rules.back()),
            "distinct_in_range(table, 0, dim(cache, 0)) \"distinct cache "
            "rows\"");
  EXPECT_EQ(back.toJson(), c.toJson());
}

TEST(LaunchContract, JsonRoundTrip) {
  LaunchContract c = makeContract();
  std::string text = c.toJson();
  LaunchContract back;
  Status s = LaunchContract::fromJson(text, back);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(back.toJson(), text);
  EXPECT_EQ(back.kernel, "k");
  ASSERT_EQ(back.rules.size(), c.rules.size());
  EXPECT_EQ(back.toString(back.rules[3]),
            "assume((pos + 4) <= dim(x, 0)) \"pos + 4 <= rows of x\"");
  EXPECT_EQ(back.params[2].strides, (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(back.params[1].mode, AccessMode::Frozen);
  EXPECT_NE(text.find("\"mode\":\"frozen\""), std::string::npos) << text;
  Buffers b;
  EXPECT_TRUE(check(back, goodArgs(b)).isOk());
}

TEST(LaunchContract, BadJsonIsAnErrorNamingTheField) {
  LaunchContract c;
  auto expectError = [&](const std::string &text, const std::string &needle) {
    Status s = LaunchContract::fromJson(text, c);
    ASSERT_FALSE(s.isOk()) << text;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  expectError("{", "not valid JSON");
  expectError("[]", "expected a JSON object");
  expectError(R"({"version": 2})", "version 2 is not supported");
  expectError(R"({"version": 1, "kernel": 3})", "kernel: expected a string");
  expectError(R"({"version": 1, "kernel": "k"})", "missing \"params\"");
  expectError(R"({"version": 1, "kernel": "k", "params": [{"kind": "view",
      "dtype": "f7"}], "rules": []})", "params[0].dtype: unknown dtype \"f7\"");
  expectError(R"({"version": 1, "kernel": "k", "params": [{"kind": "view",
      "dtype": "f16", "mode": "in", "shape": [4], "strides": []}],
      "rules": []})", "shape and strides must have the same");
  expectError(R"({"version": 1, "kernel": "k", "params": [{"kind": "view",
      "dtype": "f16", "mode": "const", "shape": [4], "strides": [1]}],
      "rules": []})",
              "params[0].mode: expected in, frozen, settled, out, inout, add "
              "or ticket");
  expectError(R"({"version": 1, "kernel": "k", "params": [], "rules": [
      {"kind": "no_overlap", "a": 0, "b": 1}]})",
              "rules[0].a: argument 0 is not a parameter");
  expectError(R"({"version": 1, "kernel": "k", "params": [{"kind": "scalar",
      "dtype": "i32"}], "rules": [{"kind": "assume", "message": "m",
      "expr": {"op": "pow", "args": [1, 2]}}]})",
              "rules[0].expr.op: unknown operation \"pow\"");
  expectError(R"({"version": 1, "kernel": "k", "params": [], "rules": [
      {"kind": "assume", "message": "m", "expr": {"op": "add", "args": [1]}}]})",
              "\"add\" takes 2 operands");
  expectError(R"({"version": 1, "kernel": "k", "params": [{"kind": "view",
      "dtype": "f16", "mode": "in", "shape": [4], "strides": [1]}],
      "rules": [{"kind": "aligned_rows", "a": 0, "bytes": 12}]})",
              "rules[0].bytes: must be a power of two, got 12");
  expectError(R"({"version": 1, "kernel": "k", "params": [{"kind": "view",
      "dtype": "f16", "mode": "in", "shape": [4], "strides": [1]}],
      "rules": [{"kind": "aligned_rows", "a": 0}]})",
              "rules[0]: missing \"bytes\"");
  expectError(R"({"version": 1, "kernel": "k", "params": [], "grid": [],
      "rules": []})", "grid: expected 1 to 3 extents");
  std::string deep = "1";
  for (int i = 0; i < 100; ++i)
    deep = R"({"op": "add", "args": [1, )" + deep + "]}";
  expectError(R"({"version": 1, "kernel": "k", "params": [], "rules": [
      {"kind": "assume", "message": "m", "expr": )" + deep + "}]}",
              "nested too deeply");
}

TEST(LaunchContract, JsonFuzzNeverCrashes) {
  // Every prefix and every single-byte corruption of a valid document is
  // either accepted or rejected with a message; none may crash.
  std::string text = makeContract().toJson();
  LaunchContract c;
  for (size_t n = 0; n < text.size(); n += 3)
    (void)LaunchContract::fromJson(text.substr(0, n), c);
  const char replacements[] = {'0', '-', '"', '{', '}', '[', ']', ',', 'x'};
  for (size_t i = 0; i < text.size(); ++i)
    for (char r : replacements) {
      std::string t = text;
      t[i] = r;
      Status s = LaunchContract::fromJson(t, c);
      if (!s.isOk())
        EXPECT_FALSE(s.message().empty());
    }
}

} // namespace
