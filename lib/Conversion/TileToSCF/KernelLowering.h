//===- KernelLowering.h - state of lowering one kernel ----------*- C++ -*-===//
//
// Private to convert-tile-to-scf. A KernelLowering rewrites the body of one
// kernel, op by op in program order, keeping what each partition and claimed
// block lowered to.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_TILETOSCF_KERNELLOWERING_H
#define LIB_CONVERSION_TILETOSCF_KERNELLOWERING_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

namespace tile::lowering {

/// What a partition lowered to: the view's memref and the tile shape.
struct PartitionInfo {
  Value memref;
  PartitionType type;
};

/// What a claimed block lowered to: a subview of the block clipped to the
/// view (partial edge blocks are smaller than the tile).
struct BlockInfo {
  Value memref;
  OwnedType type;
};

class KernelLowering {
public:
  KernelLowering(RewriterBase &rewriter, ArrayRef<Value> programIds,
                 ArrayRef<Value> gridSizes)
      : rewriter(rewriter), programIds(programIds), gridSizes(gridSizes) {}

  /// Lowers `op` (all tile ops but kernel and return); replaces its results.
  LogicalResult lower(Operation *op);

  // Memory ops (TileToSCF.cpp).
  LogicalResult lowerPartition(PartitionOp op);
  LogicalResult lowerOwn(OwnOp op);
  std::pair<Value, SmallVector<Value>> resolveAccess(Location loc,
                                                     Value handle,
                                                     ValueRange indices,
                                                     RankedTensorType type);
  LogicalResult lowerLoad(LoadOp op);
  LogicalResult lowerStore(StoreOp op);
  LogicalResult lowerAtomicAdd(AtomicAddOp op);
  LogicalResult lowerGather(GatherOp op);

  // Value ops (LowerValueOps.cpp).
  LogicalResult lowerBroadcast(BroadcastOp op);
  LogicalResult lowerIota(IotaOp op);
  LogicalResult lowerReshape(ReshapeOp op);
  LogicalResult lowerPermute(PermuteOp op);
  LogicalResult lowerSlice(SliceOp op);
  LogicalResult lowerRoll(RollOp op);
  LogicalResult lowerConcat(ConcatOp op);
  LogicalResult lowerReduce(ReduceOp op);
  LogicalResult lowerDot(DotOp op);
  LogicalResult lowerConvert(ConvertOp op);

  /// `tensor.generate` of `type` whose element at `indices` is `body`'s
  /// result.
  Value generate(Location loc, RankedTensorType type,
                 function_ref<Value(OpBuilder &, Location, ValueRange)> body);

  /// Elements of `base` at `offsets + i` for each index i of `type`; elements
  /// outside `base` read `padding` (zero when null).
  Value maskedLoad(Location loc, Value base, ArrayRef<Value> offsets,
                   RankedTensorType type, TypedAttr padding);
  /// Writes `value` into `base` at `offsets`, skipping elements outside it;
  /// with `accumulate`, adds each element atomically (tile.atomic_add).
  void maskedStore(Location loc, Value value, Value base,
                   ArrayRef<Value> offsets, bool accumulate = false);

  RewriterBase &rewriter;
  SmallVector<Value, 3> programIds;
  SmallVector<Value, 3> gridSizes;
  llvm::DenseMap<Value, PartitionInfo> partitions;
  llvm::DenseMap<Value, BlockInfo> blocks;
};

inline Value constantIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The memref type a view lowers to: same dims and element type, strided
/// layout with its static strides and a dynamic offset.
MemRefType getMemRefType(ViewType view);

} // namespace tile::lowering

#endif // LIB_CONVERSION_TILETOSCF_KERNELLOWERING_H
