//===- KernelLowering.cpp - walking a kernel body, op by op
//----------------===//
//
// The lowering of one kernel: the state and the families (OpLowerings.h),
// the deferred griddepcontrol.wait, and the hand-off of each op: skipped
// where a plan lowers it elsewhere (async operands, the Hopper matmul, a
// folded permute), in fragment layouts where it has them, else by its
// family with flat operands.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

std::optional<FragmentLayout> KernelState::layoutOf(Value v) const {
  auto it = fragments.layouts.find(v);
  if (it == fragments.layouts.end())
    return std::nullopt;
  return it->second;
}

int64_t KernelState::replicatedIn(Value v) const {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return threads;
  if (type.getNumElements() != 1 || layoutOf(v))
    return 1;
  auto it = replicated.find(v);
  return it == replicated.end() ? 1 : it->second;
}

void KernelState::setReplicated(Value v, int64_t n) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (type && type.getNumElements() == 1 && n > 1)
    replicated[v] = std::min(n, threads);
}

LoweringBase::LoweringBase(KernelLowering &lowering)
    : lowering(lowering), state(lowering.state), b(state.b), func(state.func),
      threads(state.threads), map(state.map), fragmentRegs(state.fragmentRegs),
      fragments(state.fragments), tid(state.tid), warpId(state.warpId),
      laneId(state.laneId), laneGroup(state.laneGroup),
      laneInGroup(state.laneInGroup), emit(lowering.emit),
      shared(lowering.shared), moves(lowering.moves) {}

KernelLowering::KernelLowering(OpBuilder &b, gpu::GPUFuncOp func,
                               int64_t threads)
    : state(b, func, threads), emit(state), shared(state, emit),
      moves(state, emit, shared), control(*this), memory(*this),
      elementwise(*this), shapes(*this), reductions(*this), dots(*this),
      fragmentOps(*this), asyncOperands(*this), hopperMatmul(*this) {}

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
  return isa<GridOp, AssumeOp, AssumeDistinctOp>(op) ||
         isMemoryEffectFree(&op) || accessesBeforeGridWait(op);
}

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block) {
    // The deferred griddepcontrol.wait goes before the first op of the
    // kernel's body that needs it.
    if (&block == state.gridWaitBlock && !runsBeforeGridWait(op))
      emitGridWait(op.getLoc());
    if (failed(lowerOp(&op)))
      return failure();
  }
  return success();
}

void KernelLowering::emitGridWait(Location loc) {
  NVVM::GriddepcontrolOp::create(state.b, loc, NVVM::GridDepActionKind::wait);
  state.gridWaitBlock = nullptr;
}

void KernelLowering::finish(Location loc) {
  if (state.gridWaitBlock) // nothing needed the wait
    emitGridWait(loc);
  shared.finish();
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  // Loads copied ahead by cp.async, and the reshapes of their tiles, do
  // their work at the dot (LowerAsyncOperands.cpp).
  if (asyncOperands.skipped.count(op))
    return success();
  if (const HopperMatmulPlan *hopper = state.hopper) {
    // The planned loop lowers with its epilogue and store.
    if (op == hopper->loop)
      return hopperMatmul.lowerMatmul();
    if (op == hopper->store || op == hopper->transpose ||
        llvm::is_contained(hopper->epilogue, op))
      return success();
  }
  if (state.fragments.dots.empty())
    return lowerFlatOp(op);
  if (state.fragments.foldedPermutes.count(op))
    return success(); // its dot reads the source transposed
  if (std::optional<LogicalResult> lowered = fragmentOps.lowerFragmentOp(op))
    return *lowered;
  if (isa<scf::ForOp, scf::YieldOp, UncheckedOp>(op))
    return lowerFlatOp(op); // these place each value in its layout
  // The op takes flat tiles: those in fragments move for it (and only for
  // it: a later use may not be dominated by this point).
  IRMapping &map = state.map;
  SmallVector<Value> moved;
  for (Value v : op->getOperands())
    if (state.fragmentRegs.count(v) && !map.contains(v)) {
      map.map(v, moves.operandIn(v, std::nullopt));
      moved.push_back(v);
    }
  LogicalResult lowered = lowerFlatOp(op);
  for (Value v : moved)
    map.erase(v);
  if (failed(lowered))
    return failure();
  for (Value r : op->getResults())
    if (state.layoutOf(r) && map.contains(r)) {
      Value flat = map.lookup(r);
      map.erase(r);
      moves.setResult(r, flat, std::nullopt);
    }
  return success();
}

LogicalResult KernelLowering::lowerFlatOp(Operation *op) {
  if (isa<ReturnOp, GridOp, AssumeOp, AssumeDistinctOp>(op))
    return success(); // the contract is checked at launch
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](scf::ForOp o) { return control.lowerFor(o); })
      .Case([&](scf::IfOp o) { return control.lowerIf(o); })
      .Case([&](scf::YieldOp o) { return control.lowerYield(o); })
      .Case([&](UncheckedOp o) { return control.lowerUnchecked(o); })
      .Case([&](JoinOp o) { return control.lowerJoin(o); })
      .Case([&](PartitionOp o) { return memory.lowerPartition(o); })
      .Case([&](NumTilesOp o) { return memory.lowerNumTiles(o); })
      .Case([&](DimOp o) { return memory.lowerDim(o); })
      .Case([&](OwnOp o) { return memory.lowerOwn(o); })
      .Case([&](LoadOp o) { return memory.lowerLoad(o); })
      .Case([&](StoreOp o) { return memory.lowerStore(o); })
      .Case([&](AtomicAddOp o) { return memory.lowerAtomicAdd(o); })
      .Case([&](GatherOp o) { return memory.lowerGather(o); })
      .Case([&](PrefetchOp o) { return memory.lowerPrefetch(o); })
      .Case([&](ReduceOp o) { return reductions.lowerReduce(o); })
      .Case([&](DotOp o) { return dots.lowerDot(o); })
      .Case([&](ProgramIdOp o) { return elementwise.lowerProgramId(o); })
      .Case([&](NumProgramsOp o) { return elementwise.lowerNumPrograms(o); })
      .Case([&](SplatOp o) { return elementwise.lowerSplat(o); })
      .Case([&](ConvertOp o) { return elementwise.lowerConvert(o); })
      .Case([&](ExtractOp o) { return elementwise.lowerExtract(o); })
      .Case<BroadcastOp, IotaOp, ReshapeOp, PermuteOp, SliceOp, ConcatOp,
            RollOp>([&](Operation *o) { return shapes.lowerShapeOp(o); })
      .Default([&](Operation *o) { return elementwise.lowerElementwise(o); });
}
