//===- LowerValueOps.cpp - tile shape and compute ops to tensor/linalg -----===//

#include "KernelLowering.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tile;
using namespace tile::lowering;


LogicalResult KernelLowering::lowerBroadcast(BroadcastOp op) {
  Value src = op.getSource();
  ArrayRef<int64_t> shape = op.getSource().getType().getShape();
  Value r = generate(op.getLoc(), op.getResult().getType(),
                     [&](OpBuilder &b, Location l, ValueRange idx) {
                       SmallVector<Value> at;
                       for (unsigned d = 0; d < idx.size(); ++d)
                         at.push_back(shape[d] == 1 ? constantIndex(b, l, 0)
                                                    : idx[d]);
                       return tensor::ExtractOp::create(b, l, src, at)
                           .getResult();
                     });
  rewriter.replaceOp(op, r);
  return success();
}

LogicalResult KernelLowering::lowerIota(IotaOp op) {
  RankedTensorType type = op.getResult().getType();
  Value r = generate(op.getLoc(), type,
                     [&](OpBuilder &b, Location l, ValueRange idx) -> Value {
                       if (type.getElementType().isIndex())
                         return idx[0];
                       return arith::IndexCastOp::create(
                           b, l, type.getElementType(), idx[0]);
                     });
  rewriter.replaceOp(op, r);
  return success();
}

LogicalResult KernelLowering::lowerReshape(ReshapeOp op) {
  Location loc = op.getLoc();
  RankedTensorType src = op.getSource().getType();
  RankedTensorType dst = op.getResult().getType();
  Value flat = op.getSource();
  if (src.getRank() > 1) {
    ReassociationIndices all;
    for (int64_t d = 0; d < src.getRank(); ++d)
      all.push_back(d);
    flat = tensor::CollapseShapeOp::create(rewriter, loc, flat,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (dst.getRank() > 1) {
    ReassociationIndices all;
    for (int64_t d = 0; d < dst.getRank(); ++d)
      all.push_back(d);
    flat = tensor::ExpandShapeOp::create(rewriter, loc, dst, flat,
                                         ArrayRef<ReassociationIndices>{all});
  }
  rewriter.replaceOp(op, flat);
  return success();
}

LogicalResult KernelLowering::lowerPermute(PermuteOp op) {
  Value src = op.getSource();
  ArrayRef<int64_t> perm = op.getPermutation();
  Value r = generate(op.getLoc(), op.getResult().getType(),
                     [&](OpBuilder &b, Location l, ValueRange idx) {
                       // Result dim i is source dim perm[i].
                       SmallVector<Value> at(idx.size());
                       for (unsigned i = 0; i < idx.size(); ++i)
                         at[perm[i]] = idx[i];
                       return tensor::ExtractOp::create(b, l, src, at)
                           .getResult();
                     });
  rewriter.replaceOp(op, r);
  return success();
}

LogicalResult KernelLowering::lowerSlice(SliceOp op) {
  RankedTensorType type = op.getResult().getType();
  SmallVector<int64_t> strides(type.getRank(), 1);
  rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
      op, type, op.getSource(), ValueRange{}, ValueRange{}, ValueRange{},
      op.getOffsets(), type.getShape(), strides);
  return success();
}

LogicalResult KernelLowering::lowerRoll(RollOp op) {
  Value src = op.getSource();
  RankedTensorType type = op.getResult().getType();
  int64_t dim = op.getDim(), n = type.getDimSize(dim);
  // Result index i along dim reads (i - shift) mod n = (i + back) mod n.
  int64_t back = ((-static_cast<int64_t>(op.getShift())) % n + n) % n;
  Value r = generate(
      op.getLoc(), type, [&](OpBuilder &b, Location l, ValueRange idx) {
        SmallVector<Value> at(idx);
        at[dim] = arith::RemUIOp::create(
            b, l,
            arith::AddIOp::create(b, l, idx[dim],
                                  arith::ConstantIndexOp::create(b, l, back)),
            arith::ConstantIndexOp::create(b, l, n));
        return tensor::ExtractOp::create(b, l, src, at).getResult();
      });
  rewriter.replaceOp(op, r);
  return success();
}

LogicalResult KernelLowering::lowerConcat(ConcatOp op) {
  Location loc = op.getLoc();
  RankedTensorType type = op.getResult().getType();
  Value acc = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                      type.getElementType());
  int64_t offset = 0;
  for (Value input : op.getInputs()) {
    auto t = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    offsets[op.getDim()] = offset;
    acc = tensor::InsertSliceOp::create(rewriter, loc, input, acc, ValueRange{},
                                        ValueRange{}, ValueRange{}, offsets,
                                        t.getShape(), strides);
    offset += t.getDimSize(op.getDim());
  }
  rewriter.replaceOp(op, acc);
  return success();
}

/// Reduces in index order: acc = x[0]; acc = combine(acc, x[k]) for k >= 1.
LogicalResult KernelLowering::lowerReduce(ReduceOp op) {
  Location loc = op.getLoc();
  unsigned n = op.getInputs().size();
  int64_t dim = op.getDim();
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  SmallVector<Value> inits;
  for (Value r : op.getResults()) {
    auto t = cast<RankedTensorType>(r.getType());
    inits.push_back(tensor::EmptyOp::create(rewriter, loc, t.getShape(),
                                            t.getElementType()));
  }
  Value zero = constantIndex(rewriter, loc, 0);
  Value one = constantIndex(rewriter, loc, 1);
  Block &combiner = op.getCombiner().front();

  // Loops over the output positions carry the result tensors.
  std::function<SmallVector<Value>(OpBuilder &, unsigned, SmallVector<Value>,
                                   ValueRange)>
      build = [&](OpBuilder &b, unsigned d, SmallVector<Value> pos,
                  ValueRange results) -> SmallVector<Value> {
    if (d == static_cast<unsigned>(inType.getRank())) {
      SmallVector<Value> at = pos;
      at[dim] = zero;
      SmallVector<Value> accs;
      for (Value in : op.getInputs())
        accs.push_back(tensor::ExtractOp::create(b, loc, in, at));
      auto loop = scf::ForOp::create(
          b, loc, one, constantIndex(b, loc, inType.getDimSize(dim)), one,
          accs,
          [&](OpBuilder &lb, Location ll, Value k, ValueRange iter) {
            SmallVector<Value> kat = pos;
            kat[dim] = k;
            IRMapping map;
            for (unsigned i = 0; i < n; ++i) {
              map.map(combiner.getArgument(i), iter[i]);
              map.map(combiner.getArgument(n + i),
                      tensor::ExtractOp::create(lb, ll, op.getInputs()[i], kat)
                          .getResult());
            }
            for (Operation &inner : combiner.without_terminator())
              lb.clone(inner, map);
            SmallVector<Value> next;
            for (Value v : combiner.getTerminator()->getOperands())
              next.push_back(map.lookupOrDefault(v));
            scf::YieldOp::create(lb, ll, next);
          });
      SmallVector<Value> out;
      for (unsigned i = 0; i < n; ++i) {
        at[dim] = zero;
        out.push_back(tensor::InsertOp::create(b, loc, loop.getResult(i),
                                               results[i], at));
      }
      return out;
    }
    int64_t extent = d == static_cast<unsigned>(dim) ? 1
                                                      : inType.getDimSize(d);
    auto loop = scf::ForOp::create(
        b, loc, zero, constantIndex(b, loc, extent), one, results,
        [&](OpBuilder &lb, Location, Value iv, ValueRange iter) {
          SmallVector<Value> next = pos;
          next.push_back(iv);
          scf::YieldOp::create(lb, loc, build(lb, d + 1, next, iter));
        });
    return SmallVector<Value>(loop.getResults());
  };
  SmallVector<Value> results = build(rewriter, 0, {}, inits);
  rewriter.replaceOp(op, results);
  return success();
}

LogicalResult KernelLowering::lowerDot(DotOp op) {
  // linalg.matmul extends the f16/bf16 operands to the f32 accumulator.
  auto matmul = linalg::MatmulOp::create(
      rewriter, op.getLoc(), TypeRange{op.getResult().getType()},
      ValueRange{op.getA(), op.getB()}, ValueRange{op.getAcc()});
  rewriter.replaceOp(op, matmul.getResult(0));
  return success();
}

LogicalResult KernelLowering::lowerConvert(ConvertOp op) {
  RankedTensorType src = op.getSource().getType();
  RankedTensorType dst = op.getResult().getType();
  Value in = op.getSource();
  std::optional<RoundingMode> rounding = op.getRounding();
  Value r = generate(op.getLoc(), dst,
                     [&](OpBuilder &b, Location l, ValueRange idx) {
                       Value v = tensor::ExtractOp::create(b, l, in, idx);
                       return convertElements(b, l, v, src.getElementType(),
                                              dst.getElementType(), rounding);
                     });
  rewriter.replaceOp(op, r);
  return success();
}
