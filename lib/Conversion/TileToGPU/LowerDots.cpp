//===- LowerDots.cpp - dots of flat tiles ---------------------------------===//
//
// FMA over shared-memory operands, or mma.sync through shared memory;
// dots in fragment layouts are in LowerFragments.cpp.
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

std::optional<std::string> tile::gpu_lowering::whyNotStagedMma(DotOp op) {
  int64_t M = op.getA().getType().getDimSize(0);
  int64_t K = op.getA().getType().getDimSize(1);
  int64_t N = op.getB().getType().getDimSize(1);
  // nvgpu.mma.sync cannot lower bf16 operands (upstream deduces PTX types
  // for f16, tf32, i8, i4 and f64 only).
  if (op.getA().getType().getElementType().isBF16())
    return std::string("bf16 operands (staged mma.sync takes f16)");
  // A, B and the f32 accumulator are staged in shared memory: they must
  // fit the 48 KB a block gets without opting in to more.
  int64_t eltBytes = op.getA().getType().getElementTypeBitWidth() / 8;
  int64_t staged = (M * K + K * N) * eltBytes + M * N * 4;
  if (staged > 48 * 1024)
    return llvm::formatv("staging takes {0} bytes of shared memory, over 48 KB",
                         staged)
        .str();
  if (M % 16 != 0 || N % 8 != 0 || K % 16 != 0)
    return llvm::formatv("M = {0}, N = {1}, K = {2} not multiples of 16, 8, 16",
                         M, N, K)
        .str();
  return std::nullopt;
}

LogicalResult DotLowering::lowerDot(DotOp op) {
  std::optional<std::string> whyNot = whyNotStagedMma(op);
  bool mma = !whyNot;
  if (Attribute path = op->getAttr(kFlatDotAttrName)) {
    auto name = dyn_cast<StringAttr>(path);
    if (!name || (name.getValue() != "mma_sync" && name.getValue() != "fma"))
      return op.emitError(
                 "tile.flat_dot: expected \"mma_sync\" or \"fma\", got ")
             << path;
    if (name.getValue() == "mma_sync" && whyNot)
      return op.emitError("tile.flat_dot: the dot cannot run on mma.sync: ")
             << *whyNot;
    mma = name.getValue() == "mma_sync";
  }
  return mma ? lowerDotMMA(op) : lowerDotFMA(op);
}

/// Tensor cores (mma.sync m16n8k16): A, B and the accumulator go through
/// shared memory; warps take the 16x8 output tiles round-robin, each keeping
/// its tile's accumulator fragment in registers over the K steps.
LogicalResult DotLowering::lowerDotMMA(DotOp op) {
  Location loc = op.getLoc();
  RankedTensorType type = op.getResult().getType();
  int64_t M = type.getDimSize(0), N = type.getDimSize(1);
  int64_t K = op.getA().getType().getDimSize(1);
  Type elt = op.getA().getType().getElementType();
  SmallVector<Value> bufs =
      shared.toShared(loc, ValueRange{op.getA(), op.getB(), op.getAcc()});
  Value a = bufs[0], bb = bufs[1], c = bufs[2];
  Value warp = arith::DivUIOp::create(b, loc, tid, emit.index(32));
  Value lane = arith::RemUIOp::create(b, loc, tid, emit.index(32));
  Value g = arith::DivUIOp::create(b, loc, lane, emit.index(4));
  Value t2 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, emit.index(4)),
      emit.index(2));
  int64_t tilesN = N / 8, tiles = (M / 16) * tilesN;
  auto at = [&](OpBuilder &lb, Location ll, Value buf, Value row, Value col,
                int64_t stride) {
    Value i = arith::AddIOp::create(
        lb, ll, arith::MulIOp::create(lb, ll, row, emit.index(stride)), col);
    return memref::LoadOp::create(lb, ll, buf, ValueRange{i}).getResult();
  };
  auto add = [&](OpBuilder &lb, Location ll, Value x, int64_t k) -> Value {
    return k == 0 ? x
                  : arith::AddIOp::create(lb, ll, x, emit.index(k)).getResult();
  };
  auto fragA = VectorType::get({4, 2}, elt);
  auto fragB = VectorType::get({2, 2}, elt);
  auto fragC = VectorType::get({2, 2}, b.getF32Type());
  scf::ForOp::create(
      b, loc, warp, emit.index(tiles), emit.index(threads / 32), ValueRange{},
      [&](OpBuilder &lb, Location ll, Value tileId, ValueRange) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(lb.getInsertionBlock(), lb.getInsertionPoint());
        Value r0 = arith::MulIOp::create(
            b, ll, arith::DivUIOp::create(b, ll, tileId, emit.index(tilesN)),
            emit.index(16));
        Value c0 = arith::MulIOp::create(
            b, ll, arith::RemUIOp::create(b, ll, tileId, emit.index(tilesN)),
            emit.index(8));
        Value row = arith::AddIOp::create(b, ll, r0, g);
        Value row8 = add(b, ll, row, 8);
        Value col = arith::AddIOp::create(b, ll, c0, t2);
        // C fragment: rows g and g+8, columns 2t and 2t+1 of the tile.
        Value acc = emit.zeroOf(fragC);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j)
            acc = vector::InsertOp::create(
                b, ll, at(b, ll, c, i ? row8 : row, add(b, ll, col, j), N), acc,
                ArrayRef<int64_t>{i, j});
        auto kLoop = scf::ForOp::create(
            b, ll, emit.index(0), emit.index(K), emit.index(16),
            ValueRange{acc},
            [&](OpBuilder &kb, Location kl, Value k0, ValueRange iter) {
              OpBuilder::InsertionGuard inner(b);
              b.setInsertionPoint(kb.getInsertionBlock(),
                                  kb.getInsertionPoint());
              Value kc = arith::AddIOp::create(b, kl, k0, t2);
              // A fragment: (g, 2t..), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..).
              Value fa = emit.zeroOf(fragA);
              for (int r = 0; r < 4; ++r)
                for (int j = 0; j < 2; ++j) {
                  Value rr = (r % 2) ? row8 : row;
                  Value cc = add(b, kl, kc, (r / 2) * 8 + j);
                  fa = vector::InsertOp::create(b, kl, at(b, kl, a, rr, cc, K),
                                                fa, ArrayRef<int64_t>{r, j});
                }
              // B fragment: (2t.., g) and (2t+8.., g) of the K x 8 slice.
              Value n = arith::AddIOp::create(b, kl, c0, g);
              Value fb = emit.zeroOf(fragB);
              for (int r = 0; r < 2; ++r)
                for (int j = 0; j < 2; ++j)
                  fb = vector::InsertOp::create(
                      b, kl, at(b, kl, bb, add(b, kl, kc, r * 8 + j), n, N), fb,
                      ArrayRef<int64_t>{r, j});
              Value next = nvgpu::MmaSyncOp::create(
                  b, kl, fa, fb, iter[0], ArrayRef<int64_t>{16, 8, 16});
              scf::YieldOp::create(b, kl, next);
            });
        Value res = kLoop.getResult(0);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            Value v =
                vector::ExtractOp::create(b, ll, res, ArrayRef<int64_t>{i, j});
            Value idx = arith::AddIOp::create(
                b, ll,
                arith::MulIOp::create(b, ll, i ? row8 : row, emit.index(N)),
                add(b, ll, col, j));
            memref::StoreOp::create(b, ll, v, c, ValueRange{idx});
          }
        scf::YieldOp::create(b, ll);
      });
  gpu::BarrierOp::create(b, loc);
  Layout layout = Layout::get(type, threads);
  map.map(op.getResult(),
          emit.buildRegisters(loc, layout, [&](int64_t, int64_t, Value e) {
            return memref::LoadOp::create(b, loc, c, ValueRange{e}).getResult();
          }));
  return success();
}

LogicalResult DotLowering::lowerDotFMA(DotOp op) {
  // Shapes the MMA path does not tile: f32 FMAs from shared memory.
  Location loc = op.getLoc();
  SmallVector<Value> operands =
      shared.toShared(loc, ValueRange{op.getA(), op.getB()});
  Value a = operands[0], bb = operands[1];
  RankedTensorType type = op.getResult().getType();
  Layout layout = Layout::get(type, threads);
  int64_t K = op.getA().getType().getDimSize(1);
  int64_t N = type.getDimSize(1);
  Value acc = map.lookup(op.getAcc());
  Type f32 = b.getF32Type();
  map.map(op.getResult(),
          emit.buildRegisters(loc, layout, [&](int64_t k, int64_t l, Value e) {
            Value row = arith::DivUIOp::create(b, loc, e, emit.index(N));
            Value col = arith::RemUIOp::create(b, loc, e, emit.index(N));
            Value init =
                vector::ExtractOp::create(b, loc, acc, k * layout.vec + l);
            auto loop = scf::ForOp::create(
                b, loc, emit.index(0), emit.index(K), emit.index(1),
                ValueRange{init},
                [&](OpBuilder &lb, Location ll, Value kk, ValueRange iter) {
                  Value ai = arith::AddIOp::create(
                      lb, ll, arith::MulIOp::create(lb, ll, row, emit.index(K)),
                      kk);
                  Value bi = arith::AddIOp::create(
                      lb, ll, arith::MulIOp::create(lb, ll, kk, emit.index(N)),
                      col);
                  Value x = arith::ExtFOp::create(
                      lb, ll, f32,
                      memref::LoadOp::create(lb, ll, a, ValueRange{ai})
                          .getResult());
                  Value y = arith::ExtFOp::create(
                      lb, ll, f32,
                      memref::LoadOp::create(lb, ll, bb, ValueRange{bi})
                          .getResult());
                  Value s = math::FmaOp::create(lb, ll, x, y, iter[0]);
                  scf::YieldOp::create(lb, ll, s);
                });
            return loop.getResult(0);
          }));
  return success();
}

void DotLowering::populatePatterns(RewritePatternSet &patterns) {
  addTileOpPattern(patterns, lowering, *this, &DotLowering::lowerDot);
}
