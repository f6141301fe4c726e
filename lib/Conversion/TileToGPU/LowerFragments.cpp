//===- LowerFragments.cpp - tiles in mma.sync fragment layouts ------------===//
//
// The ops of a kernel that FragmentLayouts.cpp placed in fragment layouts:
// tensor-core dots (mma.sync m16n8k16; the accumulator and the A operand
// from registers, B staged in shared memory and read with ldmatrix),
// element-wise ops on the registers as they are, row reductions with two
// shuffles inside a quad, broadcasts of row and column vectors as register
// shuffles, iotas computed per register. Tiles move between layouts through
// the shared-memory scratch arena, by element index.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"
#include "Remarks.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

using Kind = FragmentLayout::Kind;

LogicalResult FragmentLowering::lowerFragmentReduce(ReduceOp op,
                                                    const FragmentLayout &out) {
  Location loc = op.getLoc();
  FragmentLayout in = *state.layoutOf(op.getInputs()[0]);
  SmallVector<Value> regs;
  for (Value input : op.getInputs())
    regs.push_back(moves.operandIn(input, in));
  unsigned n = regs.size();
  auto lanes = [&](int64_t reg) {
    SmallVector<Value> v;
    for (Value r : regs)
      v.push_back(vector::ExtractOp::create(b, loc, r, reg));
    return v;
  };
  SmallVector<SmallVector<Value>> results(n);
  for (int64_t i = 0; i < in.mTiles(); ++i)
    for (int64_t h = 0; h < 2; ++h) {
      // The row's values in this thread: two per 8-column tile ...
      SmallVector<Value> acc;
      for (int64_t j = 0; j < in.nTiles(); ++j)
        for (int64_t c = 0; c < 2; ++c) {
          SmallVector<Value> next = lanes((i * in.nTiles() + j) * 4 + 2 * h + c);
          acc = acc.empty() ? next : emit.combine(op.getCombiner(), acc, next);
        }
      // ... then across the quad that holds the row.
      for (int32_t off : {1, 2}) {
        SmallVector<Value> other;
        for (Value v : acc)
          other.push_back(emit.shuffleXor(loc, v, off));
        acc = emit.combine(op.getCombiner(), acc, other);
      }
      for (unsigned k = 0; k < n; ++k)
        results[k].push_back(acc[k]);
    }
  for (unsigned k = 0; k < n; ++k) {
    auto type = cast<RankedTensorType>(op.getResults()[k].getType());
    moves.setResult(op.getResults()[k],
                    vector::FromElementsOp::create(
                        b, loc, moves.registerType(type, out), results[k]),
                    out);
  }
  return success();
}

/// A pair of 16-bit elements as one MMA operand register: vector<2xf16>
/// for f16, i32 for bf16 (what nvvm.mma.sync takes).
static Value operandPair(OpBuilder &b, Location loc, Value pair, Type elt) {
  if (elt.isF16())
    return pair;
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, loc, word, 0);
}

FragmentLowering::FragmentDotOperands
FragmentLowering::fragmentDotOperands(DotOp op, bool stageB) {
  RankedTensorType aType = op.getA().getType();
  RankedTensorType type = op.getResult().getType();
  int64_t warps = threads / 32;
  FragmentDotOperands d{
      FragmentLayout::acc(type.getDimSize(0), type.getDimSize(1), warps),
      FragmentLayout::acc(aType.getDimSize(0), aType.getDimSize(1), warps),
      Value(),
      Value(),
      Value(),
      RankedTensorType(),
      false};
  d.acc = moves.operandIn(op.getAcc(), d.accLayout);
  d.a = moves.operandIn(op.getA(), d.aLayout);
  Operation *permute = op.getB().getDefiningOp();
  d.folded = permute && fragments.foldedPermutes.count(permute);
  Value src = d.folded ? permute->getOperand(0) : op.getB();
  d.stagedType = cast<RankedTensorType>(src.getType());
  if (stageB)
    d.staged = moves.operandIn(src, std::nullopt);
  return d;
}

LogicalResult FragmentLowering::lowerFragmentDot(DotOp op) {
  bool wgmma = state.runsOnWgmma(op);
  if (remarksEnabled(b.getContext())) {
    RankedTensorType r = op.getResult().getType();
    passedFastPath(op.getLoc(), func.getName(), "mma-fragments")
        << remark::add("{0}x{1}x{2} dot on {3}, the accumulator and A in "
                       "fragment registers",
                       r.getDimSize(0), r.getDimSize(1),
                       op.getA().getType().getDimSize(1),
                       wgmma ? "register-A wgmma" : "mma.sync");
  }
  if (wgmma)
    return lowerWgmmaDot(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getResult().getType();
  int64_t K = op.getA().getType().getDimSize(1);
  Type elt = op.getA().getType().getElementType();
  FragmentDotOperands d = fragmentDotOperands(op);
  FragmentLayout accLayout = d.accLayout, aLayout = d.aLayout;
  Value acc = d.acc, a = d.a, staged = d.staged;
  RankedTensorType srcType = d.stagedType;
  bool folded = d.folded;

  // B in shared memory, rows padded by 16 bytes so that the eight row
  // addresses of an ldmatrix fall in different banks. A folded permute
  // stages its source (N x K) and reads it untransposed.
  int64_t rows = srcType.getDimSize(0), cols = srcType.getDimSize(1);
  int64_t stride = cols + 8;
  Value buf = shared.scratch(loc, {{elt, rows * stride}})[0];
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  // ldmatrix moves 16-bit elements: an f16 view of the same bytes (at
  // buf's offset: past the floor while a loop's async operands hold the
  // start of the arena).
  Value matrix = memref::ViewOp::create(
      b, loc,
      MemRefType::get({rows, stride}, b.getF16Type(), AffineMap(), space),
      shared.getArena(), buf.getDefiningOp<memref::ViewOp>().getByteShift(),
      ValueRange{});
  gpu::BarrierOp::create(b, loc);
  shared.writeSharedRegs(loc, staged, Layout::get(srcType, threads), buf,
                         stride);
  gpu::BarrierOp::create(b, loc);

  // Each lane addresses one row of one of the four 8x8 matrices of an
  // ldmatrix.x4: matrix q = lane / 8 covers the (q % 2)-th half of the 16 K
  // of a step and the (q / 2)-th of two 8-column tiles.
  Value q = arith::DivUIOp::create(b, loc, laneId, emit.index(8));
  Value r8 = arith::RemUIOp::create(b, loc, laneId, emit.index(8));
  Value kHalf = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, q, emit.index(2)), emit.index(8));
  Value nHalf = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, q, emit.index(2)), emit.index(8));
  // Folded: rows are N, columns K. Otherwise rows are K, columns N.
  Value rowBase = arith::AddIOp::create(b, loc, r8, folded ? nHalf : kHalf);
  Value colBase = folded ? kHalf : nHalf;

  int64_t mTiles = accLayout.mTiles(), nTiles = accLayout.nTiles();
  int64_t kTiles = aLayout.nTiles();
  auto f32 = b.getF32Type();
  auto fragType = VectorType::get({4, 2}, b.getF16Type());
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  NVVM::MMATypes ptx = elt.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  auto lanesOf = [&](Value regs, int64_t at) -> Value {
    return vector::ShuffleOp::create(b, loc, regs, regs,
                                     ArrayRef<int64_t>{at, at + 1});
  };
  SmallVector<Value> c;
  for (int64_t reg = 0; reg < accLayout.registers(); ++reg)
    c.push_back(vector::ExtractOp::create(b, loc, acc, reg));
  for (int64_t s = 0; s < K / 16; ++s) {
    SmallVector<std::array<Value, 2>> bFrag(nTiles);
    for (int64_t jj = 0; jj < nTiles / 2; ++jj) {
      Value row = arith::AddIOp::create(b, loc, rowBase,
                                        emit.index(folded ? 16 * jj : 16 * s));
      Value col = arith::AddIOp::create(b, loc, colBase,
                                        emit.index(folded ? 16 * s : 16 * jj));
      Value frag = nvgpu::LdMatrixOp::create(b, loc, fragType, matrix,
                                             ValueRange{row, col},
                                             /*transpose=*/!folded,
                                             /*numTiles=*/4);
      for (int64_t m = 0; m < 4; ++m) {
        Value half = vector::ExtractOp::create(b, loc, frag, m);
        bFrag[2 * jj + m / 2][m % 2] = operandPair(b, loc, half, elt);
      }
    }
    for (int64_t i = 0; i < mTiles; ++i) {
      // A fragment of m-tile i, K step s: the registers of A's 8-column
      // tiles 2s and 2s + 1.
      int64_t t0 = (i * kTiles + 2 * s) * 4, t1 = t0 + 4;
      SmallVector<Value> aFrag;
      for (int64_t at : {t0, t0 + 2, t1, t1 + 2})
        aFrag.push_back(operandPair(b, loc, lanesOf(a, at), elt));
      for (int64_t j = 0; j < nTiles; ++j) {
        int64_t base = (i * nTiles + j) * 4;
        auto mma = NVVM::MmaOp::create(
            b, loc, resultType, aFrag, ValueRange{bFrag[j][0], bFrag[j][1]},
            ValueRange{c[base], c[base + 1], c[base + 2], c[base + 3]},
            ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptx, ptx},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t r = 0; r < 4; ++r)
          c[base + r] = LLVM::ExtractValueOp::create(b, loc, mma, r);
      }
    }
  }
  moves.setResult(op.getResult(),
                  vector::FromElementsOp::create(
                      b, loc, moves.registerType(type, accLayout), c),
                  accLayout);
  return success();
}

std::optional<LogicalResult> FragmentLowering::lowerFragmentOp(Operation *op) {
  if (auto dot = dyn_cast<DotOp>(op); dot && fragments.dots.count(op))
    return lowerFragmentDot(dot);
  if (auto red = dyn_cast<ReduceOp>(op)) {
    auto in = state.layoutOf(red.getInputs()[0]);
    auto out = state.layoutOf(red.getResults()[0]);
    if (in && in->kind == Kind::Acc && red.getDim() == 1 && out &&
        out->kind == Kind::Rows && out->m == in->m)
      return lowerFragmentReduce(red, *out);
    return std::nullopt;
  }
  if (op->getNumResults() != 1 || op->getNumRegions() != 0)
    return std::nullopt;
  Value result = op->getResult(0);
  std::optional<FragmentLayout> layout = state.layoutOf(result);
  if (!layout)
    return std::nullopt;
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(result.getType());
  VectorType regsType = moves.registerType(type, layout);
  auto done = [&](Value regs) -> std::optional<LogicalResult> {
    fragmentRegs[result] = regs;
    return success();
  };

  if (isa<SplatOp>(op) || isa<arith::ConstantOp>(op)) {
    if (isa<arith::ConstantOp>(op) &&
        !isa<SplatElementsAttr>(cast<arith::ConstantOp>(op).getValue()))
      return std::nullopt;
    return done(moves.operandIn(result, layout));
  }
  if (isa<IotaOp>(op) && layout->kind != Kind::Acc) {
    SmallVector<Value> elements;
    for (int64_t r = 0; r < layout->registers(); ++r) {
      auto [row, col] = moves.fragmentElement(*layout, r);
      Value e = layout->kind == Kind::Rows ? row : col;
      if (!type.getElementType().isIndex())
        e = arith::IndexCastOp::create(b, loc, type.getElementType(), e);
      elements.push_back(e);
    }
    return done(vector::FromElementsOp::create(b, loc, regsType, elements));
  }
  if (auto rs = dyn_cast<ReshapeOp>(op)) {
    if (state.layoutOf(rs.getSource()) != layout)
      return std::nullopt;
    return done(moves.operandIn(rs.getSource(), layout));
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    ArrayRef<int64_t> src = bc.getSource().getType().getShape();
    if (layout->kind != Kind::Acc || src.size() != 2)
      return std::nullopt;
    bool rows = src[1] == 1 && src[0] == layout->m;
    bool cols = src[0] == 1 && src[1] == layout->n;
    if (!rows && !cols)
      return std::nullopt;
    Value regs = moves.operandIn(
        bc.getSource(), rows ? FragmentLayout::rows(layout->m, layout->warps)
                             : FragmentLayout::cols(layout->n, layout->warps));
    SmallVector<int64_t> mask;
    for (int64_t r = 0; r < layout->registers(); ++r) {
      int64_t tile = r / 4, i = tile / layout->nTiles(),
              j = tile % layout->nTiles();
      mask.push_back(rows ? 2 * i + (r % 4) / 2 : 2 * j + r % 2);
    }
    return done(vector::ShuffleOp::create(b, loc, regs, regs, mask));
  }
  if (auto cv = dyn_cast<ConvertOp>(op))
    return done(convertElements(b, loc, moves.operandIn(cv.getSource(), layout),
                                cv.getSource().getType().getElementType(),
                                type.getElementType(), cv.getRounding()));
  if (!op->hasTrait<OpTrait::Elementwise>())
    return std::nullopt;
  // Every tile operand in the result's layout; the op applies to registers.
  IRMapping operands;
  for (Value v : op->getOperands())
    operands.map(v, isa<RankedTensorType>(v.getType())
                        ? moves.operandIn(v, layout)
                        : map.lookup(v));
  Operation *clone = b.clone(*op, operands);
  clone->getResult(0).setType(regsType);
  return done(clone->getResult(0));
}
