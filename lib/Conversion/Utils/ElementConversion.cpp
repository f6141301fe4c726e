//===- ElementConversion.cpp - tile.convert semantics on values ------------===//

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace tile;

Value tile::convertElements(OpBuilder &b, Location loc, Value v, Type from,
                            Type to, std::optional<RoundingMode> rounding) {
  // Scalars, or vectors of them: constants take the shape of `v`.
  auto shaped = dyn_cast<VectorType>(v.getType());
  auto like = [&](Type elt) -> Type {
    return shaped ? Type(VectorType::get(shaped.getShape(), elt)) : elt;
  };
  auto constant = [&](TypedAttr attr) -> Value {
    if (!shaped)
      return arith::ConstantOp::create(b, loc, attr);
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(cast<ShapedType>(like(attr.getType())),
                                       attr));
  };
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (isa<Float8E4M3FNType>(from)) {
    // e4m3fn as integer ops (no backend has to know the type): its 7
    // exponent and mantissa bits placed under f16's are the value scaled
    // by 2^-8, subnormals included (f16's exponent bias is 8 more); the
    // sign moves to bit 15. Exact for every finite value (the format's NaN,
    // 0x7f/0xff, becomes 480, which FP8 checkpoints never hold).
    Type i8 = b.getI8Type(), i16 = b.getI16Type();
    Value bits = arith::ExtUIOp::create(
        b, loc, like(i16), arith::BitcastOp::create(b, loc, like(i8), v));
    Value magnitude = arith::ShLIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, bits,
                              constant(b.getIntegerAttr(i16, 0x7f))),
        constant(b.getIntegerAttr(i16, 7)));
    Value sign = arith::ShLIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, bits,
                              constant(b.getIntegerAttr(i16, 0x80))),
        constant(b.getIntegerAttr(i16, 8)));
    Value half = arith::BitcastOp::create(
        b, loc, like(b.getF16Type()),
        arith::OrIOp::create(b, loc, magnitude, sign));
    Value wide = arith::ExtFOp::create(b, loc, like(b.getF32Type()), half);
    Value scaled = arith::MulFOp::create(
        b, loc, wide, constant(b.getF32FloatAttr(256.0f)));
    return convertElements(b, loc, scaled, b.getF32Type(), to, rounding);
  }
  if (fromF && toF) {
    if (toF.getWidth() > fromF.getWidth() ||
        (toF.getWidth() == fromF.getWidth() &&
         toF.getFPMantissaWidth() > fromF.getFPMantissaWidth()))
      return arith::ExtFOp::create(b, loc, like(to), v);
    Value trunc = arith::TruncFOp::create(b, loc, like(to), v);
    if (rounding != RoundingMode::TowardZero)
      return trunc;
    // Toward zero: round to nearest, then step one ulp toward zero where
    // that rounded away from zero (decrementing the magnitude bits; an
    // overflow to inf becomes the largest finite value). A rounding-mode
    // attribute on arith.truncf only informs the optimizer; code generation
    // keeps the default mode.
    Value back = arith::ExtFOp::create(b, loc, like(from), trunc);
    Value grew = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                       math::AbsFOp::create(b, loc, back),
                                       math::AbsFOp::create(b, loc, v));
    Type bits = b.getIntegerType(toF.getWidth());
    Value raw = arith::BitcastOp::create(b, loc, like(bits), trunc);
    Value one = constant(b.getIntegerAttr(bits, 1));
    Value stepped = arith::BitcastOp::create(
        b, loc, like(to), arith::SubIOp::create(b, loc, raw, one));
    return arith::SelectOp::create(b, loc, grew, stepped, trunc);
  }
  if (!fromF && toF) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, like(to), v);
    return arith::SIToFPOp::create(b, loc, like(to), v);
  }
  if (fromF && !toF) {
    // Saturating, NaN -> 0. The limits 2^(w-1) are exact in any float type;
    // values at or above the upper one give the integer maximum.
    unsigned width = to.getIntOrFloatBitWidth();
    bool isSigned = !to.isInteger(1);
    auto floatConst = [&](double x) {
      return constant(FloatAttr::get(fromF, x));
    };
    auto intConst = [&](const APInt &x) {
      return constant(b.getIntegerAttr(to, x));
    };
    double lo = isSigned ? -std::ldexp(1.0, width - 1) : 0.0;
    double limit = isSigned ? std::ldexp(1.0, width - 1) : 1.0;
    APInt max = isSigned ? APInt::getSignedMaxValue(width) : APInt(1, 1);
    Value c = arith::MaximumFOp::create(b, loc, v, floatConst(lo));
    Value tooBig = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE,
                                         v, floatConst(limit));
    // Below the limit: the conversion is exact for the integer part.
    c = arith::SelectOp::create(b, loc, tooBig, floatConst(0.0), c);
    Value r = isSigned ? arith::FPToSIOp::create(b, loc, like(to), c).getResult()
                       : arith::FPToUIOp::create(b, loc, like(to), c).getResult();
    r = arith::SelectOp::create(b, loc, tooBig, intConst(max), r);
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    return arith::SelectOp::create(b, loc, isNan, intConst(APInt(width, 0)),
                                   r);
  }
  // Integer to integer (index counts as 64 bits).
  unsigned fw = from.isIndex() ? 64 : from.getIntOrFloatBitWidth();
  unsigned tw = to.isIndex() ? 64 : to.getIntOrFloatBitWidth();
  if (from.isIndex() || to.isIndex())
    return arith::IndexCastOp::create(b, loc, like(to), v);
  if (tw > fw)
    return from.isInteger(1)
               ? arith::ExtUIOp::create(b, loc, like(to), v).getResult()
               : arith::ExtSIOp::create(b, loc, like(to), v).getResult();
  return arith::TruncIOp::create(b, loc, like(to), v);
}

