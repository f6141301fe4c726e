//===- LowerHopperMatmul.cpp - tiled matmuls as TMA + wgmma kernels -------===//
//
// The kernel structure that reaches cuBLAS on Hopper (notes in
// docs/dialect-lowering.md): a producer warpgroup whose one thread issues
// TMA loads of the x and w tiles into a ring of shared-memory stages, and
// consumer warpgroups (64 rows of the output tile each) that wait for a
// stage's full barrier, issue wgmma from it and release it through its
// empty barrier. TMA reads outside the tensor as zeros, which is the
// padding the tile semantics ask for; the result is stored with the
// per-element masking of every other store.
//
//===----------------------------------------------------------------------===//

#include "OpLowerings.h"

#include "tile/Conversion/Utils/ElementConversion.h"

#include "tile/Conversion/TileToGPU/HopperMatmul.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

namespace {
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
  bool modeMatches = mode == OwnershipMode::In ? view.isShared()
                                               : view.getMode() == mode;
  if (!modeMatches || view.getStrides().size() != 2 ||
      view.getStrides().back() != 1)
    return std::nullopt;
  return argumentIndex(kernel, p.getView());
}
} // namespace

bool tile::hasHopperMatmul(StringRef chip) { return chip == "sm_90a"; }

bool tile::isMatmulCandidate(KernelOp kernel) {
  bool found = false;
  kernel.walk([&](DotOp dot) {
    if (dot->getParentOfType<scf::ForOp>())
      found = true;
  });
  return found;
}

std::optional<HopperMatmulPlan> tile::planHopperMatmul(KernelOp kernel,
                                                       std::string *whyNot) {
  auto no = [&](const char *why) {
    if (whyNot)
      *whyNot = why;
    return std::nullopt;
  };
  Block &body = kernel.getBody().front();
  scf::ForOp loop;
  for (Operation &op : body) {
    if (auto f = dyn_cast<scf::ForOp>(op)) {
      if (loop)
        return no("more than one loop in the kernel body");
      loop = f;
    } else if (isa<scf::IfOp, UncheckedOp, LoadOp, GatherOp>(op)) {
      return no("an if, unchecked region, load or gather outside the K loop");
    }
  }
  // The loop's bounds may be any values computed before it (a program's
  // share of K in a split-K GEMM): the producer loads the tiles the loop
  // variable indexes, and TMA reads those past the tensor as the loads'
  // zero padding.
  if (!loop || loop.getInitArgs().size() != 1 ||
      !isConstantIndex(loop.getStep(), 1) || !isZeroSplat(loop.getInitArgs()[0]))
    return no("no K loop by 1 carrying one accumulator that starts at zero");
  auto accType = dyn_cast<RankedTensorType>(loop.getResult(0).getType());
  if (!accType || accType.getRank() != 2 || !accType.getElementType().isF32())
    return no("the accumulator is not a 2-D f32 tile");
  int64_t bm = accType.getDimSize(0), bn = accType.getDimSize(1);

  // The body: x's load, w's load (or two, stacked), a transpose of w's
  // tile, the dot, the yield.
  Block &inner = *loop.getBody();
  auto yield = cast<scf::YieldOp>(inner.getTerminator());
  auto dot = yield.getOperand(0).getDefiningOp<DotOp>();
  if (!dot || dot->getBlock() != &inner ||
      dot.getAcc() != loop.getRegionIterArgs()[0])
    return no("the loop does not yield a dot into its accumulator");
  auto xLoad = dot.getA().getDefiningOp<LoadOp>();
  auto permute = dot.getB().getDefiningOp<PermuteOp>();
  if (!xLoad || !permute ||
      permute.getPermutation() != ArrayRef<int64_t>{1, 0})
    return no("the dot's B is not a transpose of a loaded tile");
  SmallVector<LoadOp, 2> wLoads;
  if (auto w = permute.getSource().getDefiningOp<LoadOp>()) {
    wLoads.push_back(w);
  } else if (auto cat = permute.getSource().getDefiningOp<ConcatOp>()) {
    if (cat.getDim() != 0 || cat.getInputs().size() != 2)
      return no("w is stacked from other than two loads along rows");
    for (Value in : cat.getInputs()) {
      auto w = in.getDefiningOp<LoadOp>();
      if (!w || !w->hasOneUse())
        return no("a stacked part of w is not a load used once");
      wLoads.push_back(w);
    }
  } else {
    return no("w is neither a load nor a concat of two");
  }
  int64_t wParts = wLoads.size();
  // x's load, w's loads, their concat where stacked, the permute, the dot
  // and the yield: nothing else runs in the loop but constants (a load's
  // constant row index).
  int64_t work = llvm::count_if(inner, [](Operation &op) {
    return !isa<arith::ConstantOp>(op);
  });
  if (work != 4 + wParts + (wParts == 2 ? 1 : 0))
    return no("other work in the K loop besides the loads, the transpose and the dot");
  Type element = xLoad.getResult().getType().getElementType();
  if (!(element.isF16() || element.isBF16()))
    return no("operands are not f16 or bf16");
  SmallVector<LoadOp, 3> loads{xLoad};
  loads.append(wLoads.begin(), wLoads.end());
  for (LoadOp l : loads) {
    if (l.getResult().getType().getElementType() != element ||
        l->getBlock() != &inner || l.getIndices().size() != 2 ||
        l.getIndices()[1] != loop.getInductionVar() ||
        (loop->isAncestor(l.getIndices()[0].getParentBlock()->getParentOp()) &&
         !matchPattern(l.getIndices()[0], m_Constant())))
      return no("an operand load not indexed [row, k] by the loop, or of another element type");
    if (auto pad = l.getPadding()) {
      auto f = dyn_cast<FloatAttr>(*pad);
      if (!f || !f.getValue().isZero())
        return no("an operand load pads with other than zero");
    }
  }
  Value m = xLoad.getIndices()[0];
  auto x = partitionArgument(kernel, xLoad.getSource(), {bm, kBK},
                             OwnershipMode::In);
  std::optional<unsigned> w;
  SmallVector<Value, 2> wRows;
  for (LoadOp l : wLoads) {
    auto arg = partitionArgument(kernel, l.getSource(), {bn / wParts, kBK},
                                 OwnershipMode::In);
    if (!arg || (w && *arg != *w))
      return no("the parts of w load from different arguments, or not as [bn, 64] tiles of an `in` view with unit inner stride");
    w = arg;
    wRows.push_back(l.getIndices()[0]);
  }
  if (!x || !w)
    return no("x or w is not a [b, 64] tile of an `in` view argument with unit inner stride");
  // After the loop: the epilogue computing one tile stored, whole, to
  // y[m, n]. Its ops run on the accumulator's registers (wgmma's layout:
  // a thread holds column pairs of two rows), so each must map register to
  // register: column slices at multiples of 8 of whole rows, converts,
  // splats of constants and element-wise ops. The stored tile may be the
  // result's transpose (y[n, m]: weights as the dot's A, a few tokens as
  // its B), which the store writes element by element. Anything else after
  // the loop (other than owning y's tile, constants, the return) is not
  // planned.
  Operation *storeOp = nullptr;
  PermuteOp transpose;
  SmallVector<Operation *> epilogue;
  llvm::SmallPtrSet<Value, 16> computed{loop.getResult(0)};
  for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
    if (isa<ReturnOp, OwnOp>(op))
      continue;
    if (auto st = dyn_cast<StoreOp>(op)) {
      if (storeOp || !computed.count(st.getValue()))
        return no("more than one store, or a store of a value not computed from the accumulator");
      storeOp = op;
      continue;
    }
    if (auto permute = dyn_cast<PermuteOp>(op)) {
      if (transpose || !computed.count(permute.getSource()) ||
          permute.getPermutation() != ArrayRef<int64_t>{1, 0} ||
          !permute.getResult().hasOneUse() ||
          !isa<StoreOp>(*permute.getResult().getUsers().begin()))
        return no("an epilogue transpose other than one of the stored tile");
      transpose = permute;
      computed.insert(permute.getResult());
      continue;
    }
    bool tensorResult = op->getNumResults() == 1 &&
                        isa<RankedTensorType>(op->getResult(0).getType());
    if (!tensorResult) {
      if (isa<arith::ConstantOp>(op))
        continue;
      return no("work after the loop other than the epilogue on the accumulator");
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (type.getRank() != 2 || type.getDimSize(0) != bm ||
        type.getDimSize(1) % 8 != 0)
      return no("an epilogue tile not [bm, 8n]");
    bool fromEpilogue = llvm::all_of(
        op->getOperands(), [&](Value v) { return computed.count(v) != 0; });
    if (auto slice = dyn_cast<SliceOp>(op)) {
      ArrayRef<int64_t> at = slice.getOffsets();
      if (!fromEpilogue || at[0] != 0 || at[1] % 8 != 0)
        return no("an epilogue slice not of whole rows at a multiple of 8 columns");
    } else if (auto splat = dyn_cast<SplatOp>(op)) {
      // A constant, or a scalar the kernel computed before the loop.
      Value v = splat.getValue();
      Operation *def = v.getDefiningOp();
      bool before = def ? def->getBlock() == loop->getBlock() &&
                              def->isBeforeInBlock(loop)
                        : v.getParentBlock() == loop->getBlock();
      if (!before && !(def && isa<arith::ConstantOp>(def)))
        return no("an epilogue splat of a value computed after the loop");
    } else if (!(isa<ConvertOp>(op) || op->hasTrait<OpTrait::Elementwise>()) ||
               !fromEpilogue || op->getNumRegions() != 0) {
      return no("an epilogue op that does not map register to register (not element-wise or a convert)");
    }
    computed.insert(op->getResult(0));
    epilogue.push_back(op);
  }
  auto store = dyn_cast_or_null<StoreOp>(storeOp);
  if (!store || !store.getIndices().empty())
    return no("no whole-tile store of the result");
  // The tile as the accumulator holds it: [bm, yCols].
  Value result = transpose ? transpose.getSource() : store.getValue();
  // The result is stored in the operands' type, or as the f32 accumulator
  // (a split-K GEMM's partial sums).
  auto stored = cast<RankedTensorType>(result.getType());
  Type storedElement = stored.getElementType();
  if (storedElement != element && !storedElement.isF32())
    return no("the stored element type is neither the operands' nor f32");
  // y's tile index along the accumulator's rows (x's row index) and along
  // its columns: [m, n], or [n, m] where transposed.
  const unsigned rowDim = transpose ? 1 : 0;
  auto own = store.getDest().getDefiningOp<OwnOp>();
  if (!own || own.getIndices().size() != 2 || own.getIndices()[rowDim] != m)
    return no("the stored tile is not owned at [m, n] (or [n, m] transposed) with x's row index");
  int64_t yCols = stored.getDimSize(1);
  auto y = partitionArgument(
      kernel, own.getPartition(),
      transpose ? SmallVector<int64_t>{yCols, bm} : SmallVector<int64_t>{bm, yCols},
      OwnershipMode::Out);
  if (!y || cast<ViewType>(kernel.getArgumentTypes()[*y]).getElementType() !=
                storedElement)
    return no("y is not an `out` view of the stored element type, tiled as stored");

  // wgmma's N: a multiple of 8 up to 256; each part of w whole 8-row groups.
  if ((bm != 64 && bm != 128) || bn % (8 * wParts) != 0 || bn > 256)
    return no("bm not 64 or 128, or bn not a multiple of 8 per part of w up to 256");
  HopperMatmulPlan plan;
  plan.x = *x, plan.w = *w, plan.y = *y;
  plan.bm = bm, plan.bn = bn, plan.bk = kBK;
  plan.consumers = bm / 64, plan.wParts = wParts, plan.yCols = yCols;
  plan.element = element;
  plan.m = m, plan.yn = own.getIndices()[1 - rowDim], plan.wRows = wRows;
  plan.transpose = transpose;
  plan.loop = loop, plan.epilogue = epilogue, plan.store = store;
  plan.stages = std::min<int64_t>(8, plan.maxStages());
  if (plan.stages < 2)
    return no("fewer than 2 pipeline stages fit in shared memory");
  return plan;
}

//===----------------------------------------------------------------------===//
// The lowering
//===----------------------------------------------------------------------===//

namespace {
/// Builds the producer/consumer kernel body for one plan.
struct HopperMatmulEmitter {
  HopperMatmulLowering &l;
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
  /// Barrier `i` (i32) of the full (or empty) ring.
  Value barrier(Value stage, bool empty) {
    int64_t base = plan.stages * plan.stageBytes() + (empty ? 8 * plan.stages : 0);
    Value offset = arith::AddIOp::create(
        b, loc, c32(base), arith::MulIOp::create(b, loc, stage, c32(8)));
    return sharedAt(offset);
  }

  /// A tile index of the plan, lowered: a constant (which may sit in the K
  /// loop the plan replaces) made here, any other value computed before
  /// the loop.
  Value tileIndex(Value v) {
    APInt value;
    if (matchPattern(v, m_ConstantInt(&value)))
      return l.emit.index(value.getSExtValue());
    return l.map.lookup(v);
  }

  /// The ring slot of K step `k` (i32) and the parity of its round.
  std::pair<Value, Value> stageOf(Value k) {
    Value round = arith::DivUIOp::create(b, loc, k, c32(plan.stages));
    return {arith::RemUIOp::create(b, loc, k, c32(plan.stages)),
            arith::AndIOp::create(b, loc, round, c32(1))};
  }
  void wait(Value barrier, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parity,
                                          c32(10000000));
  }

  /// The wgmma descriptor of a K-major tile at shared address `addr`
  /// (i64), as TMA wrote it with the 128-byte swizzle.
  Value descriptor(Value addr) {
    return swizzle128Descriptor(b, loc, addr, /*leadingBytes=*/16);
  }

  LogicalResult emit();
  void produce(Value numK, Value firstK, Value xMap, Value wMap);
  void consume(Value numK, Value consumer);
};
} // namespace

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

  // The K steps, from the loop's first tile (left out where it is 0).
  auto kLoop = cast<scf::ForOp>(plan.loop);
  Value numK = l.map.lookup(kLoop.getUpperBound());
  Value firstK;
  if (!isConstantIndex(kLoop.getLowerBound(), 0)) {
    firstK = l.map.lookup(kLoop.getLowerBound());
    numK = arith::SubIOp::create(b, loc, numK, firstK);
  }

  // Thread 0 sets up the barriers: a full barrier completes when the
  // stage's bytes have landed (one arrival: the producer's expect_tx); an
  // empty one when every consumer warp has released the stage.
  Value tid = l.emit.threadId();
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        l.emit.index(0));
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

  Value warpgroup = arith::DivUIOp::create(b, loc, tid, l.emit.index(128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, l.emit.index(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&roles.getThenRegion().front());
    produce(numK, firstK, xMap, wMap);
    b.setInsertionPointToStart(&roles.getElseRegion().front());
    consume(numK, arith::SubIOp::create(b, loc, warpgroup, l.emit.index(1)));
  }
  return success();
}

void HopperMatmulEmitter::produce(Value numK, Value firstK, Value xMap,
                                  Value wMap) {
  // The producer needs few registers; the consumers take them.
  NVVM::SetMaxRegisterOp::create(b, loc, 40,
                                 NVVM::SetMaxRegisterAction::decrease);
  Value isIssuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         l.emit.threadId(), l.emit.index(0));
  auto issuer = scf::IfOp::create(b, loc, isIssuer, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&issuer.getThenRegion().front());
  Value rowX = toI32(arith::MulIOp::create(b, loc, tileIndex(plan.m),
                                           l.emit.index(plan.bm)));
  auto loop =
      scf::ForOp::create(b, loc, l.emit.index(0), numK, l.emit.index(1));
  b.setInsertionPointToStart(loop.getBody());
  Value k = toI32(loop.getInductionVar());
  auto [stage, parity] = stageOf(k);
  // Wait until the consumers released the stage's previous round (the
  // first round passes: parity 1 of a fresh barrier counts as complete).
  wait(barrier(stage, true), arith::XOrIOp::create(b, loc, parity, c32(1)));
  Value full = barrier(stage, false);
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full,
                                         c32(plan.stageBytes()),
                                         NVVM::MemScopeKind::CTA, false,
                                         Value());
  Value base = arith::MulIOp::create(b, loc, stage, c32(plan.stageBytes()));
  Value kTile = firstK ? arith::AddIOp::create(b, loc, toI32(firstK), k) : k;
  Value col = arith::MulIOp::create(b, loc, kTile, c32(plan.bk));
  auto cluster = LLVM::LLVMPointerType::get(b.getContext(), 7);
  auto load = [&](Value map, Value offset, Value row) {
    Value dst = LLVM::AddrSpaceCastOp::create(b, loc, cluster, sharedAt(offset));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, map, ValueRange{col, row}, full, ValueRange{}, Value(),
        Value(), NVVM::TMALoadMode::TILE, false, nullptr, Value());
  };
  load(xMap, base, rowX);
  // w's rows of the stage, one TMA box per part, stacked: the parts' boxes
  // are whole 1024-byte swizzle periods, so two of them lie exactly as one
  // box of their rows together would.
  int64_t partRows = plan.bn / plan.wParts;
  for (int64_t p = 0; p < plan.wParts; ++p) {
    Value rowW = toI32(arith::MulIOp::create(
        b, loc, tileIndex(plan.wRows[p]), l.emit.index(partRows)));
    load(wMap,
         arith::AddIOp::create(b, loc, base,
                               c32((plan.bm + p * partRows) * plan.bk * 2)),
         rowW);
  }
}

void HopperMatmulEmitter::consume(Value numK, Value consumer) {
  MLIRContext *ctx = b.getContext();
  NVVM::SetMaxRegisterOp::create(b, loc, plan.consumers == 1 ? 240 : 232,
                                 NVVM::SetMaxRegisterAction::increase);
  int64_t fragments = plan.bn / 2; // f32 accumulators per thread
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(fragments, b.getF32Type()));
  Value zero = LLVM::ZeroOp::create(b, loc, accType);
  Value sharedBase =
      LLVM::PtrToIntOp::create(b, loc, i64(), shared); // shared window address
  Value lane =
      arith::RemUIOp::create(b, loc, l.emit.threadId(), l.emit.index(32));
  Value rowOffset = arith::MulIOp::create(
      b, loc, arith::IndexCastOp::create(b, loc, i64(), consumer),
      c64(64 * kSwizzleBytes));
  Type element = plan.element;
  NVVM::WGMMATypes wgmmaType =
      element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;

  auto loop = scf::ForOp::create(b, loc, l.emit.index(0), numK, l.emit.index(1),
                                 ValueRange{zero});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k = toI32(loop.getInductionVar());
    auto [stage, parity] = stageOf(k);
    wait(barrier(stage, false), parity);
    Value stageBase = arith::AddIOp::create(
        b, loc, sharedBase,
        arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64(), stage),
                              c64(plan.stageBytes())));
    Value aBase = arith::AddIOp::create(b, loc, stageBase, rowOffset);
    Value bBase = arith::AddIOp::create(b, loc, stageBase,
                                        c64(plan.bm * kSwizzleBytes));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    Value acc = loop.getRegionIterArgs()[0];
    for (int64_t kk = 0; kk < plan.bk / 16; ++kk) {
      // K steps of 16 elements advance 32 bytes inside the swizzled row.
      Value da = descriptor(arith::AddIOp::create(b, loc, aBase, c64(32 * kk)));
      Value db = descriptor(arith::AddIOp::create(b, loc, bBase, c64(32 * kk)));
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, accType, acc, da, db,
          NVVM::MMAShapeAttr::get(ctx, 64, plan.bn, 16), wgmmaType, wgmmaType,
          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          NVVM::MMALayout::row, NVVM::MMALayout::col, nullptr);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // One group stays in flight: when it is down to that, the previous
    // iteration's wgmma are done and their stage can be refilled.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value release = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                              loop.getInductionVar(), l.emit.index(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                              l.emit.index(0)));
    auto arrive = scf::IfOp::create(b, loc, release, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&arrive.getThenRegion().front());
      Value previous = arith::RemUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, k, c32(plan.stages - 1)),
          c32(plan.stages));
      NVVM::MBarrierArriveOp::create(b, loc, Type(), barrier(previous, true),
                                     Value());
    }
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  Value acc = loop.getResult(0);

  // The accumulator as a register vector. Thread (warp w, lane t) of
  // consumer c holds rows 64c + 16w + t/4 (+ 8) and, in registers 4j ..
  // 4j + 3, the column pair 8j + 2(t%4) of both rows: the m16n8 layout
  // mma.sync's accumulators have (FragmentLayouts.cpp's Acc over the
  // consumers' warps), so a slice of columns 8j .. is registers 4j ..,
  // and element-wise ops apply to the registers as they are.
  SmallVector<Value> elements;
  for (int64_t i = 0; i < fragments; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  auto regsOf = [&](Value tileValue) {
    auto type = cast<RankedTensorType>(tileValue.getType());
    return VectorType::get({type.getDimSize(1) / 2}, type.getElementType());
  };
  IRMapping regs;
  regs.map(plan.loop->getResult(0),
           vector::FromElementsOp::create(
               b, loc, regsOf(plan.loop->getResult(0)), elements));
  for (Operation *op : plan.epilogue) {
    Value result = op->getResult(0);
    VectorType type = regsOf(result);
    Value v;
    if (auto slice = dyn_cast<SliceOp>(op)) {
      Value src = regs.lookup(slice.getSource());
      SmallVector<int64_t> picked;
      for (int64_t i = 0; i < type.getNumElements(); ++i)
        picked.push_back(slice.getOffsets()[1] / 2 + i);
      v = vector::ShuffleOp::create(b, loc, src, src, picked);
    } else if (auto splat = dyn_cast<SplatOp>(op)) {
      // A constant is made here (the loop's lowering comes first); any
      // other scalar was computed before the loop.
      Value scalar = splat.getValue();
      if (auto c = scalar.getDefiningOp<arith::ConstantOp>())
        scalar = arith::ConstantOp::create(b, loc, c.getValue());
      else
        scalar = l.map.lookup(scalar);
      v = vector::BroadcastOp::create(b, loc, type, scalar);
    } else if (auto convert = dyn_cast<ConvertOp>(op)) {
      v = convertElements(b, loc, regs.lookup(convert.getSource()),
                          convert.getSource().getType().getElementType(),
                          type.getElementType(), convert.getRounding());
    } else {
      Operation *clone = b.clone(*op, regs);
      clone->getResult(0).setType(type);
      v = clone->getResult(0);
    }
    regs.map(result, v);
  }
  Value out = regs.lookup(plan.transpose ? plan.transpose->getOperand(0)
                                         : cast<StoreOp>(plan.store).getValue());

  // The store: thread (warp w, lane t) of a consumer holds rows
  // w*16 + t/4 (+8) and column pairs 8j + 2(t%4) of its 64-row slice.
  Value y = l.func.getBody().front().getArgument(plan.y);
  Value rows = memref::DimOp::create(b, loc, y, 0);
  Value cols = memref::DimOp::create(b, loc, y, 1);
  // Pairs go out as one 4-byte store where y's offset and row stride are
  // even (columns are); elsewhere element by element.
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, y);
  Value offsetOrStride =
      arith::OrIOp::create(b, loc, meta.getOffset(), meta.getStrides()[0]);
  Value isEven = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, offsetOrStride, l.emit.index(2)),
      l.emit.index(0));
  Value local =
      arith::RemUIOp::create(b, loc, l.emit.threadId(), l.emit.index(128));
  Value warp = arith::DivUIOp::create(b, loc, local, l.emit.index(32));
  Value row0 = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, tileIndex(plan.m),
                                l.emit.index(plan.bm)),
          arith::MulIOp::create(b, loc, consumer, l.emit.index(64))),
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, warp, l.emit.index(16)),
          arith::DivUIOp::create(b, loc, lane, l.emit.index(4))));
  Value col0 = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, tileIndex(plan.yn),
                            l.emit.index(plan.yCols)),
      arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, lane, l.emit.index(4)),
          l.emit.index(2)));
  if (plan.transpose) {
    // Accumulator row r, column c to y[c, r]: element by element (a pair
    // of columns is two rows of y).
    Value yRow0 = col0, yCol0 = row0;
    for (int64_t half = 0; half < 2; ++half) {
      Value col = arith::AddIOp::create(b, loc, yCol0, l.emit.index(8 * half));
      Value colIn =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, cols);
      auto inCols = scf::IfOp::create(b, loc, colIn, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&inCols.getThenRegion().front());
      for (int64_t j = 0; j < plan.yCols / 8; ++j)
        for (int64_t e = 0; e < 2; ++e) {
          Value row =
              arith::AddIOp::create(b, loc, yRow0, l.emit.index(8 * j + e));
          auto inRows = scf::IfOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows),
              /*withElse=*/false);
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPointToStart(&inRows.getThenRegion().front());
          memref::StoreOp::create(
              b, loc, vector::ExtractOp::create(b, loc, out, 4 * j + 2 * half + e), y,
              ValueRange{row, col});
        }
    }
    return;
  }
  // Pairs of the stored element type (the operands', or f32 partial sums).
  Type storedElement = cast<VectorType>(out.getType()).getElementType();
  auto pairType = VectorType::get({2}, storedElement);
  for (int64_t half = 0; half < 2; ++half) {
    Value row = arith::AddIOp::create(b, loc, row0, l.emit.index(8 * half));
    Value rowIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                        rows);
    auto inRows = scf::IfOp::create(b, loc, rowIn, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&inRows.getThenRegion().front());
    for (int64_t j = 0; j < plan.yCols / 8; ++j) {
      Value col = arith::AddIOp::create(b, loc, col0, l.emit.index(8 * j));
      SmallVector<Value> pair;
      for (int64_t e = 0; e < 2; ++e)
        pair.push_back(
            vector::ExtractOp::create(b, loc, out, 4 * j + 2 * half + e));
      Value both = arith::AndIOp::create(
          b, loc, isEven,
          arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult,
              arith::AddIOp::create(b, loc, col, l.emit.index(1)), cols));
      auto whole = scf::IfOp::create(b, loc, both, /*withElse=*/true);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&whole.getThenRegion().front());
      Value vec = vector::FromElementsOp::create(b, loc, pairType, pair);
      auto st = vector::StoreOp::create(b, loc, vec, y, ValueRange{row, col});
      st.setAlignment(uint64_t{2 * storedElement.getIntOrFloatBitWidth() / 8});
      b.setInsertionPointToStart(&whole.getElseRegion().front());
      Value colIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          col, cols);
      auto single = scf::IfOp::create(b, loc, colIn, /*withElse=*/false);
      b.setInsertionPointToStart(&single.getThenRegion().front());
      memref::StoreOp::create(b, loc, pair[0], y, ValueRange{row, col});
      Value next = arith::AddIOp::create(b, loc, col, l.emit.index(1));
      auto second = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, next, cols),
          /*withElse=*/false);
      b.setInsertionPointToStart(&second.getThenRegion().front());
      memref::StoreOp::create(b, loc, pair[1], y, ValueRange{row, next});
    }
  }
}

LogicalResult HopperMatmulLowering::lowerMatmul() {
  HopperMatmulEmitter emitter{*this, *state.hopper, b,
                              state.hopper->loop->getLoc(), Value()};
  return emitter.emit();
}
