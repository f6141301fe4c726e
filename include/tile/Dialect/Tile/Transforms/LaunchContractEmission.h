//===- LaunchContractEmission.h - kernel -> launch contract -----*- C++ -*-===//
//
// Builds the launch contract of a verified kernel: its parameters, the grid
// rule (tile.grid), one no-overlap rule per exclusive view and other view,
// a layout rule per exclusive view whose layout is only known at launch, and
// one rule per tile.assume. The form is runtime::LaunchContract (no MLIR),
// shared with the runtime that checks it (namespace tile_runtime).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_LAUNCHCONTRACTEMISSION_H
#define TILE_DIALECT_TILE_TRANSFORMS_LAUNCHCONTRACTEMISSION_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/runtime/LaunchContract.h"

namespace tile {

/// The attribute holding a kernel's contract as JSON (docs/contracts.md).
inline constexpr llvm::StringLiteral kLaunchContractAttrName =
    "tile.launch_contract";

/// Builds the contract of `kernel`; reports an error at the offending op and
/// fails when a grid extent or assumption cannot be expressed.
FailureOr<::tile_runtime::LaunchContract> buildLaunchContract(KernelOp kernel);

} // namespace tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_LAUNCHCONTRACTEMISSION_H
