//===- HopperMatmul.h - kernels that run as Hopper TMA+wgmma GEMMs -*- C++ -*-===//
//
// A tile kernel whose body is a tiled matmul (a K loop of
// `acc = dot(load(x[m, k]), permute(load(w[n, k])), acc)` from a zero
// accumulator, over any range of K tiles computed before it, the
// accumulator then taken through element-wise steps and stored to the owned
// tile y[m, n], in the operands' type or as f32 partial sums) is lowered on sm_90a as a warp-specialized kernel: one
// producer warpgroup issues TMA loads into a ring of shared-memory stages
// guarded by mbarriers, BM/64 consumer warpgroups issue wgmma on them and
// store the result. w's tile may be two row blocks of w stacked
// (`concat(load(w[n1, k]), load(w[n2, k]), dim = 0)`: a gate and an up
// projection), and the epilogue may slice the accumulator by columns,
// convert and combine element-wise (SwiGLU), all in the registers wgmma
// leaves it in; the stored tile may be the result's transpose (y[n, m]:
// weights as the dot's A operand and a few tokens as its B, so a wgmma's
// 64 rows are weights rather than mostly padding). The plan is decided
// here, once, so that tilec's manifest
// (block size, shared memory, the TMA descriptors the runtime builds) and
// the lowering agree.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_HOPPERMATMUL_H
#define TILE_CONVERSION_TILETOGPU_HOPPERMATMUL_H

#include "tile/Support/LLVM.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace tile {
class KernelOp;

/// One TMA descriptor the runtime encodes at launch for a kernel argument
/// (a 2-D view, innermost dim first as the driver counts): passed by value
/// (a 128-byte __grid_constant__ parameter) after the kernel's own ABI.
struct TensorMapParam {
  unsigned argument;  ///< kernel argument index of the view
  int64_t box[2];     ///< {columns, rows} of one load
};

struct HopperMatmulPlan {
  unsigned x = 0, w = 0, y = 0; ///< kernel argument indices
  int64_t bm = 0, bn = 0, bk = 0; ///< the tile sizes (bn: accumulator columns)
  int64_t stages = 0;         ///< shared-memory ring depth
  int64_t consumers = 0;      ///< consumer warpgroups (bm / 64)
  int64_t wParts = 1;         ///< row blocks of w per stage (1 or 2)
  int64_t yCols = 0;          ///< columns of the stored tile (the accumulator's)
  /// The tile.permute the kernel stores where y's tile is the result's
  /// transpose ([yCols, bm], owned at [yn, m]): the store writes
  /// accumulator row r, column c to y[c, r]. Null where not transposed.
  mlir::Operation *transpose = nullptr;
  mlir::Type element;        ///< f16 or bf16: x and w (y: this or f32)
  mlir::Value m;             ///< x's (and y's) tile row index
  mlir::Value yn;            ///< y's tile column index
  llvm::SmallVector<mlir::Value, 2> wRows; ///< w's tile row index per part
  mlir::Operation *loop = nullptr; ///< the K loop (scf.for)
  /// The ops between the loop and the store that compute the stored tile,
  /// in order: column slices, converts, splats and element-wise ops, run
  /// on the accumulator in the registers wgmma leaves it in.
  llvm::SmallVector<mlir::Operation *> epilogue;
  mlir::Operation *store = nullptr; ///< the tile.store of the result

  int64_t numWarps() const { return 4 * (1 + consumers); }
  int64_t stageBytes() const { return (bm + bn) * bk * 2; }
  /// The most stages the 227 KB of dynamic shared memory a block may use on
  /// sm_90 holds (1 KB kept for the alignment of the ring).
  int64_t maxStages() const { return (232448 - 1024) / (stageBytes() + 16); }
  /// Dynamic shared memory: the stages, then a full and an empty mbarrier
  /// per stage.
  int64_t sharedBytes() const { return stages * stageBytes() + 16 * stages; }
  /// The TMA descriptors the kernel takes last, in order: x's, then w's
  /// (one, however many row blocks of w a stage takes).
  std::array<TensorMapParam, 2> tensorMaps() const {
    return {TensorMapParam{x, {bk, bm}}, TensorMapParam{w, {bk, bn / wParts}}};
  }
};

/// The plan for `kernel`, or nothing when its body is not a tiled matmul
/// this lowering supports (f16/bf16 operands, a result of their type or
/// f32, bk = 64, bm in {64, 128},
/// bn a multiple of 8 up to 256, and of 8 per part of w); then `whyNot`
/// (when given) says which condition failed first.
std::optional<HopperMatmulPlan> planHopperMatmul(KernelOp kernel,
                                                 std::string *whyNot = nullptr);

/// The attribute `tile-plan-hopper-matmul` writes and the lowering reads.
inline constexpr llvm::StringLiteral kHopperMatmulAttrName = "tile.hopper_matmul";

/// The plan `kernel` carries (its `tile.hopper_matmul`), its structure
/// matched again and the attribute's stages applied; nothing when it
/// carries none. A plan the body does not fit is an error at `kernel`.
mlir::FailureOr<std::optional<HopperMatmulPlan>> pinnedHopperMatmulPlan(KernelOp kernel);

/// The plan's attribute form.
mlir::DictionaryAttr hopperMatmulPlanAttr(mlir::MLIRContext *context,
                                          const HopperMatmulPlan &plan);

/// Whether `kernel` is a candidate for planHopperMatmul: a dot inside a
/// loop (its optimisation remarks report only candidates).
bool isMatmulCandidate(KernelOp kernel);

/// The chips that run planned kernels as Hopper GEMMs.
bool hasHopperMatmul(llvm::StringRef chip);

/// The function attribute carrying how many trailing parameters of a GPU
/// kernel are TMA descriptors passed by value (tile-grid-constant-params).
inline constexpr llvm::StringLiteral kTensorMapParamsAttrName =
    "tile.tensor_map_params";

} // namespace tile

#endif // TILE_CONVERSION_TILETOGPU_HOPPERMATMUL_H
