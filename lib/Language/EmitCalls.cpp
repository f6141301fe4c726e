//===- EmitCalls.cpp - calls in .tile: helpers inlined, else builtins -----===//
//
// A call names a helper function of the program (inlined at each call, in
// a scope of its own: its parameters bound to the arguments, its body
// emitted, its result checked against its declared type) or else a builtin
// (EmitBuiltins.cpp).
//
//===----------------------------------------------------------------------===//

#include "EmitterImpl.h"

using namespace mlir;
using namespace tile;
using namespace tile::lang;

std::optional<Val> EmitterImpl::inlineCall(const Function &fn, const Expr &e) {
  if (fn.isKernel) {
    error(e.loc) << "kernels cannot be called; '" << fn.name
                 << "' is a kernel";
    return std::nullopt;
  }
  if (!fn.generics.empty()) {
    error(fn.loc) << "helper functions take no compile-time parameters; use "
                     "the kernel's";
    return std::nullopt;
  }
  if (e.operands.size() != fn.params.size() || !e.named.empty()) {
    error(e.loc) << "'" << fn.name << "' takes " << fn.params.size()
                 << " arguments, got " << e.operands.size();
    return std::nullopt;
  }
  if (inlineDepth > 32) {
    error(e.loc) << "helper calls nested too deeply (recursion?)";
    return std::nullopt;
  }
  if (++inlinedCalls > kMaxInlinedCalls) {
    error(e.loc) << "helper calls inline into more than " << kMaxInlinedCalls
                 << " copies in one kernel (helpers that call others several times "
                    "fan out exponentially)";
    return std::nullopt;
  }
  std::vector<Val> argVals;
  for (auto [p, a] : llvm::zip(fn.params, e.operands)) {
    auto v = expr(*a);
    if (!v)
      return std::nullopt;
    if (p.kind == Param::Kind::Scalar) {
      Type want = type(p.type);
      if (!want)
        return std::nullopt;
      Value m = coerce(*v, want, a->loc);
      if (!m)
        return std::nullopt;
      if (m.getType() != want) {
        error(a->loc) << "argument '" << p.name << "' of '" << fn.name
                      << "' is " << want << ", got " << m.getType();
        return std::nullopt;
      }
      v = Val::of(m);
    }
    argVals.push_back(*v);
  }
  // A scope of its own: the helper sees its parameters only.
  std::vector<std::map<std::string, Binding>> saved;
  std::swap(saved, scopes);
  ++inlineDepth;
  push();
  for (auto [p, v] : llvm::zip(fn.params, argVals))
    bind(p.name, v);
  std::optional<Val> result = Val();
  bool ok = true;
  const std::vector<StmtPtr> &stmts = fn.body.stmts;
  for (size_t i = 0; ok && i < stmts.size(); ++i) {
    const Stmt &s = *stmts[i];
    if (s.kind == Stmt::Kind::Return) {
      if (i + 1 != stmts.size() || fn.body.result) {
        error(s.loc) << "'return' must be the last statement";
        ok = false;
      } else if (s.value) {
        result = expr(*s.value);
        ok = result.has_value();
      }
      continue;
    }
    ok = succeeded(emitStmt(s));
  }
  if (ok && fn.body.result) {
    result = expr(*fn.body.result);
    ok = result.has_value();
  }
  pop();
  --inlineDepth;
  std::swap(saved, scopes);
  if (!ok)
    return std::nullopt;
  if (fn.result) {
    Type want = type(*fn.result);
    if (!want)
      return std::nullopt;
    Value m = materialize(*result, e.loc, elementOf(want));
    if (!m)
      return std::nullopt;
    if (m.getType() != want) {
      error(e.loc) << "'" << fn.name << "' returns " << want
                   << " but its value is " << m.getType();
      return std::nullopt;
    }
    return Val::of(m);
  }
  return result;
}

std::optional<Val> EmitterImpl::call(const Expr &e) {
  if (auto it = functions.find(e.name); it != functions.end())
    return inlineCall(*it->second, e);
  bool handled = false;
  auto r = builtin(e, handled);
  if (!handled)
    error(e.loc) << "unknown function '" << e.name << "'";
  return r;
}
