//===- Generate.cpp - random kernels for the referee -----------------------===//
//
// Each kernel claims blocks of one output at an index computed from the
// program id, the grid, a dim and scalar arguments through random affine and
// non-affine arithmetic (products, divisions by constants and by run-time
// values, min/max, selects, round trips through i8/i16/i32, shifts), maybe
// in a loop (constant or grid stride) and under a guard. Grids are right,
// off by one, or unrelated, so both verdicts occur.
//
//===----------------------------------------------------------------------===//

#include "Referee.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tile;

namespace {

class Generator {
public:
  Generator(std::mt19937_64 &rng) : rng(rng) {}

  std::string kernel(unsigned id);

private:
  unsigned pick(unsigned n) { return static_cast<unsigned>(rng() % n); }
  bool chance(unsigned percent) { return pick(100) < percent; }
  std::string fresh() { return "%v" + std::to_string(next++); }
  void emit(const std::string &line) { body += indent + line + "\n"; }
  std::string constant(int64_t c) {
    std::string v = fresh();
    emit(llvm::formatv("{0} = arith.constant {1} : index", v, c));
    return v;
  }
  std::string leaf();
  std::string expr(unsigned depth);

  std::mt19937_64 &rng;
  unsigned next = 0;
  std::string body, indent = "  ";
  SmallVector<std::string> leaves;
};

} // namespace

std::string Generator::leaf() {
  if (chance(25))
    return constant(pick(6));
  return leaves[pick(leaves.size())];
}

std::string Generator::expr(unsigned depth) {
  if (depth == 0 || chance(20))
    return leaf();
  std::string a = expr(depth - 1);
  std::string r = fresh();
  switch (pick(12)) {
  case 0:
    emit(llvm::formatv("{0} = arith.addi {1}, {2} : index", r, a,
                       expr(depth - 1)));
    break;
  case 1:
    emit(llvm::formatv("{0} = arith.subi {1}, {2} : index", r, a,
                       expr(depth - 1)));
    break;
  case 2:
    emit(llvm::formatv("{0} = arith.muli {1}, {2} : index", r, a,
                       chance(60) ? constant(1 + pick(4)) : expr(depth - 1)));
    break;
  case 3:
  case 4: {
    std::string d = chance(60) ? constant(1 + pick(4)) : leaf();
    emit(llvm::formatv("{0} = arith.{1} {2}, {3} : index", r,
                       pick(2) ? "divui" : "remui", a, d));
    break;
  }
  case 5:
    emit(llvm::formatv("{0} = arith.{1} {2}, {3} : index", r,
                       pick(2) ? "minsi" : "maxsi", a, expr(depth - 1)));
    break;
  case 6: {
    std::string c = fresh();
    emit(llvm::formatv("{0} = arith.cmpi slt, {1}, {2} : index", c, a,
                       leaf()));
    emit(llvm::formatv("{0} = arith.select {1}, {2}, {3} : index", r, c, a,
                       expr(depth - 1)));
    break;
  }
  case 7:
  case 8: {
    // Through a narrow type and back: an op that may wrap there.
    const char *types[] = {"i8", "i16", "i32"};
    const char *t = types[pick(3)];
    std::string n = fresh(), k = fresh(), m = fresh();
    emit(llvm::formatv("{0} = arith.index_cast {1} : index to {2}", n, a, t));
    emit(llvm::formatv("{0} = arith.constant {1} : {2}", k,
                       1 + pick(std::string(t) == "i8" ? 70 : 3), t));
    emit(llvm::formatv("{0} = arith.{1} {2}, {3} : {4}", m,
                       pick(2) ? "muli" : "addi", n, k, t));
    emit(llvm::formatv("{0} = arith.{1} {2} : {3} to index", r,
                       pick(2) ? "index_cast" : "index_castui", m, t));
    break;
  }
  case 9:
    emit(llvm::formatv("{0} = arith.{1} {2}, {3} : index", r,
                       pick(2) ? "shli" : "shrui", a, constant(pick(3))));
    break;
  default:
    return a;
  }
  return r;
}

std::string Generator::kernel(unsigned id) {
  int64_t tile = 1 + pick(2);
  std::string part = llvm::formatv(
      "!tile.partition<out, ?x4xf32, tile = [{0}, 4]>", tile);
  emit("%c0 = arith.constant 0 : index");
  emit("%c1 = arith.constant 1 : index");
  emit("%pid = tile.program_id x");
  emit("%py = tile.partition %y : " + part);
  emit("%n = tile.num_tiles %py, 0 : " + part);
  emit("%s = arith.index_cast %sarg : i64 to index");
  if (chance(50))
    emit("%spos = arith.cmpi sge, %s, %c1 : index\n  tile.assume %spos, "
         "\"s is positive\"");
  std::string grid;
  switch (pick(7)) {
  case 0:
  case 1:
    grid = "%n";
    break;
  case 2:
    grid = fresh();
    emit(grid + " = arith.addi %n, %c1 : index");
    break;
  case 3: {
    std::string two = constant(2);
    grid = fresh();
    emit(grid + " = arith.divui %n, " + two + " : index");
    break;
  }
  case 4:
    grid = "%s";
    break;
  case 5:
    grid = fresh();
    emit(grid + " = arith.minsi %n, %s : index");
    break;
  default:
    grid = constant(1 + pick(4));
  }
  emit("tile.grid " + grid);
  emit("%np = tile.num_programs x");
  emit(llvm::formatv("%val = arith.constant dense<0.0> : tensor<{0}x4xf32>",
                     tile));
  leaves = {"%pid", "%pid", "%n", "%s", "%np"};
  if (chance(40)) {
    std::string lb = chance(50) ? "%pid" : "%c0";
    std::string ub = chance(60) ? "%n" : constant(1 + pick(4));
    std::string step = chance(40) ? "%np" : constant(1 + pick(2));
    emit(llvm::formatv("scf.for %iv = {0} to {1} step {2} {{", lb, ub, step));
    indent += "  ";
    leaves.push_back("%iv");
    leaves.push_back("%iv");
  }
  std::string index = expr(1 + pick(3));
  bool guarded = chance(30);
  if (guarded) {
    std::string c = fresh();
    emit(llvm::formatv("{0} = arith.cmpi {1}, {2}, {3} : index", c,
                       chance(50) ? "slt" : "sge", expr(1), leaf()));
    emit("scf.if " + c + " {");
    indent += "  ";
  }
  emit("%b = tile.own %py[" + index + ", %c0] : " + part);
  emit(llvm::formatv("tile.store %val, %b : tensor<{0}x4xf32>, "
                     "!tile.owned<out, {0}x4xf32>",
                     tile));
  while (indent.size() > 2) {
    indent.resize(indent.size() - 2);
    emit("}");
  }
  emit("tile.return");
  return llvm::formatv("tile.kernel @random_{0}(%y: !tile.view<out, ?x4xf32>, "
                       "%sarg: i64) {{\n{1}}\n",
                       id, body);
}

std::string tile::randomKernel(std::mt19937_64 &rng, unsigned id) {
  return Generator(rng).kernel(id);
}
