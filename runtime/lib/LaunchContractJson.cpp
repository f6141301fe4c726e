//===- LaunchContractJson.cpp - the JSON form of launch contracts ----------===//
//
// Reading never aborts: every field is type-checked, and the first problem is
// returned as a one-line error naming the field.
//
//===----------------------------------------------------------------------===//

#include "tile/runtime/LaunchContract.h"

#include <nlohmann/json.hpp>

namespace tile_runtime {

using json = nlohmann::json;

static json exprToJson(const ContractExpr &expr) {
  std::vector<json> stack;
  for (const ContractExpr::Node &n : expr.code) {
    switch (n.op) {
    case ContractExpr::Op::Const:
      stack.push_back(n.value);
      continue;
    case ContractExpr::Op::Dim:
      stack.push_back({{"dim", {n.arg, n.index}}});
      continue;
    case ContractExpr::Op::Stride:
      stack.push_back({{"stride", {n.arg, n.index}}});
      continue;
    case ContractExpr::Op::Scalar:
      stack.push_back({{"scalar", n.arg}});
      continue;
    default:
      break;
    }
    int arity = ContractExpr::arity(n.op);
    json args = json::array();
    for (int i = arity; i > 0; --i)
      args.push_back(std::move(stack[stack.size() - i]));
    stack.resize(stack.size() - arity);
    stack.push_back({{"op", ContractExpr::name(n.op)}, {"args", args}});
  }
  return stack.empty() ? json() : stack.back();
}

std::string LaunchContract::toJson(int indent) const {
  json params = json::array();
  for (const ContractParam &p : this->params) {
    json j = {{"name", p.name},
              {"kind", p.kind == ContractParam::Kind::View ? "view" : "scalar"},
              {"dtype", tile_runtime::toString(p.dtype)}};
    if (p.kind == ContractParam::Kind::View) {
      j["mode"] = tile_runtime::toString(p.mode);
      auto list = [](const std::vector<int64_t> &v) {
        json a = json::array();
        for (int64_t x : v)
          a.push_back(x < 0 ? json() : json(x));
        return a;
      };
      j["shape"] = list(p.shape);
      j["strides"] = list(p.strides);
    }
    params.push_back(std::move(j));
  }
  json rules = json::array();
  for (const ContractRule &r : this->rules) {
    switch (r.kind) {
    case ContractRule::Kind::NoOverlap:
      rules.push_back({{"kind", "no_overlap"}, {"a", r.a}, {"b", r.b}});
      break;
    case ContractRule::Kind::NonSelfOverlapping:
      rules.push_back({{"kind", "non_self_overlapping"}, {"a", r.a}});
      break;
    case ContractRule::Kind::AlignedRows:
      rules.push_back({{"kind", "aligned_rows"}, {"a", r.a}, {"bytes", r.bytes}});
      break;
    case ContractRule::Kind::DistinctInRange:
      rules.push_back({{"kind", "distinct_in_range"},
                       {"a", r.a},
                       {"lo", exprToJson(r.expr)},
                       {"hi", exprToJson(r.hi)},
                       {"message", r.message},
                       {"location", r.location}});
      break;
    case ContractRule::Kind::Assume:
      rules.push_back({{"kind", "assume"},
                       {"expr", exprToJson(r.expr)},
                       {"message", r.message},
                       {"location", r.location}});
      break;
    }
  }
  json root = {{"version", kLaunchContractVersion},
               {"kernel", kernel},
               {"params", params},
               {"rules", rules}};
  if (!grid.empty()) {
    json g = json::array();
    for (const ContractExpr &e : grid)
      g.push_back(exprToJson(e));
    root["grid"] = g;
  }
  return root.dump(indent, ' ', false, json::error_handler_t::replace);
}

namespace {
/// Reads a parsed document field by field; the first error wins.
class Reader {
public:
  Status status = Status::ok();

  bool fail(const std::string &where, const std::string &what) {
    if (status)
      status = Status::error("launch contract: " + where + ": " + what);
    return false;
  }

  bool getInt(const json &j, const std::string &where, int64_t &out) {
    if (!j.is_number_integer())
      return fail(where, "expected an integer");
    out = j.get<int64_t>();
    return true;
  }

  bool getArg(const json &j, const std::string &where, int numParams,
              int &out) {
    int64_t v;
    if (!getInt(j, where, v))
      return false;
    if (v < 0 || v >= numParams)
      return fail(where, "argument " + std::to_string(v) +
                             " is not a parameter (there are " +
                             std::to_string(numParams) + ")");
    out = static_cast<int>(v);
    return true;
  }

  bool getString(const json &j, const char *key, const std::string &where,
                 std::string &out, bool required = true) {
    auto it = j.find(key);
    if (it == j.end()) {
      if (required)
        return fail(where, std::string("missing \"") + key + "\"");
      return true;
    }
    if (!it->is_string())
      return fail(where + "." + key, "expected a string");
    out = it->get<std::string>();
    return true;
  }

  bool getExpr(const json &j, const std::string &where, int numParams,
               ContractExpr &out, int depth = 0) {
    if (depth > 32)
      return fail(where, "expression nested too deeply");
    if (j.is_number_integer()) {
      out = ContractExpr::constant(j.get<int64_t>());
      return true;
    }
    if (!j.is_object())
      return fail(where, "expected an integer or an expression object");
    for (const char *leaf : {"dim", "stride"}) {
      auto it = j.find(leaf);
      if (it == j.end())
        continue;
      if (!it->is_array() || it->size() != 2)
        return fail(where + "." + leaf, "expected [argument, index]");
      int arg;
      int64_t index;
      if (!getArg((*it)[0], where + "." + leaf + "[0]", numParams, arg) ||
          !getInt((*it)[1], where + "." + leaf + "[1]", index))
        return false;
      if (index < 0 || index >= kMaxViewRank)
        return fail(where + "." + leaf, "index out of range");
      out = std::string(leaf) == "dim"
                ? ContractExpr::dim(arg, static_cast<int>(index))
                : ContractExpr::stride(arg, static_cast<int>(index));
      return true;
    }
    if (auto it = j.find("scalar"); it != j.end()) {
      int arg;
      if (!getArg(*it, where + ".scalar", numParams, arg))
        return false;
      out = ContractExpr::scalar(arg);
      return true;
    }
    std::string name;
    if (!getString(j, "op", where, name))
      return false;
    ContractExpr::Op op;
    if (!ContractExpr::parseOpName(name, op))
      return fail(where + ".op", "unknown operation \"" + name + "\"");
    auto args = j.find("args");
    if (args == j.end() || !args->is_array())
      return fail(where, "missing \"args\" array");
    int arity = ContractExpr::arity(op);
    if (static_cast<int>(args->size()) != arity)
      return fail(where + ".args", "\"" + name + "\" takes " +
                                       std::to_string(arity) + " operands");
    std::vector<ContractExpr> operands(arity);
    for (int i = 0; i < arity; ++i)
      if (!getExpr((*args)[i], where + ".args[" + std::to_string(i) + "]",
                   numParams, operands[i], depth + 1))
        return false;
    out = ContractExpr::apply(op, std::move(operands));
    return true;
  }

  bool getDimList(const json &j, const char *key, const std::string &where,
                  std::vector<int64_t> &out) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_array())
      return fail(where, std::string("missing \"") + key + "\" array");
    if (it->size() > static_cast<size_t>(kMaxViewRank))
      return fail(where + "." + key, "more than " +
                                         std::to_string(kMaxViewRank) +
                                         " dims");
    for (const json &v : *it) {
      if (v.is_null()) {
        out.push_back(-1);
        continue;
      }
      int64_t x;
      if (!getInt(v, where + "." + key, x))
        return false;
      if (x < 0)
        return fail(where + "." + key, "negative value");
      out.push_back(x);
    }
    return true;
  }
};
} // namespace

Status LaunchContract::fromJson(std::string_view text, LaunchContract &out) {
  json root = json::parse(text.begin(), text.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded())
    return Status::error("launch contract: not valid JSON");
  if (!root.is_object())
    return Status::error("launch contract: expected a JSON object");
  Reader r;
  LaunchContract c;
  int64_t version;
  auto v = root.find("version");
  if (v == root.end())
    return Status::error("launch contract: missing \"version\"");
  if (!r.getInt(*v, "version", version))
    return r.status;
  if (version != kLaunchContractVersion)
    return Status::error("launch contract: version " +
                         std::to_string(version) + " is not supported (this "
                         "runtime reads version " +
                         std::to_string(kLaunchContractVersion) + ")");
  if (!r.getString(root, "kernel", "root", c.kernel))
    return r.status;
  auto params = root.find("params");
  if (params == root.end() || !params->is_array())
    return Status::error("launch contract: missing \"params\" array");
  for (size_t i = 0; i < params->size(); ++i) {
    const json &pj = (*params)[i];
    std::string where = "params[" + std::to_string(i) + "]";
    if (!pj.is_object())
      return Status::error("launch contract: " + where + ": expected object");
    ContractParam p;
    std::string kind, dtype, mode;
    if (!r.getString(pj, "name", where, p.name, /*required=*/false) ||
        !r.getString(pj, "kind", where, kind) ||
        !r.getString(pj, "dtype", where, dtype))
      return r.status;
    if (!parseDType(dtype, p.dtype))
      return Status::error("launch contract: " + where +
                           ".dtype: unknown dtype \"" + dtype + "\"");
    if (kind == "scalar") {
      p.kind = ContractParam::Kind::Scalar;
    } else if (kind == "view") {
      p.kind = ContractParam::Kind::View;
      if (!r.getString(pj, "mode", where, mode))
        return r.status;
      if (!parseAccessMode(mode, p.mode))
        return Status::error("launch contract: " + where +
                             ".mode: expected in, frozen, settled, out, "
                             "inout, add or ticket");
      if (!r.getDimList(pj, "shape", where, p.shape) ||
          !r.getDimList(pj, "strides", where, p.strides))
        return r.status;
      if (p.shape.size() != p.strides.size() || p.shape.empty())
        return Status::error("launch contract: " + where +
                             ": shape and strides must have the same, "
                             "non-zero length");
    } else {
      return Status::error("launch contract: " + where +
                           ".kind: expected \"view\" or \"scalar\"");
    }
    c.params.push_back(std::move(p));
  }
  int numParams = static_cast<int>(c.params.size());
  if (auto g = root.find("grid"); g != root.end()) {
    if (!g->is_array() || g->empty() || g->size() > 3)
      return Status::error("launch contract: grid: expected 1 to 3 extents");
    for (size_t i = 0; i < g->size(); ++i) {
      ContractExpr e;
      if (!r.getExpr((*g)[i], "grid[" + std::to_string(i) + "]", numParams,
                     e))
        return r.status;
      c.grid.push_back(std::move(e));
    }
  }
  auto rules = root.find("rules");
  if (rules == root.end() || !rules->is_array())
    return Status::error("launch contract: missing \"rules\" array");
  for (size_t i = 0; i < rules->size(); ++i) {
    const json &rj = (*rules)[i];
    std::string where = "rules[" + std::to_string(i) + "]";
    if (!rj.is_object())
      return Status::error("launch contract: " + where + ": expected object");
    ContractRule rule;
    std::string kind;
    if (!r.getString(rj, "kind", where, kind))
      return r.status;
    auto viewArg = [&](const char *key, int &out) {
      auto it = rj.find(key);
      if (it == rj.end())
        return r.fail(where, std::string("missing \"") + key + "\"");
      if (!r.getArg(*it, where + "." + key, numParams, out))
        return false;
      if (c.params[out].kind != ContractParam::Kind::View)
        return r.fail(where + "." + key, "argument is not a view");
      return true;
    };
    if (kind == "no_overlap") {
      rule.kind = ContractRule::Kind::NoOverlap;
      if (!viewArg("a", rule.a) || !viewArg("b", rule.b))
        return r.status;
    } else if (kind == "non_self_overlapping") {
      rule.kind = ContractRule::Kind::NonSelfOverlapping;
      if (!viewArg("a", rule.a))
        return r.status;
    } else if (kind == "aligned_rows") {
      rule.kind = ContractRule::Kind::AlignedRows;
      auto bytes = rj.find("bytes");
      if (!viewArg("a", rule.a))
        return r.status;
      if (bytes == rj.end())
        return Status::error("launch contract: " + where +
                             ": missing \"bytes\"");
      if (!r.getInt(*bytes, where + ".bytes", rule.bytes))
        return r.status;
      if (rule.bytes < 1 || (rule.bytes & (rule.bytes - 1)) != 0)
        return Status::error("launch contract: " + where +
                             ".bytes: must be a power of two, got " +
                             std::to_string(rule.bytes));
    } else if (kind == "distinct_in_range") {
      rule.kind = ContractRule::Kind::DistinctInRange;
      auto lo = rj.find("lo"), hi = rj.find("hi");
      if (!viewArg("a", rule.a))
        return r.status;
      const ContractParam &t = c.params[rule.a];
      if (t.shape.size() != 1 || t.dtype == DType::I1 ||
          sizeInBytes(t.dtype) > 8 || t.dtype >= DType::F16)
        return Status::error("launch contract: " + where +
                             ".a: needs a 1-D view of i8, i16, i32 or i64");
      if (lo == rj.end() || hi == rj.end())
        return Status::error("launch contract: " + where +
                             ": missing \"lo\" or \"hi\"");
      if (!r.getExpr(*lo, where + ".lo", numParams, rule.expr) ||
          !r.getExpr(*hi, where + ".hi", numParams, rule.hi) ||
          !r.getString(rj, "message", where, rule.message) ||
          !r.getString(rj, "location", where, rule.location,
                       /*required=*/false))
        return r.status;
    } else if (kind == "assume") {
      rule.kind = ContractRule::Kind::Assume;
      auto e = rj.find("expr");
      if (e == rj.end())
        return Status::error("launch contract: " + where +
                             ": missing \"expr\"");
      if (!r.getExpr(*e, where + ".expr", numParams, rule.expr) ||
          !r.getString(rj, "message", where, rule.message) ||
          !r.getString(rj, "location", where, rule.location,
                       /*required=*/false))
        return r.status;
    } else {
      return Status::error("launch contract: " + where +
                           ".kind: unknown rule \"" + kind + "\"");
    }
    c.rules.push_back(std::move(rule));
  }
  out = std::move(c);
  return Status::ok();
}

} // namespace tile_runtime
