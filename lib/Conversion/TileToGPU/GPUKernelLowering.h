//===- GPUKernelLowering.h - distributing tiles over a thread block -*- C++ -*-===//
//
// Private to convert-tile-to-gpu.
//
// One program runs as one thread block of T threads. Every tile uses the
// same distribution, which depends only on its shape: the tile is split, in
// row-major order, into vectors of `vec` consecutive elements along its last
// dim (vec = the largest power of two <= 8 dividing that dim), and vector
// position p goes to thread p % T, slot p / T. A thread keeps its slots in
// one register vector<slots*vec x T>; lane i of slot k of thread t holds the
// element of linear (row-major) index ((t + k*T) * vec + i).
//
// Tiles of one shape are therefore always aligned, whatever their element
// type, so element-wise ops and conversions need no data movement; global
// loads and stores are `vec`-wide and coalesced across the block; reductions
// along the last dim use intra-thread combining and warp shuffles. Every
// other data movement (broadcast, permute, slice, concat, extract, general
// reductions, dot) goes through shared memory.
//
// Kernels with tensor-core dots keep the tiles around them in fragment
// layouts instead (FragmentLayout below, assigned by FragmentLayouts.cpp):
// the dot's accumulator stays in the registers mma.sync writes, row
// reductions are shuffles within a quad, and its A operand is built from
// those registers, so a flash-attention step never leaves registers except
// for the B operand (shared memory, ldmatrix).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_TILETOGPU_GPUKERNELLOWERING_H
#define LIB_CONVERSION_TILETOGPU_GPUKERNELLOWERING_H

#include "tile/Conversion/TileToGPU/HopperMatmul.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace tile::gpu_lowering {

/// The distribution of one tile shape over T threads.
struct Layout {
  RankedTensorType type;
  int64_t vec = 1;       ///< consecutive elements per vector position
  int64_t positions = 1; ///< vector positions in the tile
  int64_t slots = 1;     ///< positions per thread
  int64_t threads = 1;

  static Layout get(RankedTensorType type, int64_t threads);
  int64_t registers() const { return slots * vec; }
  VectorType registerType() const {
    return VectorType::get({registers()}, type.getElementType());
  }
  VectorType slotType() const {
    return VectorType::get({vec}, type.getElementType());
  }
};

/// The registers of a tile that lives in the distribution of mma.sync
/// m16n8k16 accumulators (warp w of W owns rows 16*(i*W + w) .. + 16 of
/// m-tile i; lane = 4*g + t):
///  - Acc, an m x n tile: register (i*nTiles + j)*4 + r holds row
///    16*(i*W + w) + g + 8*(r/2), column 8*j + 2*t + r%2;
///  - Rows, an m x 1 (or m) tile, per row of Acc: register 2*i + h holds row
///    16*(i*W + w) + g + 8*h (the four lanes of a quad hold the same rows);
///  - Cols, a 1 x n (or n) tile, per column of Acc: register 2*j + c holds
///    column 8*j + 2*t + c.
/// An A operand of a dot is its Acc layout of m x k: the registers of two
/// neighbouring 8-column tiles are an m16n8k16 A fragment.
struct FragmentLayout {
  enum class Kind { Acc, Rows, Cols };
  Kind kind = Kind::Acc;
  int64_t m = 0, n = 0; ///< Acc: both; Rows: m only; Cols: n only
  int64_t warps = 1;

  static FragmentLayout acc(int64_t m, int64_t n, int64_t warps) {
    return {Kind::Acc, m, n, warps};
  }
  static FragmentLayout rows(int64_t m, int64_t warps) {
    return {Kind::Rows, m, 0, warps};
  }
  static FragmentLayout cols(int64_t n, int64_t warps) {
    return {Kind::Cols, 0, n, warps};
  }
  int64_t mTiles() const { return m / (16 * warps); }
  int64_t nTiles() const { return n / 8; }
  int64_t registers() const;
  /// Whether a tile of `shape` can have this layout.
  bool fits(ArrayRef<int64_t> shape) const;
  bool operator==(const FragmentLayout &o) const {
    return kind == o.kind && m == o.m && n == o.n && warps == o.warps;
  }
  bool operator!=(const FragmentLayout &o) const { return !(*this == o); }
};

/// What FragmentLayouts.cpp decides for a kernel: the layout of every tile
/// that is not flat, and the permutes that only feed dots as B operands
/// (the dot reads the permute's source transposed from shared memory).
struct FragmentPlan {
  llvm::DenseMap<Value, FragmentLayout> layouts;
  llvm::DenseSet<Operation *> foldedPermutes;
  llvm::DenseSet<Operation *> dots;
  /// The fragment dots that run as register-A wgmma (sm_90a), the others
  /// on mma.sync.
  llvm::DenseSet<Operation *> wgmmaDots;
};

/// Whether `op` runs on tensor cores with fragment layouts for `threads`.
bool isFragmentDot(DotOp op, int64_t threads);
/// Which of isFragmentDot's conditions `op` fails; none when it meets them.
std::optional<std::string> whyNotFragmentDot(DotOp op, int64_t threads);
/// Assigns fragment layouts around the fragment dots of `kernel`.
FragmentPlan planFragmentLayouts(Operation *kernel, int64_t threads);
/// Which condition keeps fragment dot `op` of `plan` off register-A wgmma
/// (one 64-row slab per warpgroup, N up to 256, B's contiguous dim whole
/// 64-element swizzle panels); none when it can run on it.
std::optional<std::string> whyNotWgmmaDot(DotOp op, int64_t threads, const FragmentPlan &plan);
/// The plan tile-plan-fragments wrote on `kernel` (PlanFragments.cpp), for
/// `threads` per program; an error where it is malformed or does not fit.
FailureOr<FragmentPlan> readFragmentPlan(Operation *kernel, int64_t threads);
/// Whether `kernel` carries a fragment plan (a dot marked to run on one).
bool hasFragmentPlan(Operation *kernel);
/// The threads per program of a kernel without a Hopper matmul plan: its
/// tile.num_warps, else `numWarps`, times 32.
int64_t programThreads(KernelOp kernel, int64_t numWarps);

/// A wgmma dot's B load copied ahead with cp.async (tile-plan-async-operands
/// marks it, LowerAsyncOperands.cpp lowers it).
inline constexpr llvm::StringLiteral kCopyAheadAttrName = "tile.copy_ahead";
/// The load whose tile dot `dot` stages as B in `loop`'s body (through
/// reshapes and a folded permute, each used once, recorded in `chain`),
/// or null.
LoadOp stagedLoad(DotOp dot, scf::ForOp loop, const FragmentPlan &fragments,
                  SmallVectorImpl<Operation *> &chain);
/// Which condition keeps `load` from being copied ahead with 16-byte
/// cp.async in `loop`; none when it can be.
std::optional<std::string> whyNotCopyAhead(LoadOp load, scf::ForOp loop, int64_t threads);
/// Which condition keeps wgmma dot `dot`'s B in `loop` from being copied
/// ahead (an innermost loop, a staged load, whyNotCopyAhead); none when
/// it can be, `chain` then the staged values from B back to the load.
std::optional<std::string> whyNotAsyncOperand(DotOp dot, scf::ForOp loop, int64_t threads,
                                              const FragmentPlan &fragments,
                                              SmallVectorImpl<Operation *> &chain);

/// A prefetch, or a load of memory no launch the kernel overlaps writes (a
/// `frozen` or `settled` partition): what may run before the kernel waits
/// for the grid before it.
bool accessesBeforeGridWait(Operation &op);

/// The dims of `shape` other than 1, in order: what reshapes that add or
/// drop unit dims leave unchanged.
SmallVector<int64_t> nonUnitSizes(ArrayRef<int64_t> shape);

/// The wgmma matrix descriptor (i64) of a shared-memory operand at shared
/// address `addr` (i64) laid out with the 128-byte swizzle (what TMA's
/// 128-byte swizzle writes): 8-row groups of 128-byte rows 1024 bytes
/// apart, and `leadingBytes` between 64-element panels along the
/// contiguous dim where the operand is read MN-major (16, unused, for
/// K-major). LowerWgmmaDots.cpp.
Value swizzle128Descriptor(OpBuilder &b, Location loc, Value addr,
                           int64_t leadingBytes);
/// A 128-byte swizzled buffer's alignment: the swizzle's period, 8 rows of
/// 128 bytes.
inline constexpr int64_t kSwizzle128Align = 1024;

/// A wgmma dot's B operand loaded in a loop body and copied one iteration
/// ahead with cp.async instead (LowerAsyncOperands.cpp).
struct AsyncOperand {
  LoadOp load;
  scf::ForOp loop;
  /// The operand's buffer at the start of the scratch space, in the
  /// 128-byte swizzled layout the dot reads.
  Value buffer;
  /// The tile the dot stages (rows x cols), the load's elements in order.
  RankedTensorType staged;
  /// Commit groups issued after this operand's when its dot runs.
  int64_t groupsAfter = 0;
};

class GPUKernelLowering {
public:
  GPUKernelLowering(OpBuilder &builder, gpu::GPUFuncOp func, int64_t threads)
      : b(builder), func(func), threads(threads) {}

  /// Lowers the ops of `block` (of the tile kernel) into the insertion point.
  LogicalResult lowerBlock(Block &block);
  /// Emits griddepcontrol.wait, which was deferred past the prefetches
  /// opening the kernel's body.
  void emitGridWait(Location loc);

  /// The register vector or scalar `v` lowered to.
  Value lookup(Value v) { return map.lookup(v); }

  // -- Helpers shared by the op lowerings -----------------------------------
  Value index(int64_t v);
  Value threadId();
  /// Builds the registers of a tile of `layout`: `element(slot, lane,
  /// linear index)` gives each element; positions past the tile give zero.
  Value buildRegisters(Location loc, const Layout &layout,
                       function_ref<Value(int64_t, int64_t, Value)> element);
  /// Writes tiles to shared memory (a barrier before, so earlier readers of
  /// the scratch space are done, and one after) and returns one buffer per
  /// tile, indexed by linear element index.
  SmallVector<Value> toShared(Location loc, ValueRange tiles);
  Value toShared(Location loc, Value tile) {
    return toShared(loc, ValueRange{tile})[0];
  }
  /// Buffers of the given element types and sizes, placed one after the
  /// other in the kernel's shared scratch space. Every op lowering starts
  /// again at offset 0: ops use shared memory one at a time, and each begins
  /// with a barrier.
  SmallVector<Value> scratch(Location loc,
                             ArrayRef<std::pair<Type, int64_t>> buffers);
  void writeShared(Location loc, Value tile, Value buf);
  /// Writes flat registers to `buf` at their linear index, or, with a
  /// `rowStride`, at row * rowStride + column (rows padded in memory).
  void writeSharedRegs(Location loc, Value regs, const Layout &layout,
                       Value buf, int64_t rowStride = 0);
  /// Writes flat registers to `buf` at `address(linear index of the
  /// slot's first element)`: a slot's elements lie consecutively there.
  void writeSharedRegs(Location loc, Value regs, const Layout &layout,
                       Value buf, function_ref<Value(Value element)> address);
  /// Copies the tile of `layout` at element `offsets` of `base`, proven
  /// inside it (tile.in_bounds), into `buf` at `address(linear index of the
  /// slot's first element)` with one 16-byte cp.async per slot
  /// (LowerGlobalMemory.cpp).
  void copyTileAsync(Location loc, Value base, ArrayRef<Value> offsets,
                     const Layout &layout, Value buf,
                     function_ref<Value(Value element)> address);
  /// Gives the scratch space its final size (after the kernel is lowered).
  void finishScratch();
  /// Row-major multi-index of a linear index of `shape`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape);
  Value linearize(ArrayRef<Value> indices, ArrayRef<int64_t> shape);
  Value zeroOf(Type type);
  /// Replaces slot `k` (vec lanes) of the register vector `regs`.
  Value insertSlot(Location loc, Value regs, Value slot, int64_t k);
  Value extractSlot(Location loc, Value regs, int64_t k, int64_t vec);
  Value shuffleXor(Location loc, Value v, int32_t offset);
  /// `v` of lane `lane` (i32) of this thread's warp (shfl.idx).
  Value shuffleIdx(Location loc, Value v, Value lane);
  /// `v` of lane 0 of this thread's warp.
  Value shuffleFromLane0(Location loc, Value v);
  /// How many threads, from thread 0, hold single-element tile `v` in their
  /// registers: the flat layout promises thread 0 only (1); a scalar is in
  /// every thread. See `replicated`.
  int64_t replicatedIn(Value v) const;
  /// Records result `v` as held by threads 0 .. n - 1 (single-element
  /// tiles only; others are ignored).
  void setReplicated(Value v, int64_t n);
  /// Clones `combiner` (2N scalar args, yields N) on `lhs` and `rhs`.
  SmallVector<Value> combine(Region &combiner, ValueRange lhs, ValueRange rhs);

  // -- Op lowerings -----------------------------------------------------------
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerIf(scf::IfOp op);
  LogicalResult lowerLoad(LoadOp op);
  LogicalResult lowerStore(StoreOp op);
  LogicalResult lowerAtomicAdd(AtomicAddOp op);
  LogicalResult lowerGather(GatherOp op);
  LogicalResult lowerPrefetch(PrefetchOp op);
  /// tile.join: a ticket per block, the region in the group's last
  /// (LowerJoin.cpp).
  LogicalResult lowerJoin(JoinOp op);
  /// A broadcast whose source is computed element-wise from read-only
  /// loads, splats and constants, recomputed in the broadcast's layout
  /// (LowerBroadcast.cpp); null where that does not apply.
  Value loadBroadcast(BroadcastOp op);
  /// A broadcast needing no element of another thread, as a splat of
  /// registers (LowerBroadcast.cpp); null where it does.
  Value broadcastInRegisters(BroadcastOp op);
  Value rematerialize(Value v, ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                      unsigned &budget);
  Value reloadInLayout(LoadOp load, ArrayRef<int64_t> from,
                       RankedTensorType type);
  LogicalResult lowerOwn(OwnOp op);
  std::pair<Value, SmallVector<Value>> resolveAccess(Location loc,
                                                     Value handle,
                                                     ValueRange indices,
                                                     RankedTensorType type);
  LogicalResult lowerReduce(ReduceOp op);
  LogicalResult lowerReduceLastDim(ReduceOp op);
  /// A reduction along a dim with others after it, where each thread's
  /// slots hold the same columns: folded in registers, then across threads
  /// (LowerReduceColumns.cpp). `reducesColumns` says where it applies.
  bool reducesColumns(ReduceOp op) const;
  LogicalResult lowerReduceColumns(ReduceOp op);
  LogicalResult lowerShapeOp(Operation *op);
  /// A shape op whose operands and result fit the first warp, as shuffles
  /// (LowerWarpShuffles.cpp); null where it does not apply.
  Value shapeOpInWarp(Operation *op);
  /// A roll of whole vectors along the last dim whose rows each lie on
  /// lanes of one warp, as one shuffle per register (LowerWarpShuffles.cpp);
  /// null where it does not apply.
  Value rollInWarp(RollOp op);
  LogicalResult lowerDot(DotOp op);
  LogicalResult lowerDotMMA(DotOp op);
  LogicalResult lowerDotFMA(DotOp op);
  LogicalResult lowerConvert(ConvertOp op);
  LogicalResult lowerExtract(ExtractOp op);
  // -- Fragment layouts (LowerFragments.cpp) ---------------------------------
  /// The layout `v` is assigned (none: flat).
  std::optional<FragmentLayout> layoutOf(Value v) const;
  /// The registers of tile `v` in `want` (none: flat), moved through shared
  /// memory when `v` lives in another layout.
  Value operandIn(Value v, std::optional<FragmentLayout> want);
  /// Records the registers `regs` (in layout `have`) of result `v`, moved to
  /// the layout `v` is assigned.
  void setResult(Value v, Value regs, std::optional<FragmentLayout> have);
  /// Registers of `type` in `from` rewritten in `to`, through shared memory.
  Value relayout(Location loc, Value regs, RankedTensorType type,
                 std::optional<FragmentLayout> from,
                 std::optional<FragmentLayout> to);
  VectorType registerType(RankedTensorType type,
                          std::optional<FragmentLayout> layout) const;
  /// Row and column (index values) of register `reg` of `layout`.
  std::pair<Value, Value> fragmentElement(const FragmentLayout &layout,
                                          int64_t reg);
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
  /// Whether fragment dot `op` runs as wgmma (LowerWgmmaDots.cpp), as
  /// tile-plan-fragments planned.
  bool runsOnWgmma(DotOp op) const { return fragments.wgmmaDots.count(op) != 0; }
  /// The fragment dot as register-A wgmma on B staged with the 128-byte
  /// swizzle (LowerWgmmaDots.cpp).
  LogicalResult lowerWgmmaDot(DotOp op);
  /// Element index in a rows x cols buffer laid out with the 128-byte
  /// swizzle in 64-element panels (what the wgmma descriptors read) of
  /// linear element `e` (index) of the staged tile.
  Value swizzledElement(Location loc, Value e, int64_t rows, int64_t cols);
  // -- Dot operands copied ahead (LowerAsyncOperands.cpp) -------------------
  /// Plans the async operands of `loop`'s wgmma dots and places their
  /// buffers; empty where none applies.
  SmallVector<AsyncOperand *> planAsyncOperands(scf::ForOp loop);
  /// Before the loop: the first iteration's copies (lb, ub lowered).
  void beginAsyncLoop(ArrayRef<AsyncOperand *> operands, Value lb, Value ub);
  /// After the loop: the scratch space is whole again.
  void endAsyncLoop(ArrayRef<AsyncOperand *> operands);
  /// Copies the operand's tile for induction value `iv` where iv < ub, and
  /// commits a group (empty where not).
  void issueAsyncOperand(const AsyncOperand &operand, Value iv, Value ub);
  /// Before the dot: its copies have landed (this thread's).
  void awaitAsyncOperand(const AsyncOperand &operand, Location loc);
  /// After the dot: the next iteration's copies into its buffer.
  void prefetchAsyncOperand(const AsyncOperand &operand, Location loc);
  /// Raises the scratch space's alignment to `bytes`.
  void alignScratch(int64_t bytes);
  LogicalResult lowerFragmentReduce(ReduceOp op, const FragmentLayout &out);
  /// Lowers `op` with flat operands (tiles in fragments are moved for it).
  LogicalResult lowerFlatOp(Operation *op);

  /// The planned matmul's K loop, accumulator and store as one
  /// warp-specialized TMA + wgmma pipeline (LowerHopperMatmul.cpp).
  LogicalResult lowerHopperMatmul();

  OpBuilder &b;
  gpu::GPUFuncOp func;
  int64_t threads;
  /// l2-prefetch: tile.prefetch as prefetch.global.L2 (else dropped).
  bool l2Prefetch = true;
  /// f8-conversions: e4m3 widened by cvt.rn.f16x2.e4m3x2 (lowerConvert).
  bool f8Conversions = false;
  /// The async operands by their dot, and the ops (loads, reshapes) whose
  /// work their copies do.
  llvm::DenseMap<Operation *, AsyncOperand> asyncOperands;
  llvm::DenseSet<Operation *> asyncSkipped;
  /// Where scratch() starts: past the async operands' buffers while their
  /// loop runs.
  int64_t scratchFloor = 0;
  /// The kernel's fragment layouts (empty without fragment dots) and the
  /// registers of the tiles that have one.
  FragmentPlan fragments;
  llvm::DenseMap<Value, Value> fragmentRegs;
  /// warp, lane, lane / 4 and lane % 4 (index), built once at the kernel's
  /// entry.
  Value warpId, laneId, laneGroup, laneInGroup;
  /// The kernel's Hopper matmul plan, when it runs as one.
  const HopperMatmulPlan *hopper = nullptr;
  IRMapping map;
  Value tid;
  /// The kernel's body while its griddepcontrol.wait is still to be placed.
  Block *gridWaitBlock = nullptr;
  /// The scratch space (bytes) and the most any op needs of it.
  BlockArgument scratchSpace;
  int64_t scratchBytes = 0;
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
};

} // namespace tile::gpu_lowering

#endif // LIB_CONVERSION_TILETOGPU_GPUKERNELLOWERING_H
