//===- TileTypes.h - tile dialect types and enums ---*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILETYPES_H
#define TILE_DIALECT_TILE_IR_TILETYPES_H

#include "tile/Support/LLVM.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Types.h"

#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

namespace tile {
class OwnedType;

/// `in`, `frozen` and `settled` views are shared and read-only.
inline bool isSharedMode(OwnershipMode mode) {
  return mode == OwnershipMode::In || mode == OwnershipMode::Frozen ||
         mode == OwnershipMode::Settled;
}

/// `frozen` and `settled` views hold memory that no launch the kernel can
/// overlap writes, so their loads may be issued before the kernel waits
/// for the grid before it (griddepcontrol.wait).
inline bool isReadableBeforeGridWait(OwnershipMode mode) {
  return mode == OwnershipMode::Frozen || mode == OwnershipMode::Settled;
}
} // namespace tile

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.h.inc"

namespace tile {

/// The element count of a static shape (the product of its dims).
int64_t getNumElements(llvm::ArrayRef<int64_t> shape);

/// Checks that `type` is a valid tile: a statically shaped ranked tensor of
/// rank >= 1 of a view element type, with at most
/// TileDialect::kMaxTileElements elements. On failure, reports through
/// `emitError` and returns failure.
LogicalResult verifyTileType(function_ref<InFlightDiagnostic()> emitError,
                             Type type);

} // namespace tile

#endif // TILE_DIALECT_TILE_IR_TILETYPES_H
