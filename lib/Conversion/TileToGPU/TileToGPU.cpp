//===- TileToGPU.cpp - tile kernels to gpu.func over distributed tiles -----===//
//
// The flat tile layout, scratch and shuffles, control flow and the op
// dispatch. The pass driver and the kernel ABI are in ConvertTileToGPU.cpp,
// shape and compute ops in LowerGPUValueOps.cpp, global memory access in
// LowerGlobalMemory.cpp.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelLowering.h"
#include "Remarks.h"

#include <map>

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

//===----------------------------------------------------------------------===//
// Layout and helpers
//===----------------------------------------------------------------------===//

Layout Layout::get(RankedTensorType type, int64_t threads) {
  Layout l;
  l.type = type;
  l.threads = threads;
  int64_t last = type.getShape().back();
  l.vec = 8;
  while (last % l.vec != 0)
    l.vec /= 2;
  l.positions = type.getNumElements() / l.vec;
  l.slots = llvm::divideCeil(l.positions, threads);
  return l;
}

Value GPUKernelLowering::index(int64_t v) {
  return arith::ConstantIndexOp::create(b, func.getLoc(), v);
}

Value GPUKernelLowering::threadId() { return tid; }

Value GPUKernelLowering::zeroOf(Type type) {
  Location loc = func.getLoc();
  if (auto v = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(v)));
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(type)));
}

Value GPUKernelLowering::insertSlot(Location loc, Value regs, Value slot,
                                    int64_t k) {
  // One shufflevector: lanes of `slot` replace lanes [k*vec, (k+1)*vec).
  int64_t total = cast<VectorType>(regs.getType()).getNumElements();
  int64_t vec = cast<VectorType>(slot.getType()).getNumElements();
  if (total == vec)
    return slot;
  SmallVector<int64_t> mask;
  for (int64_t j = 0; j < total; ++j)
    mask.push_back(j >= k * vec && j < (k + 1) * vec ? total + (j - k * vec)
                                                      : j);
  // vector.shuffle takes operands of one length: widen the slot first.
  SmallVector<int64_t> widen;
  for (int64_t j = 0; j < total; ++j)
    widen.push_back(j < vec ? j : 0);
  Value wide = vector::ShuffleOp::create(b, loc, slot, slot,
                                         b.getDenseI64ArrayAttr(widen));
  return vector::ShuffleOp::create(b, loc, regs, wide,
                                   b.getDenseI64ArrayAttr(mask));
}

Value GPUKernelLowering::extractSlot(Location loc, Value regs, int64_t k,
                                     int64_t vec) {
  int64_t total = cast<VectorType>(regs.getType()).getNumElements();
  if (total == vec)
    return regs;
  SmallVector<int64_t> mask;
  for (int64_t j = 0; j < vec; ++j)
    mask.push_back(k * vec + j);
  return vector::ShuffleOp::create(b, loc, regs, regs,
                                   b.getDenseI64ArrayAttr(mask));
}

SmallVector<Value> GPUKernelLowering::delinearize(Value linear,
                                                  ArrayRef<int64_t> shape) {
  Location loc = func.getLoc();
  SmallVector<Value> idx(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value q = stride == 1 ? linear
                          : arith::DivUIOp::create(b, loc, linear,
                                                   index(stride))
                                .getResult();
    idx[d] = d == 0 ? q
                    : arith::RemUIOp::create(b, loc, q, index(shape[d]))
                          .getResult();
    stride *= shape[d];
  }
  return idx;
}

Value GPUKernelLowering::linearize(ArrayRef<Value> indices,
                                   ArrayRef<int64_t> shape) {
  Location loc = func.getLoc();
  Value acc = indices[0];
  for (size_t d = 1; d < shape.size(); ++d)
    acc = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, acc, index(shape[d])),
        indices[d]);
  return acc;
}

Value GPUKernelLowering::buildRegisters(
    Location loc, const Layout &layout,
    function_ref<Value(int64_t, int64_t, Value)> element) {
  Value regs = zeroOf(layout.registerType());
  for (int64_t k = 0; k < layout.slots; ++k) {
    // p = tid + k*T; elements past the tile are left zero.
    Value p = arith::AddIOp::create(b, loc, tid, index(k * layout.threads));
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                        index(layout.positions));
    auto branch = scf::IfOp::create(b, loc, TypeRange{layout.slotType()},
                                    valid, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      Value slot = zeroOf(layout.slotType());
      Value base = arith::MulIOp::create(b, loc, p, index(layout.vec));
      for (int64_t i = 0; i < layout.vec; ++i) {
        Value e = arith::AddIOp::create(b, loc, base, index(i));
        Value v = element(k, i, e);
        slot = vector::InsertOp::create(b, loc, v, slot, i);
      }
      scf::YieldOp::create(b, loc, slot);
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, loc, zeroOf(layout.slotType()));
    }
    regs = insertSlot(loc, regs, branch.getResult(0), k);
  }
  return regs;
}

SmallVector<Value>
GPUKernelLowering::scratch(Location loc,
                          ArrayRef<std::pair<Type, int64_t>> buffers) {
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  if (!scratchSpace) {
    scratchSpace = func.addWorkgroupAttribution(
        MemRefType::get({16}, b.getI8Type(), AffineMap(), space), loc);
    // 16-byte vector accesses need a 16-byte aligned buffer.
    func.setWorkgroupAttributionAttr(
        func.getNumWorkgroupAttributions() - 1,
        b.getStringAttr("llvm.align"), b.getI64IntegerAttr(16));
  }
  SmallVector<Value> views;
  int64_t offset = scratchFloor;
  for (auto [elt, count] : buffers) {
    int64_t bytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
    if (elt.isIndex())
      bytes = 8;
    offset = llvm::alignTo(offset, 16);
    views.push_back(memref::ViewOp::create(
        b, loc, MemRefType::get({count}, elt, AffineMap(), space),
        scratchSpace, index(offset), ValueRange{}));
    offset += bytes * count;
  }
  scratchBytes = std::max<int64_t>(scratchBytes, llvm::alignTo(offset, 16));
  return views;
}

void GPUKernelLowering::finishScratch() {
  if (!scratchSpace)
    return;
  auto type = cast<MemRefType>(scratchSpace.getType());
  scratchSpace.setType(MemRefType::get({std::max<int64_t>(scratchBytes, 16)},
                                       type.getElementType(), AffineMap(),
                                       type.getMemorySpace()));
}

SmallVector<Value> GPUKernelLowering::toShared(Location loc,
                                               ValueRange tiles) {
  SmallVector<std::pair<Type, int64_t>> shapes;
  for (Value tile : tiles) {
    auto type = cast<RankedTensorType>(tile.getType());
    shapes.push_back({type.getElementType(), type.getNumElements()});
  }
  SmallVector<Value> bufs = scratch(loc, shapes);
  // Readers of an earlier use of the scratch space must be done.
  gpu::BarrierOp::create(b, loc);
  for (auto [tile, buf] : llvm::zip(tiles, bufs))
    writeShared(loc, tile, buf);
  gpu::BarrierOp::create(b, loc);
  return bufs;
}

void GPUKernelLowering::writeShared(Location loc, Value tile, Value buf) {
  auto type = cast<RankedTensorType>(tile.getType());
  writeSharedRegs(loc, map.lookup(tile), Layout::get(type, threads), buf);
}

void GPUKernelLowering::writeSharedRegs(Location loc, Value regs,
                                        const Layout &layout, Value buf,
                                        int64_t rowStride) {
  int64_t cols = layout.type.getShape().back();
  writeSharedRegs(loc, regs, layout, buf, [&](Value e) -> Value {
    if (rowStride == 0)
      return e;
    // A slot never crosses a row: vec divides the row.
    return arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc,
                              arith::DivUIOp::create(b, loc, e, index(cols)),
                              index(rowStride)),
        arith::RemUIOp::create(b, loc, e, index(cols)));
  });
}

void GPUKernelLowering::writeSharedRegs(
    Location loc, Value regs, const Layout &layout, Value buf,
    function_ref<Value(Value element)> address) {
  for (int64_t k = 0; k < layout.slots; ++k) {
    Value p = arith::AddIOp::create(b, loc, tid, index(k * layout.threads));
    Value at = address(arith::MulIOp::create(b, loc, p, index(layout.vec)));
    Value slot = extractSlot(loc, regs, k, layout.vec);
    OpBuilder::InsertionGuard guard(b);
    // Only the last slot can hold positions past the tile.
    if ((k + 1) * layout.threads > layout.positions) {
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p,
                                          index(layout.positions));
      auto branch = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
      b.setInsertionPointToStart(branch.thenBlock());
    }
    vector::StoreOp::create(b, loc, slot, buf, ValueRange{at});
  }
}

/// gpu.shuffle moves 32- and 64-bit values; narrower ones are widened.
static Value shuffle(OpBuilder &b, Location loc, Value v, Value offset,
                     gpu::ShuffleMode mode) {
  Type type = v.getType();
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  auto move = [&](Value w) {
    return gpu::ShuffleOp::create(b, loc, w, offset, width, mode)
        .getShuffleResult();
  };
  if (type.isF16() || type.isBF16())
    return arith::TruncFOp::create(
        b, loc, type, move(arith::ExtFOp::create(b, loc, b.getF32Type(), v)));
  if (type.isIndex())
    return arith::IndexCastOp::create(
        b, loc, type,
        move(arith::IndexCastOp::create(b, loc, b.getI64Type(), v)));
  if (type.isInteger() && type.getIntOrFloatBitWidth() < 32)
    return arith::TruncIOp::create(
        b, loc, type, move(arith::ExtUIOp::create(b, loc, b.getI32Type(), v)));
  return move(v);
}

Value GPUKernelLowering::shuffleXor(Location loc, Value v, int32_t offset) {
  return shuffle(b, loc, v,
                 arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset),
                 gpu::ShuffleMode::XOR);
}

Value GPUKernelLowering::shuffleIdx(Location loc, Value v, Value lane) {
  return shuffle(b, loc, v, lane, gpu::ShuffleMode::IDX);
}

Value GPUKernelLowering::shuffleFromLane0(Location loc, Value v) {
  return shuffleIdx(loc, v,
                    arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
}

int64_t GPUKernelLowering::replicatedIn(Value v) const {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return threads;
  if (type.getNumElements() != 1 || layoutOf(v))
    return 1;
  auto it = replicated.find(v);
  return it == replicated.end() ? 1 : it->second;
}

void GPUKernelLowering::setReplicated(Value v, int64_t n) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (type && type.getNumElements() == 1 && n > 1)
    replicated[v] = std::min(n, threads);
}

SmallVector<Value> GPUKernelLowering::combine(Region &combiner, ValueRange lhs,
                                              ValueRange rhs) {
  Block &block = combiner.front();
  IRMapping local;
  for (unsigned i = 0; i < lhs.size(); ++i) {
    local.map(block.getArgument(i), lhs[i]);
    local.map(block.getArgument(lhs.size() + i), rhs[i]);
  }
  for (Operation &op : block.without_terminator())
    b.clone(op, local);
  SmallVector<Value> out;
  for (Value v : block.getTerminator()->getOperands())
    out.push_back(local.lookupOrDefault(v));
  return out;
}


//===----------------------------------------------------------------------===//
// Control flow and dispatch
//===----------------------------------------------------------------------===//

static Type convertType(Type type, int64_t threads) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return Layout::get(t, threads).registerType();
  return type;
}

LogicalResult GPUKernelLowering::lowerFor(scf::ForOp op) {
  // Each iter_arg keeps the layout it is assigned (flat without one).
  SmallVector<Value> inits;
  for (auto [v, arg] : llvm::zip(op.getInitArgs(), op.getRegionIterArgs()))
    inits.push_back(operandIn(v, layoutOf(arg)));
  SmallVector<AsyncOperand *> async = planAsyncOperands(op);
  beginAsyncLoop(async, map.lookup(op.getLowerBound()),
                 map.lookup(op.getUpperBound()));
  auto loop = scf::ForOp::create(b, op.getLoc(), map.lookup(op.getLowerBound()),
                                 map.lookup(op.getUpperBound()),
                                 map.lookup(op.getStep()), inits);
  map.map(op.getInductionVar(), loop.getInductionVar());
  for (auto [old, neu, init] : llvm::zip(op.getRegionIterArgs(),
                                         loop.getRegionIterArgs(),
                                         op.getInitArgs())) {
    if (layoutOf(old))
      fragmentRegs[old] = neu;
    else
      map.map(old, neu);
    // A single-element iter_arg is taken to be in as many threads as its
    // init, up to a warp: the yield makes it so (a shuffle, see below).
    setReplicated(old, std::min<int64_t>(replicatedIn(init), 32));
  }
  OpBuilder::InsertionGuard guard(b);
  Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    body->back().erase();
  b.setInsertionPointToEnd(body);
  if (failed(lowerBlock(*op.getBody())))
    return failure();
  b.setInsertionPointAfter(loop);
  endAsyncLoop(async);
  for (auto [old, neu, arg] :
       llvm::zip(op.getResults(), loop.getResults(), op.getRegionIterArgs())) {
    setResult(old, neu, layoutOf(arg));
    setReplicated(old, replicatedIn(arg));
  }
  return success();
}

LogicalResult GPUKernelLowering::lowerIf(scf::IfOp op) {
  SmallVector<Type> types;
  for (Type t : op.getResultTypes())
    types.push_back(convertType(t, threads));
  auto branch = scf::IfOp::create(b, op.getLoc(), types,
                                  map.lookup(op.getCondition()),
                                  /*withElse=*/!op.getElseRegion().empty());
  for (auto [old, neu] : llvm::zip(op->getRegions(), branch->getRegions())) {
    if (old.empty())
      continue;
    Block &nb = neu.front();
    if (!nb.empty() && nb.back().hasTrait<OpTrait::IsTerminator>())
      nb.back().erase();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&nb);
    if (failed(lowerBlock(old.front())))
      return failure();
  }
  for (auto [old, neu] : llvm::zip(op.getResults(), branch.getResults()))
    map.map(old, neu);
  if (op.getNumResults() != 0) {
    // A result is in the threads that hold both branches' values.
    auto thenYield = cast<scf::YieldOp>(op.thenBlock()->getTerminator());
    auto elseYield = cast<scf::YieldOp>(op.elseBlock()->getTerminator());
    for (auto [i, r] : llvm::enumerate(op.getResults()))
      setReplicated(r, std::min(replicatedIn(thenYield.getOperand(i)),
                                replicatedIn(elseYield.getOperand(i))));
  }
  return success();
}

bool tile::gpu_lowering::accessesBeforeGridWait(Operation &op) {
  if (isa<PrefetchOp>(op))
    return true;
  if (auto load = dyn_cast<LoadOp>(op))
    if (auto partition = dyn_cast<PartitionType>(load.getSource().getType()))
      return isReadableBeforeGridWait(partition.getMode());
  return false;
}

/// Whether `op` may run before the kernel's griddepcontrol.wait: it changes
/// no memory, or accesses only memory the grid before cannot be writing.
static bool runsBeforeGridWait(Operation &op) {
  return isa<GridOp, AssumeOp, AssumeDistinctOp>(op) || isMemoryEffectFree(&op) ||
         accessesBeforeGridWait(op);
}

LogicalResult GPUKernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block) {
    // The deferred griddepcontrol.wait goes before the first op of the
    // kernel's body that needs it.
    if (&block == gridWaitBlock && !runsBeforeGridWait(op))
      emitGridWait(op.getLoc());
    if (failed(lowerOp(&op)))
      return failure();
  }
  return success();
}

void GPUKernelLowering::emitGridWait(Location loc) {
  NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
  gridWaitBlock = nullptr;
}

LogicalResult GPUKernelLowering::lowerOp(Operation *op) {
  // Loads copied ahead by cp.async, and the reshapes of their tiles, do
  // their work at the dot (LowerAsyncOperands.cpp).
  if (asyncSkipped.count(op))
    return success();
  if (hopper) {
    // The planned loop lowers with its epilogue and store.
    if (op == hopper->loop)
      return lowerHopperMatmul();
    if (op == hopper->store || op == hopper->transpose ||
        llvm::is_contained(hopper->epilogue, op))
      return success();
  }
  if (fragments.dots.empty())
    return lowerFlatOp(op);
  if (fragments.foldedPermutes.count(op))
    return success(); // its dot reads the source transposed
  if (std::optional<LogicalResult> lowered = lowerFragmentOp(op))
    return *lowered;
  if (isa<scf::ForOp, scf::YieldOp, UncheckedOp>(op))
    return lowerFlatOp(op); // these place each value in its layout
  // The op takes flat tiles: those in fragments move for it (and only for
  // it: a later use may not be dominated by this point).
  SmallVector<Value> moved;
  for (Value v : op->getOperands())
    if (fragmentRegs.count(v) && !map.contains(v)) {
      map.map(v, operandIn(v, std::nullopt));
      moved.push_back(v);
    }
  LogicalResult lowered = lowerFlatOp(op);
  for (Value v : moved)
    map.erase(v);
  if (failed(lowered))
    return failure();
  for (Value r : op->getResults())
    if (layoutOf(r) && map.contains(r)) {
      Value flat = map.lookup(r);
      map.erase(r);
      setResult(r, flat, std::nullopt);
    }
  return success();
}

LogicalResult GPUKernelLowering::lowerFlatOp(Operation *op) {
  Location loc = op->getLoc();
  if (auto f = dyn_cast<scf::ForOp>(op))
    return lowerFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return lowerIf(i);
  if (auto j = dyn_cast<JoinOp>(op))
    return lowerJoin(j);
  if (auto y = dyn_cast<scf::YieldOp>(op)) {
    // A loop's iter_args keep their layouts; an if's results are flat.
    auto loop = dyn_cast<scf::ForOp>(y->getParentOp());
    SmallVector<Value> values;
    for (auto [i, v] : llvm::enumerate(y.getOperands())) {
      values.push_back(operandIn(
          v, loop ? layoutOf(loop.getRegionIterArgs()[i]) : std::nullopt));
      // A single-element iter_arg is taken to be in a warp's threads (at
      // most) at the next iteration: lane 0 gives it to the warp.
      if (loop && replicatedIn(v) < replicatedIn(loop.getRegionIterArgs()[i])) {
        auto regs = cast<VectorType>(values.back().getType());
        Value e = vector::ExtractOp::create(b, loc, values.back(), 0);
        values.back() = vector::BroadcastOp::create(b, loc, regs,
                                                    shuffleFromLane0(loc, e));
      }
    }
    scf::YieldOp::create(b, loc, values);
    return success();
  }
  if (isa<ReturnOp, GridOp, AssumeOp, AssumeDistinctOp>(op))
    return success(); // the contract is checked at launch
  if (auto u = dyn_cast<UncheckedOp>(op)) {
    Block &inner = u.getBody().front();
    for (Operation &o : inner.without_terminator())
      if (failed(lowerOp(&o)))
        return failure();
    for (auto [r, v] : llvm::zip(u.getResults(),
                                 inner.getTerminator()->getOperands())) {
      auto it = fragmentRegs.find(v);
      if (it != fragmentRegs.end())
        setResult(r, it->second, layoutOf(v));
      else
        setResult(r, map.lookup(v), std::nullopt);
    }
    return success();
  }
  if (auto pid = dyn_cast<ProgramIdOp>(op)) {
    map.map(pid.getResult(),
            gpu::BlockIdOp::create(
                b, loc, static_cast<gpu::Dimension>(pid.getDim())));
    return success();
  }
  if (auto n = dyn_cast<NumProgramsOp>(op)) {
    map.map(n.getResult(),
            gpu::GridDimOp::create(b, loc,
                                   static_cast<gpu::Dimension>(n.getDim())));
    return success();
  }
  if (auto dim = dyn_cast<DimOp>(op)) {
    map.map(dim.getResult(), memref::DimOp::create(b, loc,
                                                   map.lookup(dim.getView()),
                                                   dim.getIndex()));
    return success();
  }
  if (auto p = dyn_cast<PartitionOp>(op)) {
    partitions[p.getResult()] = {map.lookup(p.getView()),
                                 p.getResult().getType().getTileShape()};
    return success();
  }
  if (auto t = dyn_cast<NumTilesOp>(op)) {
    auto [memref, tile] = partitions.lookup(t.getPartition());
    Value dim = memref::DimOp::create(b, loc, memref, t.getIndex());
    map.map(t.getResult(), arith::CeilDivUIOp::create(
                               b, loc, dim, index(tile[t.getIndex()])));
    return success();
  }
  if (auto splat = dyn_cast<SplatOp>(op)) {
    Layout layout = Layout::get(splat.getResult().getType(), threads);
    map.map(splat.getResult(),
            vector::BroadcastOp::create(b, loc, layout.registerType(),
                                        map.lookup(splat.getValue())));
    setReplicated(splat.getResult(), threads);
    return success();
  }
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](OwnOp o) { return lowerOwn(o); })
      .Case([&](LoadOp o) { return lowerLoad(o); })
      .Case([&](StoreOp o) { return lowerStore(o); })
      .Case([&](AtomicAddOp o) { return lowerAtomicAdd(o); })
      .Case([&](GatherOp o) { return lowerGather(o); })
      .Case([&](PrefetchOp o) { return lowerPrefetch(o); })
      .Case([&](ReduceOp o) { return lowerReduce(o); })
      .Case([&](DotOp o) { return lowerDot(o); })
      .Case([&](ConvertOp o) { return lowerConvert(o); })
      .Case([&](ExtractOp o) { return lowerExtract(o); })
      .Case<BroadcastOp, IotaOp, ReshapeOp, PermuteOp, SliceOp, ConcatOp,
            RollOp>([&](Operation *o) { return lowerShapeOp(o); })
      .Default([&](Operation *o) { return lowerElementwise(o); });
}
