//===- TileTraits.h - tile dialect op traits --------------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILETRAITS_H
#define TILE_DIALECT_TILE_IR_TILETRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait::tile {
namespace impl {
LogicalResult verifyInKernel(Operation *op);
/// True when `op` is nested, at any depth, in a `tile.unchecked` region.
bool isInUncheckedRegion(Operation *op);
} // namespace impl

/// The op may only appear (at any depth) inside a `tile.kernel`.
template <typename ConcreteType>
class InKernel : public TraitBase<ConcreteType, InKernel> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifyInKernel(op);
  }
};
} // namespace mlir::OpTrait::tile

#endif // TILE_DIALECT_TILE_IR_TILETRAITS_H
