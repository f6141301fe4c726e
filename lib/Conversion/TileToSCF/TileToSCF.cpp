//===- TileToSCF.cpp - tile kernels to func/scf/tensor/memref --------------===//
//
// The pass driver, the kernel ABI (kernel -> per-program function + grid
// loop), and the memory ops. Value ops are in LowerValueOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/Utils/BlockAccess.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOSCF
#include "tile/Conversion/Passes.h.inc"
} // namespace tile

using namespace mlir;
using namespace tile;
using namespace tile::lowering;

MemRefType tile::lowering::getMemRefType(ViewType view) {
  auto layout = StridedLayoutAttr::get(view.getContext(), ShapedType::kDynamic,
                                       view.getStrides());
  return MemRefType::get(view.getShape(), view.getElementType(), layout);
}


//===----------------------------------------------------------------------===//
// Generated tensors, masked loads and stores
//===----------------------------------------------------------------------===//

Value KernelLowering::generate(
    Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return tensor::GenerateOp::create(
      rewriter, loc, type, ValueRange{},
      [&](OpBuilder &b, Location l, ValueRange indices) {
        tensor::YieldOp::create(b, l, body(b, l, indices));
      });
}

static TypedAttr zeroAttr(Type type) {
  Builder b(type.getContext());
  if (isa<FloatType>(type))
    return b.getFloatAttr(type, 0.0);
  return b.getIntegerAttr(type, 0);
}

Value KernelLowering::maskedLoad(Location loc, Value base,
                                 ArrayRef<Value> offsets,
                                 RankedTensorType type, TypedAttr padding) {
  if (!padding)
    padding = zeroAttr(type.getElementType());
  SmallVector<Value> bounds;
  for (unsigned d = 0; d < offsets.size(); ++d)
    bounds.push_back(memref::DimOp::create(rewriter, loc, base, d));
  Value pad = arith::ConstantOp::create(rewriter, loc, padding);
  return generate(loc, type, [&](OpBuilder &b, Location l, ValueRange idx) {
    SmallVector<Value> at;
    Value ok;
    for (unsigned d = 0; d < idx.size(); ++d) {
      at.push_back(arith::AddIOp::create(b, l, offsets[d], idx[d]));
      Value in = isInBounds(b, l, at.back(), bounds[d]);
      ok = ok ? arith::AndIOp::create(b, l, ok, in).getResult() : in;
    }
    return loadOrPad(b, l, base, at, ok, pad);
  });
}

void KernelLowering::maskedStore(Location loc, Value value, Value base,
                                 ArrayRef<Value> offsets, bool accumulate) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<Value> bounds;
  for (unsigned d = 0; d < offsets.size(); ++d)
    bounds.push_back(memref::DimOp::create(rewriter, loc, base, d));
  Value zero = constantIndex(rewriter, loc, 0);
  Value one = constantIndex(rewriter, loc, 1);
  SmallVector<Value> ivs;
  OpBuilder::InsertionGuard guard(rewriter);
  for (int64_t size : type.getShape()) {
    auto loop = scf::ForOp::create(rewriter, loc, zero,
                                   constantIndex(rewriter, loc, size), one);
    ivs.push_back(loop.getInductionVar());
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  SmallVector<Value> at;
  Value ok;
  for (unsigned d = 0; d < ivs.size(); ++d) {
    at.push_back(arith::AddIOp::create(rewriter, loc, offsets[d], ivs[d]));
    Value in = isInBounds(rewriter, loc, at.back(), bounds[d]);
    ok = ok ? arith::AndIOp::create(rewriter, loc, ok, in).getResult() : in;
  }
  auto branch = scf::IfOp::create(rewriter, loc, ok, /*withElse=*/false);
  rewriter.setInsertionPointToStart(branch.thenBlock());
  Value v = tensor::ExtractOp::create(rewriter, loc, value, ivs);
  if (accumulate) // programs may run concurrently on this path too
    memref::AtomicRMWOp::create(rewriter, loc, arith::AtomicRMWKind::addf, v,
                                base, at);
  else
    memref::StoreOp::create(rewriter, loc, v, base, at);
}

//===----------------------------------------------------------------------===//
// Partitions and claims
//===----------------------------------------------------------------------===//

/// index * scale for each index.
static SmallVector<Value> scaled(OpBuilder &b, Location loc, ValueRange indices,
                                 ArrayRef<int64_t> scale) {
  SmallVector<Value> out;
  for (auto [i, s] : llvm::zip_equal(indices, scale))
    out.push_back(arith::MulIOp::create(b, loc, i, constantIndex(b, loc, s)));
  return out;
}

LogicalResult KernelLowering::lowerPartition(PartitionOp op) {
  partitions[op.getResult()] = {op.getView(), op.getResult().getType()};
  return success();
}

LogicalResult KernelLowering::lowerOwn(OwnOp op) {
  Location loc = op.getLoc();
  PartitionInfo p = partitions.lookup(op.getPartition());
  ArrayRef<int64_t> tile = p.type.getTileShape();
  SmallVector<Value> offsets = scaled(rewriter, loc, op.getIndices(), tile);
  blocks[op.getResult()] = {
      createClippedBlock(rewriter, loc, p.memref, offsets, tile),
      op.getResult().getType()};
  return success();
}

/// The memref and element offsets a load or store at `indices` of a
/// partition or claimed block `handle` addresses, for a tile of `type`.
std::pair<Value, SmallVector<Value>>
KernelLowering::resolveAccess(Location loc, Value handle, ValueRange indices,
                              RankedTensorType type) {
  if (auto p = partitions.find(handle); p != partitions.end())
    return {p->second.memref,
            scaled(rewriter, loc, indices, p->second.type.getTileShape())};
  SmallVector<Value> offsets =
      indices.empty()
          ? SmallVector<Value>(type.getRank(), constantIndex(rewriter, loc, 0))
          : scaled(rewriter, loc, indices, type.getShape());
  return {blocks.lookup(handle).memref, offsets};
}

LogicalResult KernelLowering::lowerLoad(LoadOp op) {
  Location loc = op.getLoc();
  RankedTensorType type = op.getResult().getType();
  auto [base, offsets] =
      resolveAccess(loc, op.getSource(), op.getIndices(), type);
  if (!base)
    return op.emitError("convert-tile-to-scf: load from an unknown source");
  TypedAttr pad = op.getPadding() ? *op.getPadding() : TypedAttr();
  rewriter.replaceOp(op, maskedLoad(loc, base, offsets, type, pad));
  return success();
}

LogicalResult KernelLowering::lowerStore(StoreOp op) {
  Location loc = op.getLoc();
  auto [base, offsets] = resolveAccess(loc, op.getDest(), op.getIndices(),
                                       op.getValue().getType());
  if (!base)
    return op.emitError("convert-tile-to-scf: store to an unknown block");
  maskedStore(loc, op.getValue(), base, offsets);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult KernelLowering::lowerAtomicAdd(AtomicAddOp op) {
  Location loc = op.getLoc();
  auto [base, offsets] = resolveAccess(loc, op.getDest(), op.getIndices(),
                                       op.getValue().getType());
  if (!base)
    return op.emitError("convert-tile-to-scf: atomic_add to an unknown view");
  maskedStore(loc, op.getValue(), base, offsets, /*accumulate=*/true);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult KernelLowering::lowerGather(GatherOp op) {
  Location loc = op.getLoc();
  PartitionInfo p = partitions.lookup(op.getSource());
  ArrayRef<int64_t> tile = p.type.getTileShape();
  SmallVector<Value> offsets{constantIndex(rewriter, loc, 0)};
  llvm::append_range(offsets, scaled(rewriter, loc, op.getIndices(),
                                     tile.drop_front()));
  SmallVector<Value> bounds;
  for (unsigned d = 0; d < tile.size(); ++d)
    bounds.push_back(memref::DimOp::create(rewriter, loc, p.memref, d));
  TypedAttr padding = op.getPadding() ? *op.getPadding()
                                      : zeroAttr(p.type.getElementType());
  Value pad = arith::ConstantOp::create(rewriter, loc, padding);
  Value rows = op.getRows();
  Value result = generate(
      loc, op.getResult().getType(),
      [&](OpBuilder &b, Location l, ValueRange idx) {
        return gatherElement(b, l, p.memref,
                             tensor::ExtractOp::create(b, l, rows, idx[0]),
                             offsets, idx, bounds, pad);
      });
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lower(Operation *op) {
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  if (auto pid = dyn_cast<ProgramIdOp>(op)) {
    rewriter.replaceOp(op, programIds[static_cast<unsigned>(pid.getDim())]);
    return success();
  }
  if (auto n = dyn_cast<NumProgramsOp>(op)) {
    rewriter.replaceOp(op, gridSizes[static_cast<unsigned>(n.getDim())]);
    return success();
  }
  if (isa<GridOp, AssumeOp, AssumeDistinctOp>(op)) {
    rewriter.eraseOp(op); // Checked at launch by the contract.
    return success();
  }
  if (auto dim = dyn_cast<DimOp>(op)) {
    rewriter.replaceOpWithNewOp<memref::DimOp>(op, dim.getView(),
                                               dim.getIndex());
    return success();
  }
  if (auto tiles = dyn_cast<NumTilesOp>(op)) {
    PartitionInfo p = partitions.lookup(tiles.getPartition());
    Value dim = memref::DimOp::create(rewriter, loc, p.memref,
                                      tiles.getIndex());
    Value t = constantIndex(rewriter, loc,
                            p.type.getTileShape()[tiles.getIndex()]);
    rewriter.replaceOpWithNewOp<arith::CeilDivUIOp>(op, dim, t);
    return success();
  }
  if (auto splat = dyn_cast<SplatOp>(op)) {
    rewriter.replaceOpWithNewOp<tensor::SplatOp>(op, splat.getValue(),
                                                 splat.getResult().getType());
    return success();
  }
  if (auto extract = dyn_cast<ExtractOp>(op)) {
    SmallVector<Value> idx;
    for (int64_t p : extract.getPosition())
      idx.push_back(constantIndex(rewriter, loc, p));
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, extract.getSource(),
                                                   idx);
    return success();
  }
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](PartitionOp o) { return lowerPartition(o); })
      .Case([&](OwnOp o) { return lowerOwn(o); })
      .Case([&](LoadOp o) { return lowerLoad(o); })
      .Case([&](StoreOp o) { return lowerStore(o); })
      .Case([&](AtomicAddOp o) { return lowerAtomicAdd(o); })
      .Case([&](PrefetchOp o) {
        // A cache hint: there is no cache to fill on this path.
        rewriter.eraseOp(o);
        return success();
      })
      .Case([&](GatherOp o) { return lowerGather(o); })
      .Case([&](BroadcastOp o) { return lowerBroadcast(o); })
      .Case([&](IotaOp o) { return lowerIota(o); })
      .Case([&](ReshapeOp o) { return lowerReshape(o); })
      .Case([&](PermuteOp o) { return lowerPermute(o); })
      .Case([&](SliceOp o) { return lowerSlice(o); })
      .Case([&](RollOp o) { return lowerRoll(o); })
      .Case([&](ConcatOp o) { return lowerConcat(o); })
      .Case([&](ReduceOp o) { return lowerReduce(o); })
      .Case([&](DotOp o) { return lowerDot(o); })
      .Case([&](ConvertOp o) { return lowerConvert(o); })
      .Default([&](Operation *o) {
        return o->emitError("convert-tile-to-scf: no lowering for '")
               << o->getName() << "'";
      });
}

//===----------------------------------------------------------------------===//
// The pass: kernel ABI
//===----------------------------------------------------------------------===//

namespace {

struct ConvertTileToSCFPass
    : public tile::impl::ConvertTileToSCFBase<ConvertTileToSCFPass> {
  using Base::Base;

  LogicalResult lowerKernel(KernelOp kernel);

  void runOnOperation() override {
    SmallVector<KernelOp> kernels(getOperation().getOps<KernelOp>());
    for (KernelOp kernel : kernels)
      if (failed(lowerKernel(kernel)))
        return signalPassFailure();
  }
};

} // namespace

/// Grid barriers on the host: each phase runs for every program before the
/// next, so a value a phase uses from an earlier one is computed again at
/// the phase's start (tile.grid_sync's verifier allows only program ids,
/// sizes, partitions, claims, arguments and index arithmetic to cross).
/// Returns the number of barriers.
static unsigned rematerializeAcrossGridSyncs(KernelOp kernel, RewriterBase &rewriter) {
  Block &body = kernel.getBody().front();
  SmallVector<GridSyncOp> syncs(body.getOps<GridSyncOp>());
  for (GridSyncOp sync : syncs) {
    DenseMap<Value, Value> again;
    Operation *last = sync;
    std::function<Value(Value)> recompute = [&](Value v) -> Value {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &body || !def->isBeforeInBlock(sync))
        return v;
      if (Value done = again.lookup(v))
        return done;
      IRMapping map;
      for (Value operand : def->getOperands())
        map.map(operand, recompute(operand));
      rewriter.setInsertionPointAfter(last);
      Operation *copy = rewriter.clone(*def, map);
      last = copy;
      for (auto [from, to] : llvm::zip(def->getResults(), copy->getResults()))
        again[from] = to;
      return again.lookup(v);
    };
    for (Operation *op = sync->getNextNode(); op; op = op->getNextNode())
      op->walk([&](Operation *user) {
        for (OpOperand &use : user->getOpOperands())
          if (Value to = recompute(use.get()); to != use.get())
            rewriter.modifyOpInPlace(user, [&] { use.set(to); });
      });
  }
  return syncs.size();
}

LogicalResult ConvertTileToSCFPass::lowerKernel(KernelOp kernel) {
  if (!allowUnverified && !kernel->hasAttr(kOwnershipVerifiedAttrName))
    return kernel.emitError("convert-tile-to-scf: kernel @")
           << kernel.getSymName()
           << " has not been verified; run tile-verify-ownership first";
  // Unchecked regions are inlined: their ops lower like any other.
  SmallVector<UncheckedOp> unchecked;
  kernel.walk([&](UncheckedOp op) { unchecked.push_back(op); });

  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  IRRewriter rewriter(ctx);
  Type index = rewriter.getIndexType();
  const unsigned syncs = rematerializeAcrossGridSyncs(kernel, rewriter);

  // func @k(views..., scalars..., pid x3, nprog x3)
  SmallVector<Type> argTypes;
  for (Type t : kernel.getArgumentTypes())
    argTypes.push_back(isa<ViewType>(t) ? getMemRefType(cast<ViewType>(t))
                                        : t);
  unsigned numUserArgs = argTypes.size();
  // With grid barriers, a seventh: the phase to run.
  argTypes.append(syncs ? 7 : 6, index);
  rewriter.setInsertionPoint(kernel);
  auto func = func::FuncOp::create(rewriter, loc, kernel.getSymName(),
                                   rewriter.getFunctionType(argTypes, {}));
  // Public with a C interface: hosts may run programs in parallel themselves
  // (they are race-free by the ownership proof).
  func->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
  Region &body = func.getBody();
  rewriter.inlineRegionBefore(kernel.getBody(), body, body.end());
  Block &entry = body.front();
  for (auto [arg, type] : llvm::zip(entry.getArguments(), argTypes))
    arg.setType(type);
  SmallVector<Value> extra;
  for (unsigned i = 0; i < 6; ++i)
    extra.push_back(entry.addArgument(index, loc));
  if (syncs) {
    // Phase k's ops run under `phase == k`; the barriers themselves are the
    // grid function's loop over phases.
    Value phase = entry.addArgument(index, loc);
    SmallVector<SmallVector<Operation *>> phases(1);
    for (Operation &op : entry.without_terminator()) {
      if (isa<GridSyncOp>(op))
        phases.emplace_back();
      else
        phases.back().push_back(&op);
    }
    for (auto [k, ops] : llvm::enumerate(phases)) {
      rewriter.setInsertionPoint(entry.getTerminator());
      Value is = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, phase,
                                       constantIndex(rewriter, loc, static_cast<int64_t>(k)));
      auto branch = scf::IfOp::create(rewriter, loc, is, /*withElseRegion=*/false);
      for (Operation *op : ops)
        op->moveBefore(branch.thenBlock()->getTerminator());
    }
    SmallVector<GridSyncOp> barriers(entry.getOps<GridSyncOp>());
    for (GridSyncOp op : barriers)
      rewriter.eraseOp(op);
  }

  for (UncheckedOp op : unchecked) {
    Block &inner = op.getBody().front();
    Operation *yield = inner.getTerminator();
    SmallVector<Value> results(yield->getOperands());
    rewriter.inlineBlockBefore(&inner, op);
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
  }

  // The join: the program that takes its group's last ticket (an atomic
  // add, so hosts running programs in parallel are ordered too) resets the
  // counter and runs the region.
  SmallVector<JoinOp> joins;
  func.walk([&](JoinOp op) { joins.push_back(op); });
  for (JoinOp op : joins) {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    unsigned d = static_cast<unsigned>(op.getDim());
    Value size = constantIndex(rewriter, l, 1);
    for (unsigned e = 0; e < 3; ++e)
      if (e != d)
        size = arith::MulIOp::create(rewriter, l, size, extra[3 + e]);
    Type i32 = rewriter.getI32Type();
    Value lastTicket = arith::IndexCastOp::create(
        rewriter, l, i32,
        arith::SubIOp::create(rewriter, l, size, constantIndex(rewriter, l, 1)));
    Value key = extra[d];
    Value old = memref::AtomicRMWOp::create(
        rewriter, l, arith::AtomicRMWKind::addi,
        arith::ConstantIntOp::create(rewriter, l, i32, 1), op.getTickets(),
        ValueRange{key});
    Value last = arith::CmpIOp::create(rewriter, l, arith::CmpIPredicate::eq,
                                       old, lastTicket);
    auto branch = scf::IfOp::create(rewriter, l, last, /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    memref::StoreOp::create(rewriter, l,
                            arith::ConstantIntOp::create(rewriter, l, i32, 0),
                            op.getTickets(), ValueRange{key});
    Block &inner = op.getBody().front();
    rewriter.eraseOp(inner.getTerminator());
    rewriter.inlineBlockBefore(&inner, branch.thenBlock()->getTerminator());
    rewriter.eraseOp(op);
  }

  KernelLowering lowering(rewriter, ArrayRef<Value>(extra).take_front(3),
                          ArrayRef<Value>(extra).drop_front(3));
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getDialect() && isa<TileDialect>(op->getDialect()) &&
        !isa<ReturnOp, YieldOp>(op))
      ops.push_back(op);
    // Reduce combiners are cloned by their lowering, not lowered in place.
    return isa<ReduceOp>(op) ? WalkResult::skip() : WalkResult::advance();
  });
  // Partitions and claims stay until their users are lowered; every other
  // op is erased by its lowering, so only these are remembered.
  SmallVector<Operation *> handles;
  for (Operation *op : ops) {
    if (isa<PartitionOp, OwnOp>(op))
      handles.push_back(op);
    if (failed(lowering.lower(op)))
      return failure();
  }
  for (Operation *op : llvm::reverse(handles))
    rewriter.eraseOp(op);
  auto ret = cast<ReturnOp>(entry.getTerminator());
  rewriter.setInsertionPoint(ret);
  rewriter.replaceOpWithNewOp<func::ReturnOp>(ret);

  // func @k_grid(views..., scalars..., nprog x3): every program in order.
  SmallVector<Type> gridArgs(argTypes.begin(), argTypes.begin() + numUserArgs);
  gridArgs.append(3, index);
  rewriter.setInsertionPointAfter(func);
  auto grid = func::FuncOp::create(
      rewriter, loc, (kernel.getSymName() + "_grid").str(),
      rewriter.getFunctionType(gridArgs, {}));
  grid->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
  Block *g = grid.addEntryBlock();
  rewriter.setInsertionPointToStart(g);
  Value zero = constantIndex(rewriter, loc, 0);
  Value one = constantIndex(rewriter, loc, 1);
  SmallVector<Value> n(g->getArguments().take_back(3));
  SmallVector<Value> pids(3);
  OpBuilder::InsertionGuard guard(rewriter);
  for (int d = 2; d >= 0; --d) {
    auto loop = scf::ForOp::create(rewriter, loc, zero, n[d], one);
    pids[d] = loop.getInductionVar();
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  SmallVector<Value> callArgs(g->getArguments().take_front(numUserArgs));
  llvm::append_range(callArgs, pids);
  llvm::append_range(callArgs, n);
  if (syncs) {
    // Every program runs a phase before any runs the next: a loop over the
    // phases around the loops over the programs.
    Operation *outer = pids[2].getParentBlock()->getParentOp();
    rewriter.setInsertionPoint(outer);
    auto phases = scf::ForOp::create(
        rewriter, loc, zero, constantIndex(rewriter, loc, static_cast<int64_t>(syncs) + 1), one);
    outer->moveBefore(phases.getBody()->getTerminator());
    callArgs.push_back(phases.getInductionVar());
    rewriter.setInsertionPoint(pids[0].getParentBlock()->getTerminator());
  }
  func::CallOp::create(rewriter, loc, func, callArgs);
  rewriter.setInsertionPointToEnd(g);
  func::ReturnOp::create(rewriter, loc);

  rewriter.eraseOp(kernel);
  return success();
}
