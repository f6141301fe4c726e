//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
//
// Declares the dialect class only; include TileOps.h for ops and types.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_H
#define TILE_DIALECT_TILE_IR_TILEDIALECT_H

#include "tile/Support/LLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"

namespace tile {
/// Threads per program of one kernel on the GPU, in warps (the .tile
/// builtin num_warps(N)); without it, convert-tile-to-gpu's num-warps.
inline constexpr llvm::StringLiteral kNumWarpsAttrName = "tile.num_warps";
/// Programs of one kernel that must fit on an SM at once (the .tile builtin
/// min_programs_per_sm(N)): the GPU lowering passes it to ptxas
/// (.minnctapersm), which then caps the registers per thread so that they
/// do.
inline constexpr llvm::StringLiteral kMinProgramsPerSMAttrName =
    "tile.min_programs_per_sm";
} // namespace tile

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H
