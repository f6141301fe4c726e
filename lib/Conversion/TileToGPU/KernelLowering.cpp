//===- KernelLowering.cpp - the patterns' common step ---------------------===//
//
// The lowering of one kernel (OpLowerings.h): the patterns of every op
// kind, and what each of them does first and last (rewrite): the deferred
// griddepcontrol.wait, the hand-off of the op (skipped where a plan lowers
// it elsewhere: async operands, the Hopper matmul, a folded permute; in
// fragment layouts where it has them; else by its family with flat
// operands), and its replacement by registers of the types its plan gives.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

KernelLowering::KernelLowering(gpu::GPUFuncOp func, int64_t threads)
    : state(func, threads), emit(state), shared(state, emit),
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

void KernelLowering::emitGridWait(Location loc) {
  NVVM::GriddepcontrolOp::create(state.b, loc, NVVM::GridDepActionKind::wait);
  state.gridWaitBlock = nullptr;
}

void KernelLowering::finish(Location loc) {
  if (state.gridWaitBlock) // nothing needed the wait
    emitGridWait(loc);
  shared.finish();
}

namespace {
/// Element-wise ops of any dialect (and scalar ops, computed by every
/// thread): the pattern of every op kind without one of its own.
class ElementwisePattern : public ConversionPattern {
public:
  ElementwisePattern(MLIRContext *context, KernelLowering &lowering)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/0, context),
        lowering(lowering) {
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    return lowering.rewrite(op, rewriter, [&] {
      return lowering.elementwise.lowerElementwise(op);
    });
  }

private:
  KernelLowering &lowering;
};
} // namespace

void KernelLowering::populatePatterns(RewritePatternSet &patterns) {
  // The launch contract covers these: they lower to nothing.
  auto nothing = [](Operation *) { return success(); };
  patterns.add<TileOpPattern<ReturnOp>>(patterns.getContext(), *this, nothing);
  patterns.add<TileOpPattern<GridOp>>(patterns.getContext(), *this, nothing);
  patterns.add<TileOpPattern<AssumeOp>>(patterns.getContext(), *this, nothing);
  patterns.add<TileOpPattern<AssumeDistinctOp>>(patterns.getContext(), *this,
                                                nothing);
  control.populatePatterns(patterns);
  memory.populatePatterns(patterns);
  elementwise.populatePatterns(patterns);
  shapes.populatePatterns(patterns);
  reductions.populatePatterns(patterns);
  dots.populatePatterns(patterns);
  // Tried last: every other op kind's pattern applies to every op of it.
  patterns.add<ElementwisePattern>(patterns.getContext(), *this);
}

LogicalResult KernelLowering::rewrite(Operation *op,
                                      ConversionPatternRewriter &rewriter,
                                      function_ref<LogicalResult()> lowerFlat) {
  // Build where the rewriter would, and let it track what is built.
  state.rewriter = &rewriter;
  state.b.setListener(rewriter.getListener());
  state.b.setInsertionPoint(rewriter.getInsertionBlock(),
                                  rewriter.getInsertionPoint());
  // A lowering that fails has said why; the ops after it just go, and the
  // pass fails (`failed`), rather than the conversion adding an error of
  // its own for each.
  if (state.failed) {
    rewriter.eraseOp(op);
    return success();
  }
  // The deferred griddepcontrol.wait goes before the first op of the
  // kernel's body that needs it.
  if (op->getBlock() == state.gridWaitBlock && !runsBeforeGridWait(*op))
    emitGridWait(op->getLoc());
  if (failed(lowerOp(op, lowerFlat))) {
    state.failed = true;
    rewriter.eraseOp(op);
    return success();
  }
  // The op's registers replace it; an op lowered to no value (a partition,
  // a claimed block, an op a plan lowers elsewhere) goes when its users do.
  SmallVector<Value> lowered;
  for (Value r : op->getResults()) {
    Value v = state.map.lookupOrNull(r);
    if (!v)
      v = state.fragmentRegs.lookup(r);
    if (v)
      lowered.push_back(v);
  }
  for (auto [r, v] : llvm::zip(op->getResults(), lowered))
    if (Type planned = state.types.convertType(r); v.getType() != planned) {
      op->emitError("convert-tile-to-gpu: a result of '")
          << op->getName() << "' lowered to " << v.getType()
          << " where its layout gives " << planned;
      state.failed = true;
      rewriter.eraseOp(op);
      return success();
    }
  if (lowered.empty())
    rewriter.eraseOp(op);
  else if (lowered.size() == op->getNumResults())
    rewriter.replaceOp(op, lowered);
  else {
    op->emitError("convert-tile-to-gpu: some results of '")
        << op->getName() << "' were not lowered";
    state.failed = true;
    rewriter.eraseOp(op);
  }
  return success();
}

LogicalResult KernelLowering::lowerNested(Operation *op) {
  return failure(failed(state.rewriter->legalize(op)) || state.failed);
}

LogicalResult KernelLowering::lowerOp(Operation *op,
                                      function_ref<LogicalResult()> lowerFlat) {
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
    return lowerFlat();
  if (state.fragments.foldedPermutes.count(op))
    return success(); // its dot reads the source transposed
  if (std::optional<LogicalResult> lowered = fragmentOps.lowerFragmentOp(op))
    return *lowered;
  if (isa<scf::ForOp, scf::YieldOp, UncheckedOp>(op))
    return lowerFlat(); // these place each value in its layout
  // The op takes flat tiles: those in fragments move for it (and only for
  // it: a later use may not be dominated by this point).
  IRMapping &map = state.map;
  SmallVector<Value> moved;
  for (Value v : op->getOperands())
    if (state.fragmentRegs.count(v) && !map.contains(v)) {
      map.map(v, moves.operandIn(v, std::nullopt));
      moved.push_back(v);
    }
  LogicalResult lowered = lowerFlat();
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
