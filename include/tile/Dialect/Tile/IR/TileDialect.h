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

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H
