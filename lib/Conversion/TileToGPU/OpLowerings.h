//===- OpLowerings.h - the op lowerings of convert-tile-to-gpu -*- C++ -*-===//
//
// Private to convert-tile-to-gpu. The kernel's body is lowered by MLIR's
// dialect conversion: every op of the tile kernel is illegal, and each op
// kind has one conversion pattern (TileOpPattern) whose lowering belongs
// to its family. One class per family, each in its own file with its
// pattern set (populatePatterns), lowers an op into the insertion point,
// reading the plans in KernelState and the registers of its operands:
//
//   ControlFlowLowering   scf.for / if / yield, tile.unchecked, tile.join
//   GlobalMemoryLowering  partitions, own, load, store, atomic_add, gather,
//                         prefetch (LowerGlobalMemory.cpp)
//   ElementwiseLowering   element-wise ops, convert, extract, splat, ids
//   ShapeLowering         broadcast, iota, reshape, permute, slice, concat,
//                         roll (through shared memory, in registers, or as
//                         warp shuffles)
//   ReduceLowering        reductions (last dim by shuffles, columns in
//                         registers, general through shared memory)
//   DotLowering           flat dots (FMA, or mma.sync through shared memory)
//   FragmentLowering      ops on tiles in mma fragment layouts, fragment
//                         dots on mma.sync or register-A wgmma
//   AsyncOperandLowering  wgmma B operands copied a loop iteration ahead
//   HopperMatmulLowering  the planned TMA + wgmma matmul, loop to store
//
// KernelLowering owns them and the shared state; every pattern goes
// through KernelLowering::rewrite, which applies the plans that take an op
// out of its family's hands (an async operand's load, the Hopper matmul's
// epilogue, a fragment layout) and replaces the op with its registers.
// The conversion visits the body in pre-order; an op with a region moves
// its body into the op it lowers to and converts those ops itself, in
// order (ConversionPatternRewriter::legalize), so that what its body needs
// (iter-arg layouts, async operand buffers) is in place, and what its
// results need (replication) is known after it.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_TILETOGPU_OPLOWERINGS_H
#define LIB_CONVERSION_TILETOGPU_OPLOWERINGS_H

#include "LoweringState.h"

#include <functional>

namespace tile::gpu_lowering {

class KernelLowering;

/// The conversion pattern of op kind OpT: KernelLowering::rewrite, with
/// `lower` (its family's lowering) where the op lowers flat.
template <typename OpT> class TileOpPattern : public OpConversionPattern<OpT> {
public:
  using Lower = std::function<LogicalResult(OpT)>;
  TileOpPattern(MLIRContext *context, KernelLowering &lowering, Lower lower)
      : OpConversionPattern<OpT>(context), lowering(lowering),
        lower(std::move(lower)) {
    // A loop in a loop converts while the outer one's pattern runs.
    this->setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override;

private:
  KernelLowering &lowering;
  Lower lower;
};

/// Adds the pattern of OpT, lowered by `family`'s member `lower`.
template <typename OpT, typename Family>
void addTileOpPattern(RewritePatternSet &patterns, KernelLowering &lowering,
                      Family &family, LogicalResult (Family::*lower)(OpT)) {
  patterns.add<TileOpPattern<OpT>>(
      patterns.getContext(), lowering,
      [&family, lower](OpT op) { return (family.*lower)(op); });
}

/// What every op lowering reaches: the kernel's state under the names the
/// lowerings use, the shared helpers, and (through `lowering`) the other
/// families.
struct LoweringBase {
  explicit LoweringBase(KernelLowering &lowering);

  KernelLowering &lowering;
  KernelState &state;
  OpBuilder &b;
  gpu::GPUFuncOp &func;
  const int64_t threads;
  IRMapping &map;
  llvm::DenseMap<Value, Value> &fragmentRegs;
  const FragmentPlan &fragments;
  Value &tid, &warpId, &laneId, &laneGroup, &laneInGroup;
  RegisterEmitter &emit;
  SharedScratch &shared;
  FragmentMoves &moves;
};

/// scf.for, scf.if, scf.yield, tile.unchecked and tile.join.
class ControlFlowLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  void populatePatterns(RewritePatternSet &patterns);
  /// Each iter_arg keeps the layout it is assigned; a loop with async
  /// operands copies them ahead.
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerIf(scf::IfOp op);
  LogicalResult lowerYield(scf::YieldOp op);
  /// The region's ops in place; its results in their layouts.
  LogicalResult lowerUnchecked(UncheckedOp op);
  /// tile.join: a ticket per block, the region in the group's last
  /// (LowerJoin.cpp).
  LogicalResult lowerJoin(JoinOp op);
  LogicalResult lowerGridSync(GridSyncOp op);

private:
  /// The iter_args of the tile kernel's loop each lowered scf.for came
  /// from (its yield reads their layouts and replication).
  llvm::DenseMap<Operation *, SmallVector<Value>> tileIterArgs;
};

/// Partitions, claimed blocks, and the ops that access global memory
/// through them (LowerGlobalMemory.cpp).
class GlobalMemoryLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  void populatePatterns(RewritePatternSet &patterns);
  LogicalResult lowerPartition(PartitionOp op);
  LogicalResult lowerNumTiles(NumTilesOp op);
  LogicalResult lowerDim(DimOp op);
  LogicalResult lowerOwn(OwnOp op);
  LogicalResult lowerLoad(LoadOp op);
  LogicalResult lowerStore(StoreOp op);
  LogicalResult lowerAtomicAdd(AtomicAddOp op);
  LogicalResult lowerGather(GatherOp op);
  LogicalResult lowerPrefetch(PrefetchOp op);
  /// The memref and element offsets a tile access through `handle` (a
  /// partition or a claimed block) at `indices` reads or writes.
  std::pair<Value, SmallVector<Value>> resolveAccess(Location loc, Value handle,
                                                     ValueRange indices,
                                                     RankedTensorType type);
  /// `load` again, its tile of shape `from` reloaded as registers of a tile
  /// of `type` (unit dims added or dropped, then broadcast).
  Value reloadInLayout(LoadOp load, ArrayRef<int64_t> from,
                       RankedTensorType type);
  /// Copies the tile of `layout` at element `offsets` of `base`, proven
  /// inside it (tile.in_bounds), into `buf` at `address(linear index of the
  /// slot's first element)` with one 16-byte cp.async per slot.
  void copyTileAsync(Location loc, Value base, ArrayRef<Value> offsets,
                     const Layout &layout, Value buf,
                     function_ref<Value(Value element)> address);
};

/// Element-wise ops, conversions, extracts, splats and the program ids.
class ElementwiseLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  void populatePatterns(RewritePatternSet &patterns);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerConvert(ConvertOp op);
  LogicalResult lowerExtract(ExtractOp op);
  LogicalResult lowerSplat(SplatOp op);
  LogicalResult lowerProgramId(ProgramIdOp op);
  LogicalResult lowerNumPrograms(NumProgramsOp op);
};

/// Ops that move elements between positions (LowerShapeOps.cpp), with
/// the faster forms beside them: broadcasts in registers and of reloaded
/// loads (LowerBroadcast.cpp), shape ops within a warp as shuffles
/// (LowerWarpShuffles.cpp).
class ShapeLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  void populatePatterns(RewritePatternSet &patterns);
  LogicalResult lowerShapeOp(Operation *op);
  /// A shape op whose operands and result fit the first warp, as shuffles;
  /// null where it does not apply.
  Value shapeOpInWarp(Operation *op);
  /// A roll of whole vectors along the last dim whose rows each lie on
  /// lanes of one warp, as one shuffle per register; null where it does
  /// not apply.
  Value rollInWarp(RollOp op);
  /// A broadcast needing no element of another thread, as a splat of
  /// registers; null where it does.
  Value broadcastInRegisters(BroadcastOp op);
  /// A broadcast whose source is computed element-wise from read-only
  /// loads, splats and constants, recomputed in the broadcast's layout;
  /// null where that does not apply.
  Value loadBroadcast(BroadcastOp op);
  Value rematerialize(Value v, ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                      unsigned &budget);
};

/// tile.reduce (LowerReductions.cpp, LowerReduceColumns.cpp).
class ReduceLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  void populatePatterns(RewritePatternSet &patterns);
  LogicalResult lowerReduce(ReduceOp op);
  LogicalResult lowerReduceLastDim(ReduceOp op);
  /// A reduction along a dim with others after it, where each thread's
  /// slots hold the same columns: folded in registers, then across threads.
  /// `reducesColumns` says where it applies.
  bool reducesColumns(ReduceOp op) const;
  LogicalResult lowerReduceColumns(ReduceOp op);
};

/// Dots of flat tiles (LowerDots.cpp).
class DotLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  void populatePatterns(RewritePatternSet &patterns);
  LogicalResult lowerDot(DotOp op);
  LogicalResult lowerDotMMA(DotOp op);
  LogicalResult lowerDotFMA(DotOp op);
};

/// Ops on tiles in mma fragment layouts (LowerFragments.cpp) and the
/// fragment dots on register-A wgmma (LowerWgmmaDots.cpp).
class FragmentLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  /// Lowers `op` in fragment layouts; nullopt when it has none.
  std::optional<LogicalResult> lowerFragmentOp(Operation *op);
  /// A fragment dot's operands: the accumulator and A in their fragment
  /// layouts, and the flat registers of what B stages (a folded permute's
  /// source, N x K, or B itself, K x N).
  struct FragmentDotOperands {
    FragmentLayout accLayout, aLayout;
    Value acc, a, staged;
    RankedTensorType stagedType;
    bool folded = false;
  };
  /// Without `stageB` (B arrives in shared memory by other means) the
  /// staged registers are left null.
  FragmentDotOperands fragmentDotOperands(DotOp op, bool stageB = true);
  LogicalResult lowerFragmentDot(DotOp op);
  LogicalResult lowerFragmentReduce(ReduceOp op, const FragmentLayout &out);
  /// The fragment dot as register-A wgmma on B staged with the 128-byte
  /// swizzle.
  LogicalResult lowerWgmmaDot(DotOp op);
  /// Element index in a rows x cols buffer laid out with the 128-byte
  /// swizzle in 64-element panels (what the wgmma descriptors read) of
  /// linear element `e` (index) of the staged tile.
  Value swizzledElement(Location loc, Value e, int64_t rows, int64_t cols);
};

/// wgmma B operands that tile-plan-async-operands marked: copied one loop
/// iteration ahead with cp.async into their swizzled buffers
/// (LowerAsyncOperands.cpp).
class AsyncOperandLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  /// Plans the async operands of `loop`'s wgmma dots and places their
  /// buffers; empty where none applies.
  SmallVector<AsyncOperand *> planLoop(scf::ForOp loop);
  /// Before the loop: the first iteration's copies (lb, ub lowered).
  void beginLoop(ArrayRef<AsyncOperand *> operands, Value lb, Value ub);
  /// After the loop: the scratch arena is whole again.
  void endLoop(ArrayRef<AsyncOperand *> operands);
  /// Copies the operand's tile for induction value `iv` where iv < ub, and
  /// commits a group (empty where not).
  void issue(const AsyncOperand &operand, Value iv, Value ub);
  /// Before the dot: its copies have landed (this thread's).
  void await(const AsyncOperand &operand, Location loc);
  /// After the dot: the next iteration's copies into its buffer.
  void prefetchNext(const AsyncOperand &operand, Location loc);

  /// The async operands by their dot, and the ops (loads, reshapes) whose
  /// work their copies do.
  llvm::DenseMap<Operation *, AsyncOperand> operands;
  llvm::DenseSet<Operation *> skipped;
};

/// The planned matmul's K loop, accumulator and store as one
/// warp-specialized TMA + wgmma pipeline (LowerHopperMatmul.cpp).
class HopperMatmulLowering : public LoweringBase {
public:
  using LoweringBase::LoweringBase;
  LogicalResult lowerMatmul();
};

/// Lowers one kernel's body into its gpu.func: owns the state, the
/// helpers and the op lowerings, and their patterns' common step.
class KernelLowering {
public:
  KernelLowering(gpu::GPUFuncOp func, int64_t threads);

  /// The conversion patterns of every op kind a kernel body holds.
  void populatePatterns(RewritePatternSet &patterns);
  /// What every pattern does: `op` skipped where a plan lowers it
  /// elsewhere, in fragment layouts where it has them, else `lowerFlat`
  /// (fragment operands moved for it); then replaced by its registers.
  LogicalResult rewrite(Operation *op, ConversionPatternRewriter &rewriter,
                        function_ref<LogicalResult()> lowerFlat);
  /// Converts `op`, an op of a region its parent's pattern moved, now.
  LogicalResult lowerNested(Operation *op);
  /// Emits griddepcontrol.wait, which was deferred past the prefetches
  /// opening the kernel's body.
  void emitGridWait(Location loc);
  /// After the body: the deferred wait if nothing needed it, the scratch
  /// arena's size.
  void finish(Location loc);

  KernelState state;
  RegisterEmitter emit;
  SharedScratch shared;
  FragmentMoves moves;
  ControlFlowLowering control;
  GlobalMemoryLowering memory;
  ElementwiseLowering elementwise;
  ShapeLowering shapes;
  ReduceLowering reductions;
  DotLowering dots;
  FragmentLowering fragmentOps;
  AsyncOperandLowering asyncOperands;
  HopperMatmulLowering hopperMatmul;

private:
  LogicalResult lowerOp(Operation *op, function_ref<LogicalResult()> lowerFlat);
};

template <typename OpT>
LogicalResult
TileOpPattern<OpT>::matchAndRewrite(OpT op, typename OpT::Adaptor,
                                    ConversionPatternRewriter &rewriter) const {
  return lowering.rewrite(op, rewriter, [&] { return lower(op); });
}

} // namespace tile::gpu_lowering

#endif // LIB_CONVERSION_TILETOGPU_OPLOWERINGS_H
