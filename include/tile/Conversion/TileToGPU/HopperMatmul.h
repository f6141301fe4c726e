//===- HopperMatmul.h - kernels that run as Hopper TMA+wgmma GEMMs -*- C++ -*-===//
//
// A tile kernel whose body is a tiled matmul (a K loop of
// `acc = dot(load(x[m, k]), permute(load(w[n, k])), acc)` from zero, the
// accumulator converted and stored to the owned tile y[m, n]) is lowered on
// sm_90a as a warp-specialized kernel: one producer warpgroup issues TMA
// loads into a ring of shared-memory stages guarded by mbarriers, BM/64
// consumer warpgroups issue wgmma on them and store the result. The plan is
// decided here, once, so that tilec's manifest (block size, shared memory,
// the TMA descriptors the runtime builds) and the lowering agree.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_HOPPERMATMUL_H
#define TILE_CONVERSION_TILETOGPU_HOPPERMATMUL_H

#include "tile/Support/LLVM.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>

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
  unsigned x, w, y;          ///< kernel argument indices
  int64_t bm, bn, bk;        ///< the tile sizes of the kernel
  int64_t stages;            ///< shared-memory ring depth
  int64_t consumers;         ///< consumer warpgroups (bm / 64)
  mlir::Type element;        ///< f16 or bf16: x, w and y
  mlir::Value m, n;          ///< the tile indices of x and w (and y)
  mlir::Operation *loop;     ///< the K loop (scf.for)
  mlir::Operation *convert;  ///< the accumulator's tile.convert
  mlir::Operation *store;    ///< the tile.store of the result

  int64_t numWarps() const { return 4 * (1 + consumers); }
  int64_t stageBytes() const { return (bm + bn) * bk * 2; }
  /// Dynamic shared memory: the stages, then a full and an empty mbarrier
  /// per stage.
  int64_t sharedBytes() const { return stages * stageBytes() + 16 * stages; }
  /// The TMA descriptors the kernel takes last, in order: x's, then w's.
  std::array<TensorMapParam, 2> tensorMaps() const {
    return {TensorMapParam{x, {bk, bm}}, TensorMapParam{w, {bk, bn}}};
  }
};

/// The plan for `kernel`, or nothing when its body is not a tiled matmul
/// this lowering supports (f16/bf16 operands, bk = 64, bm in {64, 128},
/// bn a multiple of 8 up to 256).
std::optional<HopperMatmulPlan> planHopperMatmul(KernelOp kernel);

/// The chips that run planned kernels as Hopper GEMMs.
bool hasHopperMatmul(llvm::StringRef chip);

/// The function attribute carrying how many trailing parameters of a GPU
/// kernel are TMA descriptors passed by value (tile-grid-constant-params).
inline constexpr llvm::StringLiteral kTensorMapParamsAttrName =
    "tile.tensor_map_params";

} // namespace tile

#endif // TILE_CONVERSION_TILETOGPU_HOPPERMATMUL_H
