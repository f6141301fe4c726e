//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
//
// The umbrella header of the tile dialect: dialect, types, traits and ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_H
#define TILE_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/TileTraits.h"
#include "tile/Dialect/Tile/IR/TileTypes.h"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace tile {
/// True when `value` can be computed on the host from the launch arguments
/// alone: constants, scalar kernel arguments, `tile.dim`, `tile.num_tiles`,
/// and integer `arith` ops over those. On failure, `culprit` (if given) is
/// set to the first value that is not.
bool isHostComputable(Value value, Value *culprit = nullptr);
/// True when `value` may be used after a `tile.grid_sync` that follows its
/// definition: computed from program ids, `tile.dim`, `tile.num_tiles`,
/// partitions, the kernel's arguments and memory-effect-free `arith` ops,
/// so each phase can compute it again. On failure, `culprit` (if given) is
/// set to the first value that is not.
bool isRecomputableAcrossGridSync(Value value, Value *culprit = nullptr);
/// The `tile.grid_sync`s before `op`'s ancestor in its kernel's body (the
/// tile.kernel's, or the function's the GPU lowering moved it into): the
/// phase `op` runs in (0 outside a function).
unsigned gridSyncsBefore(Operation *op);
} // namespace tile

#endif // TILE_DIALECT_TILE_IR_TILEOPS_H
