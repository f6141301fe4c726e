//===- LowerElementwise.cpp - element-wise ops and conversions ------------===//
//
// Element-wise ops act on the registers of aligned flat tiles as they are;
// conversions widen bf16 and e4m3 in pairs; extracts, splats and the
// program ids.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"
#include "Remarks.h"

#include "llvm/Support/FormatVariadic.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

LogicalResult ElementwiseLowering::lowerElementwise(Operation *op) {
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  bool tensors = llvm::any_of(op->getResultTypes(), isTensor) ||
                 llvm::any_of(op->getOperandTypes(), isTensor);
  if (op->getNumRegions() != 0)
    return op->emitError("convert-tile-to-gpu: no lowering for '")
           << op->getName() << "' (ops with regions)";
  if (!tensors) {
    // Scalars are uniform across the block: every thread computes them.
    b.clone(*op, map);
    return success();
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<SplatElementsAttr>(c.getValue());
    if (!dense)
      return op->emitError("convert-tile-to-gpu: only splat constant tiles "
                           "are supported on the GPU");
    Layout layout = Layout::get(cast<RankedTensorType>(c.getType()), threads);
    auto attr = DenseElementsAttr::get(layout.registerType(),
                                       dense.getSplatValue<Attribute>());
    map.map(c.getResult(), arith::ConstantOp::create(b, op->getLoc(), attr));
    state.setReplicated(c.getResult(), threads);
    return success();
  }
  if (!op->hasTrait<OpTrait::Elementwise>())
    return op->emitError("convert-tile-to-gpu: no lowering for '")
           << op->getName() << "' on tiles";
  // Tiles of one shape share a layout: apply the op to the registers.
  Operation *clone = b.clone(*op, map);
  for (OpResult r : clone->getResults())
    if (auto t = dyn_cast<RankedTensorType>(r.getType()))
      r.setType(Layout::get(t, threads).registerType());
  int64_t held = threads;
  for (Value operand : op->getOperands())
    held = std::min(held, state.replicatedIn(operand));
  for (Value r : op->getResults())
    state.setReplicated(r, held);
  return success();
}

/// bf16 -> f32 of a register vector as integer ops on its 32-bit words:
/// element 2i is the low half of word i (shifted up 16), element 2i + 1 the
/// high half (the low bits cleared). Bit-exact with the conversion (a bf16
/// is the top half of the f32 it denotes), one ALU op per element where
/// the conversion instruction also needs the half extracted first; the
/// decode GEMVs convert every weight element.
static Value widenBF16Pairs(OpBuilder &b, Location loc, Value regs) {
  auto type = cast<VectorType>(regs.getType());
  int64_t n = type.getNumElements();
  auto words = VectorType::get({n / 2}, b.getI32Type());
  Value w = vector::BitCastOp::create(b, loc, words, regs);
  auto splat = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(words, b.getI32IntegerAttr(v)));
  };
  Value lo = arith::ShLIOp::create(b, loc, w, splat(16));
  Value hi = arith::AndIOp::create(b, loc, w, splat(0xFFFF0000u));
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < n / 2; ++i) {
    mask.push_back(i);
    mask.push_back(n / 2 + i);
  }
  Value both = vector::ShuffleOp::create(b, loc, lo, hi, mask);
  return vector::BitCastOp::create(b, loc, VectorType::get({n}, b.getF32Type()),
                                   both);
}

/// e4m3 -> f16 of a register vector, two elements per cvt.rn.f16x2.e4m3x2
/// (sm_89 and later): exact, and one instruction where the integer form
/// takes several per element.
static Value widenE4M3Pairs(OpBuilder &b, Location loc, Value regs) {
  auto type = cast<VectorType>(regs.getType());
  int64_t n = type.getNumElements();
  Value bytes = vector::BitCastOp::create(
      b, loc, VectorType::get({n}, b.getI8Type()), regs);
  auto pairType = VectorType::get({2}, b.getF16Type());
  SmallVector<Value> halves;
  for (int64_t i = 0; i < n; i += 2) {
    Value pair = vector::ShuffleOp::create(b, loc, bytes, bytes,
                                           ArrayRef<int64_t>{i, i + 1});
    Value half = NVVM::ConvertF8x2ToF16x2Op::create(
        b, loc, pairType, pair, /*relu=*/b.getBoolAttr(false),
        TypeAttr::get(type.getElementType()));
    halves.push_back(vector::ExtractOp::create(b, loc, half, 0));
    halves.push_back(vector::ExtractOp::create(b, loc, half, 1));
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({n}, b.getF16Type()), halves);
}

LogicalResult ElementwiseLowering::lowerConvert(ConvertOp op) {
  Value regs = map.lookup(op.getSource());
  Type from = op.getSource().getType().getElementType();
  Type to = op.getResult().getType().getElementType();
  if (auto vec = dyn_cast<VectorType>(regs.getType());
      state.f8Conversions && vec && vec.getRank() == 1 &&
      vec.getNumElements() % 2 == 0 && isa<Float8E4M3FNType>(from)) {
    Value half = widenE4M3Pairs(b, op.getLoc(), regs);
    map.map(op.getResult(),
            convertElements(b, op.getLoc(), half, b.getF16Type(), to,
                            op.getRounding()));
    state.setReplicated(op.getResult(), state.replicatedIn(op.getSource()));
    return success();
  }
  if (auto vec = dyn_cast<VectorType>(regs.getType());
      vec && vec.getRank() == 1 && vec.getNumElements() % 2 == 0 &&
      from.isBF16() && to.isF32()) {
    map.map(op.getResult(), widenBF16Pairs(b, op.getLoc(), regs));
    return success();
  }
  map.map(op.getResult(),
          convertElements(b, op.getLoc(), regs, from, to, op.getRounding()));
  state.setReplicated(op.getResult(), state.replicatedIn(op.getSource()));
  return success();
}

LogicalResult ElementwiseLowering::lowerExtract(ExtractOp op) {
  Location loc = op.getLoc();
  if (state.replicatedIn(op.getSource()) >= threads) {
    // Every thread holds the only element: the scalar is uniform as it is.
    map.map(op.getResult(),
            vector::ExtractOp::create(b, loc, map.lookup(op.getSource()), 0));
    return success();
  }
  Value buf = shared.toShared(loc, op.getSource());
  int64_t linear = 0;
  ArrayRef<int64_t> shape = op.getSource().getType().getShape();
  for (auto [d, p] : llvm::enumerate(op.getPosition()))
    linear = linear * shape[d] + p;
  map.map(op.getResult(),
          memref::LoadOp::create(b, loc, buf, emit.index(linear)));
  return success();
}

LogicalResult ElementwiseLowering::lowerSplat(SplatOp op) {
  Layout layout = Layout::get(op.getResult().getType(), threads);
  map.map(op.getResult(),
          vector::BroadcastOp::create(b, op.getLoc(), layout.registerType(),
                                      map.lookup(op.getValue())));
  state.setReplicated(op.getResult(), threads);
  return success();
}

LogicalResult ElementwiseLowering::lowerProgramId(ProgramIdOp op) {
  map.map(op.getResult(),
          gpu::BlockIdOp::create(b, op.getLoc(),
                                 static_cast<gpu::Dimension>(op.getDim())));
  return success();
}

LogicalResult ElementwiseLowering::lowerNumPrograms(NumProgramsOp op) {
  map.map(op.getResult(),
          gpu::GridDimOp::create(b, op.getLoc(),
                                 static_cast<gpu::Dimension>(op.getDim())));
  return success();
}

void ElementwiseLowering::populatePatterns(RewritePatternSet &patterns) {
  // Element-wise ops of any dialect have one pattern for all
  // (KernelLowering::populatePatterns).
  using L = ElementwiseLowering;
  addTileOpPattern(patterns, lowering, *this, &L::lowerProgramId);
  addTileOpPattern(patterns, lowering, *this, &L::lowerNumPrograms);
  addTileOpPattern(patterns, lowering, *this, &L::lowerSplat);
  addTileOpPattern(patterns, lowering, *this, &L::lowerConvert);
  addTileOpPattern(patterns, lowering, *this, &L::lowerExtract);
}
