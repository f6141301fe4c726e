//===- TileOpsShape.cpp - tile dialect: shape and compute ops --------------===//
//
// Verifiers of the ops that build, reshape and compute on tiles.
//
//===----------------------------------------------------------------------===//

#include "TileOpsCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tile;
using tile::detail::formatList;

static LogicalResult verifySameElementType(Operation *op, Type source,
                                           Type result) {
  Type a = cast<ShapedType>(source).getElementType();
  Type b = cast<ShapedType>(result).getElementType();
  if (a != b)
    return op->emitOpError("result element type ")
           << b << " does not match the operand's " << a;
  return success();
}

static LogicalResult verifyDimIndex(Operation *op, int64_t dim, int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError("dim ")
           << dim << " is out of range for tiles of rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)) ||
      failed(verifySameElementType(*this, getSource().getType(),
                                   getResult().getType())))
    return failure();
  ArrayRef<int64_t> src = getSource().getType().getShape();
  ArrayRef<int64_t> dst = getResult().getType().getShape();
  if (src.size() != dst.size())
    return emitOpError("operand rank ")
           << src.size() << " differs from result rank " << dst.size()
           << "; use tile.reshape to add unit dims first";
  for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(src, dst))) {
    auto [s, d] = pair;
    if (s != d && s != 1)
      return emitOpError("cannot broadcast dim #")
             << i << " of size " << s << " to " << d
             << " (only dims of size 1 expand)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  RankedTensorType type = getResult().getType();
  int64_t n = type.getDimSize(0);
  if (auto i = dyn_cast<IntegerType>(type.getElementType())) {
    // The largest value, n - 1, must be representable as a signed integer.
    if (i.getWidth() < 64 && n - 1 > (int64_t(1) << (i.getWidth() - 1)) - 1)
      return emitOpError("iota of ")
             << n << " elements does not fit in " << i;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp, PermuteOp, SliceOp, RollOp, ConcatOp, ExtractOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)) ||
      failed(verifySameElementType(*this, getSource().getType(),
                                   getResult().getType())))
    return failure();
  int64_t a = getSource().getType().getNumElements();
  int64_t b = getResult().getType().getNumElements();
  if (a != b)
    return emitOpError("cannot reshape ")
           << a << " elements into " << b;
  return success();
}

LogicalResult PermuteOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)) ||
      failed(verifySameElementType(*this, getSource().getType(),
                                   getResult().getType())))
    return failure();
  ArrayRef<int64_t> perm = getPermutation();
  ArrayRef<int64_t> src = getSource().getType().getShape();
  ArrayRef<int64_t> dst = getResult().getType().getShape();
  if (perm.size() != src.size() || dst.size() != src.size())
    return emitOpError("permutation ")
           << formatList(perm) << " must have one entry per dim of rank "
           << src.size();
  SmallVector<bool> seen(src.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(src.size()) || seen[p])
      return emitOpError("permutation ")
             << formatList(perm) << " is not a permutation of [0, "
             << src.size() << ")";
    seen[p] = true;
  }
  for (auto [i, p] : llvm::enumerate(perm))
    if (dst[i] != src[p])
      return emitOpError("result dim #")
             << i << " is " << dst[i] << " but operand dim #" << p << " is "
             << src[p];
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)) ||
      failed(verifySameElementType(*this, getSource().getType(),
                                   getResult().getType())))
    return failure();
  ArrayRef<int64_t> offsets = getOffsets();
  ArrayRef<int64_t> src = getSource().getType().getShape();
  ArrayRef<int64_t> dst = getResult().getType().getShape();
  if (offsets.size() != src.size() || dst.size() != src.size())
    return emitOpError("offsets ")
           << formatList(offsets) << " and the result must have rank "
           << src.size();
  for (unsigned i = 0; i < src.size(); ++i)
    if (offsets[i] < 0 || offsets[i] + dst[i] > src[i])
      return emitOpError("slice [")
             << offsets[i] << ", " << offsets[i] + dst[i] << ") of dim #" << i
             << " is outside the operand's [0, " << src[i] << ")";
  return success();
}

LogicalResult RollOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  return verifyDimIndex(*this, getDim(), getResult().getType().getRank());
}

LogicalResult ConcatOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  RankedTensorType result = getResult().getType();
  int64_t dim = getDim();
  if (failed(verifyDimIndex(*this, dim, result.getRank())))
    return failure();
  int64_t sum = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getElementType() != result.getElementType())
      return emitOpError("input #")
             << i << " element type " << type.getElementType()
             << " differs from the result's " << result.getElementType();
    if (type.getRank() != result.getRank())
      return emitOpError("input #")
             << i << " has rank " << type.getRank() << ", the result "
             << result.getRank();
    for (int64_t d = 0; d < result.getRank(); ++d)
      if (d != dim && type.getDimSize(d) != result.getDimSize(d))
        return emitOpError("input #")
               << i << " dim #" << d << " is " << type.getDimSize(d)
               << " but the result's is " << result.getDimSize(d);
    sum += type.getDimSize(dim);
  }
  if (sum != result.getDimSize(dim))
    return emitOpError("inputs add up to ")
           << sum << " along dim " << dim << " but the result has "
           << result.getDimSize(dim);
  return success();
}

LogicalResult ExtractOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  ArrayRef<int64_t> pos = getPosition();
  ArrayRef<int64_t> shape = getSource().getType().getShape();
  if (pos.size() != shape.size())
    return emitOpError("position ")
           << formatList(pos) << " must have one entry per dim of rank "
           << shape.size();
  for (unsigned i = 0; i < shape.size(); ++i)
    if (pos[i] < 0 || pos[i] >= shape[i])
      return emitOpError("position ")
             << formatList(pos) << " is outside the tile "
             << formatList(shape);
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  // SameOperandsShape has checked there is at least one input.
  if (getResults().size() != getInputs().size())
    return emitOpError("has ")
           << getInputs().size() << " inputs but " << getResults().size()
           << " results";
  auto first = cast<RankedTensorType>(getInputs()[0].getType());
  if (failed(verifyDimIndex(*this, getDim(), first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[getDim()] = 1;
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(getInputs(), getResults()))) {
    auto [input, result] = pair;
    auto expected = RankedTensorType::get(
        shape, cast<ShapedType>(input.getType()).getElementType());
    if (result.getType() != expected)
      return emitOpError("result #")
             << i << " should be " << expected
             << " (the reduced dim is kept with size 1)";
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  Block &block = getCombiner().front();
  unsigned n = getInputs().size();
  SmallVector<Type> elements;
  for (Value input : getInputs())
    elements.push_back(cast<ShapedType>(input.getType()).getElementType());
  if (block.getNumArguments() != 2 * n)
    return emitOpError("combiner takes ")
           << 2 * n << " scalars (" << n << " accumulated, " << n
           << " incoming), got " << block.getNumArguments();
  for (unsigned i = 0; i < 2 * n; ++i)
    if (block.getArgument(i).getType() != elements[i % n])
      return emitOpError("combiner argument #")
             << i << " should be " << elements[i % n] << ", got "
             << block.getArgument(i).getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError("combiner must end with tile.yield");
  if (yield.getValues().size() != n)
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values; the combiner of "
           << getOperationName() << " yields " << n;
  for (unsigned i = 0; i < n; ++i)
    if (yield.getValues()[i].getType() != elements[i])
      return yield.emitOpError("value #")
             << i << " should be " << elements[i] << ", got "
             << yield.getValues()[i].getType();
  return success();
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   acc = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError("operands must be 2-D tiles");
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError("a is ")
           << a.getDimSize(0) << "x" << a.getDimSize(1) << " but b is "
           << b.getDimSize(0) << "x" << b.getDimSize(1)
           << ": the K dims differ";
  if (acc.getDimSize(0) != a.getDimSize(0) ||
      acc.getDimSize(1) != b.getDimSize(1))
    return emitOpError("accumulator ")
           << acc << " should be " << a.getDimSize(0) << "x"
           << b.getDimSize(1);
  Type elt = a.getElementType();
  if (!isa<Float16Type, BFloat16Type>(elt) || b.getElementType() != elt)
    return emitOpError("operands must both be f16 or both bf16, got ")
           << a.getElementType() << " and " << b.getElementType();
  if (!acc.getElementType().isF32())
    return emitOpError("accumulator must be f32, got ")
           << acc.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  if (failed(detail::verifyTileOperandsAndResults(*this)))
    return failure();
  RankedTensorType src = getSource().getType(), dst = getResult().getType();
  if (src.getShape() != dst.getShape())
    return emitOpError("converts ")
           << src << " to " << dst << ": shapes must be equal";
  // e4m3 is a storage type: tiles of it are loaded and widened.
  if (isa<Float8E4M3FNType>(dst.getElementType()) &&
      src.getElementType() != dst.getElementType())
    return emitOpError("converts to ")
           << dst.getElementType()
           << ", which is not supported (f8E4M3FN tiles only widen)";
  if (isa<Float8E4M3FNType>(src.getElementType()) &&
      !isa<FloatType>(dst.getElementType()))
    return emitOpError("converts ") << src.getElementType() << " to "
                                    << dst.getElementType()
                                    << ": f8E4M3FN widens only to floats";
  if (!getRounding())
    return success();
  Type from = src.getElementType(), to = dst.getElementType();
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  bool narrowingFloat =
      fromFloat && toFloat && toFloat.getWidth() < fromFloat.getWidth();
  bool narrowingMantissa = fromFloat && toFloat &&
                           toFloat.getFPMantissaWidth() <
                               fromFloat.getFPMantissaWidth();
  bool intToFloat = !fromFloat && toFloat;
  if (!narrowingFloat && !narrowingMantissa && !intToFloat)
    return emitOpError("rounding applies only to narrowing float and "
                       "integer-to-float conversions, not ")
           << from << " to " << to;
  return success();
}
