//===- Emitter.cpp - kernels and statements of .tile to the tile dialect --===//
//
// Kernels, compile-time parameters, scopes, and statements. Mutable
// variables assigned inside `for` and `if` become loop-carried values
// (scf.for iter_args) and results (scf.if), so the emitted IR is SSA.
// Expressions are in EmitExpr.cpp, builtins in EmitBuiltins.cpp (which
// dispatches to the Emit*Builtins.cpp files by kind).
//
//===----------------------------------------------------------------------===//

#include "EmitterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <set>

using namespace mlir;
using namespace tile;
using namespace tile::lang;

EmitterImpl::EmitterImpl(MLIRContext &context, llvm::SourceMgr &sm,
                         const Module &module)
    : ctx(context), sm(sm), module(module), b(&context) {
  for (const auto &fn : module.functions)
    functions[fn->name] = fn.get();
}

Location EmitterImpl::loc(llvm::SMLoc at) {
  if (!at.isValid())
    return UnknownLoc::get(&ctx);
  unsigned buffer = sm.FindBufferContainingLoc(at);
  if (!buffer)
    return UnknownLoc::get(&ctx);
  auto [line, col] = sm.getLineAndColumn(at, buffer);
  return FileLineColLoc::get(
      &ctx, sm.getMemoryBuffer(buffer)->getBufferIdentifier(), line, col);
}

InFlightDiagnostic EmitterImpl::error(llvm::SMLoc at) {
  return mlir::emitError(loc(at));
}

Binding *EmitterImpl::lookup(StringRef name) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    if (auto found = it->find(name.str()); found != it->end())
      return &found->second;
  return nullptr;
}

Type EmitterImpl::scalarType(StringRef name, llvm::SMLoc at) {
  if (auto it = typeParams.find(name.str()); it != typeParams.end())
    return it->second;
  Type t = llvm::StringSwitch<Type>(name)
               .Case("f8e4m3", b.getType<Float8E4M3FNType>())
               .Case("f16", b.getF16Type())
               .Case("bf16", b.getBF16Type())
               .Case("f32", b.getF32Type())
               .Case("f64", b.getF64Type())
               .Case("i1", b.getI1Type())
               .Case("bool", b.getI1Type())
               .Case("i8", b.getI8Type())
               .Case("i16", b.getI16Type())
               .Case("i32", b.getI32Type())
               .Case("i64", b.getI64Type())
               .Case("index", b.getIndexType())
               .Default(nullptr);
  if (!t)
    error(at) << "unknown type '" << name
              << "' (expected f8e4m3, f16, bf16, f32, f64, bool, i8, i16, "
                 "i32, i64, index or a type parameter)";
  return t;
}

Type EmitterImpl::type(const TypeExpr &t) {
  Type elt = scalarType(t.scalar, t.loc);
  if (!elt || !t.isTile)
    return elt;
  auto dims = shape(t.shape, /*allowDynamic=*/false);
  if (!dims)
    return nullptr;
  return RankedTensorType::get(*dims, elt);
}

std::optional<int64_t> EmitterImpl::constant(const Expr &e) {
  switch (e.kind) {
  case Expr::Kind::Int:
    return e.intValue;
  case Expr::Kind::Name:
    if (auto it = consts.find(e.name); it != consts.end())
      return it->second;
    error(e.loc) << "'" << e.name << "' is not a compile-time constant";
    return std::nullopt;
  case Expr::Kind::Unary:
    if (e.name == "-") {
      auto v = constant(*e.operands[0]);
      if (v)
        return foldInt("neg", *v, 0, e.loc);
      return std::nullopt;
    }
    break;
  case Expr::Kind::Binary: {
    auto l = constant(*e.operands[0]);
    if (!l)
      return std::nullopt;
    auto r = constant(*e.operands[1]);
    if (!r)
      return std::nullopt;
    if (e.name == "+" || e.name == "-" || e.name == "*" || e.name == "/" ||
        e.name == "%")
      return foldInt(e.name, *l, *r, e.loc);
    break;
  }
  default:
    break;
  }
  error(e.loc) << "expected a compile-time integer expression";
  return std::nullopt;
}

std::optional<std::vector<int64_t>>
EmitterImpl::shape(const std::vector<ExprPtr> &dims, bool allowDynamic) {
  std::vector<int64_t> out;
  for (const ExprPtr &d : dims) {
    if (d->kind == Expr::Kind::Wild) {
      if (!allowDynamic) {
        error(d->loc) << "a tile shape must be static";
        return std::nullopt;
      }
      out.push_back(ShapedType::kDynamic);
      continue;
    }
    auto v = constant(*d);
    if (!v)
      return std::nullopt;
    if (*v <= 0) {
      error(d->loc) << "dims must be positive, got " << *v;
      return std::nullopt;
    }
    out.push_back(*v);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Whether the block calls `grid(...)` anywhere at its top level.
static bool callsGrid(const Body &block) {
  for (const StmtPtr &s : block.stmts)
    if (s->kind == Stmt::Kind::Expr && s->value->kind == Expr::Kind::Call &&
        s->value->name == "grid")
      return true;
  return false;
}

LogicalResult EmitterImpl::emitKernel(ModuleOp into,
                                      const KernelInstance &instance) {
  inlinedCalls = 0;
  const Function &fn = *instance.kernel;
  consts.clear();
  typeParams.clear();
  scopes.clear();
  sawGrid = false;
  // Compile-time parameters: bindings, else defaults.
  for (const GenericParam &g : fn.generics) {
    auto bound = instance.bindings.find(g.name);
    if (g.isType) {
      std::string spelling = bound != instance.bindings.end() ? bound->second
                                                              : g.defaultType;
      if (spelling.empty())
        return error(g.loc) << "kernel " << fn.name << ": type parameter '"
                            << g.name << "' has no value (give one with -D "
                            << g.name << "=f16 or --specialize)";
      Type t = scalarType(spelling, g.loc);
      if (!t)
        return failure();
      typeParams[g.name] = t;
      continue;
    }
    if (bound != instance.bindings.end()) {
      int64_t v;
      if (StringRef(bound->second).getAsInteger(0, v))
        return error(g.loc) << "kernel " << fn.name << ": '" << g.name
                            << "' needs an integer, got '" << bound->second
                            << "'";
      consts[g.name] = v;
    } else if (g.defaultValue) {
      auto v = constant(*g.defaultValue);
      if (!v)
        return failure();
      consts[g.name] = *v;
    } else {
      return error(g.loc) << "kernel " << fn.name << ": '" << g.name
                          << "' has no value (give one with -D " << g.name
                          << "=N or --specialize)";
    }
  }

  // The signature.
  SmallVector<Type> argTypes;
  for (const Param &p : fn.params) {
    if (p.kind == Param::Kind::Scalar) {
      Type t = type(p.type);
      if (!t)
        return failure();
      argTypes.push_back(t);
      continue;
    }
    Type elt = scalarType(p.dtype, p.loc);
    auto dims = shape(p.shape, /*allowDynamic=*/true);
    if (!elt || !dims)
      return failure();
    // The parser's mode names are the dialect's.
    OwnershipMode mode = *symbolizeOwnershipMode(p.mode);
    if (p.strides.empty()) {
      argTypes.push_back(ViewType::get(mode, *dims, elt));
      continue;
    }
    auto strides = shape(p.strides, /*allowDynamic=*/true);
    if (!strides)
      return failure();
    if (strides->size() != dims->size())
      return error(p.loc) << "'" << p.name << "' has " << dims->size()
                          << " dims but " << strides->size() << " strides";
    // The type's own verifier (positive strides, element type) reports at
    // the parameter.
    auto view = ViewType::getChecked(
        [&] { return error(p.loc); }, &ctx, mode, ArrayRef<int64_t>(*dims),
        elt, ArrayRef<int64_t>(*strides));
    if (!view)
      return failure();
    argTypes.push_back(view);
  }
  b.setInsertionPointToEnd(into.getBody());
  auto kernel = KernelOp::create(b, loc(fn.loc), instance.name,
                                 b.getFunctionType(argTypes, {}));
  currentKernel = kernel;
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  push();
  Value firstOwned;
  for (auto [i, p] : llvm::enumerate(fn.params)) {
    BlockArgument arg = entry.getArgument(i);
    arg.setLoc(loc(p.loc));
    kernel.setArgAttr(i, "tile.name", b.getStringAttr(p.name));
    if (scopes.back().count(p.name))
      return error(p.loc) << "duplicate parameter '" << p.name << "'";
    if (p.kind == Param::Kind::Scalar) {
      bind(p.name, Val::of(arg));
      continue;
    }
    Val view;
    view.kind = Val::Kind::View;
    view.value = arg;
    view.view = arg;
    if (p.by.empty()) {
      bind(p.name, view);
      continue;
    }
    // `by [...]`: the name denotes the owned partition.
    auto tileShape = shape(p.by, /*allowDynamic=*/false);
    if (!tileShape)
      return failure();
    auto viewType = cast<ViewType>(arg.getType());
    if (tileShape->size() != static_cast<size_t>(viewType.getRank()))
      return error(p.loc) << "'by' has " << tileShape->size()
                          << " dims; the tensor has " << viewType.getRank();
    Value part = PartitionOp::create(
        b, loc(p.loc), PartitionType::get(viewType, *tileShape), arg);
    Val pv;
    pv.kind = Val::Kind::Partition;
    pv.value = part;
    pv.view = arg;
    bind(p.name, pv);
    if (!firstOwned)
      firstOwned = part;
  }
  // The default grid: one program per tile of the first owned partition,
  // over the dims that have more than one tile.
  if (!callsGrid(fn.body)) {
    if (!firstOwned)
      return error(fn.loc)
             << "kernel " << fn.name
             << " has no grid: partition an output with 'by [...]' or call "
                "grid(...)";
    auto pt = cast<PartitionType>(firstOwned.getType());
    SmallVector<Value> extents;
    SmallVector<int64_t> grid = pt.getGridShape();
    for (auto [d, n] : llvm::enumerate(grid))
      if (n != 1)
        extents.push_back(NumTilesOp::create(b, loc(fn.loc), firstOwned,
                                             static_cast<int64_t>(d)));
    if (extents.size() > 3)
      return error(fn.loc) << "kernel " << fn.name << ": the owned partition "
                           << "has " << extents.size()
                           << " dims of several tiles; a grid has at most 3 "
                              "(call grid(...) explicitly)";
    if (extents.empty())
      extents.push_back(arith::ConstantIndexOp::create(b, loc(fn.loc), 1));
    GridOp::create(b, loc(fn.loc), extents);
    sawGrid = true;
  }
  if (failed(emitBlock(fn.body)))
    return failure();
  if (fn.body.result)
    return error(fn.body.result->loc)
           << "a kernel returns nothing; end the statement with ';'";
  ReturnOp::create(b, loc(fn.loc));
  pop();
  return success();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

LogicalResult EmitterImpl::emitBlock(const Body &block) {
  for (const StmtPtr &s : block.stmts)
    if (failed(emitStmt(*s)))
      return failure();
  return success();
}

/// Names assigned (`x = ...`) anywhere in `block`.
static void assignedNames(const Body &block, std::set<std::string> &out) {
  for (const StmtPtr &s : block.stmts) {
    if (s->kind == Stmt::Kind::Assign)
      out.insert(s->names[0]);
    assignedNames(s->body, out);
    assignedNames(s->otherwise, out);
  }
}

LogicalResult EmitterImpl::emitStmt(const Stmt &s) {
  switch (s.kind) {
  case Stmt::Kind::Let: {
    Type declared;
    if (s.type) {
      declared = type(*s.type);
      if (!declared)
        return failure();
    }
    auto v = expr(*s.value);
    if (!v)
      return failure();
    if (s.names.size() > 1) {
      if (v->kind != Val::Kind::Tuple || v->elements.size() != s.names.size())
        return error(s.loc) << "the pattern has " << s.names.size()
                            << " names but the value is not a tuple of that "
                               "many";
      for (auto [name, element] : llvm::zip(s.names, v->elements))
        bind(name, element, s.isMutable);
      return success();
    }
    if (declared) {
      Value m = coerce(*v, declared, s.value->loc);
      if (!m)
        return failure();
      if (m.getType() != declared)
        return error(s.value->loc) << "'" << s.names[0] << "' is declared "
                                   << declared << " but the value is "
                                   << m.getType();
      v = Val::of(m);
    } else if (s.isMutable && v->isLiteral()) {
      // A mutable variable needs a type now (it may be loop-carried).
      Value m = materialize(*v, s.value->loc);
      if (!m)
        return failure();
      v = Val::of(m);
    }
    if (s.isMutable && v->kind != Val::Kind::Value)
      return error(s.loc) << "only scalars and tiles can be 'let mut'";
    bind(s.names[0], *v, s.isMutable);
    return success();
  }
  case Stmt::Kind::Assign: {
    Binding *binding = lookup(s.names[0]);
    if (!binding)
      return error(s.loc) << "assignment to undeclared '" << s.names[0] << "'";
    if (!binding->isMutable)
      return error(s.loc) << "'" << s.names[0]
                          << "' is not mutable (declare it with 'let mut')";
    auto v = expr(*s.value);
    if (!v)
      return failure();
    Type want = binding->val.value.getType();
    Value m = coerce(*v, want, s.value->loc);
    if (!m)
      return failure();
    if (m.getType() != want)
      return error(s.value->loc) << "'" << s.names[0] << "' has type " << want
                                 << "; the value has type " << m.getType();
    binding->val = Val::of(m);
    return success();
  }
  case Stmt::Kind::For:
    return emitFor(s);
  case Stmt::Kind::If:
    return emitIf(s);
  case Stmt::Kind::Unchecked:
    return emitUnchecked(s);
  case Stmt::Kind::Join:
    return emitJoin(s);
  case Stmt::Kind::Expr: {
    auto v = expr(*s.value);
    return success(v.has_value());
  }
  case Stmt::Kind::Return:
    return error(s.loc) << "'return' is only allowed as the last statement of "
                           "a helper function";
  }
  return failure();
}

/// The outer mutable variables `body` assigns, in a stable order.
static SmallVector<std::string>
carriedNames(EmitterImpl &E, const Body &body, const Body *otherwise) {
  std::set<std::string> names;
  assignedNames(body, names);
  if (otherwise)
    assignedNames(*otherwise, names);
  SmallVector<std::string> out;
  for (const std::string &n : names)
    if (Binding *binding = E.lookup(n); binding && binding->isMutable)
      out.push_back(n);
  return out;
}

FailureOr<SmallVector<Value>>
EmitterImpl::emitCarriedBody(const Body &ast, ArrayRef<std::string> carried,
                             ValueRange starts, const std::string &inductionVar,
                             Value induction) {
  // The outer scope holds the carried values (and the loop variable); the
  // body scope its own lets.
  push();
  if (induction)
    bind(inductionVar, Val::of(induction));
  for (auto [n, start] : llvm::zip(carried, starts))
    bind(n, Val::of(start), /*isMutable=*/true);
  push();
  if (failed(emitBlock(ast)))
    return failure();
  if (ast.result)
    return error(ast.result->loc) << "expected ';' after the expression";
  pop();
  SmallVector<Value> finals;
  for (const std::string &n : carried)
    finals.push_back(scopes.back()[n].val.value);
  pop();
  return finals;
}

/// The current values of `names`.
static SmallVector<Value> currentValues(EmitterImpl &E,
                                        ArrayRef<std::string> names) {
  SmallVector<Value> out;
  for (const std::string &n : names)
    out.push_back(E.lookup(n)->val.value);
  return out;
}

/// Rebinds each carried variable to the matching result of the region op.
static void takeResults(EmitterImpl &E, ArrayRef<std::string> carried,
                        ValueRange results) {
  for (auto [n, result] : llvm::zip(carried, results))
    E.lookup(n)->val = Val::of(result);
}

/// The integer `v` folds to when every value it is computed from is a
/// constant (the builder leaves `U <= 2` of a constant U unfolded).
static std::optional<int64_t> foldToConstant(Value v, int depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1 || depth > 16)
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value o : def->getOperands()) {
    std::optional<int64_t> c = foldToConstant(o, depth + 1);
    if (!c)
      return std::nullopt;
    operands.push_back(IntegerAttr::get(
        o.getType(), APInt(o.getType().isIndex() ? 64 : o.getType().getIntOrFloatBitWidth(), *c,
                           /*isSigned=*/true, /*implicitTrunc=*/true)));
  }
  SmallVector<OpFoldResult> results;
  if (failed(def->fold(operands, results)) || results.size() != 1)
    return std::nullopt;
  if (auto attr = dyn_cast_if_present<Attribute>(results[0])) {
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return i.getValue().getSExtValue();
    return std::nullopt;
  }
  // Folded to one of its operands (`c && true` is c).
  return foldToConstant(cast<Value>(results[0]), depth + 1);
}

/// `for v in lo..hi unroll`: the body emitted once per iteration with v a
/// constant, the carried variables rebound in sequence, so the backend
/// sees straight-line code instead of leaving the unrolling to ptxas's
/// heuristics.
LogicalResult EmitterImpl::emitUnrolledFor(const Stmt &s, Value lo, Value hi,
                                           Value step,
                                           ArrayRef<std::string> carried) {
  std::optional<int64_t> l = getConstantIntValue(lo), h = getConstantIntValue(hi),
                         st = getConstantIntValue(step);
  if (!l || !h || !st)
    return error(s.loc) << "'unroll' needs compile-time loop bounds and step";
  if (*st <= 0)
    return error(s.loc) << "'unroll' needs a positive step, not " << *st;
  constexpr int64_t kMaxUnroll = 64;
  int64_t trips = *h > *l ? (*h - *l + *st - 1) / *st : 0;
  if (trips > kMaxUnroll)
    return error(s.loc) << "'unroll' of " << trips << " iterations (at most "
                        << kMaxUnroll << ")";
  for (int64_t i = *l; i < *h; i += *st) {
    Value iv = arith::ConstantIndexOp::create(b, loc(s.loc), i);
    auto yields = emitCarriedBody(s.body, carried, currentValues(*this, carried),
                                  s.names[0], iv);
    if (failed(yields))
      return failure();
    takeResults(*this, carried, *yields);
  }
  return success();
}

LogicalResult EmitterImpl::emitFor(const Stmt &s) {
  Value lo = indexValue(*s.lower);
  Value hi = lo ? indexValue(*s.upper) : Value();
  Value step = hi ? (s.step ? indexValue(*s.step)
                            : arith::ConstantIndexOp::create(b, loc(s.loc), 1)
                                  .getResult())
                  : Value();
  if (!step)
    return failure();
  SmallVector<std::string> carried = carriedNames(*this, s.body, nullptr);
  bool unroll = s.unroll;
  if (unroll && s.unrollIf) {
    // `unroll if cond`: a per-instance choice, so cond is compile-time.
    Value cond = value(*s.unrollIf, b.getI1Type());
    if (!cond)
      return failure();
    std::optional<int64_t> c = foldToConstant(cond);
    if (cond.getType() != b.getI1Type() || !c)
      return error(s.unrollIf->loc)
             << "the condition of 'unroll if' must be a compile-time bool";
    unroll = *c != 0;
  }
  if (unroll)
    return emitUnrolledFor(s, lo, hi, step, carried);
  auto loop = scf::ForOp::create(b, loc(s.loc), lo, hi, step,
                                 currentValues(*this, carried));
  OpBuilder::InsertionGuard guard(b);
  Block *body = loop.getBody();
  // The (empty-result) loop already has a yield; the body's replaces it.
  if (!body->empty() && isa<scf::YieldOp>(body->back()))
    body->back().erase();
  b.setInsertionPointToEnd(body);
  auto yields = emitCarriedBody(s.body, carried, loop.getRegionIterArgs(),
                                s.names[0], loop.getInductionVar());
  if (failed(yields))
    return failure();
  scf::YieldOp::create(b, loc(s.loc), *yields);
  takeResults(*this, carried, loop.getResults());
  return success();
}

LogicalResult EmitterImpl::emitIf(const Stmt &s) {
  Value cond = value(*s.value, b.getI1Type());
  if (!cond)
    return failure();
  if (cond.getType() != b.getI1Type())
    return error(s.value->loc) << "the condition of 'if' must be a bool "
                                  "scalar, not "
                               << cond.getType();
  SmallVector<std::string> carried =
      carriedNames(*this, s.body, s.hasElse ? &s.otherwise : nullptr);
  SmallVector<Value> starts = currentValues(*this, carried);
  auto op = scf::IfOp::create(b, loc(s.loc), ValueRange(starts).getTypes(),
                              cond, /*withElse=*/true);
  auto emitBranch = [&](Block *block, const Body &ast) -> LogicalResult {
    OpBuilder::InsertionGuard guard(b);
    if (!block->empty() && isa<scf::YieldOp>(block->back()))
      block->back().erase();
    b.setInsertionPointToEnd(block);
    auto yields = emitCarriedBody(ast, carried, starts);
    if (failed(yields))
      return failure();
    scf::YieldOp::create(b, loc(s.loc), *yields);
    return success();
  };
  if (failed(emitBranch(op.thenBlock(), s.body)) ||
      failed(emitBranch(op.elseBlock(), s.otherwise)))
    return failure();
  takeResults(*this, carried, op.getResults());
  return success();
}

LogicalResult EmitterImpl::emitUnchecked(const Stmt &s) {
  // Outer mutable variables assigned inside leave the region as its results,
  // like the branches of an `if`.
  SmallVector<std::string> carried = carriedNames(*this, s.body, nullptr);
  SmallVector<Value> starts = currentValues(*this, carried);
  auto op = UncheckedOp::create(b, loc(s.loc), ValueRange(starts).getTypes(),
                                s.reason);
  {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&op.getBody());
    ++uncheckedDepth;
    auto yields = emitCarriedBody(s.body, carried, starts);
    --uncheckedDepth;
    if (failed(yields))
      return failure();
    YieldOp::create(b, loc(s.loc), *yields);
  }
  takeResults(*this, carried, op.getResults());
  return success();
}

/// `join(tickets, dim) { ... }`: the body runs in the last program to
/// finish among those with the same program_id(dim) (tile.join).
LogicalResult EmitterImpl::emitJoin(const Stmt &s) {
  if (!isa<KernelOp>(b.getInsertionBlock()->getParentOp()))
    return error(s.loc) << "join(...) is a statement of the kernel body, not "
                           "of a loop, a branch or an unchecked block";
  auto tickets = expr(*s.value);
  if (!tickets)
    return failure();
  auto view = tickets->kind == Val::Kind::View
                  ? dyn_cast<ViewType>(tickets->value.getType())
                  : ViewType();
  if (!view || view.getMode() != OwnershipMode::Ticket)
    return error(s.value->loc) << "join(...) takes a ticket tensor "
                                  "(&ticket Tensor<i32, [?]>) first";
  std::optional<int64_t> dim = constant(*s.lower);
  if (!dim)
    return failure();
  if (*dim < 0 || *dim > 2)
    return error(s.lower->loc) << "join(...) groups programs by a grid dim "
                                  "(0, 1 or 2), got "
                               << *dim;
  SmallVector<std::string> carried = carriedNames(*this, s.body, nullptr);
  if (!carried.empty())
    return error(s.loc) << "the join assigns '" << carried.front()
                        << "', declared outside it; nothing runs after a "
                           "join to read it";
  auto op = JoinOp::create(b, loc(s.loc), tickets->value,
                           static_cast<Dimension>(*dim));
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&op.getBody());
  if (failed(emitCarriedBody(s.body, {}, {})))
    return failure();
  YieldOp::create(b, loc(s.loc), ValueRange{});
  return success();
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

FailureOr<std::vector<KernelInstance>>
tile::lang::selectInstances(const Module &module, const Bindings &defines,
                            ArrayRef<std::string> specializations,
                            std::string &error) {
  std::vector<KernelInstance> out;
  std::map<std::string, const Function *> kernels;
  for (const auto &fn : module.functions)
    if (fn->isKernel) {
      if (!kernels.emplace(fn->name, fn.get()).second) {
        error = "kernel '" + fn->name + "' is defined twice";
        return failure();
      }
    }
  auto declares = [](const Function &fn, const std::string &name) {
    return llvm::any_of(fn.generics,
                        [&](const GenericParam &g) { return g.name == name; });
  };
  for (const auto &fn : module.functions) {
    if (!fn->isKernel)
      continue;
    KernelInstance inst{fn.get(), {}, fn->name};
    for (const auto &[k, v] : defines)
      if (declares(*fn, k))
        inst.bindings[k] = v;
    out.push_back(std::move(inst));
  }
  for (const std::string &spec : specializations) {
    // kernel<N=V,M=W>
    StringRef text(spec);
    size_t open = text.find('<');
    if (open == StringRef::npos || !text.ends_with(">")) {
      error = "--specialize '" + spec + "': expected kernel<NAME=VALUE,...>";
      return failure();
    }
    std::string name = text.take_front(open).trim().str();
    auto it = kernels.find(name);
    if (it == kernels.end()) {
      error = "--specialize '" + spec + "': no kernel named '" + name + "'";
      return failure();
    }
    KernelInstance inst{it->second, {}, name};
    for (const auto &[k, v] : defines)
      if (declares(*it->second, k))
        inst.bindings[k] = v;
    SmallVector<StringRef> pairs;
    text.drop_front(open + 1).drop_back().split(pairs, ',', -1, false);
    for (StringRef pair : pairs) {
      auto [k, v] = pair.split('=');
      k = k.trim();
      v = v.trim();
      if (k.empty() || v.empty() || !declares(*it->second, k.str())) {
        error = "--specialize '" + spec + "': '" + pair.trim().str() +
                "' does not set a compile-time parameter of " + name;
        return failure();
      }
      inst.bindings[k.str()] = v.str();
      inst.name += "__" + k.str() + "_" + v.str();
    }
    for (char &c : inst.name)
      if (!llvm::isAlnum(c) && c != '_')
        c = '_';
    out.push_back(std::move(inst));
  }
  std::set<std::string> names;
  for (const KernelInstance &inst : out)
    if (!names.insert(inst.name).second) {
      error = "two kernels would both be named '" + inst.name + "'";
      return failure();
    }
  return out;
}

OwningOpRef<ModuleOp>
tile::lang::emitKernels(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                        const Module &module,
                        ArrayRef<KernelInstance> instances) {
  context.loadDialect<TileDialect, arith::ArithDialect, math::MathDialect,
                      scf::SCFDialect>();
  EmitterImpl emitter(context, sourceMgr, module);
  OwningOpRef<ModuleOp> out = ModuleOp::create(UnknownLoc::get(&context));
  for (const KernelInstance &inst : instances)
    if (failed(emitter.emitKernel(*out, inst)))
      return nullptr;
  return out;
}
