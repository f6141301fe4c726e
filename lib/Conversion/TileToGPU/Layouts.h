//===- Layouts.h - how tiles are distributed over a thread block -*- C++
//-*-===//
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

#ifndef LIB_CONVERSION_TILETOGPU_LAYOUTS_H
#define LIB_CONVERSION_TILETOGPU_LAYOUTS_H

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

/// The registers of a tile of `type` in `layout` (none: the flat layout
/// over `threads`).
VectorType tileRegisterType(RankedTensorType type,
                            std::optional<FragmentLayout> layout,
                            int64_t threads);

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
std::optional<std::string> whyNotWgmmaDot(DotOp op, int64_t threads,
                                          const FragmentPlan &plan);
/// The plan tile-plan-fragments wrote on `kernel` (PlanFragments.cpp), for
/// `threads` per program; an error where it is malformed or does not fit.
FailureOr<FragmentPlan> readFragmentPlan(Operation *kernel, int64_t threads);
/// Whether `kernel` carries a fragment plan (a dot marked to run on one).
bool hasFragmentPlan(Operation *kernel);
/// The threads per program of a kernel without a Hopper matmul plan: its
/// tile.num_warps, else `numWarps`, times 32.
int64_t programThreads(KernelOp kernel, int64_t numWarps);

/// The path of a dot without fragments, whose operands and accumulator go
/// through shared memory at each use: "mma_sync" or "fma"
/// (tile-plan-fragments writes it; the lowering follows it, or without it
/// takes staged mma.sync wherever whyNotStagedMma allows).
inline constexpr llvm::StringLiteral kFlatDotAttrName = "tile.flat_dot";
/// Which condition keeps dot `op` off staged mma.sync (f16 operands; M, N
/// and K multiples of 16, 8 and 16; A, B and the f32 accumulator within
/// the 48 KB of static shared memory); none when it can run on it
/// (LowerDots.cpp).
std::optional<std::string> whyNotStagedMma(DotOp op);

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
std::optional<std::string> whyNotCopyAhead(LoadOp load, scf::ForOp loop,
                                           int64_t threads);
/// Which condition keeps wgmma dot `dot`'s B in `loop` from being copied
/// ahead (an innermost loop, a staged load, whyNotCopyAhead); none when
/// it can be, `chain` then the staged values from B back to the load.
std::optional<std::string>
whyNotAsyncOperand(DotOp dot, scf::ForOp loop, int64_t threads,
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
  /// The loop's induction variable (its body moves into the lowered loop).
  Value inductionVar;
  /// The operand's buffer at the start of the scratch space, in the
  /// 128-byte swizzled layout the dot reads.
  Value buffer;
  /// The tile the dot stages (rows x cols), the load's elements in order.
  RankedTensorType staged;
  /// Commit groups issued after this operand's when its dot runs.
  int64_t groupsAfter = 0;
};

} // namespace tile::gpu_lowering

#endif // LIB_CONVERSION_TILETOGPU_LAYOUTS_H
