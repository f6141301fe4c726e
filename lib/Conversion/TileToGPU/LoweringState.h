//===- LoweringState.h - what the lowering of one kernel shares -*- C++ -*-===//
//
// Private to convert-tile-to-gpu. The lowering of one tile.kernel into its
// gpu.func shares four things, each its own small object:
//  - KernelState: the builder, the function, the plans the plan passes
//    wrote (fragment layouts, the Hopper matmul), the thread and lane ids
//    built at the entry, and the values lowered so far;
//  - RegisterEmitter: index constants, register vectors built slot by
//    slot, warp shuffles, cloned combiners;
//  - SharedScratch: the kernel's shared-memory scratch arena, which ops use
//    one at a time (each begins with a barrier);
//  - FragmentMoves: tiles moved between the flat layout and mma fragment
//    layouts through that arena.
// The op lowerings (OpLowerings.h) reach them by reference.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_TILETOGPU_LOWERINGSTATE_H
#define LIB_CONVERSION_TILETOGPU_LOWERINGSTATE_H

#include "Layouts.h"

#include "mlir/Transforms/DialectConversion.h"

namespace tile::gpu_lowering {

/// What a kernel's values lower to: a view to a strided memref, a tile to
/// the register vector of its distribution over the block (flat, or, with
/// a fragment plan, the mma fragment layout the plan gave the value), and
/// any other type to itself. The kernel's signature and the results of
/// branches take these types, and every op's replacement is checked
/// against them (KernelLowering::rewrite).
class TileTypeConverter : public TypeConverter {
public:
  explicit TileTypeConverter(int64_t threads,
                             const FragmentPlan *fragments = nullptr);
};

/// The state of one kernel's lowering: what the plans decided and what has
/// been lowered so far.
struct KernelState {
  KernelState(gpu::GPUFuncOp func, int64_t threads)
      : b(func.getContext()), func(func), threads(threads),
        types(threads, &fragments) {}

  /// The layout `v` is assigned (none: flat).
  std::optional<FragmentLayout> layoutOf(Value v) const;
  /// Whether fragment dot `op` runs as wgmma, as tile-plan-fragments
  /// planned.
  bool runsOnWgmma(DotOp op) const {
    return fragments.wgmmaDots.count(op) != 0;
  }
  /// How many threads, from thread 0, hold single-element tile `v` in their
  /// registers: the flat layout promises thread 0 only (1); a scalar is in
  /// every thread. See `replicated`.
  int64_t replicatedIn(Value v) const;
  /// Records result `v` as held by threads 0 .. n - 1 (single-element
  /// tiles only; others are ignored).
  void setReplicated(Value v, int64_t n);

  /// What every lowering builds with: at the insertion point of the op
  /// being converted, reporting what it creates to the conversion's
  /// rewriter (its listener), so the driver tracks it as the rewriter's own.
  OpBuilder b;
  /// The rewriter of the running conversion (set by each pattern).
  ConversionPatternRewriter *rewriter = nullptr;
  gpu::GPUFuncOp func;
  int64_t threads;
  /// l2-prefetch: tile.prefetch as prefetch.global.L2 (else dropped).
  bool l2Prefetch = true;
  /// f8-conversions: e4m3 widened by cvt.rn.f16x2.e4m3x2 (lowerConvert).
  bool f8Conversions = false;
  /// The kernel's Hopper matmul plan, when it runs as one.
  const HopperMatmulPlan *hopper = nullptr;
  /// The kernel's fragment layouts (empty without fragment dots).
  FragmentPlan fragments;
  /// The register types of its values, in those layouts.
  TileTypeConverter types;
  /// The thread id, and warp, lane, lane / 4 and lane % 4 (index; the
  /// last four only in kernels with fragment dots), built once at the
  /// kernel's entry.
  Value tid, warpId, laneId, laneGroup, laneInGroup;
  /// The flat registers (or scalars) of the values lowered so far.
  IRMapping map;
  /// The registers of the tiles that live in a fragment layout.
  llvm::DenseMap<Value, Value> fragmentRegs;
  /// Single-element tiles computed in more threads than thread 0, which is
  /// all the flat layout asks: a reduction's result is in every thread of
  /// its shuffle group, a splat or a single-element load in every thread,
  /// and element-wise ops keep the fewest of their operands'. A broadcast,
  /// an extract or a loop-carried value that needs the element in no more
  /// threads than hold it takes it from its own registers, not through
  /// shared memory (two barriers each).
  llvm::DenseMap<Value, int64_t> replicated;
  /// What partitions and claimed blocks lowered to (memref, tile shape).
  llvm::DenseMap<Value, std::pair<Value, ArrayRef<int64_t>>> partitions;
  llvm::DenseMap<Value, Value> blocks;
  /// The kernel's body while its griddepcontrol.wait is still to be placed.
  Block *gridWaitBlock = nullptr;
  /// Whether a lowering failed (and said why).
  bool failed = false;
};

/// Index constants, register vectors of the flat layout built and taken
/// apart slot by slot, warp shuffles and cloned combiner regions.
class RegisterEmitter {
public:
  explicit RegisterEmitter(KernelState &state) : state(state), b(state.b) {}

  Value index(int64_t v);
  Value threadId() { return state.tid; }
  Value zeroOf(Type type);
  /// Builds the registers of a tile of `layout`: `element(slot, lane,
  /// linear index)` gives each element; positions past the tile give zero.
  Value buildRegisters(Location loc, const Layout &layout,
                       function_ref<Value(int64_t, int64_t, Value)> element);
  /// Replaces slot `k` (vec lanes) of the register vector `regs`.
  Value insertSlot(Location loc, Value regs, Value slot, int64_t k);
  Value extractSlot(Location loc, Value regs, int64_t k, int64_t vec);
  /// Row-major multi-index of a linear index of `shape`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape);
  Value linearize(ArrayRef<Value> indices, ArrayRef<int64_t> shape);
  Value shuffleXor(Location loc, Value v, int32_t offset);
  /// `v` of lane `lane` (i32) of this thread's warp (shfl.idx).
  Value shuffleIdx(Location loc, Value v, Value lane);
  /// `v` of lane 0 of this thread's warp.
  Value shuffleFromLane0(Location loc, Value v);
  /// Clones `combiner` (2N scalar args, yields N) on `lhs` and `rhs`.
  SmallVector<Value> combine(Region &combiner, ValueRange lhs, ValueRange rhs);

private:
  KernelState &state;
  OpBuilder &b;
};

/// The kernel's shared-memory scratch arena. Every op lowering starts
/// again at offset 0 (the floor, while a loop's async operands hold the
/// arena's start): ops use shared memory one at a time, and each begins
/// with a barrier.
class SharedScratch {
public:
  SharedScratch(KernelState &state, RegisterEmitter &emit)
      : state(state), emit(emit), b(state.b) {}

  /// Buffers of the given element types and sizes, placed one after the
  /// other from the floor.
  SmallVector<Value> scratch(Location loc,
                             ArrayRef<std::pair<Type, int64_t>> buffers);
  /// Raises the arena's alignment to `bytes`.
  void align(int64_t bytes);
  /// Where scratch() starts: past the async operands' buffers while their
  /// loop runs.
  void setFloor(int64_t bytes) { floor = bytes; }
  int64_t getFloor() const { return floor; }
  /// The arena itself (bytes), once a buffer has been placed in it.
  BlockArgument getArena() const { return arena; }
  /// Gives the arena its final size (after the kernel is lowered).
  void finish();
  /// Writes tiles to shared memory (a barrier before, so earlier readers of
  /// the arena are done, and one after) and returns one buffer per tile,
  /// indexed by linear element index.
  SmallVector<Value> toShared(Location loc, ValueRange tiles);
  Value toShared(Location loc, Value tile) {
    return toShared(loc, ValueRange{tile})[0];
  }
  void writeShared(Location loc, Value tile, Value buf);
  /// Writes flat registers to `buf` at their linear index, or, with a
  /// `rowStride`, at row * rowStride + column (rows padded in memory).
  void writeSharedRegs(Location loc, Value regs, const Layout &layout,
                       Value buf, int64_t rowStride = 0);
  /// Writes flat registers to `buf` at `address(linear index of the
  /// slot's first element)`: a slot's elements lie consecutively there.
  void writeSharedRegs(Location loc, Value regs, const Layout &layout,
                       Value buf, function_ref<Value(Value element)> address);

private:
  KernelState &state;
  RegisterEmitter &emit;
  OpBuilder &b;
  BlockArgument arena;
  int64_t arenaBytes = 0;
  int64_t floor = 0;
};

/// Tiles in the layouts tile-plan-fragments assigned: their registers, and
/// moves between layouts through the scratch arena, by element index.
class FragmentMoves {
public:
  FragmentMoves(KernelState &state, RegisterEmitter &emit,
                SharedScratch &shared)
      : state(state), emit(emit), shared(shared), b(state.b) {}

  VectorType registerType(RankedTensorType type,
                          std::optional<FragmentLayout> layout) const;
  /// Row and column (index values) of register `reg` of `layout`.
  std::pair<Value, Value> fragmentElement(const FragmentLayout &layout,
                                          int64_t reg);
  /// Registers of `type` in `from` rewritten in `to`, through shared memory.
  Value relayout(Location loc, Value regs, RankedTensorType type,
                 std::optional<FragmentLayout> from,
                 std::optional<FragmentLayout> to);
  /// The registers of tile `v` in `want` (none: flat), moved through shared
  /// memory when `v` lives in another layout.
  Value operandIn(Value v, std::optional<FragmentLayout> want);
  /// Records the registers `regs` (in layout `have`) of result `v`, moved to
  /// the layout `v` is assigned.
  void setResult(Value v, Value regs, std::optional<FragmentLayout> have);

private:
  KernelState &state;
  RegisterEmitter &emit;
  SharedScratch &shared;
  OpBuilder &b;
};

} // namespace tile::gpu_lowering

#endif // LIB_CONVERSION_TILETOGPU_LOWERINGSTATE_H
