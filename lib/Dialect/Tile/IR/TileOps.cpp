//===- TileOps.cpp - tile dialect: kernels, views, memory access -----------===//
//
// Verifiers, parsers and folders of the structural and memory ops. Shape and
// compute ops are in TileOpsShape.cpp.
//
//===----------------------------------------------------------------------===//

#include "TileOpsCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace tile;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

std::string tile::detail::formatList(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(values, os, [&](int64_t v) {
    if (ShapedType::isDynamic(v))
      os << "?";
    else
      os << v;
  });
  os << "]";
  return s;
}

LogicalResult tile::detail::verifyTileOperandsAndResults(Operation *op) {
  auto check = [&](Type type) {
    if (!isa<TensorType>(type))
      return success();
    return verifyTileType([&] { return op->emitOpError(); }, type);
  };
  for (Type t : op->getOperandTypes())
    if (failed(check(t)))
      return failure();
  for (Type t : op->getResultTypes())
    if (failed(check(t)))
      return failure();
  return success();
}

LogicalResult mlir::OpTrait::tile::impl::verifyInKernel(Operation *op) {
  if (!op->getParentOfType<::tile::KernelOp>())
    return op->emitOpError("must be nested in a tile.kernel");
  return success();
}

bool mlir::OpTrait::tile::impl::isInUncheckedRegion(Operation *op) {
  return op->getParentOfType<::tile::UncheckedOp>() != nullptr;
}

/// Whether `op` runs inside the region of a tile.join.
static bool isInJoinRegion(Operation *op) {
  return op->getParentOfType<::tile::JoinOp>() != nullptr;
}

unsigned tile::gridSyncsBefore(Operation *op) {
  // The body the barriers are statements of: the tile.kernel's, or, once
  // the GPU lowering moved it, the function's that holds it.
  auto fn = op->getParentOfType<FunctionOpInterface>();
  if (!fn || fn.getFunctionBody().empty())
    return 0;
  Block &body = fn.getFunctionBody().front();
  Operation *top = body.findAncestorOpInBlock(*op);
  unsigned syncs = 0;
  for (Operation *at = top ? top->getPrevNode() : nullptr; at; at = at->getPrevNode())
    syncs += isa<::tile::GridSyncOp>(at);
  return syncs;
}

using mlir::OpTrait::tile::impl::isInUncheckedRegion;
using tile::detail::formatList;

/// Checks the tile indices addressing `partition`: one per dim, and constant
/// ones inside the static extent of its index space.
static LogicalResult verifyTileIndices(Operation *op, PartitionType partition,
                                       ValueRange indices,
                                       unsigned firstDim = 0) {
  unsigned expected = partition.getRank() - firstDim;
  if (indices.size() != expected)
    return op->emitOpError("expects ")
           << expected << " tile indices (one per partition dim"
           << (firstDim ? " after the row dim" : "") << "), got "
           << indices.size();
  SmallVector<int64_t> grid = partition.getGridShape();
  for (auto [k, index] : llvm::enumerate(indices)) {
    unsigned dim = firstDim + k;
    APInt value;
    if (!matchPattern(index, m_ConstantInt(&value)))
      continue;
    int64_t v = value.getSExtValue();
    if (v < 0 || (!ShapedType::isDynamic(grid[dim]) && v >= grid[dim]))
      return op->emitOpError("tile index ")
             << v << " along dim " << dim
             << " is outside the partition's index space [0, "
             << (ShapedType::isDynamic(grid[dim])
                     ? std::string("?")
                     : std::to_string(grid[dim]))
             << ")";
  }
  return success();
}

/// Checks an access of an owned block: the whole block (no indices) or the
/// aligned sub-tile of shape `tileType` at `indices`.
static LogicalResult verifyBlockAccess(Operation *op, OwnedType block,
                                       RankedTensorType tileType,
                                       ValueRange indices, StringRef role) {
  if (tileType.getElementType() != block.getElementType())
    return op->emitOpError() << role << " element type "
                             << tileType.getElementType()
                             << " does not match the block's "
                             << block.getElementType();
  if (indices.empty()) {
    if (tileType.getShape() != block.getShape())
      return op->emitOpError()
             << role << " " << tileType << " does not match the owned block "
             << block.getBlockType()
             << "; give sub-tile indices to access part of the block";
    return success();
  }
  if (indices.size() != static_cast<size_t>(block.getRank()) ||
      tileType.getRank() != block.getRank())
    return op->emitOpError("expects ")
           << block.getRank() << " sub-tile indices and a " << role
           << " of rank " << block.getRank() << ", got " << indices.size()
           << " indices and rank " << tileType.getRank();
  for (auto [d, pair] : llvm::enumerate(
           llvm::zip_equal(block.getShape(), tileType.getShape()))) {
    auto [b, t] = pair;
    if (t <= 0)
      return op->emitOpError("sub-tile ")
             << tileType << " has a dim of " << t << " along dim " << d
             << "; sub-tile dims must be positive";
    if (b % t != 0)
      return op->emitOpError("sub-tile ")
             << tileType << " does not divide the owned block "
             << block.getBlockType() << " along dim " << d;
  }
  for (auto [d, index] : llvm::enumerate(indices)) {
    APInt value;
    if (!matchPattern(index, m_ConstantInt(&value)))
      continue;
    int64_t v = value.getSExtValue();
    int64_t count = block.getShape()[d] / tileType.getShape()[d];
    if (v < 0 || v >= count)
      return op->emitOpError("sub-tile index ")
             << v << " along dim " << d << " is outside the block's [0, "
             << count << ")";
  }
  return success();
}

static LogicalResult verifyPadding(Operation *op, std::optional<TypedAttr> pad,
                                   Type elementType) {
  if (pad && pad->getType() != elementType)
    return op->emitOpError("padding value type ")
           << pad->getType() << " does not match the element type "
           << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name),
                     TypeAttr::get(type));
  Region *body = state.addRegion();
  Block *entry = new Block();
  body->push_back(entry);
  for (Type t : type.getInputs())
    entry->addArgument(t, state.location);
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

static bool isScalarType(Type type) {
  return type.isSignlessInteger() || isa<IndexType, FloatType>(type);
}

LogicalResult KernelOp::verify() {
  if (getBody().empty())
    return emitOpError("must have a body");
  if (!getFunctionType().getResults().empty())
    return emitOpError("returns no values: results leave a kernel only "
                       "through stores into owned blocks");
  for (auto [i, type] : llvm::enumerate(getFunctionType().getInputs()))
    if (!isa<ViewType>(type) && !isScalarType(type))
      return emitOpError("argument #")
             << i << " has type " << type
             << "; kernel arguments are views (!tile.view) or scalars";
  return success();
}

/// The checks of the safe subset that hold for every value in a kernel body.
static LogicalResult verifyKernelValue(Operation *op, Value value,
                                       bool unchecked) {
  Type type = value.getType();
  auto emit = [&]() -> InFlightDiagnostic {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return op->emitOpError() << "region argument #" << arg.getArgNumber()
                               << ": ";
    return op->emitOpError();
  };
  if (isa<TensorType>(type))
    return verifyTileType(emit, type);
  if (isa<ViewType>(type))
    return emit() << "creates a view; views are kernel arguments only";
  if (isa<PartitionType, OwnedType>(type)) {
    // The ownership proof follows partitions and owned blocks back to the op
    // that made them, so they may not flow through control flow.
    auto result = dyn_cast<OpResult>(value);
    bool madeHere = result && isa<PartitionOp, OwnOp>(result.getOwner());
    if (!madeHere && !unchecked)
      return emit() << "yields a " << type
                    << " through control flow; create partitions and owned "
                       "blocks with tile.partition and tile.own where they "
                       "are used";
    return success();
  }
  if (unchecked)
    return success();
  if (isa<BaseMemRefType>(type))
    return emit() << "produces memref " << type
                  << "; raw memory is reachable only inside tile.unchecked";
  StringRef ns = type.getDialect().getNamespace();
  if (ns == "llvm" || ns == "ptr")
    return emit() << "produces pointer-like " << type
                  << "; raw memory is reachable only inside tile.unchecked";
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  WalkResult walk = getBody().walk([&](Operation *op) {
    bool unchecked = isInUncheckedRegion(op);
    for (Value result : op->getResults())
      if (failed(verifyKernelValue(op, result, unchecked)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          if (failed(verifyKernelValue(op, arg,
                                       unchecked || isa<UncheckedOp>(op))))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Program ids and grid
//===----------------------------------------------------------------------===//

/// CUDA's launch grid limits.
static int64_t maxGridExtent(Dimension dim) {
  return dim == Dimension::X ? (int64_t(1) << 31) - 1 : 65535;
}

static ConstantIntRanges indexRange(int64_t lo, int64_t hi) {
  unsigned width = IndexType::kInternalStorageBitWidth;
  return ConstantIntRanges::fromSigned(APInt(width, lo, /*isSigned=*/true),
                                       APInt(width, hi, /*isSigned=*/true));
}

void ProgramIdOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                    SetIntRangeFn setResultRange) {
  setResultRange(getResult(), indexRange(0, maxGridExtent(getDim()) - 1));
}

void NumProgramsOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                      SetIntRangeFn setResultRange) {
  setResultRange(getResult(), indexRange(1, maxGridExtent(getDim())));
}

//===----------------------------------------------------------------------===//
// UncheckedOp
//===----------------------------------------------------------------------===//

LogicalResult UncheckedOp::verify() {
  if (getReason().trim().empty())
    return emitOpError("needs a non-empty reason");
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().size()
           << " values whose types do not match its results";
  return success();
}

//===----------------------------------------------------------------------===//
// JoinOp
//===----------------------------------------------------------------------===//

LogicalResult JoinOp::verify() {
  auto arg = dyn_cast<BlockArgument>(getTickets());
  auto view = cast<ViewType>(getTickets().getType());
  if (!arg || !isa<KernelOp>(arg.getOwner()->getParentOp()))
    return emitOpError("takes its tickets from a view argument of the kernel");
  if (view.getMode() != OwnershipMode::Ticket)
    return emitOpError("needs a 'ticket' view for its counters; this one is '")
           << stringifyOwnershipMode(view.getMode()) << "'";
  Operation *next = getOperation()->getNextNode();
  if (!next || !isa<ReturnOp>(next))
    return emitOpError("must be the last op of the kernel body (before "
                       "tile.return): a store after the tickets could race "
                       "with the group's last program reading it");
  // (Being last also makes it the only one.)
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (!yield.getValues().empty())
    return emitOpError("region yields no values");
  WalkResult nested = getBody().walk([&](Operation *op) {
    if (isa<GridOp, AssumeOp, AssumeDistinctOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return emitOpError("region holds tile.grid or tile.assume; they belong "
                       "in the kernel body");
  return success();
}

//===----------------------------------------------------------------------===//
// GridSyncOp
//===----------------------------------------------------------------------===//

namespace {
/// What computedFrom does with a defining op: refuse it, accept it as is,
/// or accept it and walk its operands.
enum class Source { Refused, Leaf, Walk };
} // namespace

/// Whether `value` is computed only from kernel arguments `argOk` accepts
/// (no other block arguments: loop induction variables) through ops
/// `opOk` accepts; on failure `culprit` (if given) is the first value that
/// is not.
static bool computedFrom(Value value, function_ref<bool(BlockArgument)> argOk,
                         function_ref<Source(Operation *)> opOk, Value *culprit) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Source source = Source::Refused;
    if (auto arg = dyn_cast<BlockArgument>(v))
      source = isa<KernelOp>(arg.getOwner()->getParentOp()) && argOk(arg) ? Source::Leaf
                                                                          : Source::Refused;
    else
      source = opOk(v.getDefiningOp());
    if (source == Source::Refused) {
      if (culprit)
        *culprit = v;
      return false;
    }
    if (source == Source::Walk)
      llvm::append_range(worklist, v.getDefiningOp()->getOperands());
  }
  return true;
}

/// An arith op without regions or memory effects.
static bool isPureArith(Operation *op) {
  return op->getDialect() && op->getDialect()->getNamespace() == "arith" &&
         op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

bool tile::isRecomputableAcrossGridSync(Value value, Value *culprit) {
  // The kernel's own arguments (views and scalars) are the same in every
  // phase; a loop's induction variable cannot reach past its loop.
  return computedFrom(
      value, [](BlockArgument) { return true; },
      [](Operation *op) {
        return isa<ProgramIdOp, DimOp, NumTilesOp, PartitionOp, OwnOp>(op) || isPureArith(op)
                   ? Source::Walk
                   : Source::Refused;
      },
      culprit);
}

LogicalResult GridSyncOp::verify() {
  auto arg = dyn_cast<BlockArgument>(getTickets());
  auto view = cast<ViewType>(getTickets().getType());
  if (!arg || !isa<KernelOp>(arg.getOwner()->getParentOp()))
    return emitOpError("takes its counter from a view argument of the kernel");
  if (view.getMode() != OwnershipMode::Ticket || view.getRank() != 1 ||
      !view.getElementType().isSignlessInteger(32))
    return emitOpError("needs a 'ticket' view of rank 1 and i32 for its counter");
  // Every value defined before this barrier and used after it.
  Block *body = getOperation()->getBlock();
  for (Operation &before : *body) {
    if (&before == getOperation())
      break;
    for (Value result : before.getResults())
      for (OpOperand &use : result.getUses()) {
        Operation *user = body->findAncestorOpInBlock(*use.getOwner());
        if (!user || !getOperation()->isBeforeInBlock(user))
          continue;
        Value culprit;
        if (!isRecomputableAcrossGridSync(result, &culprit)) {
          InFlightDiagnostic diag =
              emitOpError("a value computed before the barrier is used after it, and it is "
                          "not recomputable from program ids, sizes, scalar arguments and "
                          "constants; pass it through memory");
          diag.attachNote(use.getOwner()->getLoc()) << "used here";
          if (Operation *def = culprit.getDefiningOp())
            diag.attachNote(def->getLoc()) << "computed here";
          return diag;
        }
      }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Host-computable values: GridOp, AssumeOp
//===----------------------------------------------------------------------===//

bool tile::isHostComputable(Value value, Value *culprit) {
  // Scalar arguments of the kernel itself; not loop induction variables.
  return computedFrom(
      value, [](BlockArgument arg) { return isScalarType(arg.getType()); },
      [](Operation *op) {
        if (isa<DimOp, NumTilesOp>(op))
          return Source::Leaf;
        bool integerArith = isPureArith(op) && llvm::all_of(op->getResultTypes(), [](Type t) {
                              return t.isSignlessInteger() || isa<IndexType>(t);
                            });
        return integerArith ? Source::Walk : Source::Refused;
      },
      culprit);
}

/// Checks that `value` (an operand of `op`) can be computed on the host.
static LogicalResult verifyHostComputable(Operation *op, Value value,
                                          StringRef role) {
  Value culprit;
  if (isHostComputable(value, &culprit))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << role
                            << " must be computable on the host from the "
                               "launch arguments (constants, scalar arguments, "
                               "tile.dim, tile.num_tiles, integer arith)";
  if (Operation *def = culprit.getDefiningOp())
    diag.attachNote(def->getLoc()) << "depends on this '" << def->getName()
                                   << "'";
  else
    diag.attachNote(culprit.getLoc()) << "depends on this block argument";
  return diag;
}

LogicalResult GridOp::verify() {
  if (getExtents().empty() || getExtents().size() > 3)
    return emitOpError("takes 1 to 3 extents (x, y, z), got ")
           << getExtents().size();
  auto kernel = (*this)->getParentOfType<KernelOp>();
  unsigned count = 0;
  kernel.getBody().front().walk([&](GridOp) { ++count; });
  if (count > 1)
    return emitOpError("appears ") << count << " times in kernel @"
                                   << kernel.getSymName()
                                   << "; a kernel has one launch grid";
  for (auto [i, extent] : llvm::enumerate(getExtents()))
    if (failed(verifyHostComputable(*this, extent,
                                    "extent #" + std::to_string(i))))
      return failure();
  return success();
}

LogicalResult AssumeOp::verify() {
  if (getMessage().trim().empty())
    return emitOpError("needs a message saying what is assumed");
  return verifyHostComputable(*this, getCondition(), "the condition");
}

LogicalResult AssumeDistinctOp::verify() {
  if (getMessage().trim().empty())
    return emitOpError("needs a message saying what is assumed");
  auto type = cast<ViewType>(getTable().getType());
  if (type.getMode() != OwnershipMode::Frozen)
    return emitOpError("needs a frozen view: the runtime checks the entries "
                       "at launch, so no kernel may write them afterwards");
  if (type.getRank() != 1 || !type.getElementType().isSignlessInteger() ||
      type.getElementType().getIntOrFloatBitWidth() < 8)
    return emitOpError("needs a 1-D view of i8, i16, i32 or i64 entries");
  if (!isa<BlockArgument>(getTable()))
    return emitOpError("needs a kernel argument");
  if (failed(verifyHostComputable(*this, getLo(), "the lower bound")))
    return failure();
  return verifyHostComputable(*this, getHi(), "the upper bound");
}

//===----------------------------------------------------------------------===//
// DimOp, NumTilesOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  int64_t rank = getView().getType().getRank();
  auto index = static_cast<int64_t>(getIndex());
  if (index < 0 || index >= rank)
    return emitOpError("dim index ")
           << index << " is out of range for a view of rank " << rank;
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  ViewType view = getView().getType();
  int64_t d = view.getShape()[getIndex()];
  if (ShapedType::isDynamic(d))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), d);
}

void DimOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                              SetIntRangeFn setResultRange) {
  int64_t d = getView().getType().getShape()[getIndex()];
  if (ShapedType::isDynamic(d))
    setResultRange(getResult(),
                   indexRange(0, std::numeric_limits<int64_t>::max()));
  else
    setResultRange(getResult(), indexRange(d, d));
}

LogicalResult NumTilesOp::verify() {
  int64_t rank = getPartition().getType().getRank();
  auto index = static_cast<int64_t>(getIndex());
  if (index < 0 || index >= rank)
    return emitOpError("dim index ")
           << index << " is out of range for a partition of rank "
           << rank;
  return success();
}

OpFoldResult NumTilesOp::fold(FoldAdaptor) {
  int64_t n = getPartition().getType().getGridShape()[getIndex()];
  if (ShapedType::isDynamic(n))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), n);
}

void NumTilesOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                   SetIntRangeFn setResultRange) {
  int64_t n = getPartition().getType().getGridShape()[getIndex()];
  if (ShapedType::isDynamic(n))
    setResultRange(getResult(),
                   indexRange(0, std::numeric_limits<int64_t>::max()));
  else
    setResultRange(getResult(), indexRange(n, n));
}

//===----------------------------------------------------------------------===//
// OwnOp
//===----------------------------------------------------------------------===//

/// A write of `value` to the tile at `indices` of `partition` (a store or
/// an atomic add straight into a partition): valid indices, and the value
/// is exactly one tile.
static LogicalResult verifyPartitionTileValue(Operation *op,
                                              PartitionType partition,
                                              RankedTensorType value,
                                              ValueRange indices) {
  if (failed(verifyTileIndices(op, partition, indices)))
    return failure();
  if (value != partition.getTileType())
    return op->emitOpError("value type ")
           << value << " does not match the partition's tile "
           << partition.getTileType();
  return success();
}

/// "an 'in'", "a 'frozen'" or "a 'settled'", for messages.
static StringRef sharedModeName(OwnershipMode mode) {
  switch (mode) {
  case OwnershipMode::Frozen:
    return "a 'frozen'";
  case OwnershipMode::Settled:
    return "a 'settled'";
  default:
    return "an 'in'";
  }
}

LogicalResult PartitionOp::verify() {
  if (getView().getType().getMode() == OwnershipMode::Ticket)
    return emitOpError("cannot partition a 'ticket' view: only tile.join "
                       "touches its counters");
  return success();
}

LogicalResult OwnOp::verify() {
  PartitionType partition = getPartition().getType();
  if (partition.isShared())
    return emitOpError("cannot own a block of ")
           << sharedModeName(partition.getMode())
           << " partition: shared views are read-only";
  if (partition.getMode() == OwnershipMode::Add)
    return emitOpError("cannot own a block of an 'add' partition: 'add' "
                       "views are only added into (tile.atomic_add)");
  return verifyTileIndices(*this, partition, getIndices());
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp, GatherOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  RankedTensorType result = getResult().getType();
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  if (auto block = dyn_cast<OwnedType>(getSource().getType())) {
    if (block.getMode() == OwnershipMode::Out)
      return emitOpError("cannot load from an owned 'out' block: 'out' views "
                         "are write-only; declare the view 'inout' to read "
                         "it back");
    if (failed(verifyBlockAccess(*this, block, result, getIndices(), "result")))
      return failure();
    return verifyPadding(*this, getPadding(), block.getElementType());
  }
  auto partition = cast<PartitionType>(getSource().getType());
  if (!isInUncheckedRegion(*this)) {
    if (partition.getMode() == OwnershipMode::Out)
      return emitOpError("cannot load from an 'out' partition: 'out' views "
                         "are write-only, and their blocks belong to other "
                         "programs");
    if (partition.getMode() == OwnershipMode::InOut && !isInJoinRegion(*this) &&
        gridSyncsBefore(*this) == 0)
      return emitOpError("cannot load from an 'inout' partition directly: "
                         "read an inout view only through the block this "
                         "program owns (tile.own), inside a tile.join, or "
                         "after a tile.grid_sync");
    if (partition.getMode() == OwnershipMode::Add)
      return emitOpError("cannot load from an 'add' partition: other programs "
                         "are still adding into it; a later launch reads the "
                         "sum");
  }
  if (getIndices().empty())
    return emitOpError("expects ")
           << partition.getRank() << " tile indices to load a partition";
  if (failed(verifyTileIndices(*this, partition, getIndices())))
    return failure();
  if (result != partition.getTileType())
    return emitOpError("result type ")
           << result << " does not match the partition's tile "
           << partition.getTileType();
  return verifyPadding(*this, getPadding(), partition.getElementType());
}

LogicalResult PrefetchOp::verify() {
  PartitionType partition = getSource().getType();
  if (!partition.isShared())
    return emitOpError(
        "can only prefetch an 'in', 'frozen' or 'settled' partition: a "
        "shared read-only input");
  if (failed(verifyTileIndices(*this, partition, getIndices())))
    return failure();
  return success();
}

LogicalResult StoreOp::verify() {
  RankedTensorType value = getValue().getType();
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  if (auto block = dyn_cast<OwnedType>(getDest().getType()))
    return verifyBlockAccess(*this, block, value, getIndices(), "value");
  auto partition = cast<PartitionType>(getDest().getType());
  if (partition.isShared())
    return emitOpError("cannot store into ")
           << sharedModeName(partition.getMode())
           << " partition: shared views are read-only";
  if (!isInUncheckedRegion(*this))
    return emitOpError("can only store into a block this program owns "
                       "(tile.own); storing into a partition directly needs "
                       "tile.unchecked");
  return verifyPartitionTileValue(*this, partition, value, getIndices());
}

LogicalResult AtomicAddOp::verify() {
  RankedTensorType value = getValue().getType();
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  PartitionType partition = getDest().getType();
  if (partition.getMode() != OwnershipMode::Add)
    return emitOpError("adds only into an 'add' partition; this one is '")
           << stringifyOwnershipMode(partition.getMode()) << "'";
  if (!partition.getElementType().isF32())
    return emitOpError("adds f32 only; the partition holds ")
           << partition.getElementType();
  return verifyPartitionTileValue(*this, partition, value, getIndices());
}

LogicalResult GatherOp::verify() {
  PartitionType partition = getSource().getType();
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  if (!partition.isShared() && !isInUncheckedRegion(*this))
    return emitOpError(
               "gathers only from 'in', 'frozen' or 'settled' partitions; this "
               "one is '")
           << stringifyOwnershipMode(partition.getMode()) << "'";
  ArrayRef<int64_t> tile = partition.getTileShape();
  if (tile[0] != 1)
    return emitOpError("needs a partition whose tile is one row (tile dim 0 "
                       "== 1), got tile ")
           << formatList(tile);
  if (failed(verifyTileIndices(*this, partition, getIndices(),
                               /*firstDim=*/1)))
    return failure();
  SmallVector<int64_t> expected{getRows().getType().getDimSize(0)};
  llvm::append_range(expected, tile.drop_front());
  auto expectedType =
      RankedTensorType::get(expected, partition.getElementType());
  if (getResult().getType() != expectedType)
    return emitOpError("result type ")
           << getResult().getType() << " should be " << expectedType
           << " (one partition tile per row index)";
  return verifyPadding(*this, getPadding(), partition.getElementType());
}

//===----------------------------------------------------------------------===//
// ODS-generated definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
