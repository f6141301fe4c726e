//===- LaunchContractEmission.cpp - kernel -> launch contract --------------===//

#include "tile/Dialect/Tile/Transforms/LaunchContractEmission.h"
#include "tile/Analysis/IntegerSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;
namespace rt = ::tile_runtime;
using rt::ContractExpr;
using EOp = ContractExpr::Op;

static std::optional<rt::DType> toDType(Type type) {
  using rt::DType;
  if (isa<IndexType>(type))
    return DType::I64;
  if (auto i = dyn_cast<IntegerType>(type)) {
    switch (i.getWidth()) {
    case 1: return DType::I1;
    case 8: return DType::I8;
    case 16: return DType::I16;
    case 32: return DType::I32;
    case 64: return DType::I64;
    default: return std::nullopt;
    }
  }
  if (isa<Float8E4M3FNType>(type)) return DType::F8E4M3;
  if (type.isF16()) return DType::F16;
  if (type.isBF16()) return DType::BF16;
  if (type.isF32()) return DType::F32;
  if (type.isF64()) return DType::F64;
  return std::nullopt;
}

static std::string locationString(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
            ":" + std::to_string(file.getColumn()));
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string s = locationString(l); !s.empty())
        return s;
  if (auto name = dyn_cast<NameLoc>(loc))
    return locationString(name.getChildLoc());
  if (auto callsite = dyn_cast<CallSiteLoc>(loc))
    return locationString(callsite.getCallee());
  return "";
}

static std::optional<EOp> binaryOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<EOp>>(op)
      .Case([](arith::AddIOp) { return EOp::Add; })
      .Case([](arith::SubIOp) { return EOp::Sub; })
      .Case([](arith::MulIOp) { return EOp::Mul; })
      .Case([](arith::DivSIOp) { return EOp::DivS; })
      .Case([](arith::DivUIOp) { return EOp::DivU; })
      .Case([](arith::FloorDivSIOp) { return EOp::FloorDiv; })
      .Case([](arith::CeilDivSIOp) { return EOp::CeilDiv; })
      .Case([](arith::RemSIOp) { return EOp::RemS; })
      .Case([](arith::RemUIOp) { return EOp::RemU; })
      .Case([](arith::MinSIOp) { return EOp::MinS; })
      .Case([](arith::MaxSIOp) { return EOp::MaxS; })
      .Case([](arith::MinUIOp) { return EOp::MinU; })
      .Case([](arith::MaxUIOp) { return EOp::MaxU; })
      .Case([](arith::AndIOp) { return EOp::And; })
      .Case([](arith::OrIOp) { return EOp::Or; })
      .Case([](arith::XOrIOp) { return EOp::Xor; })
      .Default([](Operation *) { return std::nullopt; });
}

static EOp comparison(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq: return EOp::Eq;
  case P::ne: return EOp::Ne;
  case P::slt: return EOp::Lt;
  case P::sle: return EOp::Le;
  case P::sgt: return EOp::Gt;
  case P::sge: return EOp::Ge;
  case P::ult: return EOp::ULt;
  case P::ule: return EOp::ULe;
  case P::ugt: return EOp::UGt;
  case P::uge: return EOp::UGe;
  }
  return EOp::Eq;
}

/// Translates a host-computable value (tile::isHostComputable) into a
/// contract expression.
static FailureOr<ContractExpr> toExpr(Value value, Operation *user) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return ContractExpr::constant(constant.getSExtValue());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (!arg.getType().isIntOrIndex())
      return user->emitError("launch contract: scalar argument #")
             << arg.getArgNumber() << " of type " << arg.getType()
             << " cannot appear in an integer rule";
    return ContractExpr::scalar(arg.getArgNumber());
  }
  Operation *op = value.getDefiningOp();
  if (auto dim = dyn_cast<DimOp>(op))
    return ContractExpr::dim(cast<BlockArgument>(dim.getView()).getArgNumber(),
                             dim.getIndex());
  if (auto tiles = dyn_cast<NumTilesOp>(op)) {
    auto partition = tiles.getPartition().getDefiningOp<PartitionOp>();
    int64_t tile =
        tiles.getPartition().getType().getTileShape()[tiles.getIndex()];
    return ContractExpr::apply(
        EOp::CeilDiv,
        {ContractExpr::dim(
             cast<BlockArgument>(partition.getView()).getArgNumber(),
             tiles.getIndex()),
         ContractExpr::constant(tile)});
  }
  // Width changes keep the value (the contract computes in 64 bits); the
  // rules of addWrapRules make that exact.
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op))
    return toExpr(op->getOperand(0), user);
  auto operands = [&]() -> FailureOr<std::vector<ContractExpr>> {
    std::vector<ContractExpr> result;
    for (Value v : op->getOperands()) {
      FailureOr<ContractExpr> e = toExpr(v, user);
      if (failed(e))
        return failure();
      result.push_back(std::move(*e));
    }
    return result;
  };
  std::optional<EOp> kind;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    kind = comparison(cmp.getPredicate());
  else if (isa<arith::SelectOp>(op))
    kind = EOp::Select;
  else if (isa<arith::CeilDivUIOp>(op))
    kind = EOp::CeilDiv; // Equal to the signed form for non-negative values.
  else
    kind = binaryOp(op);
  if (!kind) {
    InFlightDiagnostic diag =
        user->emitError("launch contract: cannot express '")
        << op->getName() << "' in a launch contract";
    diag.attachNote(op->getLoc()) << "used here";
    return diag;
  }
  FailureOr<std::vector<ContractExpr>> args = operands();
  if (failed(args))
    return failure();
  return ContractExpr::apply(*kind, std::move(*args));
}

/// The rules under which the contract's exact 64-bit value of every narrow
/// op in the expression `root` is the value the kernel computes (modulo
/// 2^N): the proof relies on them (tile::launchWrapRule).
static LogicalResult addWrapRules(Value root, Operation *user,
                                  llvm::DenseSet<Operation *> &done,
                                  std::vector<rt::ContractRule> &rules) {
  for (Operation *op : launchExpressionOps(root)) {
    LaunchWrapRule kind = launchWrapRule(op);
    if (kind == LaunchWrapRule::None || !done.insert(op).second)
      continue;
    Type type = op->getResult(0).getType();
    std::string what = "'" + op->getName().getStringRef().str() + "'";
    rt::ContractRule rule;
    rule.kind = rt::ContractRule::Kind::Assume;
    rule.location = locationString(op->getLoc());
    if (kind == LaunchWrapRule::ResultFits) {
      unsigned width = integerWidth(type);
      FailureOr<ContractExpr> e = toExpr(op->getResult(0), user);
      if (failed(e))
        return failure();
      rule.expr = ContractExpr::apply(
          EOp::And,
          {ContractExpr::apply(EOp::Ge,
                               {*e, ContractExpr::constant(signedMin(width))}),
           ContractExpr::apply(EOp::Le, {*e, ContractExpr::constant(
                                                 signedMax(width))})});
      rule.message = what + " does not wrap: its value fits i" +
                     std::to_string(width);
    } else {
      std::vector<ContractExpr> checks;
      for (Value operand : op->getOperands()) {
        FailureOr<ContractExpr> e = toExpr(operand, user);
        if (failed(e))
          return failure();
        checks.push_back(
            ContractExpr::apply(EOp::Ge, {*e, ContractExpr::constant(0)}));
      }
      rule.expr = checks.size() == 1
                      ? checks[0]
                      : ContractExpr::apply(EOp::And, std::move(checks));
      rule.message = "the operands of " + what + " are non-negative";
    }
    rules.push_back(std::move(rule));
  }
  return success();
}

static std::string paramName(KernelOp kernel, unsigned i) {
  if (auto name = kernel.getArgAttrOfType<StringAttr>(i, "tile.name"))
    return name.str();
  return "arg" + std::to_string(i);
}

FailureOr<rt::LaunchContract>
tile::buildLaunchContract(KernelOp kernel) {
  rt::LaunchContract contract;
  contract.kernel = kernel.getSymName().str();
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    rt::ContractParam param;
    param.name = paramName(kernel, i);
    Type element = type;
    if (auto view = dyn_cast<ViewType>(type)) {
      param.kind = rt::ContractParam::Kind::View;
      switch (view.getMode()) {
      case OwnershipMode::In:
        param.mode = rt::AccessMode::In;
        break;
      case OwnershipMode::Frozen:
        param.mode = rt::AccessMode::Frozen;
        break;
      case OwnershipMode::Settled:
        param.mode = rt::AccessMode::Settled;
        break;
      case OwnershipMode::Out:
        param.mode = rt::AccessMode::Out;
        break;
      case OwnershipMode::InOut:
        param.mode = rt::AccessMode::InOut;
        break;
      case OwnershipMode::Add:
        param.mode = rt::AccessMode::Add;
        break;
      case OwnershipMode::Ticket:
        param.mode = rt::AccessMode::Ticket;
        break;
      }
      for (int64_t d : view.getShape())
        param.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
      for (int64_t s : view.getStrides())
        param.strides.push_back(ShapedType::isDynamic(s) ? -1 : s);
      if (view.getRank() > rt::kMaxViewRank)
        return kernel.emitError("launch contract: argument #")
               << i << " has rank " << view.getRank() << "; the runtime "
               << "supports up to " << rt::kMaxViewRank;
      element = view.getElementType();
    } else {
      param.kind = rt::ContractParam::Kind::Scalar;
    }
    std::optional<rt::DType> dtype = toDType(element);
    if (!dtype)
      return kernel.emitError("launch contract: argument #")
             << i << " has unsupported element type " << element;
    param.dtype = *dtype;
    contract.params.push_back(std::move(param));
  }

  // Exclusive views may alias nothing else; self-overlap is checked at
  // launch unless the layout was checked statically by the type.
  auto args = kernel.getArguments();
  for (BlockArgument a : args) {
    auto view = dyn_cast<ViewType>(a.getType());
    if (!view || !view.isExclusive())
      continue;
    for (BlockArgument b : args) {
      auto other = dyn_cast<ViewType>(b.getType());
      if (a == b || !other)
        continue;
      // A pair of exclusive views needs the rule once.
      if (other.isExclusive() && b.getArgNumber() < a.getArgNumber())
        continue;
      rt::ContractRule rule;
      rule.kind = rt::ContractRule::Kind::NoOverlap;
      rule.a = a.getArgNumber();
      rule.b = b.getArgNumber();
      contract.rules.push_back(rule);
    }
    if (!view.isProvablyNonOverlapping()) {
      rt::ContractRule rule;
      rule.kind = rt::ContractRule::Kind::NonSelfOverlapping;
      rule.a = a.getArgNumber();
      contract.rules.push_back(rule);
    }
  }

  bool ok = true;
  llvm::DenseSet<Operation *> wrapChecked;
  kernel.getBody().front().walk([&](Operation *op) {
    if (auto grid = dyn_cast<GridOp>(op)) {
      for (Value extent : grid.getExtents()) {
        if (failed(addWrapRules(extent, grid, wrapChecked, contract.rules))) {
          ok = false;
          return;
        }
        FailureOr<ContractExpr> e = toExpr(extent, grid);
        if (failed(e)) {
          ok = false;
          return;
        }
        contract.grid.push_back(std::move(*e));
      }
    } else if (auto distinct = dyn_cast<AssumeDistinctOp>(op)) {
      rt::ContractRule rule;
      rule.kind = rt::ContractRule::Kind::DistinctInRange;
      rule.a = cast<BlockArgument>(distinct.getTable()).getArgNumber();
      for (auto [bound, expr] : {std::pair{distinct.getLo(), &rule.expr},
                                 std::pair{distinct.getHi(), &rule.hi}}) {
        FailureOr<ContractExpr> e;
        if (succeeded(addWrapRules(bound, distinct, wrapChecked,
                                   contract.rules)))
          e = toExpr(bound, distinct);
        if (failed(e)) {
          ok = false;
          return;
        }
        *expr = std::move(*e);
      }
      rule.message = distinct.getMessage().str();
      rule.location = locationString(distinct.getLoc());
      contract.rules.push_back(std::move(rule));
    } else if (auto assume = dyn_cast<AssumeOp>(op)) {
      if (failed(addWrapRules(assume.getCondition(), assume, wrapChecked,
                              contract.rules))) {
        ok = false;
        return;
      }
      FailureOr<ContractExpr> e = toExpr(assume.getCondition(), assume);
      if (failed(e)) {
        ok = false;
        return;
      }
      rt::ContractRule rule;
      rule.kind = rt::ContractRule::Kind::Assume;
      rule.expr = std::move(*e);
      rule.message = assume.getMessage().str();
      rule.location = locationString(assume.getLoc());
      contract.rules.push_back(std::move(rule));
    }
  });
  if (!ok)
    return failure();
  return contract;
}
