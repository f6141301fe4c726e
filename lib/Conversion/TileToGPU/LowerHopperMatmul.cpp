//===- LowerHopperMatmul.cpp - tiled matmuls as TMA + wgmma kernels -------===//
//
// The kernel structure that reaches cuBLAS on Hopper (notes in
// docs/architecture.md): a producer warpgroup whose one thread issues TMA
// loads of the x and w tiles into a ring of shared-memory stages, and
// consumer warpgroups (64 rows of the output tile each) that wait for a
// stage's full barrier, issue wgmma from it and release it through its
// empty barrier. Programs are persistent: one per SM, each looping over
// output tiles, the ring running on across them so the next tile's loads
// overlap the last one's epilogue. TMA reads outside the tensor as zeros,
// which is the padding the tile semantics ask for; the result goes out
// through shared memory as 16-byte pieces, masked as every other store.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelLowering.h"

#include "tile/Conversion/TileToGPU/HopperMatmul.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

namespace {
/// The largest dynamic shared memory a block may use on sm_90 (227 KB).
constexpr int64_t kMaxSharedBytes = 232448;
/// wgmma reads K in steps of 16; a stage row is 64 elements (128 bytes, the
/// width of the 128-byte swizzle TMA writes and wgmma reads).
constexpr int64_t kBK = 64;
constexpr int64_t kSwizzleBytes = 128;
constexpr char kSharedSymbol[] = "__tile_dynamic_shared";

/// The kernel argument a value is, when it is one.
std::optional<unsigned> argumentIndex(KernelOp kernel, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return std::nullopt;
  return arg.getArgNumber();
}

bool isConstantIndex(Value v, int64_t expected) {
  APInt value;
  return matchPattern(v, m_ConstantInt(&value)) &&
         value.getSExtValue() == expected;
}

bool isZeroSplat(Value v) {
  auto splat = v.getDefiningOp<SplatOp>();
  FloatAttr value;
  return splat && matchPattern(splat.getValue(), m_Constant(&value)) &&
         value.getValue().isZero();
}

/// The kernel argument a 2-D partition with unit inner stride, the given
/// tile shape and the given mode views.
std::optional<unsigned> partitionArgument(KernelOp kernel, Value partition,
                                          ArrayRef<int64_t> tile,
                                          OwnershipMode mode) {
  auto p = partition.getDefiningOp<PartitionOp>();
  if (!p || p.getResult().getType().getTileShape() != tile)
    return std::nullopt;
  auto view = cast<ViewType>(p.getView().getType());
  if (view.getMode() != mode || view.getStrides().size() != 2 ||
      view.getStrides().back() != 1)
    return std::nullopt;
  return argumentIndex(kernel, p.getView());
}
} // namespace

bool tile::hasHopperMatmul(StringRef chip) { return chip == "sm_90a"; }

std::optional<HopperMatmulPlan> tile::planHopperMatmul(KernelOp kernel) {
  Block &body = kernel.getBody().front();
  scf::ForOp loop;
  GridOp grid;
  for (Operation &op : body) {
    if (auto f = dyn_cast<scf::ForOp>(op)) {
      if (loop)
        return std::nullopt;
      loop = f;
    } else if (auto g = dyn_cast<GridOp>(op)) {
      grid = g;
    } else if (isa<scf::IfOp, UncheckedOp, LoadOp, GatherOp>(op)) {
      return std::nullopt;
    }
  }
  // Programs loop over the logical grid's tiles, so the grid must be
  // declared, 2-D, and the program's place in it read only as m and n.
  if (!grid || grid.getExtents().size() != 2 ||
      kernel.walk([](NumProgramsOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return std::nullopt;
  if (!loop || loop.getInitArgs().size() != 1 ||
      !isConstantIndex(loop.getLowerBound(), 0) ||
      !isConstantIndex(loop.getStep(), 1) || !isZeroSplat(loop.getInitArgs()[0]))
    return std::nullopt;
  auto accType = dyn_cast<RankedTensorType>(loop.getResult(0).getType());
  if (!accType || accType.getRank() != 2 || !accType.getElementType().isF32())
    return std::nullopt;
  int64_t bm = accType.getDimSize(0), bn = accType.getDimSize(1);

  // The body: two loads, a transpose of w's tile, the dot, the yield.
  Block &inner = *loop.getBody();
  if (inner.getOperations().size() != 5)
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(inner.getTerminator());
  auto dot = yield.getOperand(0).getDefiningOp<DotOp>();
  if (!dot || dot->getBlock() != &inner ||
      dot.getAcc() != loop.getRegionIterArgs()[0])
    return std::nullopt;
  auto xLoad = dot.getA().getDefiningOp<LoadOp>();
  auto permute = dot.getB().getDefiningOp<PermuteOp>();
  if (!xLoad || !permute ||
      permute.getPermutation() != ArrayRef<int64_t>{1, 0})
    return std::nullopt;
  auto wLoad = permute.getSource().getDefiningOp<LoadOp>();
  if (!wLoad)
    return std::nullopt;
  Type element = xLoad.getResult().getType().getElementType();
  if (!(element.isF16() || element.isBF16()) ||
      wLoad.getResult().getType().getElementType() != element)
    return std::nullopt;
  for (LoadOp l : {xLoad, wLoad}) {
    if (l->getBlock() != &inner || l.getIndices().size() != 2 ||
        l.getIndices()[1] != loop.getInductionVar() ||
        loop->isAncestor(l.getIndices()[0].getParentBlock()->getParentOp()))
      return std::nullopt;
    if (auto pad = l.getPadding()) {
      auto f = dyn_cast<FloatAttr>(*pad);
      if (!f || !f.getValue().isZero())
        return std::nullopt;
    }
  }
  Value m = xLoad.getIndices()[0], n = wLoad.getIndices()[0];
  auto isProgramId = [&](Value v, int64_t dim) {
    auto pid = v.getDefiningOp<ProgramIdOp>();
    return pid && pid->getBlock() == &body &&
           static_cast<int64_t>(pid.getDim()) == dim;
  };
  if (!isProgramId(m, 0) || !isProgramId(n, 1))
    return std::nullopt;
  auto x = partitionArgument(kernel, xLoad.getSource(), {bm, kBK},
                             OwnershipMode::In);
  auto w = partitionArgument(kernel, wLoad.getSource(), {bn, kBK},
                             OwnershipMode::In);
  if (!x || !w)
    return std::nullopt;
  // The K loop covers x's tiles along K.
  auto count = loop.getUpperBound().getDefiningOp<NumTilesOp>();
  if (!count || count.getPartition() != xLoad.getSource() ||
      count.getIndex() != 1)
    return std::nullopt;

  // The accumulator is converted and stored, whole, to y[m, n].
  if (!loop.getResult(0).hasOneUse())
    return std::nullopt;
  auto convert = dyn_cast<ConvertOp>(*loop.getResult(0).getUsers().begin());
  if (!convert || !convert.getResult().hasOneUse() ||
      convert.getResult().getType().getElementType() != element)
    return std::nullopt;
  auto store = dyn_cast<StoreOp>(*convert.getResult().getUsers().begin());
  if (!store || !store.getIndices().empty())
    return std::nullopt;
  auto own = store.getDest().getDefiningOp<OwnOp>();
  if (!own || own.getIndices().size() != 2 || own.getIndices()[0] != m ||
      own.getIndices()[1] != n)
    return std::nullopt;
  auto y = partitionArgument(kernel, own.getPartition(), {bm, bn},
                             OwnershipMode::Out);
  if (!y || cast<ViewType>(kernel.getArgumentTypes()[*y]).getElementType() !=
                element)
    return std::nullopt;

  if ((bm != 64 && bm != 128) ||
      bn % HopperMatmulPlan::kEpilogueColumns != 0 || bn < 64 || bn > 256)
    return std::nullopt;
  HopperMatmulPlan plan{*x,      *w,         *y,
                        bm,      bn,         kBK,
                        /*stages=*/0,        bm / 64,
                        element, m,          n,
                        grid.getExtents()[0], grid.getExtents()[1],
                        loop,    convert,    store};
  plan.stages = std::min<int64_t>(
      8, (kMaxSharedBytes - 1024 - plan.epilogueBytes()) /
             (plan.stageBytes() + 16));
  if (plan.stages < 2)
    return std::nullopt;
  return plan;
}

//===----------------------------------------------------------------------===//
// The lowering
//===----------------------------------------------------------------------===//

namespace {
/// Builds the producer/consumer kernel body for one plan.
struct HopperMatmulEmitter {
  GPUKernelLowering &l;
  const HopperMatmulPlan &plan;
  OpBuilder &b;
  Location loc;
  Value shared; ///< !llvm.ptr<3> to the dynamic shared memory

  Type i32() { return b.getI32Type(); }
  Type i64() { return b.getI64Type(); }
  Value c32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value c64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, loc, i32(), index);
  }
  Value sharedAt(Value byteOffset) {
    auto ptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
    return LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), shared,
                               ValueRange{byteOffset});
  }
  /// Where the epilogue buffers start (after the stages; 1024-aligned).
  int64_t epilogueOffset() const { return plan.stages * plan.stageBytes(); }
  /// Barrier `i` (i32) of the full (or empty) ring.
  Value barrier(Value stage, bool empty) {
    int64_t base = epilogueOffset() + plan.epilogueBytes() +
                   (empty ? 8 * plan.stages : 0);
    Value offset = arith::AddIOp::create(
        b, loc, c32(base), arith::MulIOp::create(b, loc, stage, c32(8)));
    return sharedAt(offset);
  }

  /// The ring slot of K step `k` (i32, counted over all of the program's
  /// tiles) and the parity of its round.
  std::pair<Value, Value> stageOf(Value k) {
    Value round = arith::DivUIOp::create(b, loc, k, c32(plan.stages));
    return {arith::RemUIOp::create(b, loc, k, c32(plan.stages)),
            arith::AndIOp::create(b, loc, round, c32(1))};
  }
  void wait(Value barrier, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parity,
                                          c32(10000000));
  }
  void release(Value stage) {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), barrier(stage, true),
                                   Value());
  }
  /// The consumer warpgroup's named barrier (0 is the block's).
  void syncConsumer(Value consumer) {
    NVVM::BarrierOp::create(
        b, loc, TypeRange{},
        arith::AddIOp::create(b, loc, toI32(consumer), c32(1)), c32(128),
        NVVM::BarrierReductionAttr(), Value());
  }

  /// The wgmma shared-memory matrix descriptor of a K-major tile at shared
  /// address `addr` (i64) written by TMA with the 128-byte swizzle: 8-row
  /// groups 1024 bytes apart.
  Value descriptor(Value addr) {
    int64_t fixed = (int64_t{1} << 62) | (int64_t{1024 >> 4} << 32) | (1 << 16);
    Value start = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, addr, c64(4)), c64(0x3FFF));
    return arith::OrIOp::create(b, loc, start, c64(fixed));
  }

  /// The program's tiles of the logical grid, m fastest (the order a
  /// one-program-per-tile launch runs them in; bands of 8 or 16 tile rows
  /// measured slower on 11 of 12 Qwen3-8B shapes): from its linear block
  /// id in steps of the launched block count, so any launch grid covers
  /// each tile exactly once. `body(m, n, k)` gets the running K-step count
  /// `k` (i32) and returns it advanced.
  Value forEachTile(Value k0,
                    llvm::function_ref<Value(Value, Value, Value)> body);

  LogicalResult emit();
  void produce(Value numK, Value xMap, Value wMap);
  void consume(Value numK, Value consumer);
  void storeTile(Value acc, Value m, Value n, Value consumer);
};
} // namespace

Value HopperMatmulEmitter::forEachTile(
    Value k0, llvm::function_ref<Value(Value, Value, Value)> body) {
  Value gridM = l.lookup(plan.gridM);
  Value tiles = arith::MulIOp::create(b, loc, gridM, l.lookup(plan.gridN));
  auto id = [&](gpu::Dimension d) -> Value {
    return gpu::BlockIdOp::create(b, loc, d);
  };
  auto count = [&](gpu::Dimension d) -> Value {
    return gpu::GridDimOp::create(b, loc, d);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  using gpu::Dimension;
  Value first = add(id(Dimension::x),
                    mul(count(Dimension::x),
                        add(id(Dimension::y),
                            mul(count(Dimension::y), id(Dimension::z)))));
  Value step = mul(count(Dimension::x),
                   mul(count(Dimension::y), count(Dimension::z)));
  auto loop = scf::ForOp::create(b, loc, first, tiles, step, ValueRange{k0});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  Value m = arith::RemUIOp::create(b, loc, t, gridM);
  Value n = arith::DivUIOp::create(b, loc, t, gridM);
  Value next = body(m, n, loop.getRegionIterArgs()[0]);
  scf::YieldOp::create(b, loc, next);
  return loop.getResult(0);
}

LogicalResult HopperMatmulEmitter::emit() {
  MLIRContext *ctx = b.getContext();
  // The dynamic shared memory: a zero-length external array aligned for
  // the 128-byte swizzle (1024 bytes).
  auto module = l.func->getParentOfType<gpu::GPUModuleOp>();
  if (!module.lookupSymbol(kSharedSymbol)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kSharedSymbol, Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }
  shared = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 3), kSharedSymbol);

  Block &entry = l.func.getBody().front();
  unsigned numArgs = entry.getNumArguments();
  Value xMap = entry.getArgument(numArgs - 2);
  Value wMap = entry.getArgument(numArgs - 1);

  Value numK = l.lookup(cast<scf::ForOp>(plan.loop).getUpperBound());

  // Thread 0 sets up the barriers: a full barrier completes when the
  // stage's bytes have landed (one arrival: the producer's expect_tx); an
  // empty one when every consumer warp has released the stage.
  Value tid = l.threadId();
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        l.index(0));
  auto init = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&init.getThenRegion().front());
    for (int64_t s = 0; s < plan.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, barrier(c32(s), false), c32(1),
                                   Value());
      NVVM::MBarrierInitOp::create(b, loc, barrier(c32(s), true),
                                   c32(4 * plan.consumers), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);

  Value warpgroup = arith::DivUIOp::create(b, loc, tid, l.index(128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, l.index(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&roles.getThenRegion().front());
    produce(numK, xMap, wMap);
    b.setInsertionPointToStart(&roles.getElseRegion().front());
    consume(numK, arith::SubIOp::create(b, loc, warpgroup, l.index(1)));
  }
  return success();
}

void HopperMatmulEmitter::produce(Value numK, Value xMap, Value wMap) {
  // The producer needs few registers; the consumers take them.
  NVVM::SetMaxRegisterOp::create(b, loc, 40,
                                 NVVM::SetMaxRegisterAction::decrease);
  Value isIssuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         l.threadId(), l.index(0));
  auto issuer = scf::IfOp::create(b, loc, isIssuer, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&issuer.getThenRegion().front());
  // The ring runs on across tiles: the next tile's first stages load
  // while the consumers store the last one.
  forEachTile(c32(0), [&](Value m, Value n, Value k0) {
    Value rowX = toI32(arith::MulIOp::create(b, loc, m, l.index(plan.bm)));
    Value rowW = toI32(arith::MulIOp::create(b, loc, n, l.index(plan.bn)));
    auto loop = scf::ForOp::create(b, loc, l.index(0), numK, l.index(1),
                                   ValueRange{k0});
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kStep = loop.getRegionIterArgs()[0];
    auto [stage, parity] = stageOf(kStep);
    // Wait until the consumers released the stage's previous round (the
    // first round passes: parity 1 of a fresh barrier counts as complete).
    wait(barrier(stage, true), arith::XOrIOp::create(b, loc, parity, c32(1)));
    Value full = barrier(stage, false);
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full,
                                           c32(plan.stageBytes()),
                                           NVVM::MemScopeKind::CTA, false,
                                           Value());
    Value base = arith::MulIOp::create(b, loc, stage, c32(plan.stageBytes()));
    Value col = arith::MulIOp::create(b, loc, toI32(loop.getInductionVar()),
                                      c32(plan.bk));
    auto cluster = LLVM::LLVMPointerType::get(b.getContext(), 7);
    auto load = [&](Value map, Value offset, Value row) {
      Value dst =
          LLVM::AddrSpaceCastOp::create(b, loc, cluster, sharedAt(offset));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, dst, map, ValueRange{col, row}, full, ValueRange{}, Value(),
          Value(), NVVM::TMALoadMode::TILE, false, nullptr, Value());
    };
    load(xMap, base, rowX);
    load(wMap,
         arith::AddIOp::create(b, loc, base, c32(plan.bm * plan.bk * 2)),
         rowW);
    scf::YieldOp::create(b, loc,
                         ValueRange{arith::AddIOp::create(b, loc, kStep, c32(1))});
    return loop.getResult(0);
  });
}

void HopperMatmulEmitter::consume(Value numK, Value consumer) {
  MLIRContext *ctx = b.getContext();
  NVVM::SetMaxRegisterOp::create(b, loc, plan.consumers == 1 ? 240 : 232,
                                 NVVM::SetMaxRegisterAction::increase);
  int64_t fragments = plan.bn / 2; // f32 accumulators per thread
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(fragments, b.getF32Type()));
  Value sharedBase =
      LLVM::PtrToIntOp::create(b, loc, i64(), shared); // shared window address
  Value lane = arith::RemUIOp::create(b, loc, l.threadId(), l.index(32));
  Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         lane, l.index(0));
  Value rowOffset = arith::MulIOp::create(
      b, loc, arith::IndexCastOp::create(b, loc, i64(), consumer),
      c64(64 * kSwizzleBytes));
  Type element = plan.element;
  NVVM::WGMMATypes wgmmaType =
      element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  // The stage of the K step before `kStep` (i32, > 0).
  auto previous = [&](Value kStep) -> Value {
    return arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, kStep, c32(plan.stages - 1)),
        c32(plan.stages));
  };

  forEachTile(c32(0), [&](Value m, Value n, Value k0) {
    Value zero = LLVM::ZeroOp::create(b, loc, accType);
    auto loop = scf::ForOp::create(b, loc, l.index(0), numK, l.index(1),
                                   ValueRange{zero, k0});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value kStep = loop.getRegionIterArgs()[1];
      auto [stage, parity] = stageOf(kStep);
      wait(barrier(stage, false), parity);
      Value stageBase = arith::AddIOp::create(
          b, loc, sharedBase,
          arith::MulIOp::create(b, loc,
                                arith::ExtUIOp::create(b, loc, i64(), stage),
                                c64(plan.stageBytes())));
      Value aBase = arith::AddIOp::create(b, loc, stageBase, rowOffset);
      Value bBase = arith::AddIOp::create(b, loc, stageBase,
                                          c64(plan.bm * kSwizzleBytes));
      NVVM::WgmmaFenceAlignedOp::create(b, loc);
      Value acc = loop.getRegionIterArgs()[0];
      for (int64_t kk = 0; kk < plan.bk / 16; ++kk) {
        // K steps of 16 elements advance 32 bytes inside the swizzled row.
        Value da =
            descriptor(arith::AddIOp::create(b, loc, aBase, c64(32 * kk)));
        Value db =
            descriptor(arith::AddIOp::create(b, loc, bBase, c64(32 * kk)));
        acc = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accType, acc, da, db,
            NVVM::MMAShapeAttr::get(ctx, 64, plan.bn, 16), wgmmaType,
            wgmmaType, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            NVVM::MMALayout::row, NVVM::MMALayout::col, nullptr);
      }
      NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
      // One group stays in flight: when it is down to that, the previous
      // step's wgmma are done and their stage can be refilled.
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
      Value releases = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                loop.getInductionVar(), l.index(0)),
          isLeader);
      auto arrive = scf::IfOp::create(b, loc, releases, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&arrive.getThenRegion().front());
        release(previous(kStep));
      }
      scf::YieldOp::create(
          b, loc,
          ValueRange{acc, arith::AddIOp::create(b, loc, kStep, c32(1))});
    }
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    // The tile's last stage goes back before its epilogue, so the producer
    // refills it with the next tile's K steps meanwhile.
    Value kEnd = loop.getResult(1);
    Value releases = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, numK,
                              l.index(0)),
        isLeader);
    auto last = scf::IfOp::create(b, loc, releases, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&last.getThenRegion().front());
      release(previous(kEnd));
    }
    storeTile(loop.getResult(0), m, n, consumer);
    return kEnd;
  });
}

// The epilogue, through shared memory: thread (warp w, lane t) of a
// consumer holds rows w*16 + t/4 (+8) and column pairs 8j + 2(t%4) of its
// 64-row slice, which as direct 4-byte stores fill half of each 32-byte
// sector. Instead the slice goes out in chunks of 64 columns: the pairs
// are written to a 64 x 128-byte buffer (16-byte pieces XOR-swizzled by
// row, so neither side has bank conflicts), then read back as 16-byte
// pieces, eight threads per 128-byte row segment, and stored with the
// masking of every other store. Two buffers alternate, so one named
// barrier per chunk separates the writes from the reads of the buffer and
// the reads from its next writes.
void HopperMatmulEmitter::storeTile(Value acc, Value m, Value n,
                                    Value consumer) {
  Type element = plan.element;
  Value y = l.func.getBody().front().getArgument(plan.y);
  Value rows = memref::DimOp::create(b, loc, y, 0);
  Value cols = memref::DimOp::create(b, loc, y, 1);
  // 16-byte pieces go out whole where y's rows start 16-byte aligned
  // (address, offset and row stride); elsewhere element by element.
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, y);
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, y);
  Value firstByte = arith::AddIOp::create(
      b, loc, address,
      arith::MulIOp::create(b, loc, meta.getOffset(), l.index(2)));
  Value rowBytes = arith::MulIOp::create(b, loc, meta.getStrides()[0],
                                         l.index(2));
  Value aligned = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(
          b, loc, arith::OrIOp::create(b, loc, firstByte, rowBytes),
          l.index(16)),
      l.index(0));
  Value local = arith::RemUIOp::create(b, loc, l.threadId(), l.index(128));
  Value warp = arith::DivUIOp::create(b, loc, local, l.index(32));
  Value lane = arith::RemUIOp::create(b, loc, local, l.index(32));
  Value quad = arith::DivUIOp::create(b, loc, lane, l.index(4));
  // The fragment's rows in the slice; their row % 8 is `quad`.
  Value fragmentRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, l.index(16)), quad);
  Value pairByte = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, l.index(4)), l.index(4));
  Value sliceRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, m, l.index(plan.bm)),
      arith::MulIOp::create(b, loc, consumer, l.index(64)));
  Value buffers = arith::AddIOp::create(
      b, loc, c32(epilogueOffset()),
      arith::MulIOp::create(b, loc, toI32(consumer), c32(2 * 64 * 128)));
  auto pairType = VectorType::get({2}, element);
  auto pieceType = VectorType::get({8}, element);
  int64_t chunks = plan.bn / HopperMatmulPlan::kEpilogueColumns;
  for (int64_t c = 0; c < chunks; ++c) {
    Value buffer =
        arith::AddIOp::create(b, loc, buffers, c32((c % 2) * 64 * 128));
    for (int64_t jj = 0; jj < 8; ++jj) {
      int64_t j = 8 * c + jj;
      Value piece = toI32(arith::MulIOp::create(
          b, loc, arith::XOrIOp::create(b, loc, quad, l.index(jj)),
          l.index(16)));
      for (int64_t half = 0; half < 2; ++half) {
        Value row = arith::AddIOp::create(b, loc, fragmentRow,
                                          l.index(8 * half));
        SmallVector<Value> pair;
        for (int64_t e = 0; e < 2; ++e) {
          Value v = LLVM::ExtractValueOp::create(b, loc, acc,
                                                 4 * j + 2 * half + e);
          pair.push_back(arith::TruncFOp::create(b, loc, element, v));
        }
        Value offset = arith::AddIOp::create(
            b, loc, buffer,
            arith::AddIOp::create(
                b, loc, toI32(arith::MulIOp::create(b, loc, row, l.index(128))),
                arith::AddIOp::create(b, loc, piece, toI32(pairByte))));
        Value vec = vector::FromElementsOp::create(b, loc, pairType, pair);
        LLVM::StoreOp::create(b, loc, vec, sharedAt(offset), /*alignment=*/4);
      }
    }
    syncConsumer(consumer);
    // 64 rows x 8 pieces, four per thread.
    for (int64_t q = 0; q < 4; ++q) {
      Value p = arith::AddIOp::create(b, loc, local, l.index(128 * q));
      Value row = arith::DivUIOp::create(b, loc, p, l.index(8));
      Value pieceIndex = arith::RemUIOp::create(b, loc, p, l.index(8));
      Value swizzled = arith::XOrIOp::create(
          b, loc, pieceIndex, arith::RemUIOp::create(b, loc, row, l.index(8)));
      Value offset = arith::AddIOp::create(
          b, loc, buffer,
          toI32(arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, row, l.index(128)),
              arith::MulIOp::create(b, loc, swizzled, l.index(16)))));
      Value v = LLVM::LoadOp::create(b, loc, pieceType, sharedAt(offset),
                                     /*alignment=*/16);
      Value gRow = arith::AddIOp::create(b, loc, sliceRow, row);
      Value gCol = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, n, l.index(plan.bn)),
          arith::AddIOp::create(
              b, loc, l.index(HopperMatmulPlan::kEpilogueColumns * c),
              arith::MulIOp::create(b, loc, pieceIndex, l.index(8))));
      Value rowIn =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gRow, rows);
      auto inRows = scf::IfOp::create(b, loc, rowIn, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&inRows.getThenRegion().front());
      Value whole = arith::AndIOp::create(
          b, loc, aligned,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                arith::AddIOp::create(b, loc, gCol, l.index(8)),
                                cols));
      auto split = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
      b.setInsertionPointToStart(&split.getThenRegion().front());
      auto st = vector::StoreOp::create(b, loc, v, y, ValueRange{gRow, gCol});
      st.setAlignment(uint64_t{16});
      b.setInsertionPointToStart(&split.getElseRegion().front());
      for (int64_t e = 0; e < 8; ++e) {
        Value col = arith::AddIOp::create(b, loc, gCol, l.index(e));
        auto in = scf::IfOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, cols),
            /*withElse=*/false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&in.getThenRegion().front());
        Value elt = vector::ExtractOp::create(b, loc, v, e);
        memref::StoreOp::create(b, loc, elt, y, ValueRange{gRow, col});
      }
    }
  }
  // With an odd chunk count the next tile's first chunk reuses the buffer
  // this tile's last read: wait for those reads.
  if (chunks % 2 == 1)
    syncConsumer(consumer);
}

LogicalResult GPUKernelLowering::lowerHopperMatmul() {
  HopperMatmulEmitter emitter{*this, *hopper, b, hopper->loop->getLoc(),
                              Value()};
  return emitter.emit();
}
