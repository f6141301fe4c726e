//===- LowerWgmmaDots.cpp - fragment dots as Hopper wgmma -----------------===//
//
// On sm_90a a fragment dot (LowerFragments.cpp) whose rows are one 64-row
// slab per warpgroup runs as warpgroup MMAs instead of mma.sync: the
// fragment layouts already are wgmma's. A thread's m16n8 accumulator
// registers of its warp's 16 rows are the registers of an m64nN wgmma
// accumulator, and its A fragment registers (two neighbouring 8-column
// tiles) are a k16 step of wgmma's A from registers. So only B changes
// route: staged in shared memory in the layout wgmma reads (128-byte
// swizzle) instead of padded rows read back with ldmatrix, and read by the
// tensor cores themselves. Per 64 x 64 x 128 step of an attention block
// that is 8 wgmma instructions per warpgroup where mma.sync took 64 MMAs
// and 32 ldmatrix per warp.
//
// MLIR's nvvm.wgmma.mma_async takes A from shared memory only; the
// register-A form is emitted as inline PTX.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

namespace {
/// The 128-byte swizzle's period: 8 rows of 128 bytes (64 16-bit
/// elements), 16-byte chunk c of row r stored at chunk c ^ (r % 8).
constexpr int64_t kPanelElements = 64;
} // namespace

Value tile::gpu_lowering::swizzle128Descriptor(OpBuilder &b, Location loc,
                                               Value addr,
                                               int64_t leadingBytes) {
  // Start address, leading and stride byte offsets (each >> 4), layout
  // type 1 (128-byte swizzle) in bits 62-63.
  int64_t fixed = (int64_t{1} << 62) | (int64_t{1024 >> 4} << 32) |
                  ((leadingBytes >> 4) << 16);
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, c64(4)), c64(0x3FFF));
  return arith::OrIOp::create(b, loc, start, c64(fixed));
}

Value FragmentLowering::swizzledElement(Location loc, Value e, int64_t rows,
                                        int64_t cols) {
  // Element (r, c) lies in panel c / 64 (rows x 64 elements), row r (128
  // bytes), its 16-byte chunk swizzled with r % 8. A slot of the flat
  // layout is 8 consecutive elements of one row (the row is a multiple of
  // 64), so it is one whole chunk.
  Value r = arith::DivUIOp::create(b, loc, e, emit.index(cols));
  Value c = arith::RemUIOp::create(b, loc, e, emit.index(cols));
  Value chunk = arith::DivUIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, c, emit.index(kPanelElements)),
      emit.index(8));
  Value swizzled = arith::XOrIOp::create(
      b, loc, chunk, arith::RemUIOp::create(b, loc, r, emit.index(8)));
  Value panel = arith::DivUIOp::create(b, loc, c, emit.index(kPanelElements));
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, panel, emit.index(rows * kPanelElements)),
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, r, emit.index(kPanelElements)),
          arith::MulIOp::create(b, loc, swizzled, emit.index(8))));
}

std::optional<std::string>
tile::gpu_lowering::whyNotWgmmaDot(DotOp op, int64_t threads, const FragmentPlan &fragments) {
  int64_t warps = threads / 32;
  RankedTensorType a = op.getA().getType(), r = op.getResult().getType();
  int64_t M = r.getDimSize(0), N = r.getDimSize(1), K = a.getDimSize(1);
  if (warps % 4 != 0)
    return llvm::formatv("{0} warps are not whole warpgroups", warps).str();
  if (M != 16 * warps)
    return llvm::formatv("M = {0} is not 16 rows per warp ({1})", M,
                         16 * warps)
        .str();
  if (N % 8 != 0 || N > 256)
    return llvm::formatv("N = {0} is not a multiple of 8 up to 256", N).str();
  if (K % 16 != 0)
    return llvm::formatv("K = {0} is not a multiple of 16", K).str();
  // B's contiguous dim is staged in 64-element swizzle panels: K where a
  // permute folds into the dot (B is read K-major), N otherwise.
  Operation *permute = op.getB().getDefiningOp();
  bool folded = permute && fragments.foldedPermutes.count(permute);
  if ((folded ? K : N) % kPanelElements != 0)
    return llvm::formatv("B's contiguous dim ({0} = {1}) is not a multiple "
                         "of the {2}-element swizzle panel",
                         folded ? "K" : "N", folded ? K : N, kPanelElements)
        .str();
  return std::nullopt;
}

LogicalResult FragmentLowering::lowerWgmmaDot(DotOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = op.getResult().getType();
  int64_t N = type.getDimSize(1);
  int64_t K = op.getA().getType().getDimSize(1);
  Type elt = op.getA().getType().getElementType();
  // B's source: N x K where a permute folds in (read K-major), K x N
  // otherwise (read MN-major, wgmma's transposed B).
  auto async = lowering.asyncOperands.operands.find(op);
  const AsyncOperand *copied =
      async == lowering.asyncOperands.operands.end() ? nullptr : &async->second;
  FragmentDotOperands d = fragmentDotOperands(op, /*stageB=*/!copied);
  FragmentLayout accLayout = d.accLayout;
  Value acc = d.acc, a = d.a, staged = d.staged;
  RankedTensorType srcType = d.stagedType;
  bool folded = d.folded;
  int64_t rows = srcType.getDimSize(0), cols = srcType.getDimSize(1);
  Value buf;
  if (copied) {
    // B was copied into its buffer ahead (LowerAsyncOperands.cpp).
    buf = copied->buffer;
    lowering.asyncOperands.await(*copied, loc);
  } else {
    buf = shared.scratch(loc, {{elt, rows * cols}})[0];
    shared.align(kSwizzle128Align);
    gpu::BarrierOp::create(b, loc);
    shared.writeSharedRegs(
        loc, staged, Layout::get(srcType, threads), buf,
        [&](Value e) -> Value { return swizzledElement(loc, e, rows, cols); });
  }
  // The tensor cores read through the async proxy: order the generic
  // proxy's stores (and cp.async's) before them, then wait for every
  // thread's.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(b, loc);

  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  Value base = arith::IndexCastOp::create(
      b, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buf));
  // MN-major (V of P V): the 64-column panels lie rows * 128 bytes apart.
  int64_t leadingBytes = folded ? 16 : rows * 128;
  auto descriptor = [&](int64_t byteOffset) {
    return swizzle128Descriptor(
        b, loc, arith::AddIOp::create(b, loc, base, c64(byteOffset)),
        leadingBytes);
  };

  int64_t nAcc = N / 2;
  auto f32 = b.getF32Type();
  auto accStruct =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(nAcc, f32));
  std::string asmText;
  {
    llvm::raw_string_ostream os(asmText);
    const char *t = elt.isF16() ? "f16" : "bf16";
    os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << 2 * nAcc + 5 << ", 0;\n"
       << "wgmma.mma_async.sync.aligned.m64n" << N << "k16.f32." << t << "."
       << t << " {";
    for (int64_t i = 0; i < nAcc; ++i)
      os << (i ? ", $" : "$") << i;
    os << "}, {$" << 2 * nAcc << ", $" << 2 * nAcc + 1 << ", $" << 2 * nAcc + 2
       << ", $" << 2 * nAcc + 3 << "}, $" << 2 * nAcc + 4 << ", p, 1, 1, "
       << (folded ? 0 : 1) << ";\n}\n";
  }
  std::string constraints;
  {
    llvm::raw_string_ostream os(constraints);
    for (int64_t i = 0; i < nAcc; ++i)
      os << "=f,";
    for (int64_t i = 0; i < nAcc; ++i)
      os << i << ",";
    os << "r,r,r,r,l,r";
  }
  // A's registers as 32-bit words: a pair of 16-bit elements each.
  auto word = [&](int64_t at) -> Value {
    Value pair =
        vector::ShuffleOp::create(b, loc, a, a, ArrayRef<int64_t>{at, at + 1});
    Value w =
        vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
    return vector::ExtractOp::create(b, loc, w, 0);
  };
  // ptxas serializes the wgmma of a group (a wait after each) where an
  // accumulator or A register is written between wgmma.fence and them, so
  // every operand is pinned before the fence by an empty asm that claims
  // to rewrite it (CUTLASS's warpgroup_fence_operand); pinned after the
  // wait, the results cannot be read before the group is done either.
  auto pin = [&](Value v) -> Value {
    bool isFloat = isa<FloatType>(v.getType());
    return LLVM::InlineAsmOp::create(
               b, loc, v.getType(), ValueRange{v}, "",
               isFloat ? "=f,0" : "=r,0", /*has_side_effects=*/true,
               /*is_align_stack=*/false, LLVM::TailCallKind::None,
               LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
               ArrayAttr())
        .getResult(0);
  };
  // A zero accumulator is not read: the first step runs with scale-d 0 on
  // undefined registers (no zeroing moves inside the group).
  auto splat = op.getAcc().getDefiningOp<SplatOp>();
  bool zeroAcc = matchPattern(op.getAcc(), m_AnyZeroFloat()) ||
                 (splat && matchPattern(splat.getValue(), m_AnyZeroFloat()));
  SmallVector<Value> c;
  for (int64_t reg = 0; reg < accLayout.registers(); ++reg)
    c.push_back(zeroAcc ? LLVM::UndefOp::create(b, loc, f32).getResult()
                        : pin(vector::ExtractOp::create(b, loc, acc, reg)));
  SmallVector<Value> aWords;
  for (int64_t s = 0; s < K / 16; ++s) {
    // A fragment of K step s: the registers of A's 8-column tiles 2s and
    // 2s + 1 (rows g and g + 8 of each).
    int64_t t0 = 2 * s * 4, t1 = t0 + 4;
    for (int64_t at : {t0, t0 + 2, t1, t1 + 2})
      aWords.push_back(pin(word(at)));
  }
  Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t s = 0; s < K / 16; ++s) {
    int64_t offset = folded ? (16 * s / kPanelElements) * rows * 128 +
                                  (16 * s % kPanelElements) * 2
                            : s * 16 * 128;
    SmallVector<Value> operands(c.begin(), c.end());
    operands.append(aWords.begin() + 4 * s, aWords.begin() + 4 * s + 4);
    operands.push_back(descriptor(offset));
    operands.push_back(zeroAcc && s == 0 ? zero : one);
    auto mma = LLVM::InlineAsmOp::create(
        b, loc, accStruct, operands, asmText, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    for (int64_t i = 0; i < nAcc; ++i)
      c[i] = LLVM::ExtractValueOp::create(b, loc, mma.getResult(0), i);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // The dot's result is used right after: wait for the group (this also
  // keeps B's staging buffer and A's registers untouched until then).
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  for (Value &v : c)
    v = pin(v);
  if (copied)
    lowering.asyncOperands.prefetchNext(*copied, loc);
  moves.setResult(op.getResult(),
                  vector::FromElementsOp::create(
                      b, loc, moves.registerType(type, accLayout), c),
                  accLayout);
  return success();
}
