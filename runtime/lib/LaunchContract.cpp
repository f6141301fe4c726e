//===- LaunchContract.cpp - evaluating launch contracts --------------------===//

#include "tile/runtime/LaunchContract.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>

namespace tile_runtime {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

int64_t sizeInBytes(DType type) {
  switch (type) {
  case DType::I1:
  case DType::I8:
  case DType::F8E4M3:
    return 1;
  case DType::I16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  return 1;
}

static constexpr std::string_view kDTypeNames[] = {
    "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "f8e4m3"};

std::string_view toString(DType type) {
  return kDTypeNames[static_cast<int>(type)];
}

bool parseDType(std::string_view text, DType &type) {
  for (size_t i = 0; i < std::size(kDTypeNames); ++i)
    if (kDTypeNames[i] == text) {
      type = static_cast<DType>(i);
      return true;
    }
  return false;
}

std::string_view toString(AccessMode mode) {
  switch (mode) {
  case AccessMode::In:
    return "in";
  case AccessMode::Out:
    return "out";
  case AccessMode::InOut:
    return "inout";
  case AccessMode::Add:
    return "add";
  case AccessMode::Frozen:
    return "frozen";
  case AccessMode::Ticket:
    return "ticket";
  case AccessMode::Settled:
    return "settled";
  }
  return "in";
}

bool parseAccessMode(std::string_view text, AccessMode &mode) {
  for (AccessMode m :
       {AccessMode::In, AccessMode::Out, AccessMode::InOut, AccessMode::Add,
        AccessMode::Frozen, AccessMode::Ticket, AccessMode::Settled})
    if (toString(m) == text) {
      mode = m;
      return true;
    }
  return false;
}

//===----------------------------------------------------------------------===//
// ContractExpr
//===----------------------------------------------------------------------===//

using Op = ContractExpr::Op;

namespace {
struct OpInfo {
  Op op;
  std::string_view name;
  int arity;
};
} // namespace

static constexpr OpInfo kOps[] = {
    {Op::Const, "const", 0},   {Op::Dim, "dim", 0},
    {Op::Stride, "stride", 0}, {Op::Scalar, "scalar", 0},
    {Op::Add, "add", 2},       {Op::Sub, "sub", 2},
    {Op::Mul, "mul", 2},       {Op::DivS, "divs", 2},
    {Op::DivU, "divu", 2},     {Op::FloorDiv, "floordiv", 2},
    {Op::CeilDiv, "ceildiv", 2}, {Op::RemS, "rems", 2},
    {Op::RemU, "remu", 2},     {Op::MinS, "min", 2},
    {Op::MaxS, "max", 2},      {Op::MinU, "minu", 2},
    {Op::MaxU, "maxu", 2},     {Op::Eq, "eq", 2},
    {Op::Ne, "ne", 2},         {Op::Lt, "lt", 2},
    {Op::Le, "le", 2},         {Op::Gt, "gt", 2},
    {Op::Ge, "ge", 2},         {Op::ULt, "ult", 2},
    {Op::ULe, "ule", 2},       {Op::UGt, "ugt", 2},
    {Op::UGe, "uge", 2},       {Op::And, "and", 2},
    {Op::Or, "or", 2},         {Op::Xor, "xor", 2},
    {Op::Select, "select", 3},
};

static const OpInfo &info(Op op) {
  for (const OpInfo &i : kOps)
    if (i.op == op)
      return i;
  return kOps[0];
}

int ContractExpr::arity(Op op) { return info(op).arity; }
std::string_view ContractExpr::name(Op op) { return info(op).name; }

bool ContractExpr::parseOpName(std::string_view text, Op &op) {
  for (const OpInfo &i : kOps)
    if (i.name == text && i.arity > 0) {
      op = i.op;
      return true;
    }
  return false;
}

ContractExpr ContractExpr::constant(int64_t value) {
  ContractExpr e;
  e.code.push_back({Op::Const, value, 0, 0});
  return e;
}
ContractExpr ContractExpr::dim(int arg, int index) {
  ContractExpr e;
  e.code.push_back({Op::Dim, 0, arg, index});
  return e;
}
ContractExpr ContractExpr::stride(int arg, int index) {
  ContractExpr e;
  e.code.push_back({Op::Stride, 0, arg, index});
  return e;
}
ContractExpr ContractExpr::scalar(int arg) {
  ContractExpr e;
  e.code.push_back({Op::Scalar, 0, arg, 0});
  return e;
}
ContractExpr ContractExpr::apply(Op op, std::vector<ContractExpr> operands) {
  ContractExpr e;
  for (ContractExpr &operand : operands)
    e.code.insert(e.code.end(), operand.code.begin(), operand.code.end());
  e.code.push_back({op, 0, 0, 0});
  return e;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

static bool divFloor(int64_t a, int64_t b, int64_t &q) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
    return false;
  q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return true;
}

Status evaluate(const ContractExpr &expr, const LaunchArg *args,
                size_t numArgs, int64_t &result) {
  // Expressions are small; a fixed stack keeps evaluation allocation-free.
  constexpr size_t kMaxStack = 64;
  int64_t stack[kMaxStack];
  size_t sp = 0;
  for (const ContractExpr::Node &n : expr.code) {
    int arity = ContractExpr::arity(n.op);
    if (sp < static_cast<size_t>(arity))
      return Status::error("malformed contract expression (stack underflow)");
    if (arity == 0 && sp == kMaxStack)
      return Status::error("contract expression too deep");
    auto argAt = [&](int i, bool view) -> const LaunchArg * {
      if (i < 0 || static_cast<size_t>(i) >= numArgs ||
          args[i].isView != view)
        return nullptr;
      return &args[i];
    };
    if (arity == 0) {
      int64_t v = 0;
      switch (n.op) {
      case Op::Const:
        v = n.value;
        break;
      case Op::Dim:
      case Op::Stride: {
        const LaunchArg *a = argAt(n.arg, /*view=*/true);
        if (!a || n.index < 0 || n.index >= a->rank)
          return Status::error("contract refers to a missing view dim");
        v = n.op == Op::Dim ? a->shape[n.index] : a->strides[n.index];
        break;
      }
      case Op::Scalar: {
        const LaunchArg *a = argAt(n.arg, /*view=*/false);
        if (!a)
          return Status::error("contract refers to a missing scalar");
        v = a->scalar;
        break;
      }
      default:
        break;
      }
      stack[sp++] = v;
      continue;
    }
    if (n.op == Op::Select) {
      int64_t f = stack[--sp], t = stack[--sp], c = stack[--sp];
      stack[sp++] = c ? t : f;
      continue;
    }
    int64_t b = stack[--sp], a = stack[--sp], r = 0;
    auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (n.op) {
    case Op::Add:
      if (__builtin_add_overflow(a, b, &r))
        return Status::error("integer overflow in a contract expression");
      break;
    case Op::Sub:
      if (__builtin_sub_overflow(a, b, &r))
        return Status::error("integer overflow in a contract expression");
      break;
    case Op::Mul:
      if (__builtin_mul_overflow(a, b, &r))
        return Status::error("integer overflow in a contract expression");
      break;
    case Op::DivS:
    case Op::RemS:
      if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
        return Status::error("division by zero in a contract expression");
      r = n.op == Op::DivS ? a / b : a % b;
      break;
    case Op::DivU:
    case Op::RemU:
      if (ub == 0)
        return Status::error("division by zero in a contract expression");
      r = static_cast<int64_t>(n.op == Op::DivU ? ua / ub : ua % ub);
      break;
    case Op::FloorDiv:
      if (!divFloor(a, b, r))
        return Status::error("division by zero in a contract expression");
      break;
    case Op::CeilDiv: {
      int64_t q;
      if (!divFloor(a, b, q))
        return Status::error("division by zero in a contract expression");
      r = (q * b == a) ? q : q + 1;
      break;
    }
    case Op::MinS: r = std::min(a, b); break;
    case Op::MaxS: r = std::max(a, b); break;
    case Op::MinU: r = static_cast<int64_t>(std::min(ua, ub)); break;
    case Op::MaxU: r = static_cast<int64_t>(std::max(ua, ub)); break;
    case Op::Eq: r = a == b; break;
    case Op::Ne: r = a != b; break;
    case Op::Lt: r = a < b; break;
    case Op::Le: r = a <= b; break;
    case Op::Gt: r = a > b; break;
    case Op::Ge: r = a >= b; break;
    case Op::ULt: r = ua < ub; break;
    case Op::ULe: r = ua <= ub; break;
    case Op::UGt: r = ua > ub; break;
    case Op::UGe: r = ua >= ub; break;
    case Op::And: r = a & b; break;
    case Op::Or: r = a | b; break;
    case Op::Xor: r = a ^ b; break;
    default:
      return Status::error("malformed contract expression");
    }
    stack[sp++] = r;
  }
  if (sp != 1)
    return Status::error("malformed contract expression");
  result = stack[0];
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static std::string paramName(const LaunchContract &c, int arg) {
  if (arg >= 0 && static_cast<size_t>(arg) < c.params.size() &&
      !c.params[arg].name.empty())
    return c.params[arg].name;
  return "arg" + std::to_string(arg);
}

static std::string_view infix(Op op) {
  switch (op) {
  case Op::Add: return " + ";
  case Op::Sub: return " - ";
  case Op::Mul: return " * ";
  case Op::DivS: return " / ";
  case Op::RemS: return " % ";
  case Op::Eq: return " == ";
  case Op::Ne: return " != ";
  case Op::Lt: return " < ";
  case Op::Le: return " <= ";
  case Op::Gt: return " > ";
  case Op::Ge: return " >= ";
  case Op::And: return " && ";
  case Op::Or: return " || ";
  default: return {};
  }
}

std::string LaunchContract::toString(const ContractExpr &expr) const {
  std::vector<std::string> stack;
  for (const ContractExpr::Node &n : expr.code) {
    switch (n.op) {
    case Op::Const:
      stack.push_back(std::to_string(n.value));
      continue;
    case Op::Dim:
    case Op::Stride:
      stack.push_back(std::string(n.op == Op::Dim ? "dim(" : "stride(") +
                      paramName(*this, n.arg) + ", " +
                      std::to_string(n.index) + ")");
      continue;
    case Op::Scalar:
      stack.push_back(paramName(*this, n.arg));
      continue;
    default:
      break;
    }
    int arity = ContractExpr::arity(n.op);
    if (stack.size() < static_cast<size_t>(arity))
      return "<malformed>";
    std::vector<std::string> ops(stack.end() - arity, stack.end());
    stack.resize(stack.size() - arity);
    std::string_view sym = infix(n.op);
    if (!sym.empty())
      stack.push_back("(" + ops[0] + std::string(sym) + ops[1] + ")");
    else {
      std::string s = std::string(ContractExpr::name(n.op)) + "(";
      for (size_t i = 0; i < ops.size(); ++i)
        s += (i ? ", " : "") + ops[i];
      stack.push_back(s + ")");
    }
  }
  if (stack.size() != 1)
    return "<malformed>";
  std::string s = stack[0];
  // Drop the redundant outermost parentheses.
  if (s.size() > 2 && s.front() == '(' && s.back() == ')') {
    int depth = 0;
    bool wraps = true;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0) {
        wraps = false;
        break;
      }
    }
    if (wraps)
      s = s.substr(1, s.size() - 2);
  }
  return s;
}

std::string LaunchContract::toString(const ContractRule &rule) const {
  switch (rule.kind) {
  case ContractRule::Kind::NoOverlap:
    return "no_overlap(" + paramName(*this, rule.a) + ", " +
           paramName(*this, rule.b) + ")";
  case ContractRule::Kind::NonSelfOverlapping:
    return "non_self_overlapping(" + paramName(*this, rule.a) + ")";
  case ContractRule::Kind::Assume:
    return "assume(" + toString(rule.expr) + ") \"" + rule.message + "\"";
  case ContractRule::Kind::AlignedRows:
    return "aligned_rows(" + paramName(*this, rule.a) + ", " +
           std::to_string(rule.bytes) + ")";
  case ContractRule::Kind::DistinctInRange:
    return "distinct_in_range(" + paramName(*this, rule.a) + ", " +
           toString(rule.expr) + ", " + toString(rule.hi) + ") \"" +
           rule.message + "\"";
  }
  return "<unknown rule>";
}

//===----------------------------------------------------------------------===//
// Launch arguments and checking
//===----------------------------------------------------------------------===//

LaunchArg LaunchArg::view(const void *base, DType dtype,
                          std::initializer_list<int64_t> shape,
                          std::initializer_list<int64_t> strides) {
  LaunchArg a;
  a.isView = true;
  a.address = reinterpret_cast<uint64_t>(base);
  a.dtype = dtype;
  a.rank = static_cast<int32_t>(std::min<size_t>(shape.size(), kMaxViewRank));
  std::copy_n(shape.begin(), a.rank, a.shape.begin());
  std::copy_n(strides.begin(),
              std::min<size_t>(strides.size(), kMaxViewRank),
              a.strides.begin());
  return a;
}

LaunchArg LaunchArg::integer(int64_t value) {
  LaunchArg a;
  a.scalar = value;
  return a;
}

/// The byte range [begin, end) a view touches; empty when a dim is 0.
static bool byteRange(const LaunchArg &a, uint64_t &begin, uint64_t &end) {
  uint64_t last = 0; // offset of the last element, in elements
  for (int d = 0; d < a.rank; ++d) {
    if (a.shape[d] == 0) {
      begin = end = a.address;
      return true;
    }
    uint64_t span;
    if (__builtin_mul_overflow(static_cast<uint64_t>(a.shape[d] - 1),
                               static_cast<uint64_t>(a.strides[d]), &span) ||
        __builtin_add_overflow(last, span, &last))
      return false;
  }
  uint64_t bytes;
  if (__builtin_mul_overflow(last + 1,
                             static_cast<uint64_t>(sizeInBytes(a.dtype)),
                             &bytes) ||
      __builtin_add_overflow(a.address, bytes, &end))
    return false;
  begin = a.address;
  return true;
}

/// Nested strides (sorted by stride, each at least the previous extent):
/// the same sufficient condition the compiler uses for static layouts.
static bool isNonSelfOverlapping(const LaunchArg &a) {
  std::array<int, kMaxViewRank> dims{};
  int n = 0;
  for (int d = 0; d < a.rank; ++d) {
    if (a.shape[d] == 0)
      return true;
    if (a.shape[d] > 1)
      dims[n++] = d;
  }
  std::sort(dims.begin(), dims.begin() + n,
            [&](int x, int y) { return a.strides[x] < a.strides[y]; });
  for (int k = 1; k < n; ++k) {
    int64_t reach;
    if (__builtin_mul_overflow(a.strides[dims[k - 1]], a.shape[dims[k - 1]],
                               &reach) ||
        reach > a.strides[dims[k]])
      return false;
  }
  return true;
}

/// Entry `i` of the 1-D integer view `a` (sign-extended), from host memory.
static int64_t tableEntry(const LaunchArg &a, int64_t i) {
  const char *p = static_cast<const char *>(a.host) +
                  i * a.strides[0] * sizeInBytes(a.dtype);
  switch (a.dtype) {
  case DType::I8:
    return *reinterpret_cast<const int8_t *>(p);
  case DType::I16:
    return *reinterpret_cast<const int16_t *>(p);
  case DType::I32:
    return *reinterpret_cast<const int32_t *>(p);
  default:
    return *reinterpret_cast<const int64_t *>(p);
  }
}

/// distinct_in_range: an empty string when every entry of `a` is in
/// [lo, hi) and no two are equal, else what is wrong.
std::string checkDistinctEntries(const LaunchArg &a, int64_t lo, int64_t hi) {
  int64_t n = a.rank == 1 ? a.shape[0] : 0;
  if (n == 0)
    return "";
  if (!a.host)
    return "its entries are not in host-visible memory (a pinned host "
           "buffer, or any buffer of the CPU device), so they cannot be "
           "checked at launch";
  // A bitmap over the range when it is not much wider than the table, else
  // a sorted copy: O(n) or O(n log n), one allocation.
  uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  bool bitmap = hi > lo && width / 64 <= static_cast<uint64_t>(n);
  std::vector<uint64_t> seen(bitmap ? width / 64 + 1 : 0);
  std::vector<int64_t> sorted;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = tableEntry(a, i);
    if (v < lo || v >= hi)
      return "entry " + std::to_string(i) + " is " + std::to_string(v) +
             ", outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
             ")";
    if (!bitmap) {
      sorted.push_back(v);
      continue;
    }
    uint64_t bit = static_cast<uint64_t>(v) - static_cast<uint64_t>(lo);
    uint64_t mask = uint64_t(1) << (bit % 64);
    if (seen[bit / 64] & mask)
      return "entry " + std::to_string(i) + " (" + std::to_string(v) +
             ") repeats an earlier entry";
    seen[bit / 64] |= mask;
  }
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end())
    return "the value " + std::to_string(*dup) + " appears twice";
  return "";
}

std::string argumentLabel(const LaunchContract &c, int i) {
  return "argument " + paramName(c, i) + " (#" + std::to_string(i) + ")";
}

Status checkLaunch(const LaunchContract &c, const LaunchArg *args,
                   size_t numArgs, std::array<int64_t, 3> &grid,
                   std::vector<CheckedDistinct> *tables) {
  auto fail = [&](const std::string &what) {
    return Status::error("kernel " + c.kernel + ": " + what);
  };
  if (numArgs != c.params.size())
    return fail("expects " + std::to_string(c.params.size()) +
                " arguments, got " + std::to_string(numArgs));
  for (size_t i = 0; i < numArgs; ++i) {
    const ContractParam &p = c.params[i];
    const LaunchArg &a = args[i];
    int idx = static_cast<int>(i);
    if (p.kind == ContractParam::Kind::Scalar) {
      if (a.isView)
        return fail(argumentLabel(c, idx) + " is a scalar, got a view");
      continue;
    }
    if (!a.isView)
      return fail(argumentLabel(c, idx) + " is a view, got a scalar");
    if (a.dtype != p.dtype)
      return fail(argumentLabel(c, idx) + " has dtype " +
                  std::string(toString(a.dtype)) + ", expected " +
                  std::string(toString(p.dtype)));
    if (static_cast<size_t>(a.rank) != p.shape.size())
      return fail(argumentLabel(c, idx) + " has rank " + std::to_string(a.rank) +
                  ", expected " + std::to_string(p.shape.size()));
    for (int d = 0; d < a.rank; ++d) {
      if (a.shape[d] < 0)
        return fail(argumentLabel(c, idx) + " dim " + std::to_string(d) +
                    " is negative");
      if (a.strides[d] <= 0)
        return fail(argumentLabel(c, idx) + " stride " + std::to_string(d) +
                    " must be positive, got " + std::to_string(a.strides[d]));
      if (p.shape[d] >= 0 && a.shape[d] != p.shape[d])
        return fail(argumentLabel(c, idx) + " dim " + std::to_string(d) + " is " +
                    std::to_string(a.shape[d]) + ", the kernel was compiled "
                    "for " + std::to_string(p.shape[d]));
      if (p.strides[d] >= 0 && a.strides[d] != p.strides[d])
        return fail(argumentLabel(c, idx) + " stride " + std::to_string(d) +
                    " is " + std::to_string(a.strides[d]) +
                    ", the kernel was compiled for " +
                    std::to_string(p.strides[d]));
    }
  }
  for (const ContractRule &rule : c.rules) {
    switch (rule.kind) {
    case ContractRule::Kind::NoOverlap: {
      uint64_t b0, e0, b1, e1;
      if (!byteRange(args[rule.a], b0, e0) || !byteRange(args[rule.b], b1, e1))
        return fail("the extent of " + argumentLabel(c, rule.a) + " or " +
                    argumentLabel(c, rule.b) + " overflows the address space");
      if (b0 < e0 && b1 < e1 && b0 < e1 && b1 < e0)
        return fail(argumentLabel(c, rule.a) + " overlaps " + argumentLabel(c, rule.b) +
                    " [" + c.toString(rule) + "]: an exclusively owned "
                    "view may not alias any other argument");
      break;
    }
    case ContractRule::Kind::NonSelfOverlapping:
      if (!isNonSelfOverlapping(args[rule.a]))
        return fail(argumentLabel(c, rule.a) +
                    " overlaps itself: its strides map distinct indices to "
                    "one element [" + c.toString(rule) + "]");
      break;
    case ContractRule::Kind::AlignedRows: {
      const LaunchArg &v = args[rule.a];
      int64_t esize = sizeInBytes(v.dtype);
      for (int d = 0; d + 1 < v.rank; ++d)
        if (v.shape[d] > 1 && (v.strides[d] * esize) % rule.bytes != 0)
          return fail(argumentLabel(c, rule.a) + " has a stride of " +
                      std::to_string(v.strides[d]) + " elements along dim " +
                      std::to_string(d) + ", not a multiple of " +
                      std::to_string(rule.bytes) + " bytes [" +
                      c.toString(rule) + "]: the kernel reads its rows "
                      "with aligned vector loads");
      break;
    }
    case ContractRule::Kind::DistinctInRange: {
      int64_t lo, hi;
      Status s = evaluate(rule.expr, args, numArgs, lo);
      if (s)
        s = evaluate(rule.hi, args, numArgs, hi);
      if (!s)
        return fail(s.message() + " in [" + c.toString(rule) + "]");
      std::string why = checkDistinctEntries(args[rule.a], lo, hi);
      std::string what = rule.message + ": " + argumentLabel(c, rule.a);
      std::string where = " [" + c.toString(rule) + "]" +
                          (rule.location.empty() ? "" : " at " + rule.location);
      if (!why.empty())
        return fail("launch contract violated: " + what + ": " + why + where);
      if (tables)
        tables->push_back({rule.a, lo, hi, "kernel " + c.kernel + ": " + what + where});
      break;
    }
    case ContractRule::Kind::Assume: {
      int64_t v;
      Status s = evaluate(rule.expr, args, numArgs, v);
      if (!s)
        return fail(s.message() + " in [" + c.toString(rule) + "]");
      if (!v)
        return fail("launch contract violated: " + rule.message + " [" +
                    c.toString(rule.expr) + "]" +
                    (rule.location.empty() ? "" : " at " + rule.location));
      break;
    }
    }
  }
  grid = {1, 1, 1};
  static constexpr int64_t kMaxGrid[3] = {(int64_t(1) << 31) - 1, 65535,
                                          65535};
  for (size_t d = 0; d < c.grid.size() && d < 3; ++d) {
    Status s = evaluate(c.grid[d], args, numArgs, grid[d]);
    if (!s)
      return fail(s.message() + " in the grid rule");
    // Zero is allowed: an empty problem launches nothing.
    if (grid[d] < 0 || grid[d] > kMaxGrid[d])
      return fail("grid extent " + std::string(1, "xyz"[d]) + " = " +
                  std::to_string(grid[d]) + " is outside [0, " +
                  std::to_string(kMaxGrid[d]) + "] (" +
                  c.toString(c.grid[d]) + ")");
  }
  return Status::ok();
}

} // namespace tile_runtime
